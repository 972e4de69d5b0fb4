#!/bin/bash
# run_slurm_case.sh - submits the job scripts of jobs/ to the real Slurm of tests/slurm/cluster.sh with sbatch --wait, and checks what they leave.
#
# Usage: run_slurm_case.sh CASE --source DIR --multi-scal PATH --jacobi PATH [--cg PATH] --cluster DIR --work DIR [--deadline S]
# CASE, and what it pins:
#   multi-scal-single-node  single-node.sbatch runs the peer check and the benchmark, both
#                           verified; -o %x-%j.out; srun gets --ntasks-per-node and -c from
#                           the variables; without a module command the job names what it skipped
#   multi-scal-weak,        submit-scaling.sh weak|strong 1 2: one job per node count, each
#   multi-scal-strong       result verified with 2 ranks on every node (--ntasks-per-node);
#                           1 and 2 nodes inside one allocation; SHARDTAB_MODULES=""; the
#                           summary; strong: the default 4G doubles refused against the node's
#                           memory before anything starts
#   jacobi-single-node      jacobi-single-node.sbatch runs the three variants, each verified,
#                           JSON per run; a failing variant does not stop the next one
#   jacobi-weak,            submit-scaling.sh jacobi weak|strong 1 2: every variant verified
#   jacobi-strong           at 1 and 2 nodes, the edges between nodes through MPI; the summary
#   cg-strong               submit-scaling.sh cg strong 1 2: cg-strong-scaling.sbatch at 1, 2
#                           and 4 ranks of one node and at 8 ranks on 2 nodes (stream
#                           launches), both variants, each verified against the CPU's CG,
#                           SHARDTAB_ARGS passed (--repro: the same fingerprint at every rank
#                           and node count); the summary keyed by nodes and ranks; a
#                           MatrixMarket file through SHARDTAB_CG_MATRIX, at 1 and 2 nodes
#                           inside one allocation (SHARDTAB_NODE_COUNTS)
#   cg-refusals             rank counts, node counts, --launch persistent across nodes,
#                           variants, matrices, tolerance, memory and a missing binary refused
#                           before anything starts; a run cg refuses fails the job, naming
#                           it, and the next run still runs
#   cg-two-nodes            cg itself across the two nodes (srun -N 2, a rank each) verifies,
#                           "on 2 nodes"; 2 ranks on each node with --repro give the fingerprint
#                           of 2 ranks on one node; --launch persistent across them exits 2
#   run-local               jobs/local/run-local.sh inside an allocation (mpirun under Slurm)
#   modules                 a site's module list loaded for real inside the job; a missing
#                           module stops the job with a message
#   refusals                each refusal ends the job (or sbatch) non-zero with its message:
#                           --gres-flags=allow-task-sharing on an older Slurm, node counts
#                           beyond the allocation or the cluster, CPUs and GPUs beyond a node,
#                           jacobi rows and memory, a missing binary
#   one-node-cluster        cluster.sh brings a 1-node Slurm up beside the other, runs a job,
#                           refuses -N 2, stops the slurmstepd of a running job step, and
#                           brings it down with no daemon, slurmstepd or task left
#   pmix-fence              a PMIx fence without data waits for a task 2 s late on the
#                           other node (pmix_fence.py), and 10 two-node MPI steps on ob1
#                           (Open MPI's default here) start and verify
#   refused-skips           a refused cluster.sh exits 77 and a case on it skips, naming the reason
#   deadline                a case past its --deadline (stuck-job, under 4 s: a job that never
#                           ends) fails with status 1, naming the queue with its job, and
#                           cancels the job: the queue is empty after it
# The cluster (cluster.sh up DIR --nodes 2 --cpus 8 --gpus 4) runs the host-backend
# builds; the jobs get small sizes, and the layout variables that fit its nodes:
# SHARDTAB_GPUS_PER_NODE=2 ranks of SHARDTAB_CPUS_PER_TASK=4 CPUs (8 per node, the
# whole node: Frontier's -c 7 would need 14). Results are checked with
# tests/jobs/check_result.py, summaries with jobs/summarize.py.
# Exit 77 (ctest: skipped) when cluster.sh was refused, naming its reason.
#
# Stand-ins: none for Slurm. The 'modules' case uses Debian's environment-modules
# (a real 'module' command) with module files of its own: the Cray PE they stand
# for exists only on Cray sites.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

readonly skip_code=77
case_name=${1:?usage: run_slurm_case.sh CASE --source DIR --multi-scal PATH --jacobi PATH [--cg PATH --stream-check PATH --comm-check PATH] --cluster DIR --work DIR}
source_dir="" multi_scal="" jacobi="" cg="" stream_check="" comm_check="" cluster="" work="" deadline=""
shift
# shellcheck source=../lib/job_case.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/job_case.sh"
job_case_options run_slurm_case.sh source:source_dir multi-scal jacobi cg? stream-check? comm-check? cluster work deadline? -- "$@"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
job_case_enter

# shellcheck source=../lib/driver.sh
source "$source_dir/tests/lib/driver.sh"

# a case ends at its first failure (driver.sh's helpers call this fail)
fail() {
  echo "run_slurm_case.sh: FAIL ($case_name): $*" >&2
  if [[ -n ${job_out:-} && -f $job_out ]]; then
    echo "--- $job_out (last 40 lines)" >&2
    tail -n 40 "$job_out" >&2
  fi
  exit 1
}

# A case still running at --deadline seconds (ctest's timeout less a margin) says what it
# waits for: the queue, and the last lines of each job's output; then its jobs are cancelled,
# so that it fails naming them rather than being killed by ctest without a word. The
# watchdog ends with the case (its EXIT trap; a case that sets its own calls stop_watchdog).
watchdog=""
start_watchdog() {
  (
    set +e
    sleeper=""
    trap '[[ -z $sleeper ]] || kill "$sleeper" 2>/dev/null; exit 0' TERM
    sleep "$1" >/dev/null 2>&1 &
    sleeper=$!
    wait "$sleeper"
    # shellcheck source=/dev/null
    source "$(cat "$work/.cluster")/env.sh"   # the cluster the case uses now
    {
      echo "run_slurm_case.sh: FAIL ($case_name): still running after $1 s (--deadline); the queue:"
      squeue -o '%.6i %.24j %.2t %.8M %.5D %R' 2>&1 || true
      for out in "$work"/*.out; do
        [[ -f $out ]] || continue
        echo "--- $out (last 20 lines)"
        tail -n 20 "$out" || true
      done
      echo "run_slurm_case.sh: cancelling the queue's jobs"
    } >&2
    squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null || true
  ) &
  watchdog=$!
}
stop_watchdog() {
  [[ -z $watchdog ]] || kill "$watchdog" 2>/dev/null || true
  watchdog=""
}

# use_cluster DIR: point the Slurm commands at DIR's cluster, or skip when it was refused
use_cluster() {
  if [[ -f $1/refused ]]; then
    echo "skipped: Slurm could not be brought up here: $(cat "$1/refused")"
    exit "$skip_code"
  fi
  [[ -f $1/env.sh ]] || fail "no cluster in $1 (cluster.sh up $1 did not run, or failed)"
  echo "$1" >"$work/.cluster"   # for the watchdog
  # shellcheck source=/dev/null
  source "$1/env.sh"
}

# submit ARGS...: sbatch --wait ARGS; sets job_status, job_id and job_out (the -o file)
submit() {
  job_status=0
  sbatch --wait "$@" >"$work/submit.out" 2>"$work/submit.err" || job_status=$?
  job_id=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$work/submit.out")
  job_out=""
  if [[ -n $job_id ]]; then
    job_out=$(find "$work" -maxdepth 1 -name "*-$job_id.out" | head -n 1)
  fi
}

# expect_success WHAT ARGS...: the job must end with status 0
expect_success() {
  local what=$1
  shift
  local started=$SECONDS
  submit "$@"
  ((job_status == 0)) || fail "$what: job ${job_id:-?} ended with status $job_status: $(cat "$work/submit.err")"
  echo "ok: $what (job $job_id, $((SECONDS - started)) s)"
}

# expect_refusal WHAT PATTERN ARGS...: the job (or sbatch itself) must fail, saying PATTERN
expect_refusal() {
  local what=$1 pattern=$2 said
  shift 2
  submit "$@"
  ((job_status != 0)) || fail "$what: job ${job_id:-?} succeeded, expected a refusal"
  said=$work/submit.err
  [[ -n $job_out ]] && said=$job_out
  grep -Eq -- "$pattern" "$said" || fail "$what: status $job_status without saying '$pattern': $(tail -n 5 "$said")"
  echo "refused as expected: $what: status $job_status: $(grep -E -- "$pattern" "$said" | head -n 1)"
}

# stepds_of DIR [STEP]: the slurmstepd processes of DIR's cluster (their environment names
# its slurm.conf), or of its job step STEP only ("[JOB.STEP]"), one PID a line
stepds_of() {
  local pid
  for pid in $(pgrep -x slurmstepd); do
    { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$1/etc/slurm.conf" || continue
    if [[ -n ${2:-} ]] && ! { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF -- "$2"; then continue; fi
    echo "$pid"
  done
  return 0
}

# running PID: that process exists and has not exited (a zombie waits for init to reap it)
running() {
  kill -0 "$1" 2>/dev/null && [[ $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) != Z ]]
}

# job_ids FILE: the ids of 'Submitted batch job ID' lines, one a line
job_ids() {
  sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$1"
}

# check_summary FOLDER PROGRAM STUDY ROWS: summarize.py's table names the study, its CSV has
# ROWS rows ("variant-or-kernel:nodes:runs" each; cg's, several rank counts on one node:
# "variant:nodes:ranks:runs"), all verified, efficiency 1 at the fewest ranks;
# an unverified copy of one result then gives a FAILED row and exit status 1
check_summary() {
  local folder=$1 program=$2 study=$3 rows=$4 status=0
  "${summarize[@]}" "$folder" --csv summary.csv --plot summary.png >summary.txt || fail "summarize.py $folder: $(cat summary.txt)"
  cat summary.txt
  grep -q "^# $program $study scaling" summary.txt || fail "the summary does not call this a $program $study study"
  python3 - summary.csv "$study" "$rows" "$program" <<'PYTHON' || fail "summary.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
key = "variant" if "variant" in rows[0] else "kernel"
fields = [key, "nodes", "ranks", "runs"] if sys.argv[4] == "cg" else [key, "nodes", "runs"]
got = " ".join(":".join(r[field] for field in fields) for r in rows)
assert got == sys.argv[3], f"rows {got}, expected {sys.argv[3]}"
assert all(r["study"] == sys.argv[2] and r["verified"] == "true" for r in rows), rows
base = [r for r in rows if r["ranks"] == rows[0]["ranks"]]
column = "efficiency" if key == "variant" else "local_efficiency"
assert all(float(r[column]) == 1.0 for r in base if r[column]), base
print("summary.csv: ok,", len(rows), "rows:", got)
PYTHON
  mkdir -p unverified
  sed 's/"verified": true/"verified": false/' "$(find "$folder" -name '*.json' | sort | tail -n 1)" >unverified/run.json
  "${summarize[@]}" unverified --csv - >unverified.txt 2>&1 || status=$?
  if ((status != 1)) || ! grep -q 'FAILED$' unverified.txt; then
    fail "an unverified run was not flagged (status $status): $(cat unverified.txt)"
  fi
}

# ---- the environment every case shares ------------------------------------------------------
# (tests/lib/driver.sh, sourced above: the MPI environment of every test run)
while read -r variable; do   # a test run inside a Slurm job must not hand its job to ours
  unset "$variable"
done < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN)_' || true)
unset -f module ml 2>/dev/null || true   # no module command unless a case brings one
export MULTI_SCAL=$multi_scal JACOBI=$jacobi CG=$cg SHARDTAB_RESULTS_DIR=$work/results
export SHARDTAB_GPUS_PER_NODE=2 SHARDTAB_CPUS_PER_TASK=4 SBATCH_ACCOUNT=shardtab SBATCH_TIMELIMIT=5
# The jobs run beside the GPU builds (scripts/test.sh), up to 8 ranks on 2 cores: a rank may
# lag its peers by more than the default 10 s wait limit (seen once: cg at 8 ranks on 2 nodes
# gave up at a barrier). These cases test the jobs' plumbing, not the limit: 60 s.
export SHARDTAB_WAIT_TIMEOUT=60
[[ $case_name == refused-skips ]] || use_cluster "$cluster"
if [[ -n $deadline && $case_name != refused-skips ]]; then
  trap stop_watchdog EXIT
  start_watchdog "$deadline"
fi

case $case_name in
  multi-scal-single-node)
    export SHARDTAB_SHARD_ELEMS=4K SHARDTAB_ITERS=2
    expect_success "single-node.sbatch, 2 ranks x 4 CPUs" "$frontier/single-node.sbatch"
    [[ $(basename "$job_out") == multi_scal-$job_id.out ]] || fail "job output $job_out, expected multi_scal-$job_id.out (-o %x-%j.out)"
    dir=results/single-node-$job_id
    "${check[@]}" "$dir/check-peers.json" --ranks 2 --nodes 1 --peers || fail "peer check JSON"
    grep -q '^# check-peers: OK' "$dir/check-peers.txt" || fail "no '# check-peers: OK' in $dir/check-peers.txt"
    "${check[@]}" "$dir/multi_scal.json" --ranks 2 --nodes 1 --n 8192 || fail "benchmark JSON"
    grep -q '^launch *srun -N1 -n2 --ntasks-per-node=2 -c4 --gpus-per-task=1 --gpu-bind=closest$' "$dir/job.txt" ||
      fail "the launch line is not srun -N1 -n2 --ntasks-per-node=2 -c4 ...: $(grep '^launch' "$dir/job.txt")"
    grep -q "^modules *none: no 'module' command here, skipped PrgEnv-cray craype-accel-amd-gfx90a rocm" "$job_out" ||
      fail "the job did not say which modules it skipped without a module command"
    ;;

  multi-scal-weak | multi-scal-strong)
    study=${case_name#multi-scal-}
    if [[ $study == weak ]]; then export SHARDTAB_SHARD_ELEMS=2K; else export SHARDTAB_TOTAL_ELEMS=16K; fi
    export SHARDTAB_ITERS=2
    # submit-scaling.sh as a user runs it; SBATCH_WAIT makes each of its sbatch calls wait
    SBATCH_WAIT=1 "$frontier/submit-scaling.sh" "$study" 1 2 >submit-scaling.out 2>&1 ||
      fail "submit-scaling.sh $study 1 2: $(cat submit-scaling.out)"
    cat submit-scaling.out
    (($(job_ids submit-scaling.out | wc -l) == 2)) || fail "expected 2 submissions"
    for nodes in 1 2; do
      ranks=$((nodes * 2))
      if [[ $study == weak ]]; then n=$((2048 * ranks)); else n=16384; fi
      file=$(find "results/$study" -name "nodes-000$nodes.json")
      [[ -n $file && $(wc -l <<<"$file") -eq 1 ]] || fail "expected one nodes-000$nodes.json, found: $file"
      # --ranks/--nodes: 2 ranks on each node (ranks_per_node_min = max), as --ntasks-per-node asks
      "${check[@]}" "$file" --ranks "$ranks" --nodes "$nodes" --n "$n" || fail "$file"
    done
    grep -q -- "srun -N2 -n4 --ntasks-per-node=2 -c4 " results/"$study"/job-*/job.txt ||
      fail "no srun -N2 -n4 --ntasks-per-node=2 -c4 line in the 2-node job"
    # several node counts inside one allocation, extra options, no modules at all
    SHARDTAB_NODE_COUNTS="1 2" SHARDTAB_ARGS="-m local" SHARDTAB_MODULES="" \
      expect_success "$study-scaling.sbatch -N 2, node counts 1 2" -N 2 "$frontier/$study-scaling.sbatch"
    for nodes in 1 2; do
      "${check[@]}" "results/$study/job-$job_id/nodes-000$nodes.json" --ranks $((nodes * 2)) --nodes "$nodes" --modes 1 ||
        fail "looping job, $nodes nodes"
    done
    grep -q '^modules *none (SHARDTAB_MODULES is empty)$' "$job_out" || fail "SHARDTAB_MODULES='' did not load none"
    check_summary "results/$study" multi_scal "$study" "chunk:1:2 chunk:2:2"
    if [[ $study == strong ]]; then
      # the default size, 4G doubles, against this node: refused before it starts (it would be OOM-killed)
      need_kib=$((2 * 8 * 4 * 1024 * 1024))   # two host copies of 32 GiB: a host-backend build
      total=4G
      if ((need_kib <= $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo))); then
        total=1T
        echo "# this machine holds the default: trying 1T doubles instead"
      fi
      SHARDTAB_TOTAL_ELEMS=$total expect_refusal "strong-scaling.sbatch with $total doubles on this node" \
        "needs [0-9.]+ GiB of host memory per node, and a node of this job has [0-9.]+ GiB available: lower SHARDTAB_TOTAL_ELEMS" \
        "$frontier/strong-scaling.sbatch"
      [[ ! -d results/strong/job-$job_id ]] || fail "the refused job started (results/strong/job-$job_id exists)"
    fi
    ;;

  jacobi-single-node)
    export SHARDTAB_GPUS_PER_NODE=4 SHARDTAB_CPUS_PER_TASK=2 SHARDTAB_JACOBI_NX=128 SHARDTAB_JACOBI_NY=130
    export SHARDTAB_JACOBI_NITER=50 SHARDTAB_JACOBI_REPEAT=2
    expect_success "jacobi-single-node.sbatch, 4 ranks, 3 variants" "$frontier/jacobi-single-node.sbatch"
    [[ $(basename "$job_out") == jacobi-$job_id.out ]] || fail "job output $job_out, expected jacobi-$job_id.out"
    dir=results/jacobi-single-node-$job_id
    for variant in table host-sync mpi; do
      "${check[@]}" "$dir/jacobi-$variant.json" --ranks 4 --nodes 1 --nx 128 --ny 130 --variant "$variant" ||
        fail "$variant JSON"
      grep -q '^# verify jacobi: OK' "$dir/jacobi-$variant.txt" || fail "no '# verify jacobi: OK' in $dir/jacobi-$variant.txt"
    done
    grep -q '^launch *srun -N1 -n4 --ntasks-per-node=4 -c2 --gpus-per-task=1 --gpu-bind=closest$' "$dir/job.txt" ||
      fail "the launch line is not srun -N1 -n4 --ntasks-per-node=4 -c2 ..."
    # a variant that fails does not stop the others, and the job says which failed
    SHARDTAB_JACOBI_VARIANTS="table nonesuch mpi" expect_refusal "a job with an unknown variant" \
      "variant\(s\) nonesuch failed" "$frontier/jacobi-single-node.sbatch"
    "${check[@]}" "results/jacobi-single-node-$job_id/jacobi-mpi.json" --ranks 4 --nodes 1 --variant mpi ||
      fail "the variant after the failed one did not run"
    ;;

  jacobi-weak | jacobi-strong)
    study=${case_name#jacobi-}
    export SHARDTAB_JACOBI_NX=64 SHARDTAB_JACOBI_NITER=30
    if [[ $study == weak ]]; then export SHARDTAB_JACOBI_ROWS_PER_RANK=16; else export SHARDTAB_JACOBI_NY=66; fi
    SBATCH_WAIT=1 "$frontier/submit-scaling.sh" jacobi "$study" 1 2 >submit-scaling.out 2>&1 ||
      fail "submit-scaling.sh jacobi $study 1 2: $(cat submit-scaling.out)"
    cat submit-scaling.out
    (($(job_ids submit-scaling.out | wc -l) == 2)) || fail "expected 2 submissions"
    grep -q "python3 jobs/summarize.py results/jacobi-$study" submit-scaling.out || fail "submit-scaling.sh named no summary folder"
    for nodes in 1 2; do
      ranks=$((nodes * 2))
      if [[ $study == weak ]]; then ny=$((16 * ranks + 2)); else ny=66; fi
      for variant in table host-sync mpi; do
        file=$(find "results/jacobi-$study" -name "nodes-000$nodes-$variant.json")
        [[ -n $file && $(wc -l <<<"$file") -eq 1 ]] || fail "expected one nodes-000$nodes-$variant.json, found: $file"
        # 2 nodes: the edges between the nodes go through MPI, those inside a node through the table
        "${check[@]}" "$file" --ranks "$ranks" --nodes "$nodes" --nx 64 --ny "$ny" --variant "$variant" || fail "$file"
      done
    done
    check_summary "results/jacobi-$study" jacobi "$study" \
      "table:1:1 table:2:1 host-sync:1:1 host-sync:2:1 mpi:1:1 mpi:2:1"
    ;;

  cg-strong)
    # nodes of 4 ranks x 2 CPUs: at 1 node the rank counts 1 2 4 by default, at 2 nodes 8
    # ranks; CG converges on no 2d:48 within 40 iterations, so --tol 0 makes 40 comparable
    # ones (past convergence the pipelined variant may break down on rounding);
    # SHARDTAB_ARGS reaches every run
    [[ -x $cg ]] || fail "--cg is needed"
    export SHARDTAB_GPUS_PER_NODE=4 SHARDTAB_CPUS_PER_TASK=2 SHARDTAB_CG_POISSON=2d:48 SHARDTAB_CG_NITER=40
    export SHARDTAB_CG_REPEAT=2 SHARDTAB_ARGS="--repro"
    SBATCH_WAIT=1 "$frontier/submit-scaling.sh" cg strong 1 2 >submit-scaling.out 2>&1 ||
      fail "submit-scaling.sh cg strong 1 2: $(cat submit-scaling.out)"
    cat submit-scaling.out
    grep -q "python3 jobs/summarize.py results/cg-strong" submit-scaling.out || fail "submit-scaling.sh named no summary folder"
    mapfile -t jobs < <(job_ids submit-scaling.out)
    ((${#jobs[@]} == 2)) || fail "expected 2 submissions, got: ${jobs[*]}"
    # nodes:ranks of each run, the job that ran it (the 1-node job, then the 2-node one)
    for run in 1:1:"${jobs[0]}" 1:2:"${jobs[0]}" 1:4:"${jobs[0]}" 2:8:"${jobs[1]}"; do
      IFS=: read -r nodes ranks job_id <<<"$run"
      job_out=$work/cg-strong-$job_id.out
      [[ -f $job_out ]] || fail "no $job_out (-o %x-%j.out)"
      dir=results/cg-strong/job-$job_id
      where="1 node" on=""
      ((nodes == 1)) || where="$nodes nodes" on=" on $nodes nodes"
      for variant in standard pipelined; do
        stem=$dir/nodes-000$nodes-ranks-000$ranks-$variant
        "${check[@]}" "$stem.json" --ranks "$ranks" --nodes "$nodes" --variant "$variant" --iterations 40 --rows 2304 \
          --nonzeros 11328 --cpu-checked || fail "$stem.json"
        grep -q '^# verify cg: OK (not converged in 40 iterations, nor the CPU' "$stem.txt" || fail "no '# verify cg: OK' in $stem.txt"
        noun=ranks
        ((ranks > 1)) || noun=rank
        grep -q "^# cg: 2304 rows, 11328 nonzeros (Poisson), $ranks $noun$on, backend host" "$stem.txt" ||
          fail "$stem.txt: the header does not say '$ranks $noun$on': $(head -n 1 "$stem.txt")"
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert (d["slurm_job_id"], d["repro"], d["repeat"], d["tol"], d["matrix"]) == (sys.argv[2], True, 2, 0, "2d:48"), d' \
          "$stem.json" "$job_id" || fail "$stem.json is not job $job_id's run of 2d:48 with --repro, --repeat 2, --tol 0"
        per_node=$((ranks / nodes))
        grep -qxF "# strong: $where, $ranks ranks, 2d:48 Poisson (about $((2304 / ranks)) rows per rank), $variant: srun -N$nodes -n$ranks --ntasks-per-node=$per_node -c2 --gpus-per-task=1 --gpu-bind=closest" \
          "$dir/job.txt" || fail "the launch of $ranks ranks on $where, $variant, is not srun -N$nodes -n$ranks --ntasks-per-node=$per_node -c2 ..."
      done
    done
    (($(find "results/cg-strong/job-${jobs[0]}" -name '*.json' | wc -l) == 6)) || fail "expected 6 results of the 1-node job"
    (($(find "results/cg-strong/job-${jobs[1]}" -name '*.json' | wc -l) == 2)) || fail "expected 2 results of the 2-node job"
    # across nodes auto takes a launch a phase: between launches the host moves the columns
    grep -q '^# cg: variant pipelined, launch stream (auto: 2 nodes),' \
      "results/cg-strong/job-${jobs[1]}/nodes-0002-ranks-0008-pipelined.txt" || fail "8 ranks on 2 nodes did not launch stream (auto: 2 nodes)"
    # --repro: every rank and node count of a variant gives the same x and residual history,
    # bit for bit: one fingerprint line a variant, the same in the JSON
    python3 - results/cg-strong <<'PYTHON' || fail "the --repro runs differ between rank or node counts"
import glob, json, os, sys
for variant in ("standard", "pipelined"):
    stems = [p[:-5] for p in glob.glob(os.path.join(sys.argv[1], "job-*", f"nodes-*-ranks-*-{variant}.json"))]
    runs = [json.load(open(stem + ".json")) for stem in stems]
    assert sorted((d["nodes"], d["ranks"]) for d in runs) == [(1, 1), (1, 2), (1, 4), (2, 8)], runs
    lines = {line for stem in stems for line in open(stem + ".txt") if line.startswith("# cg fingerprint: ")}
    prints = {(d["x_fingerprint"], d["history_fingerprint"]) for d in runs}
    assert len(lines) == 1 and len(prints) == 1, (variant, lines, prints)
    x, history = prints.pop()
    assert lines.pop() == f"# cg fingerprint: x {x}, residual history {history}\n", (variant, lines)
    print(f"--repro, {variant}: one fingerprint at 1, 2 and 4 ranks of 1 node and 8 ranks on 2 nodes: {x} {history}")
PYTHON
    grep -q '^matrix *2d:48 Poisson: 2304 rows, 11328 nonzeros$' "results/cg-strong/job-${jobs[0]}/job.txt" ||
      fail "job.txt does not describe the matrix"
    check_summary results/cg-strong cg strong \
      "standard:1:1:1 standard:1:2:1 standard:1:4:1 standard:2:8:1 pipelined:1:1:1 pipelined:1:2:1 pipelined:1:4:1 pipelined:2:8:1"
    # a MatrixMarket file instead (a symmetric tridiagonal 2, -1 of 300 rows), one variant, 1
    # and 2 nodes inside one 2-node allocation
    python3 - laplace.mtx <<'PYTHON'
import sys
n = 300
with open(sys.argv[1], "w") as f:
    f.write("%%MatrixMarket matrix coordinate real symmetric\n% 1D Laplacian, tests/slurm cg-strong\n")
    f.write(f"{n} {n} {2 * n - 1}\n")
    for i in range(1, n + 1):
        f.write(f"{i} {i} 2\n" + (f"{i + 1} {i} -1\n" if i < n else ""))
PYTHON
    (
      unset SHARDTAB_CG_POISSON SHARDTAB_ARGS
      SHARDTAB_CG_MATRIX=$work/laplace.mtx SHARDTAB_NODE_COUNTS="1 2" SHARDTAB_CG_RANK_COUNTS="1 2" \
        SHARDTAB_CG_VARIANTS=standard expect_success "cg-strong-scaling.sbatch -N 2 on a MatrixMarket file, node counts 1 2" \
        -N 2 "$frontier/cg-strong-scaling.sbatch"
      (($(find "results/cg-strong/job-$job_id" -name '*.json' | wc -l) == 3)) || fail "expected 3 results of job $job_id"
      for run in 1:1 1:2 2:8; do
        IFS=: read -r nodes ranks <<<"$run"
        file=results/cg-strong/job-$job_id/nodes-000$nodes-ranks-000$ranks-standard.json
        "${check[@]}" "$file" --ranks "$ranks" --nodes "$nodes" --variant standard --iterations 40 --rows 300 \
          --nonzeros 898 --cpu-checked || fail "$file"
        python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["matrix"] == sys.argv[2]' "$file" \
          "$work/laplace.mtx" || fail "$file does not name the matrix file"
      done
    )
    ;;

  cg-refusals)
    [[ -x $cg ]] || fail "--cg is needed"
    export SHARDTAB_CG_POISSON=2d:32 SHARDTAB_CG_NITER=10 SHARDTAB_CG_REPEAT=1
    # settings, refused before anything starts: nothing written, no run begun
    SHARDTAB_ARGS="--repro --launch persistent" expect_refusal "--launch persistent in a 2-node job" \
      "cg-strong-scaling.sbatch: SHARDTAB_ARGS asks for --launch persistent, which cg refuses on 2 nodes \(between nodes the host moves the columns and sums the dot products between launches\): drop it from SHARDTAB_ARGS" \
      -N 2 "$frontier/cg-strong-scaling.sbatch"
    [[ ! -d results/cg-strong/job-$job_id ]] || fail "the refused job made results/cg-strong/job-$job_id"
    if grep -Eq '^(job |# strong:|# cg)' "$job_out"; then fail "the refused job went on: $(cat "$job_out")"; fi
    SHARDTAB_NODE_COUNTS="1 3" expect_refusal "node counts 1 3 in a 2-node job" \
      "cg-strong-scaling.sbatch: node count '3' is not within the allocation's 2" -N 2 "$frontier/cg-strong-scaling.sbatch"
    [[ ! -d results/cg-strong/job-$job_id ]] || fail "the refused job made results/cg-strong/job-$job_id"
    SHARDTAB_CG_RANK_COUNTS="1 4" expect_refusal "4 ranks on a node of 2 GPUs" \
      "rank count '4' \(SHARDTAB_CG_RANK_COUNTS\) is not 1 to the node's 2 GPUs, one rank a GPU" "$frontier/cg-strong-scaling.sbatch"
    SHARDTAB_CG_VARIANTS="standard fast" expect_refusal "an unknown variant" \
      "SHARDTAB_CG_VARIANTS: 'fast' is not a cg variant \(standard or pipelined\)" "$frontier/cg-strong-scaling.sbatch"
    SHARDTAB_CG_TOL=-1 expect_refusal "a negative tolerance" "SHARDTAB_CG_TOL='-1' is not a number >= 0" \
      "$frontier/cg-strong-scaling.sbatch"
    SHARDTAB_CG_MATRIX=$work/none.mtx expect_refusal "a file and a Poisson matrix" \
      "SHARDTAB_CG_MATRIX and SHARDTAB_CG_POISSON both name the matrix: set one" "$frontier/cg-strong-scaling.sbatch"
    SHARDTAB_CG_POISSON="" SHARDTAB_CG_MATRIX=$work/none.mtx expect_refusal "a missing matrix file" \
      "SHARDTAB_CG_MATRIX='$work/none.mtx' is not a readable file" "$frontier/cg-strong-scaling.sbatch"
    SHARDTAB_CG_POISSON=2d:0x10 expect_refusal "a bad Poisson spec" \
      "SHARDTAB_CG_POISSON='2d:0x10' is not 2d:N or 3d:N" "$frontier/cg-strong-scaling.sbatch"
    SHARDTAB_CG_POISSON=2d:46341 expect_refusal "a Poisson matrix past 32-bit columns" \
      "SHARDTAB_CG_POISSON='2d:46341': N must be 1 to 46340 for 2d" "$frontier/cg-strong-scaling.sbatch"
    SHARDTAB_CG_POISSON=3d:1290 expect_refusal "a 3d:1290 matrix on each of 2 ranks" \
      "a 3d:1290 Poisson matrix on each of 2 ranks needs [0-9.]+ GiB of host memory per node, and a node of this job has [0-9.]+ GiB available: use a smaller matrix" \
      "$frontier/cg-strong-scaling.sbatch"
    CG=/nonexistent/cg expect_refusal "a missing binary" \
      "/nonexistent/cg is not an executable: run jobs/frontier/build.sh, or set CG" "$frontier/cg-strong-scaling.sbatch"
    # a matrix the job cannot judge and cg refuses (a diagonal entry <= 0): each run fails, on
    # 1 node and on 2, the job names them all and exits non-zero, having run the next one too
    printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n2 2 -1\n3 3 1\n' >indefinite.mtx
    SHARDTAB_CG_POISSON="" SHARDTAB_CG_MATRIX=$work/indefinite.mtx SHARDTAB_CG_VARIANTS="standard pipelined" \
      SHARDTAB_NODE_COUNTS="1 2" SHARDTAB_CG_RANK_COUNTS="1 2" expect_refusal "a matrix cg refuses" \
      "failed: standard at 1 ranks on 1 node, pipelined at 1 ranks on 1 node, standard at 2 ranks on 1 node, pipelined at 2 ranks on 1 node, standard at 4 ranks on 2 nodes, pipelined at 4 ranks on 2 nodes \(see " \
      -N 2 "$frontier/cg-strong-scaling.sbatch"
    (($(grep -c "^cg: error: .*indefinite.mtx" "$job_out") == 6)) || fail "cg did not refuse the matrix in each of the 6 runs"
    ;;

  cg-two-nodes)
    # cg itself across the two nodes: the columns another node owns come by MPI, the dot
    # products by an all-reduce across nodes; it solves as on one node
    [[ -x $cg ]] || fail "--cg is needed"
    expect_success "cg on 2 Slurm nodes, a rank each" -N 2 -J cg-two-nodes -o "%x-%j.out" \
      --wrap "srun -N 2 -n 2 --ntasks-per-node=1 '$cg' --poisson 2d:32 -niter 10 --json '$work/two.json'"
    "${check[@]}" two.json --ranks 2 --nodes 2 --iterations 10 --rows 1024 --cpu-checked || fail "two.json"
    grep -q '^# cg: 1024 rows, 4992 nonzeros (Poisson), 2 ranks on 2 nodes, backend host' "$job_out" ||
      fail "cg's header does not say '2 ranks on 2 nodes'"
    grep -q '^# cg: variant standard, launch stream (auto: 2 nodes),' "$job_out" || fail "cg on 2 nodes did not launch stream (auto: 2 nodes)"
    grep -q '^# verify cg: OK (not converged in 10 iterations, nor the CPU' "$job_out" || fail "no '# verify cg: OK' from 2 ranks on 2 nodes"
    # --repro: 2 ranks on each node, then 2 ranks on one node of that allocation: the same bits
    expect_success "cg --repro on 2 nodes x 2 ranks, then on 1 node x 2 ranks" -N 2 -J cg-repro -o "%x-%j.out" \
      --wrap "srun -N 2 -n 4 --ntasks-per-node=2 '$cg' --poisson 2d:32 -niter 10 --variant pipelined --repro --json '$work/four.json' >'$work/four.txt' &&
              srun -N 1 -n 2 '$cg' --poisson 2d:32 -niter 10 --variant pipelined --repro --json '$work/one.json' >'$work/one.txt'"
    "${check[@]}" four.json --ranks 4 --nodes 2 --variant pipelined --iterations 10 --rows 1024 --cpu-checked || fail "four.json"
    "${check[@]}" one.json --ranks 2 --nodes 1 --variant pipelined --iterations 10 --rows 1024 --cpu-checked || fail "one.json"
    grep -q '^# cg: 1024 rows, 4992 nonzeros (Poisson), 4 ranks on 2 nodes, backend host' four.txt ||
      fail "cg's header does not say '4 ranks on 2 nodes': $(head -n 1 four.txt)"
    for run in four one; do
      grep -q '^# verify cg: OK (not converged in 10 iterations, nor the CPU' "$run.txt" || fail "no '# verify cg: OK' in $run.txt"
    done
    printed=$(grep '^# cg fingerprint: x [0-9a-f]\{16\}, residual history [0-9a-f]\{16\}$' four.txt) ||
      fail "no fingerprint line in four.txt"
    grep -qxF "$printed" one.txt ||
      fail "--repro on 2 nodes ($printed) differs from 1 node ($(grep '^# cg fingerprint' one.txt))"
    echo "ok: --repro, 4 ranks on 2 nodes and 2 ranks on 1 node: $printed"
    # one persistent launch cannot span nodes: cg refuses it (exit 2), saying what to use
    expect_refusal "cg --launch persistent on 2 Slurm nodes" "^# srun: cg exited 2$" -N 2 -J cg-persistent -o "%x-%j.out" \
      --wrap "srun -N 2 -n 2 --ntasks-per-node=1 '$cg' --poisson 2d:32 -niter 10 --launch persistent --json '$work/persistent.json'; status=\$?; echo \"# srun: cg exited \$status\"; exit \$status"
    grep -q "^cg: error: .*--launch persistent: the 2 ranks span 2 nodes: between nodes the host moves the columns and sums the dot products between launches (use --launch stream or auto)$" \
      "$job_out" || fail "cg did not refuse --launch persistent across its 2 nodes: $(cat "$job_out")"
    [[ ! -e persistent.json ]] || fail "cg refused --launch persistent and wrote its JSON"
    ;;

  run-local)
    # the local launcher inside an allocation: mpirun takes the job's node and slots
    export SHARDTAB_SHARD_ELEMS=4K
    expect_success "run-local.sh inside a 1-node allocation" -N 1 -J run-local -o "%x-%j.out" \
      --wrap "exec '$source_dir/jobs/local/run-local.sh' -i 2"
    ranks=$(sed -n 's/^# run-local.sh: \([0-9]*\) ranks .*/\1/p' "$job_out")
    [[ -n $ranks ]] || fail "run-local.sh did not say its rank count"
    dir=$(find results -maxdepth 1 -name 'local-*' -type d)
    "${check[@]}" "$dir/multi_scal.json" --ranks "$ranks" --nodes 1 --n $((4096 * ranks)) || fail "$dir/multi_scal.json"
    "${check[@]}" "$dir/check-peers.json" --ranks "$ranks" --nodes 1 --peers || fail "$dir/check-peers.json"
    python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["slurm_job_id"] == sys.argv[2]' \
      "$dir/multi_scal.json" "$job_id" 2>/dev/null || fail "multi_scal.json does not record Slurm job $job_id"
    ;;

  pmix-fence)
    # Open MPI's MPI_Init ends with a PMIx fence without data (after add_procs): it must
    # be a barrier across the nodes, or a rank of one node sends to one of the other
    # that is not ready to receive (cluster.sh: mpi.conf)
    expect_success "a PMIx fence on 2 nodes, one task 2 s late" -N 2 --ntasks-per-node=1 -J pmix-fence \
      -o "%x-%j.out" --wrap "srun python3 '$here/pmix_fence.py' --delay 2"
    (($(grep -c '^pmix_fence: task [01] of 2 on node[12]: OK' "$job_out") == 2)) || fail "pmix_fence.py did not say OK on both nodes"
    [[ -x $comm_check ]] || fail "--comm-check is needed"
    expect_success "10 job steps of comm_check on 2 nodes x 2 tasks, ob1" -N 2 --ntasks-per-node=2 -J ob1-steps \
      -o "%x-%j.out" --wrap "for i in \$(seq 10); do OMPI_MCA_pml=ob1 srun '$comm_check' --rounds 1 || exit; done"
    (($(grep -c '^# comm_check: OK (4 ranks)$' "$job_out") == 10)) || fail "not every comm_check step said OK"
    ;;

  collectives-two-nodes)
    # the communication layer on two Slurm nodes, 2 tasks each: each node its own table
    # and collectives through its pads, MPI between the node leaders (the hierarchy)
    [[ -x $stream_check && -x $comm_check ]] || fail "--stream-check and --comm-check are needed"
    expect_success "stream_check and comm_check on 2 nodes x 2 tasks" -N 2 --ntasks-per-node=2 \
      -J collectives -o "%x-%j.out" --wrap "srun '$stream_check' && srun '$comm_check' --rounds 3"
    grep -q '^# stream_check: 4 ranks, 2 nodes' "$job_out" || fail "stream_check did not see 2 nodes"
    grep -q '^# stream_check: every call OK' "$job_out" || fail "stream_check's calls did not verify"
    grep -q '^# stream_check: OK (4 ranks)$' "$job_out" || fail "stream_check did not say OK"
    grep -q '^# comm_check: 4 ranks, 2 node ranks' "$job_out" || fail "comm_check did not see 2 ranks a node"
    grep -q '^# comm_check: OK (4 ranks)$' "$job_out" || fail "comm_check did not say OK"
    ;;

  modules)
    # a real 'module' command (environment-modules) and a site's own module list
    init=/usr/share/modules/init/bash
    [[ -r $init ]] || fail "no $init: scripts/deps.sh --slurm installs environment-modules"
    mkdir -p modulefiles/site
    printf '#%%Module1.0\n# site/tools - a module file of this test: says it was loaded\nputs stderr "module loaded: [module-info name]"\n' \
      >modulefiles/site/tools
    printf '#%%Module1.0\n# site/iters - a module file of this test: sets the iterations of the job\nsetenv SHARDTAB_ITERS 3\n' \
      >modulefiles/site/iters
    set +u   # the module scripts read unset variables
    # shellcheck source=/dev/null
    source "$init"
    module use "$work/modulefiles"
    set -u
    SHARDTAB_SHARD_ELEMS=4K SHARDTAB_MODULES="site/tools site/iters" \
      expect_success "single-node.sbatch with SHARDTAB_MODULES='site/tools site/iters'" "$frontier/single-node.sbatch"
    grep -q '^modules *site/tools site/iters$' "$job_out" || fail "the job did not report the site's modules"
    grep -q '^module loaded: site/tools$' "$job_out" || fail "site/tools was not loaded inside the job"
    python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["iters"] == 3' \
      "results/single-node-$job_id/multi_scal.json" || fail "site/iters did not reach the job's environment (iters != 3)"
    SHARDTAB_MODULES="site/nonesuch" expect_refusal "a module the site does not have" \
      "module load site/nonesuch failed: set SHARDTAB_MODULES" "$frontier/single-node.sbatch"
    ;;

  refusals)
    export SHARDTAB_SHARD_ELEMS=4K SHARDTAB_ITERS=2
    # a refused option: --gres-flags=allow-task-sharing where this Slurm has none
    version=$(srun --version | awk '{ print $2 }')
    if printf '%s\n%s\n' 23.11 "$version" | sort -V | head -n 1 | grep -qx 23.11; then
      echo "# Slurm $version has --gres-flags=allow-task-sharing: its refusal is not tested here"
    else
      SHARDTAB_ALLOW_TASK_SHARING=1 expect_refusal "SHARDTAB_ALLOW_TASK_SHARING=1 on Slurm $version" \
        "--gres-flags=allow-task-sharing, which Slurm $version does not have \(it came with Slurm 23.11\): unset SHARDTAB_ALLOW_TASK_SHARING" \
        "$frontier/single-node.sbatch"
      # and srun itself, asked directly, rejects it: the check is not guarding against nothing
      expect_refusal "srun --gres-flags=allow-task-sharing on Slurm $version" "Invalid --gres-flags specification" \
        -N 1 -o "probe-%j.out" --wrap "srun -n1 --gres-flags=allow-task-sharing true"
    fi
    # too many nodes: inside the job, and at submission (Slurm's own refusal)
    SHARDTAB_NODE_COUNTS="1 3" expect_refusal "node counts 1 3 in a 2-node job" "node count '3' is not within the allocation's 2" \
      -N 2 "$frontier/weak-scaling.sbatch"
    [[ ! -d results/weak/job-$job_id ]] || fail "the refused job started its first node count"
    expect_refusal "sbatch -N 3 on a 2-node cluster" "Node count specification invalid|Requested node configuration is not available" \
      -N 3 "$frontier/single-node.sbatch"
    expect_command_refusal "submit-scaling.sh weak 3 on a 2-node cluster" "Node count specification invalid|Requested node configuration is not available" \
      "$frontier/submit-scaling.sh" weak 3
    # too many CPUs: Frontier's -c 7 for 2 ranks on an 8-CPU node; too many GPUs: 5 ranks on 4 GPUs
    (
      unset SHARDTAB_CPUS_PER_TASK
      expect_refusal "SHARDTAB_CPUS_PER_TASK unset (7) on 8-CPU nodes" \
        "2 ranks per node x 7 CPUs per rank need 14 CPUs per node, and this job's nodes have 8: lower SHARDTAB_CPUS_PER_TASK" \
        "$frontier/single-node.sbatch"
    )
    SHARDTAB_GPUS_PER_NODE=5 SHARDTAB_CPUS_PER_TASK=1 expect_refusal "5 ranks per node on 4-GPU nodes" \
      "5 ranks per node, one GPU each, and this job's nodes have 4 GPUs: set SHARDTAB_GPUS_PER_NODE=4" \
      "$frontier/jacobi-single-node.sbatch"
    # jacobi: fewer rows than ranks, a grid beyond the node's memory
    SHARDTAB_JACOBI_NX=64 SHARDTAB_JACOBI_NY=5 SHARDTAB_NODE_COUNTS="1 2" expect_refusal "3 interior rows for 4 ranks" \
      "a 64 x 5 grid has 3 interior rows, fewer than the 4 ranks of 2 node\(s\): raise SHARDTAB_JACOBI_NY" \
      -N 2 "$frontier/jacobi-strong-scaling.sbatch"
    SHARDTAB_JACOBI_NX=1048576 SHARDTAB_JACOBI_NY=1048576 expect_refusal "a 1048576^2 jacobi grid" \
      "a 1048576 x 1048576 jacobi grid on each of 2 ranks needs [0-9.]+ GiB of host memory per node" \
      "$frontier/jacobi-strong-scaling.sbatch"
    # a binary that is not there
    MULTI_SCAL=/nonexistent/multi_scal expect_refusal "a missing binary" \
      "/nonexistent/multi_scal is not an executable: run jobs/frontier/build.sh, or set MULTI_SCAL" \
      "$frontier/single-node.sbatch"
    ;;

  one-node-cluster)
    # a second, 1-node Slurm beside the 2-node one: up, a job, a refusal, down.
    # Its folder holds Unix sockets, so it sits beside the first one's short
    # /tmp path, not below the build tree (a fresh clone's path can be long).
    small=$cluster-one
    bash "$here/cluster.sh" up "$small" --nodes 1 --cpus 4 --gpus 2 || fail "cluster.sh up --nodes 1"
    trap 'stop_watchdog; bash "$here/cluster.sh" down "$small" >/dev/null 2>&1 || true' EXIT
    use_cluster "$small"
    SHARDTAB_SHARD_ELEMS=4K SHARDTAB_ITERS=2 SHARDTAB_CPUS_PER_TASK=2 \
      expect_success "single-node.sbatch on a 1-node Slurm" "$frontier/single-node.sbatch"
    "${check[@]}" "results/single-node-$job_id/multi_scal.json" --ranks 2 --nodes 1 --n 8192 || fail "benchmark JSON"
    expect_refusal "sbatch -N 2 on a 1-node cluster" "Node count specification invalid|Requested node configuration is not available" \
      -N 2 "$frontier/weak-scaling.sbatch"
    # a job step that does not end when cancelled (its slurmstepd stopped): down must end it too
    sbatch -N 1 -J stuck -o /dev/null --wrap "srun sleep 300" >stuck.out 2>&1 || fail "sbatch: $(cat stuck.out)"
    stuck=$(job_ids stuck.out)
    stepd=""
    for ((tries = 0; tries < 200; tries++)); do
      stepd=$(stepds_of "$small" "[$stuck.0]")
      tasks=""
      [[ -z $stepd ]] || tasks=$(pgrep -P "$stepd" || true)
      [[ -n $tasks ]] && break
      sleep 0.1
    done
    [[ -n $tasks ]] || fail "job $stuck's step did not start its task within 20 s"
    kill -STOP "$stepd"
    pids=$(cat "$small"/run/*.pid)
    bash "$here/cluster.sh" down "$small" || fail "cluster.sh down"
    trap stop_watchdog EXIT
    for pid in $pids; do
      if running "$pid"; then fail "process $pid of the 1-node cluster is still running"; fi
    done
    left=$(stepds_of "$small")
    [[ -z $left ]] || fail "slurmstepd ${left//$'\n'/ } of the 1-node cluster outlived cluster.sh down"
    for pid in $tasks; do
      if running "$pid"; then fail "task $pid of the stopped job step outlived cluster.sh down"; fi
    done
    echo "ok: the 1-node cluster is down, none of its $(wc -w <<<"$pids") daemons, its stopped job step's slurmstepd or its task runs"
    ;;

  deadline)
    status=0
    bash "$here/run_slurm_case.sh" stuck-job --source "$source_dir" --multi-scal "$multi_scal" \
      --jacobi "$jacobi" --cluster "$cluster" --work "$work/stuck" --deadline 4 >stuck.out 2>&1 || status=$?
    cat stuck.out
    ((status == 1)) || fail "stuck-job under --deadline 4 ended with status $status, expected 1"
    grep -q '^run_slurm_case.sh: FAIL (stuck-job): still running after 4 s (--deadline); the queue:$' stuck.out ||
      fail "stuck-job: no deadline message"
    grep -Eq ' stuck-forever +R ' stuck.out || fail "stuck-job: the queue printed does not show its running job"
    grep -q "^run_slurm_case.sh: cancelling the queue's jobs$" stuck.out || fail "stuck-job: no cancel"
    for ((tries = 0; tries < 100; tries++)); do
      [[ -z $(squeue -h -o %i) ]] && break
      sleep 0.1
    done
    [[ -z $(squeue -h -o %i) ]] || fail "the stuck job is still queued: $(squeue)"
    echo "ok: a case past its deadline names its queue and cancels its job"
    ;;
  stuck-job)   # only under the deadline case: a job that never ends
    expect_success "a job that never ends" -J stuck-forever -o "%x-%j.out" --wrap "sleep 300"
    ;;
  refused-skips)
    # where the daemons are refused, cluster.sh says why and every case skips with that reason
    status=0
    SHARDTAB_SLURM_FORCE_REFUSAL="refused on purpose by slurm.refused_skips" \
      bash "$here/cluster.sh" up "$cluster" >up.out 2>&1 || status=$?
    ((status == skip_code)) || fail "cluster.sh up exited $status, expected $skip_code: $(cat up.out)"
    status=0
    bash "$here/run_slurm_case.sh" multi-scal-single-node --source "$source_dir" --multi-scal "$multi_scal" --jacobi "$jacobi" \
      --cluster "$cluster" --work "$work/case" >case.out 2>&1 || status=$?
    ((status == skip_code)) || fail "a case on a refused cluster exited $status, expected $skip_code: $(cat case.out)"
    grep -q '^skipped: Slurm could not be brought up here: refused on purpose by slurm.refused_skips$' case.out ||
      fail "the skipped case did not give the reason: $(cat case.out)"
    cat case.out
    rm -rf "${cluster:?}" # only its 'refused' file: no daemon was started
    ;;

  *) echo "run_slurm_case.sh: unknown case '$case_name'" >&2; exit 2 ;;
esac
echo "run_slurm_case.sh: $case_name: OK"

#!/bin/bash
# run_job_test.sh - runs the Frontier job scripts through the stand-in sbatch/srun/module on this host and checks their results.
#
# Usage: run_job_test.sh CASE --source SOURCE_DIR --program MULTI_SCAL --mpiexec MPIEXEC --work DIR
# CASE: single-node | weak | strong | run-local | refusals
# The jobs run the host-backend multi_scal with small sizes (SHARDTAB_* variables),
# 2 ranks per 'node' unless a case says otherwise; srun's stand-in runs
# mpirun --oversubscribe and splits the ranks into nodes (SHARDTAB_RANKS_PER_NODE).
set -euo pipefail

case_name=${1:?usage: run_job_test.sh CASE --source DIR --program PATH --mpiexec PATH --work DIR}
shift
while (($#)); do
  case $1 in
    --source) source_dir=$2; shift 2 ;;
    --program) program=$2; shift 2 ;;
    --mpiexec) mpiexec=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "run_job_test.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
frontier=$source_dir/jobs/frontier
check=("$(command -v python3)" "$here/check_result.py")

rm -rf "$work"
mkdir -p "$work"
cd "$work"
# shellcheck source=../../scripts/mpi-env.sh
source "$source_dir/scripts/mpi-env.sh"
export PATH=$here/standins:$PATH STANDIN_MPIEXEC=$mpiexec STANDIN_LOG=$work/standin.log
export MULTI_SCAL=$program SHARDTAB_RESULTS_DIR=$work/results SHARDTAB_GPUS_PER_NODE=2 SHARDTAB_ITERS=2

fail() {
  echo "run_job_test.sh: FAIL ($case_name): $*" >&2
  if [[ -f $STANDIN_LOG ]]; then
    echo "--- stand-in log:" >&2
    cat "$STANDIN_LOG" >&2
  fi
  exit 1
}

# job_id_of OUTPUT: the id in sbatch's 'Submitted batch job ID' lines, one per line
job_id_of() {
  sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$1"
}

# expect_refusal WHAT PATTERN COMMAND...: COMMAND must fail, saying PATTERN on
# stderr or, for a job that ran and failed, in the job's output file
expect_refusal() {
  local what=$1 pattern=$2 id said
  shift 2
  if "$@" >"$work/refusal.out" 2>"$work/refusal.err"; then
    fail "$what: accepted, expected a refusal"
  fi
  said=$work/refusal.err
  id=$(job_id_of "$work/refusal.out")
  if [[ -n $id ]]; then
    said=$(find "$work" -maxdepth 1 -name "*$id*.out" | head -n 1)
  fi
  grep -Eq "$pattern" "$said" || fail "$what: refused without saying '$pattern': $(cat "$said")"
  echo "refused as expected: $what: $(grep -E "$pattern" "$said" | head -n 1)"
}

case $case_name in
  single-node)
    # the test's small layout: 2 ranks
    SHARDTAB_SHARD_ELEMS=4K sbatch -A TEST123 "$frontier/single-node.sbatch" >submit.out || fail "job failed: $(cat multi_scal-*.out)"
    id=$(job_id_of submit.out)
    [[ -n $id && -f multi_scal-$id.out ]] || fail "no job output multi_scal-<id>.out (-o %x-%j.out)"
    dir=results/single-node-$id
    "${check[@]}" "$dir/check-peers.json" --ranks 2 --nodes 1 --peers || fail "peer check JSON"
    grep -q '^# check-peers: OK' "$dir/check-peers.txt" || fail "no '# check-peers: OK' in $dir/check-peers.txt"
    "${check[@]}" "$dir/multi_scal.json" --ranks 2 --nodes 1 --n 8192 || fail "benchmark JSON"
    grep -q '^module load' "$STANDIN_LOG" || fail "the job loads no modules"
    grep -q -- '--gres-flags' "$STANDIN_LOG" && fail "--gres-flags passed without SHARDTAB_ALLOW_TASK_SHARING=1"
    # Frontier's own layout (8 ranks x 7 cores) and the LUMI-style IPC flag
    SHARDTAB_GPUS_PER_NODE=8 SHARDTAB_SHARD_ELEMS=1K SHARDTAB_ALLOW_TASK_SHARING=1 \
      sbatch -A TEST123 "$frontier/single-node.sbatch" >submit8.out || fail "8-rank job failed"
    id=$(job_id_of submit8.out)
    "${check[@]}" "results/single-node-$id/multi_scal.json" --ranks 8 --nodes 1 --n 8192 || fail "8-rank JSON"
    grep -q -- '^srun -N1 -n8 -c7 --gpus-per-task=1 --gpu-bind=closest --gres-flags=allow-task-sharing ' "$STANDIN_LOG" ||
      fail "SHARDTAB_ALLOW_TASK_SHARING=1 did not give srun -N1 -n8 -c7 ... --gres-flags=allow-task-sharing"
    ;;

  weak | strong)
    if [[ $case_name == weak ]]; then
      export SHARDTAB_SHARD_ELEMS=2K
    else
      export SHARDTAB_TOTAL_ELEMS=64K
    fi
    "$frontier/submit-scaling.sh" -A TEST123 "$case_name" 1 2 4 >submit.out || fail "a job failed: $(cat ./*.out)"
    cat submit.out
    (($(job_id_of submit.out | wc -l) == 3)) || fail "expected 3 submissions"
    for nodes in 1 2 4; do
      ranks=$((nodes * 2))
      if [[ $case_name == weak ]]; then n=$((2048 * ranks)); else n=65536; fi
      file=$(find results/"$case_name" -name "nodes-000$nodes.json")
      [[ $(wc -l <<<"$file") -eq 1 && -n $file ]] || fail "expected one nodes-000$nodes.json, found: $file"
      "${check[@]}" "$file" --ranks "$ranks" --nodes "$nodes" --n "$n" || fail "$file"
      grep -q -- "--export=ALL,SHARDTAB_" "$STANDIN_LOG" || fail "the size is not in the jobs' --export"
    done
    # several node counts inside one allocation, with extra multi_scal options
    SHARDTAB_NODE_COUNTS="1 2" SHARDTAB_ARGS="-m local" sbatch -A TEST123 -N 2 "$frontier/$case_name-scaling.sbatch" >loop.out || fail "looping job failed"
    id=$(job_id_of loop.out)
    for nodes in 1 2; do
      "${check[@]}" "results/$case_name/job-$id/nodes-000$nodes.json" --ranks $((nodes * 2)) --nodes "$nodes" --modes 1 ||
        fail "looping job, $nodes nodes"
    done
    # a node count beyond the allocation is refused
    expect_refusal "3 nodes in a 2-node job" "not within the allocation" \
      env SHARDTAB_NODE_COUNTS=3 sbatch -A TEST123 -N 2 "$frontier/$case_name-scaling.sbatch"

    # the summary: table, CSV (one row per configuration), efficiency column
    python3 "$source_dir/jobs/summarize.py" "results/$case_name" --csv summary.csv --plot summary.png | tee summary.txt ||
      fail "summarize.py failed"
    grep -q "^# multi_scal $case_name scaling" summary.txt || fail "summary does not call this a $case_name study"
    grep -Eq '^ +[^ ]+ +4 +8 .* ok$' summary.txt || fail "no 4-node row in the table"
    python3 - summary.csv "$case_name" <<'PYTHON' || fail "summary.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [(r["nodes"], r["runs"]) for r in rows] == [("1", "2"), ("2", "2"), ("4", "1")], rows
assert all(r["study"] == sys.argv[2] and r["verified"] == "true" for r in rows), rows
assert float(rows[0]["local_efficiency"]) == 1.0, rows[0]
assert all(float(r[f"{m}_gbps"]) > 0 for r in rows for m in ("local", "ring", "global")), rows
print("summary.csv: ok,", len(rows), "rows")
PYTHON
    # an unverified run turns into a FAILED row and exit status 1
    mkdir -p bad
    sed 's/"verified": true/"verified": false/' "$(find results/"$case_name" -name nodes-0004.json | head -n 1)" >bad/bad.json
    status=0
    python3 "$source_dir/jobs/summarize.py" bad --csv - >bad.txt 2>&1 || status=$?
    if ((status != 1)) || ! grep -q 'FAILED$' bad.txt; then
      fail "an unverified run was not flagged (status $status): $(cat bad.txt)"
    fi
    ;;

  run-local)
    unset SHARDTAB_GPUS_PER_NODE
    SHARDTAB_SHARD_ELEMS=4K "$source_dir/jobs/local/run-local.sh" -i 2 >local.out 2>&1 || fail "run-local.sh failed: $(cat local.out)"
    cat local.out
    ranks=$(sed -n 's/^# run-local.sh: \([0-9]*\) ranks .*/\1/p' local.out)
    [[ -n $ranks ]] || fail "run-local.sh did not say its rank count"
    dir=$(find results -maxdepth 1 -name 'local-*' -type d)
    "${check[@]}" "$dir/multi_scal.json" --ranks "$ranks" --nodes 1 --n $((4096 * ranks)) || fail "$dir/multi_scal.json"
    "${check[@]}" "$dir/check-peers.json" --ranks "$ranks" --nodes 1 --peers || fail "$dir/check-peers.json"
    ;;

  refusals)
    # the stand-ins must refuse what Slurm would, or the other cases prove little
    job=$frontier/single-node.sbatch
    expect_refusal "the '<project>' placeholder" "placeholder" sbatch "$job"
    expect_refusal "an unknown sbatch option" "not one this stand-in knows" sbatch -A T --nodez=1 "$job"
    grep -v '^#SBATCH -p' "$job" >no-partition.sbatch
    expect_refusal "a script without -p" "no partition" sbatch -A T no-partition.sbatch
    expect_refusal "an invalid time" "invalid time" sbatch -A T -t soon "$job"
    probe() {
      printf '#!/bin/bash\n# probe - one srun call\nset -euo pipefail\nsrun %s true\n' "$1" >probe.sbatch
      expect_refusal "srun $1" "$2" sbatch -A T -J probe -o probe-%j.out -t 1 -p batch -N 2 probe.sbatch
    }
    probe "-N1 -n2 -c7 --gpus-per-task=1" "no bind"
    probe "-N3 -n6 -c7 --gpus-per-task=1 --gpu-bind=closest" "exceeds the job"
    probe "-N1 -n9 -c7 --gpus-per-task=1 --gpu-bind=closest" "exceed the node's 8 GPUs"
    probe "-N1 -n8 -c8 --gpus-per-task=1 --gpu-bind=closest" "exceed the node's 56 cores"
    probe "-N1 -n2 -c7 --gpus-per-task=1 --gpu-bind=nearest" "not a Slurm GPU binding"
    expect_refusal "submit-scaling.sh medium" "expected weak or strong" "$frontier/submit-scaling.sh" -A T medium 1
    expect_refusal "submit-scaling.sh 0 nodes" "not a positive integer" "$frontier/submit-scaling.sh" -A T weak 0
    expect_refusal "build.sh without cray-mpich's GTL variables" "PE_MPICH_GTL_DIR_amd_gfx90a" \
      env -u PE_MPICH_GTL_DIR_amd_gfx90a -u PE_MPICH_GTL_LIBS_amd_gfx90a "$frontier/build.sh" "$work/build-frontier"
    grep -q '^module load craype-accel-amd-gfx90a$' "$STANDIN_LOG" || fail "build.sh did not load craype-accel-amd-gfx90a"
    expect_refusal "a missing binary" "is not an executable" \
      env MULTI_SCAL=/nonexistent/multi_scal sbatch -A T "$job"
    ;;

  *) echo "run_job_test.sh: unknown case '$case_name'" >&2; exit 2 ;;
esac
echo "run_job_test.sh: $case_name: OK"

#!/bin/bash
# run_job_test.sh - runs the parts of jobs/ that need no Slurm: the local launcher, the summary of multi_scal, jacobi and cg results, and the refusals made before any job.
#
# Usage: run_job_test.sh CASE --source SOURCE_DIR --program MULTI_SCAL --jacobi JACOBI --cg CG --mpiexec MPIEXEC --work DIR
# CASE: run-local | summarize | usage
#   run-local  jobs/local/run-local.sh with mpirun on this host, its JSON checked
#   summarize  multi_scal and jacobi run directly (SHARDTAB_RANKS_PER_NODE=2 makes
#              1 and 2 "nodes"), then jobs/summarize.py: one table per program, the
#              study guessed, speed-up and efficiency against the fewest ranks, one
#              CSV per program, FAILED rows and exit 1 for unverified runs; cg at 1
#              and 2 ranks of one "node" and 4 ranks on 2 "nodes" (stream launches,
#              "on 2 nodes" in its header, its JSON's nodes checked), a strong table
#              keyed by nodes and ranks, the shortest time per iteration of repeats,
#              a file without "nodes" counted as 1 node
#   usage      submit-scaling.sh's dry run and argument errors (cg: strong at any node
#              counts, no weak study), a batch script run outside Slurm, build.sh
#              without Cray MPICH's GTL variables
# The batch jobs themselves run through a real Slurm: tests/slurm (ctest -L slurm).
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

case_name=${1:?usage: run_job_test.sh CASE --source DIR --program PATH --jacobi PATH --cg PATH --mpiexec PATH --work DIR}
shift
source_dir="" program="" jacobi="" cg="" mpiexec="" work=""
# shellcheck source=../lib/job_case.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/job_case.sh"
job_case_options run_job_test.sh source:source_dir program jacobi cg mpiexec work -- "$@"
job_case_enter
# shellcheck source=../lib/driver.sh
source "$source_dir/tests/lib/driver.sh"
export SHARDTAB_RESULTS_DIR=$work/results

# a case ends at its first failure (driver.sh's helpers call this fail)
fail() {
  echo "run_job_test.sh: FAIL ($case_name): $*" >&2
  exit 1
}

# run_ranks RANKS COMMAND...: COMMAND on RANKS ranks of this host, 2 ranks per "node"
run_ranks() {
  local ranks=$1
  shift
  mpi_launch_flags "$mpiexec" SHARDTAB_RANKS_PER_NODE
  SHARDTAB_RANKS_PER_NODE=2 "$mpiexec" "${launch_flags[@]+"${launch_flags[@]}"}" -np "$ranks" "$@"
}

case $case_name in
  run-local)
    SHARDTAB_SHARD_ELEMS=4K MULTI_SCAL=$program SHARDTAB_MPIRUN=$mpiexec \
      "$source_dir/jobs/local/run-local.sh" -i 2 >local.out 2>&1 || fail "run-local.sh failed: $(cat local.out)"
    cat local.out
    ranks=$(sed -n 's/^# run-local.sh: \([0-9]*\) ranks .*/\1/p' local.out)
    [[ -n $ranks ]] || fail "run-local.sh did not say its rank count"
    dir=$(find results -maxdepth 1 -name 'local-*' -type d)
    "${check[@]}" "$dir/multi_scal.json" --ranks "$ranks" --nodes 1 --n $((4096 * ranks)) || fail "$dir/multi_scal.json"
    "${check[@]}" "$dir/check-peers.json" --ranks "$ranks" --nodes 1 --peers || fail "$dir/check-peers.json"
    ;;

  summarize)
    # jacobi: a strong study (one grid) at 1 and 2 "nodes" of 2 ranks, two variants
    mkdir -p strong weak
    for ranks in 2 4; do
      for variant in table mpi; do
        run_ranks "$ranks" "$jacobi" -nx 64 -ny 66 -niter 20 --variant "$variant" \
          --json "strong/jacobi-$ranks-$variant.json" >"strong/jacobi-$ranks-$variant.txt" || fail "jacobi $ranks ranks $variant"
        "${check[@]}" "strong/jacobi-$ranks-$variant.json" --ranks "$ranks" --nodes $((ranks / 2)) --variant "$variant" ||
          fail "jacobi JSON, $ranks ranks, $variant"
      done
      # a weak study: 16 rows per rank; and multi_scal beside it
      run_ranks "$ranks" "$jacobi" -nx 64 -ny $((16 * ranks + 2)) -niter 20 --json "weak/jacobi-$ranks.json" \
        >"weak/jacobi-$ranks.txt" || fail "jacobi weak, $ranks ranks"
      run_ranks "$ranks" "$program" -n $((2048 * ranks)) -i 2 --json "weak/multi_scal-$ranks.json" \
        >"weak/multi_scal-$ranks.txt" || fail "multi_scal, $ranks ranks"
    done
    "${summarize[@]}" strong --csv strong.csv >strong.txt || fail "summarize.py strong: $(cat strong.txt)"
    cat strong.txt
    grep -q '^# jacobi strong scaling, backend host: 4 configurations' strong.txt || fail "not a 4-row jacobi strong table"
    python3 - strong.csv <<'PYTHON' || fail "strong.csv"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [(r["variant"], r["nodes"], r["ranks"]) for r in rows] == \
    [("table", "1", "2"), ("table", "2", "4"), ("mpi", "1", "2"), ("mpi", "2", "4")], rows
# the launch that ran: persistent on one node; a host loop wherever a neighbour is off node
assert [r["launch"] for r in rows] == ["persistent", "stream/host", "stream/host", "stream/host"], rows
for row in rows:
    assert row["study"] == "strong" and row["verified"] == "true" and row["iterations"] == "20", row
    seconds, speedup, efficiency = float(row["seconds"]), float(row["speedup"]), float(row["efficiency"])
    base = next(r for r in rows if r["variant"] == row["variant"] and r["ranks"] == "2")
    # speed-up against the fewest ranks of the variant; strong efficiency divides by the rank growth
    assert abs(speedup - float(base["seconds"]) / seconds) < 1e-3 * speedup, row
    assert abs(efficiency - speedup / (int(row["ranks"]) / 2)) < 1e-3 * speedup, row
    assert float(row["speedup_vs_1gpu"]) > 0 and row["rows_per_rank"] == str(64 // int(row["ranks"])), row
print("strong.csv: ok")
PYTHON
    # both programs in one folder: two tables, one CSV each, the weak study guessed for both
    "${summarize[@]}" weak --csv weak.csv >weak.txt || fail "summarize.py weak: $(cat weak.txt)"
    cat weak.txt
    for program_name in multi_scal jacobi; do
      grep -q "^# $program_name weak scaling" weak.txt || fail "expected a $program_name weak table"
    done
    [[ -f weak-multi_scal.csv && -f weak-jacobi.csv && ! -f weak.csv ]] || fail "expected weak-multi_scal.csv and weak-jacobi.csv"
    python3 -c 'import csv, sys; rows = list(csv.DictReader(open(sys.argv[1]))); assert float(rows[0]["efficiency"]) == 1.0 and all(r["study"] == "weak" for r in rows), rows' \
      weak-jacobi.csv || fail "weak-jacobi.csv"
    # an unverified jacobi run: a FAILED row, exit status 1; no result at all: exit status 2
    mkdir -p bad
    sed 's/"verified": true/"verified": false/' strong/jacobi-4-table.json >bad/jacobi.json
    status=0
    "${summarize[@]}" bad --csv - >bad.txt 2>&1 || status=$?
    if ((status != 1)) || ! grep -q 'FAILED$' bad.txt; then
      fail "an unverified jacobi run was not flagged (status $status): $(cat bad.txt)"
    fi
    mkdir -p none
    echo '{"program": "other"}' >none/other.json
    expect_command_refusal "a folder without results" "no multi_scal, jacobi or cg results among 1 JSON files" "${summarize[@]}" none

    # cg: a strong study (one matrix) at 1 and 2 ranks of one "node" and at 4 ranks on 2
    # "nodes" (2 ranks a node: run_ranks), both variants, one configuration run twice
    mkdir -p cg
    cg_run() {   # RANKS VARIANT NAME: one verified cg run, 2d:40 (1600 rows), 30 iterations
      local nodes=$((($1 + 1) / 2))
      run_ranks "$1" "$cg" --poisson 2d:40 -niter 30 --tol 0 --variant "$2" --repeat 3 --json "cg/$3.json" \
        >"cg/$3.txt" || fail "cg, $1 ranks, $2: $(cat "cg/$3.txt")"
      "${check[@]}" "cg/$3.json" --ranks "$1" --nodes "$nodes" --variant "$2" --iterations 30 --rows 1600 \
        --nonzeros $((5 * 1600 - 4 * 40)) --cpu-checked || fail "cg JSON, $1 ranks, $2"
      grep -q '^# verify cg: OK (not converged in 30 iterations, nor the CPU' "cg/$3.txt" || fail "no '# verify cg: OK' in cg/$3.txt"
      local where=""
      ((nodes == 1)) || where=" on $nodes nodes"
      local noun=ranks
      (($1 > 1)) || noun=rank
      grep -q "^# cg: 1600 rows, 7840 nonzeros (Poisson), $1 $noun$where, backend host" "cg/$3.txt" ||
        fail "cg/$3.txt: the header does not say '$1 $noun$where': $(head -n 1 "cg/$3.txt")"
    }
    for ranks in 1 2 4; do
      for variant in standard pipelined; do
        cg_run "$ranks" "$variant" "cg-$ranks-$variant"
      done
    done
    cg_run 2 standard cg-2-standard-again
    # across nodes auto takes a launch a phase: the host moves the columns between launches
    grep -q '^# cg: variant standard, launch stream (auto: 2 nodes),' cg/cg-4-standard.txt ||
      fail "4 ranks on 2 nodes did not launch stream (auto: 2 nodes): $(sed -n 2p cg/cg-4-standard.txt)"
    # check_result.py holds cg to the nodes its JSON names, and to stream launches across nodes
    expect_command_refusal "check_result.py --nodes 1 on a 2-node cg run" "nodes is 2, expected 1" \
      "${check[@]}" cg/cg-4-standard.json --ranks 4 --nodes 1
    sed 's/"launch": "stream"/"launch": "persistent"/' cg/cg-4-standard.json >cg-4-persistent.json
    expect_command_refusal "check_result.py on a persistent launch across 2 nodes" \
      "launch is 'persistent' on 2 node\(s\), expected stream" "${check[@]}" cg-4-persistent.json --ranks 4 --nodes 2
    "${summarize[@]}" cg --csv cg.csv >cg.txt || fail "summarize.py cg: $(cat cg.txt)"
    cat cg.txt
    grep -q '^# cg strong scaling, backend host: 6 configurations, 1 to 2 nodes$' cg.txt || fail "not a 6-row cg strong table"
    python3 - cg.csv cg <<'PYTHON' || fail "cg.csv"
import csv, glob, json, os, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [(r["variant"], r["nodes"], r["ranks"], r["runs"]) for r in rows] == [
    ("standard", "1", "1", "1"), ("standard", "1", "2", "2"), ("standard", "2", "4", "1"),
    ("pipelined", "1", "1", "1"), ("pipelined", "1", "2", "1"), ("pipelined", "2", "4", "1")], rows
runs = [json.load(open(path)) for path in glob.glob(os.path.join(sys.argv[2], "*.json"))]
for row in rows:
    assert row["study"] == "strong" and row["verified"] == "true" and row["iterations"] == "30", row
    # one node: one persistent launch; across nodes: a launch a phase
    assert row["launch"] == ("persistent" if row["nodes"] == "1" else "stream"), row
    assert row["matrix"] == "2d:40" and row["rows"] == "1600", row
    assert row["rows_per_rank"] == str(1600 // int(row["ranks"])), row
    mine = [r["us_per_iteration"] for r in runs
            if (r["variant"], r["nodes"], r["ranks"]) == (row["variant"], int(row["nodes"]), int(row["ranks"]))]
    us = float(row["us_per_iteration"])
    # the shortest time per iteration of the configuration's runs
    assert len(mine) == int(row["runs"]) and abs(us - min(mine)) < 1e-6 * max(us, 1), (row, mine)
    base = next(r for r in rows if r["variant"] == row["variant"] and r["ranks"] == "1")
    speedup, efficiency = float(row["speedup"]), float(row["efficiency"])
    assert abs(speedup - float(base["us_per_iteration"]) / us) < 1e-3 * speedup, row
    assert abs(efficiency - speedup / int(row["ranks"])) < 1e-3 * speedup, row
print("cg.csv: ok")
PYTHON
    # a file without "nodes" (cg before it ran across nodes) counts as 1 node
    mkdir -p old-cg
    sed '/^  "nodes": /d' cg/cg-2-standard.json >old-cg/old.json
    cp cg/cg-4-standard.json old-cg/
    if grep -q '"nodes"' old-cg/old.json; then fail "old-cg/old.json still names its nodes"; fi
    "${summarize[@]}" old-cg --csv old-cg.csv >old-cg.txt || fail "summarize.py old-cg: $(cat old-cg.txt)"
    python3 -c 'import csv, sys; rows = [(r["nodes"], r["ranks"]) for r in csv.DictReader(open(sys.argv[1]))]
assert rows == [("1", "2"), ("2", "4")], rows' old-cg.csv || fail "a cg file without nodes did not count as 1 node: $(cat old-cg.txt)"
    # an unverified cg run among verified repeats: its row FAILED, exit status 1
    mkdir -p bad-cg
    cp cg/cg-2-standard.json bad-cg/
    sed 's/"verified": true/"verified": false/' cg/cg-2-standard-again.json >bad-cg/cg-again.json
    status=0
    "${summarize[@]}" bad-cg --csv bad-cg.csv >bad-cg.txt 2>&1 || status=$?
    if ((status != 1)) || ! grep -Eq '^ +standard +persistent +1 +2 .*FAILED$' bad-cg.txt || ! grep -q 'bad-cg/cg-again.json' bad-cg.txt; then
      fail "an unverified cg run was not flagged (status $status): $(cat bad-cg.txt)"
    fi
    python3 -c 'import csv, json, sys; row, = csv.DictReader(open(sys.argv[1])); good = json.load(open(sys.argv[2]))
assert row["verified"] == "false" and row["runs"] == "2" and abs(float(row["us_per_iteration"]) - good["us_per_iteration"]) < 1e-6 * good["us_per_iteration"], row' \
      bad-cg.csv bad-cg/cg-2-standard.json || fail "bad-cg.csv: the unverified run's time was kept, or the row not marked"
    ;;

  usage)
    # submit-scaling.sh: the dry run says what it would submit, with the sizes in the environment
    "$frontier/submit-scaling.sh" -n -A T -t 00:05:00 jacobi strong 1 2 >dry.out || fail "dry run: $(cat dry.out)"
    cat dry.out
    grep -qx "env SHARDTAB_JACOBI_NX=16384 SHARDTAB_JACOBI_NY=16384 SHARDTAB_JACOBI_NITER=1000 sbatch -A T -t 00:05:00 -N 2 $frontier/jacobi-strong-scaling.sbatch" \
      dry.out || fail "the dry run of jacobi strong does not show the expected sbatch line"
    SHARDTAB_SHARD_ELEMS=1M "$frontier/submit-scaling.sh" -n weak 4 >dry-ms.out || fail "dry run of multi_scal"
    grep -qx "env SHARDTAB_SHARD_ELEMS=1M sbatch -N 4 $frontier/weak-scaling.sbatch" dry-ms.out ||
      fail "the program does not default to multi_scal: $(cat dry-ms.out)"
    expect_command_refusal "submit-scaling.sh medium" "expected weak or strong" "$frontier/submit-scaling.sh" -n jacobi medium 1
    expect_command_refusal "submit-scaling.sh 0 nodes" "not a positive integer" "$frontier/submit-scaling.sh" -n weak 0
    expect_command_refusal "submit-scaling.sh without nodes" "Usage:" "$frontier/submit-scaling.sh" -n jacobi weak
    # cg: a strong study, one job per node count, its sizes in the environment; no weak study
    "$frontier/submit-scaling.sh" -n -A T cg strong 1 2 4 >dry-cg.out || fail "dry run of cg: $(cat dry-cg.out)"
    for nodes in 1 2 4; do
      grep -qx "env SHARDTAB_CG_POISSON=2d:2048 SHARDTAB_CG_NITER=1000 sbatch -A T -N $nodes $frontier/cg-strong-scaling.sbatch" \
        dry-cg.out || fail "the dry run of cg strong 1 2 4 does not show the sbatch line of $nodes nodes: $(cat dry-cg.out)"
    done
    (($(grep -c '^env ' dry-cg.out) == 3)) || fail "the dry run of cg strong 1 2 4 does not show 3 submissions: $(cat dry-cg.out)"
    grep -q "python3 jobs/summarize.py results/cg-strong" dry-cg.out || fail "the dry run of cg names no summary folder"
    SHARDTAB_CG_MATRIX=m.mtx SHARDTAB_CG_NITER=50 "$frontier/submit-scaling.sh" -n cg strong 1 >dry-cg-file.out ||
      fail "dry run of cg with a file"
    grep -qx "env SHARDTAB_CG_MATRIX=m.mtx SHARDTAB_CG_NITER=50 sbatch -N 1 $frontier/cg-strong-scaling.sbatch" dry-cg-file.out ||
      fail "SHARDTAB_CG_MATRIX did not replace the Poisson matrix: $(cat dry-cg-file.out)"
    expect_command_refusal "submit-scaling.sh cg strong 1 0" "node count '0' is not a positive integer" \
      "$frontier/submit-scaling.sh" -n cg strong 1 0
    if grep -q '^env ' refusal.out; then fail "submit-scaling.sh cg strong 1 0 printed a submission before its refusal"; fi
    expect_command_refusal "submit-scaling.sh cg weak" "cg has no weak study" "$frontier/submit-scaling.sh" -n cg weak 1
    expect_command_refusal "cg-strong-scaling.sbatch outside a job" "SLURM_JOB_ID: not inside a Slurm job" \
      env -u SLURM_JOB_ID bash "$frontier/cg-strong-scaling.sbatch"
    # a batch script outside Slurm
    expect_command_refusal "single-node.sbatch outside a job" "SLURM_JOB_ID: not inside a Slurm job" \
      env -u SLURM_JOB_ID bash "$frontier/single-node.sbatch"
    # build.sh, with a real 'module' command (environment-modules) and module files of
    # this test standing in for Cray's (PrgEnv-cray, craype-accel-amd-gfx90a, rocm, cmake:
    # the Cray PE exists on Cray sites only): it loads them, then refuses without the GTL
    init=/usr/share/modules/init/bash
    if [[ ! -r $init ]]; then
      echo "# no $init (scripts/deps.sh --slurm installs environment-modules): build.sh's refusal not tested"
    else
      mkdir -p modulefiles/craype-accel-amd-gfx90a
      for name in PrgEnv-cray rocm cmake craype-accel-amd-gfx90a/default; do
        mkdir -p "modulefiles/$(dirname "$name")"
        printf '#%%Module1.0\n# a module file of this test, standing in for the Cray PE: says it was loaded\nputs stderr "module loaded: [module-info name]"\n' \
          >"modulefiles/$name"
      done
      set +u   # the module scripts read unset variables
      # shellcheck source=/dev/null
      source "$init"
      module use "$work/modulefiles"
      set -u
      expect_command_refusal "build.sh without cray-mpich's GTL variables" "PE_MPICH_GTL_DIR_amd_gfx90a" \
        env -u PE_MPICH_GTL_DIR_amd_gfx90a -u PE_MPICH_GTL_LIBS_amd_gfx90a "$frontier/build.sh" "$work/build-frontier"
      grep -q '^module loaded: craype-accel-amd-gfx90a' refusal.out || fail "build.sh did not load craype-accel-amd-gfx90a"
    fi
    ;;

  *) echo "run_job_test.sh: unknown case '$case_name'" >&2; exit 2 ;;
esac
echo "run_job_test.sh: $case_name: OK"

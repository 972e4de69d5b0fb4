#!/usr/bin/env bash
# gpu-comm.sh - on the NVIDIA machine, in one call, the device-side
# communication layer (include/shardtab_comm.h) and jacobi on it: starts CUDA
# MPS (so that ranks sharing the one GPU run their kernels at the same time, as
# on AMD), builds this tree's CUDA backend and, beside it, the tree in
# .baseline (the commit before the layer: git archive <commit> | tar -x -C
# .baseline); runs comm_check at 1, 2 and 4 ranks with every planted fault at
# 2, the device-side 8-byte all-reduce latency at 2 and 4 ranks, jacobi's
# checks at 2 ranks under MPS, and the persistent solve of both trees side by
# side, alternating, at 16384^2, 4096^2, 2048^2 and 1024^2 (1000 iterations,
# the norm every iteration), for the no-regression figure.
#
# Usage: scripts/gpu-comm.sh [--runs R] [--sizes "16384 4096 2048 1024"] [--regress-only | --no-regress]
#                            [--bench-max BYTES] [outdir]
# Writes into outdir: comm.log (every step and its output), jacobi-regress.csv.
# shellcheck disable=SC2154  # out, log and failures come from gpu-common.sh
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091,SC2154
source "$(dirname "$0")/../../../scripts/gpu-common.sh"

runs=3
sizes="16384 4096 2048 1024"
regress_only=0
regress=1
bench_max=$((1 << 30))
while [[ $# -gt 0 ]]; do
  case $1 in
  --no-regress) regress=0; shift ;;
  --bench-max) bench_max=$2; shift 2 ;;
  --regress-only) regress_only=1; shift ;;
  --runs) runs=$2; shift 2 ;;
  --sizes) sizes=$2; shift 2 ;;
  *) break ;;
  esac
done
gpu_start "${1:-$top/comm-out}" comm.log
csv=$out/jacobi-regress.csv
echo "tree,n,run,seconds" >"$csv"
say "# gpu-comm $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
{
  nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2
  mpirun --version | head -1
} >>"$log" 2>&1

# ---- MPS: the ranks' kernels run at once on the one GPU ---------------------------------
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
stop_mps() { echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 || true; }
trap stop_mps EXIT
if nvidia-cuda-mps-control -d >>"$log" 2>&1; then say "# MPS started"; else say "# MPS did not start"; fi

# ---- build: this tree (with its tests) and the baseline, in parallel --------------------
build=$top/build-gpu-comm
base_build=$top/build-gpu-baseline
gpu_build_cuda "$build" -DSHARDTAB_BUILD_TESTS=ON &
ours=$!
if [[ -d $top/.baseline ]]; then
  (cmake -S "$top/.baseline" -B "$base_build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=OFF \
     >"$out/build-baseline.log" 2>&1 && cmake --build "$base_build" -j 8 --target jacobi \
     >>"$out/build-baseline.log" 2>&1) &
  theirs=$!
fi
wait "$ours" || exit 1
[[ -n ${theirs:-} ]] && { wait "$theirs" || say "# baseline build failed"; }
say "# built"

comm=$build/tests/shardtab/comm/comm_check
jac=$build/jacobi
share=(--allow-shared-gpu)

# ---- the layer: every call bit for bit, concurrently under MPS ---------------------------
if ((regress_only == 0)); then
for np in 1 2 4; do
  step "comm_check np$np: every call bit for bit, two in flight, puts" \
    expect_line "^# comm_check: OK" run -np "$np" "$comm" "${share[@]}"
done
step "comm_check np2, 1000 values a call" expect_line "^# comm_check: OK" run -np 2 "$comm" --values 1000 --rounds 5 "${share[@]}"
step "comm_check np2, 1024 threads a block" expect_line "^# comm_check: OK" run -np 2 "$comm" --threads 1024 "${share[@]}"
for spec in "never|1|a device-side wait gave up" "stale|1|to be >= 15, and it held 11" \
  "corrupt|1|fail their checksum" "count|2|disagree on a collective call" "op|2|disagree on a collective call" \
  "concurrent|2|while another call of the same collective" "third|2|started a third call"; do
  IFS='|' read -r fault rc re <<<"$spec"
  step "comm_check np2, planted $fault: caught on every rank" \
    expect_line "$re" expect_rc "$rc" run -np 2 -x SHARDTAB_WAIT_TIMEOUT=2 "$comm" --fault "$fault" "${share[@]}"
done
for np in 1 2 4; do
  step "device-side 8-byte all-reduce, np$np, 10^4 calls back to back" \
    expect_line "^# comm_check: OK" run -np "$np" "$comm" --bench 10000 "${share[@]}"
done
grep "comm_check bench" "$log" | sort -u | tee -a "$out/bench.txt"

# ---- the stream-ordered collectives: every call bit for bit, then the benchmark ----------
stream=$build/tests/shardtab/comm/stream_check
for np in 1 2 4; do
  step "stream_check np$np: every op, type, count, algorithm, broadcast, all-gather" \
    expect_line "^# stream_check: OK" run -np "$np" "$stream" "${share[@]}"
done
step "stream_check np2, 64 MiB a rank" expect_line "64 MiB all-reduce OK" run -np 2 "$stream" --big "${share[@]}"
step "stream_check np4 on 2+2 nodes" expect_line "^# stream_check: OK" \
  run -np 4 -x SHARDTAB_RANKS_PER_NODE=2 "$stream" "${share[@]}"
for fault in count offset past-shard; do
  step "stream_check np2, planted $fault: one message, exit 2" \
    expect_line "stream_check: error" expect_rc 2 run -np 2 -x SHARDTAB_WAIT_TIMEOUT=5 "$stream" --fault "$fault" "${share[@]}"
done
# a user's kernel against the installed library (CUDA consumer)
step "install, and a CUDA consumer's own kernel (put with signal, all-reduce)" \
  bash -c "cmake --install '$build' --prefix /tmp/consumer-prefix >/dev/null &&
           cmake -S '$top/tests/install/consumer' -B /tmp/consumer-build -DCMAKE_PREFIX_PATH=/tmp/consumer-prefix -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
           cmake --build /tmp/consumer-build >/dev/null &&
           timeout 120 mpirun $mpi_oversubscribe -np 2 /tmp/consumer-build/consumer --allow-shared-gpu | grep '^consumer: OK'"
# the Python front over torch tensors (the package from the source tree, the built library)
for np in 2 4; do
  step "Python collectives over torch tensors, np$np" \
    expect_line "^# verify torch collectives: OK" run -np "$np" -x PYTHONPATH="$top/src/python" \
    -x SHARDTAB_LIBRARY="$build/libshardtab.so" python3 "$top/tests/gpu/check_torch_collectives.py" --allow-shared-device
done
for np in 2 4; do
  max=$((np == 2 ? bench_max : bench_max / 4))
  step "coll_bench np$np, 8 B to $max B" \
    expect_line "^# coll_bench: every result verified" run -np "$np" "$build/coll_bench" --max "$max" "${share[@]}"
  sed -n '/^# coll_bench: '"$np"' ranks/,/^# coll_bench: every/p' "$log" >"$out/coll-bench-np$np.txt"
done

# ---- jacobi on the layer, 2 ranks under MPS ---------------------------------------------
for l in persistent graph stream; do
  step "jacobi np2 $l 1024^2, random start, every check" \
    expect_line "^# verify jacobi: OK" run -np 2 "$jac" -nx 1024 -ny 1024 -niter 500 --init random --launch "$l" "${share[@]}"
done
step "jacobi np2 graph 2048^2, random start" \
  expect_line "^# verify jacobi: OK" run -np 2 "$jac" -nx 2048 -ny 2048 -niter 300 --init random --launch graph "${share[@]}"
step "jacobi np4 graph 1024^2, random start" \
  expect_line "^# verify jacobi: OK" run -np 4 "$jac" -nx 1024 -ny 1024 -niter 300 --init random --launch graph "${share[@]}"
for l in persistent graph; do
  step "jacobi np2 $l converges and stops on the device (-nccheck 3)" \
    expect_line "^# verify jacobi: OK" run -np 2 "$jac" -nx 66 -ny 34 -niter 20000 -nccheck 3 --launch "$l" "${share[@]}"
  step "jacobi np2 $l, planted norm bug: caught" \
    expect_line "norms differ by" expect_rc 1 run -np 2 -x JACOBI_TEST_FAULT=run:norm:30:1024:40 "$jac" -nx 2048 -ny 66 -niter 60 --init random --launch "$l" "${share[@]}"
  step "jacobi np2 $l, a rank that never signals: every rank ends, exit 1" \
    expect_line "a device-side wait gave up" expect_rc 1 run -np 2 -x JACOBI_TEST_SKIP_SIGNAL=1 -x SHARDTAB_WAIT_TIMEOUT=2 \
    "$jac" -nx 1026 -ny 515 -niter 300 --launch "$l" "${share[@]}"
done
step "jacobi np1 persistent 2048^2, CPU check" \
  expect_line "^# verify jacobi: OK" run -np 1 "$jac" -nx 2048 -ny 2048 -niter 1000 --init random --launch persistent --cpu-check yes

fi

# ---- no regression: the persistent solve, this tree against the baseline, alternating ----
stop_mps # one rank: the GPU as the earlier figures had it
((regress)) || sizes=""
for n in $sizes; do
  for r in $(seq 1 "$runs"); do
    for tree in new base; do
      bin=$jac
      [[ $tree == base ]] && bin=$base_build/jacobi
      [[ -x $bin ]] || continue
      json=$out/regress-$tree-$n-$r.json
      run -np 1 "$bin" -nx "$n" -ny "$n" -niter 1000 --launch persistent --cpu-check no --json "$json" \
        >>"$log" 2>&1
      secs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$json" 2>/dev/null)
      rm -f "$json"
      say "# regress $tree ${n}^2 run $r: ${secs:-failed} s"
      echo "$tree,$n,$r,$secs" >>"$csv"
    done
  done
done
say "# gpu-comm: $failures failed steps"
exit $((failures > 0))

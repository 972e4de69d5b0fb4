#!/usr/bin/env bash
# gpu-latency.sh - on the NVIDIA machine, in one call, the library's
# microsecond chain: starts CUDA MPS (ranks sharing the one GPU run their
# kernels at once, as on AMD), builds this tree's CUDA backend and, beside
# it, the tree in .baseline (git archive <commit> | tar -x -C .baseline);
# checks every device-side and stream-ordered collective bit for bit at 1, 2
# and 4 ranks (and 2+2 simulated nodes) with planted faults caught; then,
# alternating the two trees in the same job, the device-side 8-byte
# all-reduce at 1, 2 and 4 ranks (comm_check --bench: a claim a call and
# held), coll_bench from 8 B to 1 MiB at 1, 2 and 4 ranks (device side, every
# algorithm, graphs, MPI and the copy engine beside them), the 256 MiB
# two-shot at 2, jacobi at two and four ranks (onchip and persistent,
# 2048x2050 and 1024x1026), and jacobi on chip at one rank (2048x2048,
# 2048x1026), with each tree's kernels' registers and stack (cuobjdump)
# beside it. Before the benchmarks, jacobi on chip between ranks bit for bit
# at 2, 3 and 4 ranks, with its planted faults (a stale rank edge, a silent
# rank) caught.
#
# Usage: scripts/gpu-latency.sh [--quick] [outdir]
#   --quick  the checks and one benchmark round, no baseline
# Writes into outdir: latency.log (every step), bench-<tree>-*.txt,
# bench-device.txt, jacobi-np1.txt, jacobi-np2.txt, jacobi-np4.txt, stack.txt.
# shellcheck disable=SC2154  # out, log and failures come from gpu-common.sh
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091,SC2154
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
quick=0
[[ ${1:-} == --quick ]] && { quick=1; shift; }
gpu_start "${1:-$top/latency-out}" latency.log
say "# gpu-latency $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), tree $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"
{
  nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2
  mpirun --version | head -1
} >>"$log" 2>&1
mps_start

targets=(--target comm_check stream_check coll_bench jacobi)
build=$top/build-gpu-latency
base=$top/build-gpu-latency-base
(cmake -S "$top" -B "$build" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON >"$out/build.log" 2>&1 &&
  cmake --build "$build" -j 12 "${targets[@]}" >>"$out/build.log" 2>&1) &
ours=$!
if ((quick == 0)) && [[ -d $top/.baseline ]]; then
  (cmake -S "$top/.baseline" -B "$base" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON \
    >"$out/build-base.log" 2>&1 && cmake --build "$base" -j 4 "${targets[@]}" >>"$out/build-base.log" 2>&1) &
  theirs=$!
fi
wait "$ours" || { say "# build failed"; tail -40 "$out/build.log" | tee -a "$log"; exit 1; }
[[ -n ${theirs:-} ]] && { wait "$theirs" || say "# baseline build failed (see build-base.log)"; }
say "# built"
share=(--allow-shared-gpu)
comm=$build/tests/shardtab/comm/comm_check
stream=$build/tests/shardtab/comm/stream_check

# ---- every call bit for bit, concurrently under MPS -------------------------------------
for np in 1 2 4; do
  step "comm_check np$np" expect_line "^# comm_check: OK" run -np "$np" "$comm" "${share[@]}"
  step "stream_check np$np" expect_line "^# stream_check: OK" run -np "$np" "$stream" "${share[@]}"
done
step "comm_check np4 on 2+2 nodes" expect_line "^# comm_check: OK" run -np 4 -x SHARDTAB_RANKS_PER_NODE=2 "$comm" "${share[@]}"
step "stream_check np4 on 2+2 nodes" expect_line "^# stream_check: OK" run -np 4 -x SHARDTAB_RANKS_PER_NODE=2 "$stream" "${share[@]}"
for np in 1 2 4; do
  step "comm_check np$np, held (one claim a kernel)" expect_line "^# comm_check: OK" run -np "$np" "$comm" --held "${share[@]}"
done
step "comm_check np4 on 2+2 nodes, held" expect_line "^# comm_check: OK" run -np 4 -x SHARDTAB_RANKS_PER_NODE=2 "$comm" --held "${share[@]}"
step "comm_check np2, 1000 values a call" expect_line "^# comm_check: OK" run -np 2 "$comm" --values 1000 --rounds 5 "${share[@]}"
step "comm_check np2, 1024 threads a block" expect_line "^# comm_check: OK" run -np 2 "$comm" --threads 1024 "${share[@]}"
step "stream_check np2, 64 MiB a rank" expect_line "64 MiB all-reduce OK" run -np 2 "$stream" --big "${share[@]}"
for spec in "never|1|a device-side wait gave up" "stale|1|to be >= 15, and it held 11" \
  "corrupt|1|fail their checksum" "count|2|disagree on a collective call" \
  "concurrent|2|while another call of the same collective" "third|2|started a third call"; do
  IFS='|' read -r fault rc re <<<"$spec"
  step "comm_check np2, planted $fault: caught on every rank" \
    expect_rc_line "$rc" "$re" run -np 2 -x SHARDTAB_WAIT_TIMEOUT=2 "$comm" --fault "$fault" "${share[@]}"
  step "comm_check np2, held, planted $fault: caught on every rank" \
    expect_rc_line "$rc" "$re" run -np 2 -x SHARDTAB_WAIT_TIMEOUT=2 "$comm" --held --fault "$fault" "${share[@]}"
done
for fault in count offset; do
  step "stream_check np2, planted $fault: one message, exit 2" \
    expect_rc_line 2 "stream_check: error" run -np 2 -x SHARDTAB_WAIT_TIMEOUT=5 "$stream" --fault "$fault" "${share[@]}"
  step "stream_check np2, planted $fault in an 8-byte call: one message, exit 2" \
    expect_rc_line 2 "disagree on a stream-ordered" run -np 2 -x SHARDTAB_WAIT_TIMEOUT=5 "$stream" --fault "$fault" --fault-small "${share[@]}"
done

# ---- jacobi on chip between ranks: the edge rows as LL words through the table ----------
for np in 2 3 4; do
  step "jacobi np$np onchip 1024x1030, bit for bit" expect_line "^# verify jacobi: OK" \
    run -np "$np" "$build/jacobi" -nx 1024 -ny 1030 -niter 300 --init random --launch onchip "${share[@]}"
done
# row 515 is rank 1's first at two ranks (1028 interior rows, 514 each)
step "jacobi np2 onchip, planted stale rank edge: caught" expect_rc_line 1 \
  "check run: the 2-rank run .onchip launches. DIFFERS FROM" run -np 2 -x JACOBI_TEST_FAULT=run:edge:515:0:20 \
  "$build/jacobi" -nx 1024 -ny 1030 -niter 300 --init random --launch onchip --cpu-check no "${share[@]}"
step "jacobi np3 onchip, a silent rank: its edge rows waited for, named" expect_rc_line 1 \
  "gave up waiting for the edge row of rank [0-2] (above|below) it" run -np 3 -x JACOBI_TEST_SKIP_SIGNAL=1 \
  -x SHARDTAB_WAIT_TIMEOUT=2 "$build/jacobi" -nx 1024 -ny 1030 -niter 300 -nccheck 1000 --launch onchip "${share[@]}"

# ---- the benchmarks, the two trees alternating --------------------------------------------
trees=(new)
((quick == 0)) && [[ -x $base/coll_bench ]] && trees+=(base)
bin() { [[ $1 == new ]] && echo "$build" || echo "$base"; }
for tree in "${trees[@]}"; do
  b=$(bin "$tree")
  for np in 1 2 4; do
    seen=$(grep -c "comm_check bench: rank 0:" "$log")
    step "[$tree] device-side 8-byte all-reduce, np$np, 10^4 calls" \
      expect_line "^# comm_check: OK" run -np "$np" "$b/tests/shardtab/comm/comm_check" --bench 10000 "${share[@]}"
    grep "comm_check bench: rank 0:" "$log" | tail -n +$((seen + 1)) | sed "s/^/[$tree] /" >>"$out/bench-device.txt"
  done
done
# ---- jacobi on chip at one rank (its tiles' and its norm's waits), and each tree's kernels' stack
for round in 1 2; do
  for tree in "${trees[@]}"; do
    b=$(bin "$tree")
    for ny in 2048 1026; do
      step "[$tree] jacobi np1 2048x$ny onchip, round $round" \
        expect_line "^# verify jacobi: OK" run -np 1 "$b/jacobi" -nx 2048 -ny "$ny" -niter 1000 --launch onchip --cpu-check no "${share[@]}"
      grep -E "^2048x$ny: " "$log" | tail -1 | sed "s/^/[$tree] onchip np1 round $round: /" >>"$out/jacobi-np1.txt"
    done
  done
done
for tree in "${trees[@]}"; do
  b=$(bin "$tree")
  find "$b" -maxdepth 3 \( -name jacobi -o -name 'lib*.so*' -o -name 'lib*.a' \) -type f | sort | while read -r f; do
    echo "## [$tree] $f"
    cuobjdump -res-usage "$f" 2>/dev/null | grep -E "^ *Function|REG|STACK" | paste - - | grep -iE "onchip|persistent|collective|temporal" | sed -E 's/ +/ /g'
  done >>"$out/stack.txt"
done
for np in 2 1 4; do
  for tree in "${trees[@]}"; do
    b=$(bin "$tree")
    f=$out/bench-$tree-np$np.txt
    step "[$tree] coll_bench np$np, 8 B to 1 MiB" \
      expect_line "^# coll_bench: every result verified" bash -c "timeout 240 mpirun $mpi_oversubscribe --bind-to none -np $np '$b/coll_bench' --max 1048576 --repeats 7 --allow-shared-gpu | tee '$f'"
  done
done
for tree in "${trees[@]}"; do
  b=$(bin "$tree")
  step "[$tree] coll_bench np2, 256 MiB" \
    expect_line "^# coll_bench: every result verified" bash -c "timeout 240 mpirun $mpi_oversubscribe --bind-to none -np 2 '$b/coll_bench' --min 268435456 --max 268435456 --repeats 5 --allow-shared-gpu | tee '$out/bench-$tree-np2-256M.txt'"
done
# ---- jacobi at two and four ranks on the GPU (the norm's collective every iteration) ----------
for round in 1 2; do
  for tree in "${trees[@]}"; do
    b=$(bin "$tree")
    for np in 2 4; do
      for grid in 2048x2050 1024x1026; do
        for launch in onchip persistent; do
          step "[$tree] jacobi np$np $grid $launch, round $round" \
            expect_line "^# verify jacobi: OK" run -np "$np" "$b/jacobi" -nx "${grid%x*}" -ny "${grid#*x}" \
            -niter 1000 --launch "$launch" --cpu-check no "${share[@]}"
          grep -E "^$grid: " "$log" | tail -1 | sed "s/^/[$tree] np$np $launch round $round: /" >>"$out/jacobi-np$np.txt"
        done
      done
    done
  done
done
say "# gpu-latency: $failures failed steps"
exit $((failures > 0))

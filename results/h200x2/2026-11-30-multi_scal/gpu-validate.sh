#!/usr/bin/env bash
# gpu-validate.sh - builds the CUDA backend on an NVIDIA machine and runs the GPU
# test set: every mode at 2 ranks and at 4 ranks sharing the GPUs, uneven and
# empty shards and >= 1 GiB per shard, --check-peers, every kernel variant, the
# seed scenario, the unit tests, compute-sanitizer, then the benchmark sweep
# (kernel variants against each other: scripts/gpu-tune.sh).
# Usage: scripts/gpu-validate.sh [outdir]    (logs and JSON land in outdir)
# On the lent machine (no cmocka, no network) the unit tests need Debian's
# cmocka packages carried along: here, once,
#   mkdir -p .debs && (cd .debs && apt-get download libcmocka0 libcmocka-dev)
#   echo /.debs/ >> .git/info/exclude
# then run this script with carry [".debs"] and "$OUT" as outdir.
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-$top/validate-out}" validate.log

say "# gpu-validate $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
{
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total --format=csv
  nvidia-smi topo -m
  nvcc --version | tail -2
  cmake --version | head -1
  mpirun --version | head -1
} >>"$log" 2>&1

# cmocka is not on that machine: unpack the carried Debian packages aside
prefix=()
if compgen -G "$top/.debs/*.deb" >/dev/null; then
  for deb in "$top"/.debs/*.deb; do dpkg -x "$deb" /tmp/cmocka-root; done
  prefix=(-DCMAKE_PREFIX_PATH=/tmp/cmocka-root/usr)
  export LD_LIBRARY_PATH=/tmp/cmocka-root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi

build=$top/build-gpu-validate
step "configure (cuda)" cmake -S "$top" -B "$build" -DSHARDTAB_BACKEND=cuda "${prefix[@]}"
step "build" cmake --build "$build" -j 16
ms=$build/multi_scal
# shellcheck disable=SC2317  # called via step
expect_message_once() {
  local pattern=$1 count; shift
  count=$("$@" 2>&1 >/dev/null | grep -c "$pattern")
  echo "'$pattern' printed $count time(s), want 1"; ((count == 1))
}

step "unit tests" ctest --test-dir "$build" -L unit --output-on-failure
step "seed scenario" "$build/tests/gpu/seed_scenario"
step "every kernel variant and chunk shape, bit for bit" "$build/tests/gpu/scal_variants"
step "np2 default" run -np 2 "$ms"
step "np2 --n 1G (4 GiB per shard), every mode" run -np 2 "$ms" --n 1G --json "$out/np2-1G.json"
step "np2 uneven --n 1000003 -i 3 -a 0.5" run -np 2 "$ms" --n 1000003 -i 3 -a 0.5
step "np2 --n 1" run -np 2 "$ms" --n 1
step "np4 shared GPUs, default" run -np 4 "$ms" --allow-shared-gpu
step "np4 shared GPUs, --n 2 (empty shards)" run -np 4 "$ms" --allow-shared-gpu --n 2
step "np4 shared GPUs, --n 256M uneven+1" run -np 4 "$ms" --allow-shared-gpu --n 268435457
step "np4 without --allow-shared-gpu must exit 2" expect_rc 2 run -np 4 "$ms"
step "np4 SHARDTAB_RANKS_PER_NODE=2, shared" run -np 4 -x SHARDTAB_RANKS_PER_NODE=2 "$ms" --allow-shared-gpu
for variant in naive vec2 vec2x4 vec2x8 vec2x4s chunk; do
  step "np2 variant $variant, --n 100000007" run -np 2 "$ms" --variant "$variant" --n 100000007 -i 2
done
step "np8 shared GPUs (4 ranks per GPU), every mode, --n 1G" run -np 8 "$ms" --allow-shared-gpu --n 1G
step "np8 shared GPUs, --check-peers" run -np 8 "$ms" --check-peers --allow-shared-gpu --json "$out/np8-check-peers.json"
step "np2 --check-peers" run -np 2 "$ms" --check-peers
step "np4 --check-peers, shared" run -np 4 "$ms" --check-peers --allow-shared-gpu
step "np2 fault at open on rank 1: one message" expect_message_once "fault injected" run -np 2 -x SHARDTAB_FAULT=open:1 "$ms"
step "1000 create/destroy cycles np2: fds, mappings, memory flat" run -np 2 "$build/tests/shardtab/reliability/cycle_table"
step "compute-sanitizer memcheck np2" run -np 2 compute-sanitizer --tool memcheck --error-exitcode 9 "$ms" --n 100003
step "compute-sanitizer initcheck np2" run -np 2 compute-sanitizer --tool initcheck --error-exitcode 9 "$ms" --n 100003
step "compute-sanitizer racecheck np2" run -np 2 compute-sanitizer --tool racecheck --error-exitcode 9 "$ms" --n 100003 -m local
step "bench np2 1M..4G" run -np 2 "$ms" --bench --json "$out/bench-np2.json"
# the baseline a user compares `local` with, in the same job
step "torch mul_ baseline, the bench's sizes, each GPU" python3 "$top/scripts/gpu-torch-baseline.py" \
  --bytes 1M,4M,16M,64M,256M,1G,4G --device 0,1
step "bench-pairs np2 1G" run -np 2 "$ms" --bench-pairs --bench-min 1G --bench-max 1G --json "$out/pairs-np2.json"
step "bench-pairs np8 shared 256M" run -np 8 "$ms" --allow-shared-gpu --bench-pairs --bench-min 256M --bench-max 256M --json "$out/pairs-np8-shared.json"
say "# gpu-validate: $failures failure(s)"
grep -E "^## .*: (PASS|FAIL)" "$log" | tail -40
exit $((failures > 0))

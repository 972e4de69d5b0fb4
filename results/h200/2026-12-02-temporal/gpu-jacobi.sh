#!/usr/bin/env bash
# gpu-jacobi.sh - on the NVIDIA machine, in one call: builds jacobi (CUDA
# backend), NVIDIA's multi-gpu-programming-models anchors (single_gpu,
# multi_threaded_p2p_opt, nccl, nccl_graphs, nvshmem) and the CPU-free model's
# Jacobi (ICS'23: baseline P2P -v 2, persistent Design 2 -v 4); checks jacobi
# on the GPUs (every launch mode with a random start, the CPU check at 2048^2 x
# 1000, the planted bugs that every check must catch, a rank that never
# signals, compute-sanitizer) and the signal API as a user's kernels call it
# (tests/shardtab/signals/signal_example); traces a small grid; then times them all side
# by side at every size, 1 GPU and (when two are visible) 2 GPUs.
#
# Usage: scripts/gpu-jacobi.sh [--anchors DIR] [--cpufree DIR] [--sizes "16384 ... 1024"]
#                              [--niter N] [--runs R] [--quick] [--no-sanitizer]
#                              [--sweep-only] [--launches "persistent graph stream"] [outdir]
#   --anchors DIR  the multi-gpu-programming-models folder (default
#                  .anchors/multi-gpu-programming-models: copy ../shared/anchors to
#                  .anchors, an ignored folder, and carry it to the machine)
#   --cpufree DIR  the CPU-free model's folder (default .anchors/cpu-free-model)
#   --runs R       runs of each anchor per size, and --repeat of jacobi (default 3);
#                  the median is kept
#   --quick        the checks only, no timing sweep
#   --no-sanitizer skip the compute-sanitizer checks
#   --sweep-only   no checks, the timing sweep only (each of ours still verified)
#   --launches L   jacobi's launch modes the sweep times (default "persistent graph
#                  stream"; auto, onchip and temporal too); a size is N (N x N) or NXxNY
# With one visible GPU the two-rank checks share it (--allow-shared-gpu) and
# the sweep times the one-GPU codes only. The CPU-free model computes no norm:
# its rows compare with jacobi -nccheck NITER (one norm), in rows of their own.
# NCCL and NVSHMEM come from python3's nvidia-nccl and nvidia-nvshmem wheels.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1).
# Writes into outdir: jacobi-check.log, jacobi-bench.csv (one row per variant,
# size and GPU count), trace-*.csv, and jacobi-json.tar.gz (every run's JSON).
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"

anchors=$top/.anchors/multi-gpu-programming-models
cpufree=$top/.anchors/cpu-free-model
sizes="16384 8192 4096 2048 1024"
niter=1000
runs=3
quick=0
sanitizer=1
sweep_only=0
launches="persistent graph stream"
while [[ $# -gt 0 ]]; do
  case $1 in
  --anchors) anchors=$2; shift 2 ;;
  --cpufree) cpufree=$2; shift 2 ;;
  --sizes) sizes=$2; shift 2 ;;
  --niter) niter=$2; shift 2 ;;
  --runs) runs=$2; shift 2 ;;
  --quick) quick=1; shift ;;
  --no-sanitizer) sanitizer=0; shift ;;
  --sweep-only) sweep_only=1; shift ;;
  --launches) launches=$2; shift 2 ;;
  *) break ;;
  esac
done
gpu_start "${1:-$top/jacobi-out}" jacobi-check.log
csv=$out/jacobi-bench.csv
jsons=$out/json
mkdir -p "$jsons"
echo "variant,nx,ny,niter,gpus,seconds,reference_seconds,runs,note" >"$csv"

say "# gpu-jacobi $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
{
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  nvidia-smi topo -m
  nvcc --version | tail -2
  mpirun --version | head -1
  nproc
} >>"$log" 2>&1

# ---- build: ours, and the anchors (in parallel) ---------------------------------------
build=$top/build-gpu-jacobi
# with the tests: signal_example (the signal API as a user's kernels call it)
gpu_build_cuda "$build" -DSHARDTAB_BUILD_TESTS=ON &
ours=$!

sp=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)
nccl=$sp/nvidia/nccl
nvshmem=$sp/nvidia/nvshmem
abuild=/tmp/anchors-build
mkdir -p "$abuild/lib"
{
  echo "# NCCL in $nccl, NVSHMEM in $nvshmem"
  ls -l "$nccl/lib" "$nvshmem/lib" 2>&1
} >>"$log"
# the wheels ship only versioned names: give the linker plain ones
ln -sf "$nccl"/lib/libnccl.so.* "$abuild/lib/libnccl.so" 2>/dev/null
ln -sf "$nvshmem"/lib/libnvshmem_host.so.* "$abuild/lib/libnvshmem_host.so" 2>/dev/null
cuda_home=$(dirname "$(dirname "$(command -v nvcc)")")
# shellcheck disable=SC2054  # one nvcc flag, its commas included
arch=(-gencode arch=compute_90,code=sm_90)
# each build mirrors the anchor's Makefile, with CUDA 13's -std=c++17 and the wheels' paths
build_anchor() {
  local name=$1 dir=$anchors/$1 o=$abuild/$1
  mkdir -p "$o"
  case $name in
  single_gpu | multi_threaded_p2p_opt)
    nvcc -DHAVE_CUB -Xcompiler -fopenmp -lineinfo -ldl "${arch[@]}" -std=c++17 "$dir/jacobi.cu" -o "$o/jacobi" ;;
  nccl | nccl_graphs)
    nvcc -DHAVE_CUB -lineinfo "${arch[@]}" -std=c++17 -c "$dir/jacobi_kernels.cu" -o "$o/jacobi_kernels.o" &&
      mpicxx -I"$cuda_home/include" -I"$nccl/include" -std=c++17 "$dir/jacobi.cpp" "$o/jacobi_kernels.o" \
        -L"$cuda_home/lib64" -L"$abuild/lib" -lcudart -ldl -lnccl -Wl,-rpath,"$nccl/lib" -o "$o/jacobi" ;;
  nvshmem)
    nvcc -DHAVE_CUB -ccbin=mpic++ -dc -Xcompiler -fopenmp -lineinfo "${arch[@]}" -std=c++17 \
      -I"$nvshmem/include" "$dir/jacobi.cu" -c -o "$o/jacobi.o" &&
      nvcc -ccbin=mpic++ "${arch[@]}" "$o/jacobi.o" -o "$o/jacobi" -L"$abuild/lib" -lnvshmem_host \
        "$nvshmem/lib/libnvshmem_device.a" -L"$cuda_home/lib64" -lcuda -lcudart -ldl -lnvidia-ml \
        -Xlinker -rpath -Xlinker "$nvshmem/lib" ;;
  cpu-free)
    # the anchor's README: every src/**/*.cu but PERKS, whose lines leave main.cu in
    # this build copy (its code knows sm_60-80 only); version numbers 0-4 unchanged
    local src=$cpufree/Stencil/jacobi2D copy=$o/src
    rm -rf "$copy" && cp -r "$src" "$copy" && rm -rf "$copy/src/PERKS" "$copy/PERKS" &&
      sed -i '/PERKS/d' "$copy/src/main.cu" &&
      (cd "$copy" && find src -name '*.cu' -print0 | xargs -0 -P 8 -I{} sh -c \
        'nvcc -O2 -std=c++17 -rdc=true -Xcompiler -fopenmp -I include -gencode arch=compute_90,code=sm_90 -c "$1" -o "$1.o"' _ {}) &&
      (cd "$copy" && nvcc -rdc=true -gencode arch=compute_90,code=sm_90 $(find src -name '*.cu.o') \
        -o "$o/jacobi" -lgomp -lcuda) ;;
  esac
}
anchor_names=(single_gpu multi_threaded_p2p_opt nccl nccl_graphs nvshmem cpu-free)
for a in "${anchor_names[@]}"; do
  (build_anchor "$a" >"$out/build-$a.log" 2>&1) &
done
wait "$ours" || { say "# jacobi: build failed"; exit 1; }
wait
for a in "${anchor_names[@]}"; do
  if [[ -x $abuild/$a/jacobi ]]; then say "# anchor $a: built"; else say "# anchor $a: build failed"; tail -5 "$out/build-$a.log" | tee -a "$log"; fi
  cat "$out/build-$a.log" >>"$log"
  rm -f "$out/build-$a.log"
done
export LD_LIBRARY_PATH=$nvshmem/lib:$nccl/lib:${LD_LIBRARY_PATH:-}
jac=$build/jacobi

gpus=$(nvidia-smi -L | grep -c "^GPU")
share=()
if ((gpus < 2)); then
  share=(--allow-shared-gpu)
  say "# one GPU: the two-rank checks share it, the sweep times one-GPU codes only"
fi


if ((sweep_only == 0)); then
# ---- checks: the signal API as a user's kernels call it ----------------------------------------
sig=$build/tests/shardtab/signals
for mode in example barrier streams; do
  step "signal_example $mode, np2: the header's example, barrier_block, barriers on two streams" \
    run -np 2 "$sig/signal_example" --mode "$mode" --rounds 500 "${share[@]}"
done
step "signal_example concurrent: two barriers of one rank at once, refused by name, exit 2" \
  expect_line "entered a barrier of this table while another" expect_rc 2 \
  run -np 2 -x SHARDTAB_WAIT_TIMEOUT=5 "$sig/signal_example" --mode concurrent "${share[@]}"

# ---- checks: jacobi -----------------------------------------------------------------------
for l in persistent graph stream; do
  step "np1 $l, 2048^2 x 1000, random start, CPU check (threads)" \
    expect_line "^# check cpu: the plain reference equals a CPU loop" \
    run -np 1 "$jac" -nx 2048 -ny 2048 -niter 1000 --init random --launch "$l" --cpu-check yes
done
step "np1 persistent, one column a thread (nx % 4 != 0)" run -np 1 "$jac" -nx 2050 -ny 1027 -niter 300 --init random --launch persistent
for l in persistent graph stream; do
  step "np2 $l, uneven rows, random start" \
    run -np 2 "$jac" -nx 1026 -ny 515 -niter 300 --init random --launch "$l" "${share[@]}" --json "$jsons/check-np2-$l.json"
done
for v in host-sync mpi; do
  step "np2 variant $v, random start" run -np 2 "$jac" -nx 1026 -ny 515 -niter 200 --init random --variant "$v" "${share[@]}"
done
step "np2 simulated two nodes (SHARDTAB_RANKS_PER_NODE=1)" \
  run -np 2 -x SHARDTAB_RANKS_PER_NODE=1 "$jac" -nx 1026 -ny 515 -niter 200 --init random "${share[@]}"
for l in persistent graph; do
  step "np2 $l converges and stops on the device (-nccheck 3)" \
    expect_line "^# verify jacobi: OK" run -np 2 "$jac" -nx 66 -ny 34 -niter 20000 -nccheck 3 --launch "$l" "${share[@]}"
done
# every check must fail on a planted bug where the zero start would not see it
wide=(-nx 2048 -ny 66 -niter 60 "${share[@]}")
step "planted bug, zero start: blind (verifies)" \
  run -np 2 -x JACOBI_TEST_FAULT=kernel:stale:30:1024:40 "$jac" "${wide[@]}" --launch persistent
for spec in "kernel:stale:30:1024:40|check reference: .* DIFFERS" "run:stale:30:1024:40|check run: .* DIFFERS" \
  "plain:stale:30:1024:40|check cpu: the plain reference DIFFERS" "run:norm:30:1024:40|norms differ by" \
  "run:stop:0:0:30|31 iterations, expected 60"; do
  for l in persistent graph; do
    step "planted bug ${spec%%|*}, $l, random start: caught" \
      expect_line "${spec#*|}" expect_rc 1 run -np 2 -x JACOBI_TEST_FAULT="${spec%%|*}" "$jac" "${wide[@]}" --init random --launch "$l"
  done
done
for l in persistent graph; do
  step "np2 $l, a rank that never signals: every rank ends with the message, exit 1" \
    expect_line "a device-side wait gave up" expect_rc 1 run -np 2 -x JACOBI_TEST_SKIP_SIGNAL=1 -x SHARDTAB_WAIT_TIMEOUT=2 \
    "$jac" -nx 1026 -ny 515 -niter 300 --launch "$l" "${share[@]}"
done
if ((sanitizer)) && command -v compute-sanitizer >/dev/null; then
  for l in persistent stream; do
    step "compute-sanitizer memcheck, np1 $l" \
      run -np 1 compute-sanitizer --error-exitcode 9 --tool memcheck "$jac" -nx 516 -ny 259 -niter 40 --init random --launch "$l"
    step "compute-sanitizer racecheck, np1 $l" \
      run -np 1 compute-sanitizer --error-exitcode 9 --tool racecheck "$jac" -nx 516 -ny 259 -niter 20 --init random --launch "$l"
  done
  step "compute-sanitizer memcheck, np2 persistent" \
    run -np 2 compute-sanitizer --error-exitcode 9 --tool memcheck "$jac" -nx 514 -ny 259 -niter 40 --init random --launch persistent "${share[@]}"
fi
# where the time of a small-grid iteration goes
tr_np=1
((gpus >= 2)) && tr_np=2
for l in persistent graph; do
  step "trace np$tr_np $l, 2048^2" run -np "$tr_np" "$jac" -nx 2048 -ny 2048 -niter 1000 --launch "$l" --cpu-check no \
    --trace "$out/trace-np$tr_np-$l-2048.csv"
  grep -A3 "^# trace:" "$log" | tail -4 >>"$out/traces.txt"
done
say "# checks: $failures failure(s)"
fi # the checks

if ((quick)); then
  tar -C "$out" -czf "$out/jacobi-json.tar.gz" json && rm -rf "$jsons"
  exit "$((failures > 0))"
fi

# ---- the sweep: every variant at every size, in this one job --------------------------------
median_of() { python3 -c 'import sys, statistics; v=[float(x) for x in sys.argv[1:] if x]; print(statistics.median(v) if v else "")' "$@"; }
record() { echo "$1,${2%x*},${2#*x},$niter,$3,$4,$5,$6,$7" >>"$csv"; say "  $1 $2 gpus=$3: $4 s (reference ${5:-n/a} s) $7"; }
anchor_time() { # anchor NXxNY gpus: one run's seconds (and the anchor's own reference)
  local a=$1 nx=${2%x*} ny=${2#*x} g=$3 line f
  case $a in
  single_gpu) line=$(timeout 300 "$abuild/$a/jacobi" -nx "$nx" -ny "$ny" -niter "$niter" -csv 2>>"$log" | grep "^single_gpu")
    IFS=', ' read -r -a f <<<"$line"; echo "${f[5]:-}" ;;
  multi_threaded_p2p_opt) line=$(timeout 300 "$abuild/$a/jacobi" -nx "$nx" -ny "$ny" -niter "$niter" -csv 2>>"$log" | grep "^multi_threaded")
    IFS=', ' read -r -a f <<<"$line"; echo "${f[7]:-} ${f[8]:-}" ;;
  cpu-free-v2 | cpu-free-v4)
    line=$(CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((g - 1))) timeout 60 "$abuild/cpu-free/jacobi" -v "${a#cpu-free-v}" -s \
      -nx "$nx" -ny "$ny" -niter "$niter" 2>>"$log" | grep "^Execution time")
    echo "$line" | awk '{print $3}' ;;
  *) line=$(run -np "$g" "$abuild/$a/jacobi" -nx "$nx" -ny "$ny" -niter "$niter" -csv 2>>"$log" | grep "^$a")
    IFS=', ' read -r -a f <<<"$line"; echo "${f[7]:-} ${f[8]:-}" ;;
  esac
}
ours() { # name np NXxNY extra-args...: one jacobi run, --repeat runs, its median and reference
  local name=$1 np=$2 n=$3 json
  shift 3
  json=$jsons/$name-$n.json
  if run -np "$np" "$jac" -nx "${n%x*}" -ny "${n#*x}" -niter "$niter" --repeat "$runs" --cpu-check no \
    --json "$json" "$@" >>"$log" 2>&1; then
    read -r t ref <<<"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["seconds"], d["reference_seconds"])' "$json")"
    record "$name" "$n" "$np" "$t" "$ref" "$runs" "verified"
  else
    record "$name" "$n" "$np" "" "" "$runs" "FAILED"
    failures=$((failures + 1))
  fi
}
gpu_counts=(1)
((gpus >= 2)) && gpu_counts=(1 2)
declare -A broken=()
for n in $sizes; do
  [[ $n == *x* ]] || n=${n}x$n
  say "# size ${n%x*} x ${n#*x}, $niter iterations, norm every iteration unless said"
  for g in "${gpu_counts[@]}"; do
    if ((g == 1)); then names=(single_gpu cpu-free-v2 cpu-free-v4); else
      names=(multi_threaded_p2p_opt nccl nccl_graphs nvshmem cpu-free-v2 cpu-free-v4); fi
    for a in "${names[@]}"; do
      [[ -x $abuild/${a%-v[0-9]}/jacobi ]] || continue
      [[ -n ${broken[$a]:-} ]] && continue
      ts=() refs=()
      for ((r = 0; r < runs; r++)); do
        read -r t ref <<<"$(anchor_time "$a" "$n" "$g")"
        echo "$a gpus=$g run $r: $t $ref" >>"$log"
        # a run that printed no time (hung and was stopped, or failed): skip this anchor from now on
        if [[ -z $t ]]; then broken[$a]=1; say "# anchor $a gave no time at ${n}^2 on $g GPU(s): left out from here"; break; fi
        ts+=("$t") refs+=("${ref:-}")
      done
      note=""
      [[ $a == cpu-free-* ]] && note="no norm"
      record "$a" "$n" "$g" "$(median_of "${ts[@]}")" "$(median_of "${refs[@]}")" "$runs" "$note"
    done
    for l in $launches; do
      ours "jacobi-$l" "$g" "$n" --launch "$l" "${share[@]}"
    done
    ours "jacobi-persistent-one-norm" "$g" "$n" --launch persistent -nccheck "$niter" "${share[@]}"
    if ((g == 2)); then
      for v in host-sync mpi; do ours "jacobi-$v" 2 "$n" --variant "$v"; done
    fi
  done
done
say ""
say "# seconds for $niter iterations (median of $runs); ours verified bit for bit against the plain reference"
python3 - "$csv" <<'PY' | tee -a "$log"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sizes = sorted({(int(r["nx"]), int(r["ny"])) for r in rows}, key=lambda s: s[0] * s[1], reverse=True)
keys = []
for r in rows:
    k = (r["variant"], r["gpus"])
    if k not in keys:
        keys.append(k)
print("%-32s %4s" % ("variant", "gpus") + "".join("%11s" % ("%dx%d" % n) for n in sizes))
for name, g in keys:
    cells = []
    for n in sizes:
        v = [r["seconds"] for r in rows if (r["variant"], r["gpus"]) == (name, g) and (int(r["nx"]), int(r["ny"])) == n]
        cells.append("%11s" % (("%.5f" % float(v[0])) if v and v[0] else "-"))
    print("%-32s %4s" % (name, g) + "".join(cells))
PY
tar -C "$out" -czf "$out/jacobi-json.tar.gz" json && rm -rf "$jsons"
say "# gpu-jacobi: $failures failure(s)"
exit "$((failures > 0))"

#!/usr/bin/env bash
# gpu-jacobi.sh - on the NVIDIA machine: builds jacobi (CUDA backend) and the
# anchors of NVIDIA's multi-gpu-programming-models (single_gpu,
# multi_threaded_p2p_opt, nccl, nccl_graphs, nvshmem) from an unpacked copy,
# checks every jacobi variant on the GPUs, then times them all side by side,
# in this one job, on the same GPUs, at the same sizes.
#
# Usage: scripts/gpu-jacobi.sh [--anchors DIR] [--sizes "16384 8192 4096 2048"]
#                              [--niter N] [--runs R] [--quick] [outdir]
#   --anchors DIR  the multi-gpu-programming-models folder (default
#                  .anchors/multi-gpu-programming-models: copy ../shared/anchors
#                  there, an ignored folder, and carry it to the machine)
#   --runs R       runs of each anchor per size, and --repeat of jacobi (default 3);
#                  the median is kept
#   --quick        the checks only, no timing sweep
#   --no-sanitizer skip the compute-sanitizer checks
# With one visible GPU the two-rank checks share it (--allow-shared-gpu) and
# the sweep times the single-GPU codes only (single_gpu, jacobi -np 1).
# NCCL and NVSHMEM come from python3's nvidia-nccl and nvidia-nvshmem wheels.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1).
# Writes jacobi-bench.csv (one row per variant and size), jacobi-check.log and
# the JSON of every jacobi run into outdir.
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/gpu-common.sh"

anchors=$top/.anchors/multi-gpu-programming-models
sizes="16384 8192 4096 2048"
niter=1000
runs=3
quick=0
sanitizer=1
while [[ $# -gt 0 ]]; do
  case $1 in
  --anchors) anchors=$2; shift 2 ;;
  --sizes) sizes=$2; shift 2 ;;
  --niter) niter=$2; shift 2 ;;
  --runs) runs=$2; shift 2 ;;
  --quick) quick=1; shift ;;
  --no-sanitizer) sanitizer=0; shift ;;
  *) break ;;
  esac
done
gpu_start "${1:-$top/jacobi-out}" jacobi-check.log
csv=$out/jacobi-bench.csv
echo "variant,nx,ny,niter,gpus,seconds,reference_seconds,runs,note" >"$csv"

say "# gpu-jacobi $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
{
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
  nvidia-smi topo -m
  nvcc --version | tail -2
  mpirun --version | head -1
} >>"$log" 2>&1

# ---- build: ours, and the anchors (in parallel) ---------------------------------------
build=$top/build-gpu-jacobi
gpu_build_cuda "$build"
jac=$build/jacobi

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
  esac
}
for a in single_gpu multi_threaded_p2p_opt nccl nccl_graphs nvshmem; do
  (build_anchor "$a" >"$out/build-$a.log" 2>&1 && echo "built $a" || echo "BUILD FAILED $a") &
done
wait
for a in single_gpu multi_threaded_p2p_opt nccl nccl_graphs nvshmem; do
  if [[ -x $abuild/$a/jacobi ]]; then say "# anchor $a: built"; else say "# anchor $a: build failed"; tail -5 "$out/build-$a.log" | tee -a "$log"; fi
done
export LD_LIBRARY_PATH=$nvshmem/lib:$nccl/lib:${LD_LIBRARY_PATH:-}

gpus=$(nvidia-smi -L | grep -c "^GPU")
share=()
if ((gpus < 2)); then
  share=(--allow-shared-gpu)
  say "# one GPU: the two-rank checks share it, the sweep times single-GPU codes only"
fi

# ---- checks: every variant verifies on the GPUs; a wait that cannot finish ends the job ----
# shellcheck disable=SC2317  # called via step
expect_rc() { local want=$1 rc; shift; "$@"; rc=$?; echo "exit $rc, want $want"; ((rc == want)); }
small=(-nx 2050 -ny 1027 -niter 300 "${share[@]}")
for v in table host-sync mpi; do
  step "np2 $v, uneven rows" run -np 2 "$jac" "${small[@]}" --variant "$v" --json "$out/check-$v.json"
done
step "np2 table, 16-byte path (nx % 4 == 0), CPU-checked" run -np 2 "$jac" -nx 1024 -ny 515 -niter 300 "${share[@]}"
step "np2 mpi, 16-byte path (nx % 4 == 0), CPU-checked" run -np 2 "$jac" -nx 1024 -ny 515 -niter 300 --variant mpi "${share[@]}"
step "np2 table, 16-byte path, large" run -np 2 "$jac" -nx 4096 -ny 2051 -niter 300 "${share[@]}"
step "np2 table, stream launches" run -np 2 "$jac" "${small[@]}" --launch stream
step "np1 table" run -np 1 "$jac" "${small[@]}"
step "np2 table, simulated two nodes (SHARDTAB_RANKS_PER_NODE=1)" \
  run -np 2 -x SHARDTAB_RANKS_PER_NODE=1 "$jac" "${small[@]}"
step "np2 table, converges and stops on the device (-nccheck 3)" \
  run -np 2 "$jac" -nx 66 -ny 34 -niter 20000 -nccheck 3 "${share[@]}"
step "np2 table, a rank that never signals: every rank ends with the message, exit 1" \
  expect_rc 1 run -np 2 -x JACOBI_TEST_SKIP_SIGNAL=1 -x SHARDTAB_WAIT_TIMEOUT=2 "$jac" "${small[@]}"
grep -h "device-side wait" "$log" | tail -2 | sed 's/^/# /' | tee -a "$log"
if ((sanitizer)) && command -v compute-sanitizer >/dev/null; then
  step "compute-sanitizer memcheck, np2 table" \
    run -np 2 compute-sanitizer --error-exitcode 9 --tool memcheck "$jac" -nx 514 -ny 259 -niter 40 "${share[@]}"
  step "compute-sanitizer racecheck, np1 table" \
    run -np 1 compute-sanitizer --error-exitcode 9 --tool racecheck "$jac" -nx 514 -ny 259 -niter 20 --launch stream
fi
say "# checks: $failures failure(s)"
((quick)) && exit "$((failures > 0))"

# ---- the sweep: every variant at every size, in this one job --------------------------------
median_of() { python3 -c 'import sys, statistics; v=[float(x) for x in sys.argv[1:] if x]; print(statistics.median(v) if v else "")' "$@"; }
record() { echo "$1,$2,$2,$niter,$3,$4,$5,$6,$7" >>"$csv"; say "  $1 ${2}x$2 gpus=$3: $4 s (reference ${5:-n/a} s) $7"; }
if ((gpus < 2)); then
  for n in $sizes; do
    ts=()
    for ((r = 0; r < runs; r++)); do
      line=$(timeout 300 "$abuild/single_gpu/jacobi" -nx "$n" -ny "$n" -niter "$niter" -csv 2>>"$log" | grep "^single_gpu")
      IFS=', ' read -r -a f <<<"$line"
      ts+=("${f[5]:-}")
    done
    record single_gpu "$n" 1 "$(median_of "${ts[@]}")" "" "$runs" ""
    for launch in graph stream; do
      json=$out/jacobi-np1-$launch-$n.json
      if run -np 1 "$jac" -nx "$n" -ny "$n" -niter "$niter" --launch "$launch" --repeat "$runs" \
        --json "$json" >>"$log" 2>&1; then
        read -r t ref <<<"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["seconds"], d["reference_seconds"])' "$json")"
        record "jacobi-np1-$launch" "$n" 1 "$t" "$ref" "$runs" "verified"
      else
        record "jacobi-np1-$launch" "$n" 1 "" "" "$runs" "FAILED"
        failures=$((failures + 1))
      fi
    done
  done
  sizes=""
fi
for n in $sizes; do
  say "# size ${n} x ${n}, $niter iterations, norm every iteration"
  # the anchors, `runs` times each, CSV lines
  for a in single_gpu multi_threaded_p2p_opt nccl nccl_graphs nvshmem; do
    [[ -x $abuild/$a/jacobi ]] || continue
    ts=() refs=()
    for ((r = 0; r < runs; r++)); do
      case $a in
      single_gpu) line=$(timeout 300 "$abuild/$a/jacobi" -nx "$n" -ny "$n" -niter "$niter" -csv 2>>"$log" | grep "^single_gpu") ;;
      multi_threaded_p2p_opt) line=$(timeout 300 "$abuild/$a/jacobi" -nx "$n" -ny "$n" -niter "$niter" -csv 2>>"$log" | grep "^multi_threaded") ;;
      *) line=$(run -np 2 "$abuild/$a/jacobi" -nx "$n" -ny "$n" -niter "$niter" -csv 2>>"$log" | grep "^$a") ;;
      esac
      echo "$a run $r: $line" >>"$log"
      IFS=', ' read -r -a f <<<"$line"
      if [[ $a == single_gpu ]]; then ts+=("${f[5]:-}"); else ts+=("${f[7]:-}"); refs+=("${f[8]:-}"); fi
    done
    gpus=2; [[ $a == single_gpu ]] && gpus=1
    record "$a" "$n" "$gpus" "$(median_of "${ts[@]}")" "$(median_of "${refs[@]}")" "$runs" ""
  done
  # ours: the median of --repeat solves after a warm-up, the reference likewise
  for v in "table" "table --launch stream" "host-sync" "mpi" "table rpn1"; do
    read -r -a words <<<"$v"
    name=jacobi-${v// /-}; name=${name//--/}
    extra=()
    if [[ ${words[1]:-} == rpn1 ]]; then extra=(-x SHARDTAB_RANKS_PER_NODE=1); words=("${words[0]}"); fi
    json=$out/$name-$n.json
    if run -np 2 "${extra[@]}" "$jac" -nx "$n" -ny "$n" -niter "$niter" --variant "${words[0]}" \
      "${words[@]:1}" --repeat "$runs" --json "$json" >>"$log" 2>&1; then
      read -r t ref <<<"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["seconds"], d["reference_seconds"])' "$json")"
      record "$name" "$n" 2 "$t" "$ref" "$runs" "verified"
    else
      record "$name" "$n" 2 "" "" "$runs" "FAILED"
      failures=$((failures + 1))
    fi
  done
done
say ""
say "# seconds for $niter iterations (median of $runs), 2 x H200; ours verified bit for bit"
python3 - "$csv" <<'PY' | tee -a "$log"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sizes = sorted({int(r["nx"]) for r in rows}, reverse=True)
names = []
for r in rows:
    if r["variant"] not in names:
        names.append(r["variant"])
print("%-28s" % "variant" + "".join("%12s" % ("%d^2" % n) for n in sizes))
for name in names:
    cells = []
    for n in sizes:
        v = [r["seconds"] for r in rows if r["variant"] == name and int(r["nx"]) == n]
        cells.append("%12s" % (("%.4f" % float(v[0])) if v and v[0] else "-"))
    print("%-28s" % name + "".join(cells))
PY
say "# gpu-jacobi: $failures failure(s)"
exit "$((failures > 0))"

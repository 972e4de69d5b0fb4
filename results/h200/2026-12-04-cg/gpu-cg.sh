#!/usr/bin/env bash
# gpu-cg.sh - on the NVIDIA machine, in one call: the cg program beside the
# CPU-free model's CG (the anchor, Ismayilov et al., ICS'23). Starts CUDA MPS
# (ranks sharing the GPU run at once), builds cg for CUDA (and for the host
# backend, whose --repro bits the GPU's must equal) and the anchor with
# NVSHMEM from python3's wheel; checks cg at 1 to 4 ranks (both variants, both
# launches, the CPU's CG beside), across simulated nodes (the columns of other
# nodes by MPI), the --repro bits equal at every rank count, across nodes and
# against the host backend; then times 1000 iterations (--tol 0) of the
# issue's sizes: ours with the memory's floor beside, one traced iteration,
# and the anchor's versions on the same MatrixMarket files, in the same job.
#
# Usage: scripts/gpu-cg.sh [outdir] [--quick] [--builds "B/M ..."] [--sweep-blocks "N ..."]
#   --quick         the checks and one size (512^2) only
#   --builds        the kernels' build settings, one build each: B the product's batch
#                   (SPMV_BATCH), M the persistent kernel's resident blocks a multiprocessor
#                   (CG_PERSISTENT_MIN_BLOCKS); the first (default 1/4) is checked and timed
#                   in full, the others timed beside it (persistent, one rank)
#   --sweep-blocks  also time the first build's persistent solves at these --blocks
# Writes into outdir: cg.log (every step), table.txt (the timings), res-usage.txt (each
# kernel's registers), more.tgz (the runs' JSON and traces, the build logs).
# The anchor is read from .anchors/cpu-free-model/CG (copy ../shared/anchors
# to .anchors, an ignored folder, and carry it to the machine).
# shellcheck disable=SC2154  # out, log and failures come from gpu-common.sh
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
quick=0
dir=$top/cg-out
builds=(1/4)
sweep=()
while (($#)); do
  case $1 in
  --quick) quick=1; shift ;;
  --builds) read -r -a builds <<<"$2"; shift 2 ;;
  --sweep-blocks) read -r -a sweep <<<"$2"; shift 2 ;;
  *) dir=$1; shift ;;
  esac
done
# build_dir B/M: where that build goes
build_dir() { echo "$top/build-gpu-cg-b${1%/*}-m${1#*/}"; }
gpu_start "$dir" cg.log
table=$out/table.txt
more=$out/more
mkdir -p "$more"
# a run that hangs costs a minute, not the call
# shellcheck disable=SC2086  # word-split flag from mpi-env.sh
run() { timeout 90 mpirun $mpi_oversubscribe --bind-to none "$@"; }
say "# gpu-cg $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1
mps_start

# ---- build: ours (each occupancy, and the host backend) and the anchor, in parallel ------
pids=()
for spec in "${builds[@]}"; do
  (cmake -S "$top" -B "$(build_dir "$spec")" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=OFF \
    "-DCMAKE_CUDA_FLAGS=-DSPMV_BATCH=${spec%/*} -DCG_PERSISTENT_MIN_BLOCKS=${spec#*/}" \
    >"$more/build-${spec/\//-}.log" 2>&1 &&
    cmake --build "$(build_dir "$spec")" -j 6 --target cg shardtab_shared \
      >>"$more/build-${spec/\//-}.log" 2>&1) &
  pids+=($!)
done
(cmake -S "$top" -B "$top/build-gpu-host" -DSHARDTAB_BACKEND=host -DSHARDTAB_BUILD_TESTS=OFF \
  >"$more/build-host.log" 2>&1 && cmake --build "$top/build-gpu-host" -j 4 --target cg \
  >>"$more/build-host.log" 2>&1) &
host_pid=$!
sp=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)
nvshmem=$sp/nvidia/nvshmem
abuild=/tmp/anchor-cg
anchor=$abuild/cg
(
  set -e
  mkdir -p "$abuild/lib"
  ln -sf "$nvshmem"/lib/libnvshmem_host.so.* "$abuild/lib/libnvshmem_host.so"
  cuda_home=$(dirname "$(dirname "$(command -v nvcc)")")
  rm -rf "$abuild/src" && cp -r "$top/.anchors/cpu-free-model/CG" "$abuild/src"
  cd "$abuild/src"
  find src -name '*.cu' -print0 | xargs -0 -P 4 -I{} sh -c \
    "nvcc -O2 -std=c++17 -arch=sm_90 -rdc=true -ccbin=mpic++ -Xcompiler -fopenmp -I include -I '$nvshmem/include' -c \"\$1\" -o \"\$1.o\"" _ {}
  mpicc -O2 -I include -c src/mmio.c -o src/mmio.c.o
  mpic++ -O2 -std=c++17 -I include -I "$cuda_home/include" -c src/mmio_wrapper.cpp -o src/mmio_wrapper.cpp.o
  # shellcheck disable=SC2046
  nvcc -arch=sm_90 -rdc=true -ccbin=mpic++ $(find src -name '*.o') -o "$anchor" \
    -L"$abuild/lib" -lnvshmem_host "$nvshmem/lib/libnvshmem_device.a" -L"$cuda_home/lib64" \
    -lcuda -lcudart -lnvidia-ml -lgomp -ldl -Xlinker -rpath -Xlinker "$nvshmem/lib"
) >"$more/build-anchor.log" 2>&1 &
theirs=$!
for k in "${!pids[@]}"; do
  if ! wait "${pids[$k]}"; then
    say "# cg (build ${builds[$k]}): build failed"
    tail -40 "$more/build-${builds[$k]/\//-}.log" | tee -a "$log"
    exit 1
  fi
done
wait "$host_pid" || say "# cg (host backend): build failed"
if wait "$theirs"; then say "# anchor CG: built"; else
  say "# anchor CG: build failed"
  tail -20 "$more/build-anchor.log" | tee -a "$log"
fi
export LD_LIBRARY_PATH=$nvshmem/lib:${LD_LIBRARY_PATH:-}
cg=$(build_dir "${builds[0]}")/cg
host_cg=$top/build-gpu-host/cg
# each kernel's registers, stack and shared memory (the persistent grid's occupancy follows),
# and the local memory (spills) the plain persistent kernel's code touches
for spec in "${builds[@]}"; do
  echo "# build $spec (SPMV_BATCH/CG_PERSISTENT_MIN_BLOCKS)" >>"$out/res-usage.txt"
  cuobjdump -res-usage "$(build_dir "$spec")/cg" 2>&1 | grep -A1 "cg_.*kernel" | sed 's/^ *//' \
    >>"$out/res-usage.txt"
  cuobjdump -sass -fun _Z20cg_persistent_kernelILi0EEv7cg_args "$(build_dir "$spec")/cg" \
    >"$more/sass-persistent-${spec/\//-}.txt" 2>&1
  echo "local loads/stores of the plain persistent kernel: $(grep -c 'LDL' "$more/sass-persistent-${spec/\//-}.txt")/$(grep -c 'STL' "$more/sass-persistent-${spec/\//-}.txt")" >>"$out/res-usage.txt"
done
tee -a "$log" <"$out/res-usage.txt"
share=(--allow-shared-gpu)

# ---- checks: every rank count, variant and launch against the CPU's CG ------------------
ok="^# verify cg: OK [(]([0-9]+ iterations as|not converged in [0-9]+ iterations, nor) the CPU's CG"
for np in 1 2 3 4; do
  for variant in standard pipelined; do
    for launch in persistent stream; do
      step "cg np$np $variant $launch 2d:257" expect_line "$ok" \
        run -np "$np" "$cg" --poisson 2d:257 -niter 400 --variant "$variant" --launch "$launch" \
        --cpu-check yes "${share[@]}"
    done
  done
  step "cg np$np pipelined persistent 3d:31" expect_line "$ok" \
    run -np "$np" "$cg" --poisson 3d:31 --variant pipelined --launch persistent --cpu-check yes "${share[@]}"
done
# across nodes (simulated on the one GPU): the columns other nodes own through the host, the
# dot products by the all-reduce across nodes
for spec in 2/1 4/2 3/2; do
  for variant in standard pipelined; do
    # shellcheck disable=SC2086  # word-split flag from mpi-env.sh
    step "cg np${spec%/*} in nodes of ${spec#*/} $variant 2d:257" expect_line "$ok" \
      env SHARDTAB_RANKS_PER_NODE="${spec#*/}" timeout 300 mpirun $mpi_oversubscribe --bind-to none \
      -x SHARDTAB_RANKS_PER_NODE -np "${spec%/*}" "$cg" --poisson 2d:257 -niter 400 \
      --variant "$variant" --cpu-check yes "${share[@]}"
  done
done
# --repro: the same bits at every rank count, across nodes, and on the host backend
for variant in standard pipelined; do
  prints=()
  for spec in host 1 2 3 4 2/1 4/2; do
    f=$(mktemp)
    if [[ $spec == host ]]; then
      run -np 2 "$host_cg" --poisson 3d:40 -niter 200 --tol 0 --variant "$variant" --repro \
        --cpu-check no "${share[@]}" >"$f" 2>&1
    elif [[ $spec == */* ]]; then
      SHARDTAB_RANKS_PER_NODE=${spec#*/} run -x SHARDTAB_RANKS_PER_NODE -np "${spec%/*}" "$cg" \
        --poisson 3d:40 -niter 200 --tol 0 --variant "$variant" --repro --cpu-check no \
        "${share[@]}" >"$f" 2>&1
    else
      run -np "$spec" "$cg" --poisson 3d:40 -niter 200 --tol 0 --variant "$variant" \
        --launch persistent --repro --cpu-check yes "${share[@]}" >"$f" 2>&1
    fi
    cat "$f" >>"$log"
    prints+=("$(grep '^# cg fingerprint:' "$f" || echo "none ($spec)")")
    rm -f "$f"
  done
  # shellcheck disable=SC2317  # called via step
  same() { local p; for p in "${prints[@]}"; do [[ $p == "${prints[0]}" && $p == "# cg fingerprint:"* ]] || return 1; done; }
  step "cg --repro $variant: one fingerprint on the host, at 1-4 ranks and across nodes (${prints[0]})" same
done

# ---- the Python front's CG (src/python/examples/cg.py) on the GPU: CuPy over the table ------
for np in 1 2; do
  step "python cg.py np$np (CuPy)" expect_line "^# verify cg.py: OK" \
    run -np "$np" -x PYTHONPATH="$top/src/python" -x SHARDTAB_LIBRARY="$(dirname "$cg")/libshardtab.so" \
    python3 "$top/src/python/examples/cg.py" --n 64 --niter 400
done

# ---- timings: 1000 iterations, ours with its floor, the anchor beside ----------------------
sizes=(256 512 2048)
((quick)) && sizes=(512)
mtx=/tmp/cg-mtx
mkdir -p "$mtx"
poisson_mtx() { # N FILE: the 2D 5-point Poisson matrix of an N^2 grid, symmetric, lower triangle
  python3 - "$1" "$2" <<'EOF'
import sys
import numpy as np
n, path = int(sys.argv[1]), sys.argv[2]
i = np.arange(n * n)
x, y = i % n, i // n
rows, cols, vals = [i], [i], [np.full(n * n, 4.0)]
m = x > 0
rows.append(i[m]); cols.append(i[m] - 1); vals.append(np.full(m.sum(), -1.0))
m = y > 0
rows.append(i[m]); cols.append(i[m] - n); vals.append(np.full(m.sum(), -1.0))
r = np.concatenate(rows); c = np.concatenate(cols); v = np.concatenate(vals)
order = np.lexsort((c, r))
with open(path, "w") as f:
    f.write("%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n" % (n * n, n * n, len(r)))
    np.savetxt(f, np.column_stack((r[order] + 1, c[order] + 1, v[order])), fmt="%d %d %g")
EOF
}
# anchor_run FILE ARGS...: the anchor on one rank, its output into FILE (and the log)
# shellcheck disable=SC2086,SC2317  # word-split flag from mpi-env.sh; called via step
anchor_run() { local f=$1; shift; timeout 300 mpirun $mpi_oversubscribe -np 1 "$anchor" "$@" >"$f" 2>&1; local rc=$?; cat "$f"; return $rc; }
# row JSON NAME: one line of the table from a run's JSON
row() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=d.get('floor_us_per_iteration'); print('%-46s %4d blocks %4d its %9.2f us/it%s' % (sys.argv[2], d['blocks'], d['iterations'], d['us_per_iteration'], '   floor %.2f us, %.2fx' % (f, d['us_per_iteration']/f) if f else ''))" "$1" "$2" >>"$table" 2>>"$log"
}
# timed LABEL STEM NP BINARY ARGS...: one timed configuration of the size n at tol (1000
# iterations, 5 solves), its JSON in $more/STEM.json, its row in the table
timed() {
  local label=$1 j=$more/$2.json np=$3 binary=$4
  shift 4
  step "cg time $label" expect_line "^# verify cg: OK" \
    run -np "$np" "$binary" --poisson "2d:$n" -niter 1000 --tol "$tol" --repeat 5 --cpu-check no \
    --json "$j" "${share[@]}" "$@"
  row "$j" "ours $label"
}
echo "# ours: the median of 5 solves, the slowest rank's, -niter 1000 (--tol 0, or 1e-8 at 256^2, where" \
  "pipelined CG reaches rounding before 1000); anchor: its -s time of 1000 iterations" >"$table"
for n in "${sizes[@]}"; do
  tol=0
  ((n == 256)) && tol=1e-8
  for np in 1 2; do
    for variant in standard pipelined; do
      for launch in persistent stream; do
        ((np == 2)) && [[ $launch == stream ]] && continue
        timed "$n^2 np$np $variant $launch" "cg-$n-np$np-$variant-$launch" "$np" "$cg" \
          --variant "$variant" --launch "$launch" --floor
      done
      timed "$n^2 np$np $variant persistent --repro" "cg-$n-np$np-$variant-persistent-repro" \
        "$np" "$cg" --variant "$variant" --launch persistent --repro
    done
  done
  # the other builds where the grid's occupancy matters most, the block counts where the
  # meetings do
  for spec in "${builds[@]:1}"; do
    ((n == 256)) && continue
    for variant in standard pipelined; do
      timed "$n^2 np1 $variant persistent build $spec" \
        "cg-$n-np1-$variant-persistent-build-${spec/\//-}" 1 "$(build_dir "$spec")/cg" \
        --variant "$variant" --launch persistent
    done
  done
  for blocks in "${sweep[@]}"; do
    ((n == 2048)) && continue
    for variant in standard pipelined; do
      timed "$n^2 np1 $variant persistent --blocks $blocks" \
        "cg-$n-np1-$variant-persistent-blocks-$blocks" 1 "$cg" --variant "$variant" \
        --launch persistent --blocks "$blocks"
    done
  done
  for variant in standard pipelined; do
    step "cg trace $n^2 np1 $variant persistent" expect_line "^# verify cg: OK" \
      run -np 1 "$cg" --poisson "2d:$n" -niter 1000 --tol "$tol" --variant "$variant" --launch persistent \
      --cpu-check no --trace "$more/trace-$n-$variant.csv" "${share[@]}"
    echo "trace $n^2 np1 $variant: $(grep -v '^#' "$more/trace-$n-$variant.csv" | tail -n +2 | tr '\n' ' ')" >>"$table"
  done
  if [[ -x $anchor ]]; then
    poisson_mtx "$n" "$mtx/poisson-$n.mtx" >>"$log" 2>&1
    for v in 2 3 8; do
      f=$more/anchor-$n-v$v.txt
      step "anchor $n^2 -v $v" anchor_run "$f" -v "$v" -s -niter 1000 -matrix_path "$mtx/poisson-$n.mtx"
      echo "anchor $n^2 np1 -v $v: $(tr '\n' ' ' <"$f")" >>"$table"
    done
  fi
done
tee -a "$log" <"$table"
say "# gpu-cg: $failures failed steps"
tar -czf "$out/more.tgz" -C "$out" more && rm -rf "$more"
exit $((failures > 0))

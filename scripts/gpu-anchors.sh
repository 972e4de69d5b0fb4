# gpu-anchors.sh - sourced by scripts/gpu.sh (bench --anchors): builds and times the codes we
# measure against, from .anchors (a copy of ../shared/anchors, an ignored folder carried to the
# machine): NVIDIA's multi-gpu-programming-models Jacobi (single_gpu, multi_threaded_p2p_opt,
# nccl, nccl_graphs, nvshmem) and the CPU-free model's Jacobi (-v 2, -v 4) and CG (-v 2, 3, 8,
# Ismayilov et al., ICS'23). NCCL and NVSHMEM come from python3's nvidia-nccl and
# nvidia-nvshmem wheels; each build mirrors the anchor's Makefile with CUDA 13's -std=c++17.
# shellcheck shell=bash
# shellcheck disable=SC2154,SC2016  # top, out, log, dry come from gpu-common.sh; inner scripts expand later
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers

anchors=${GPU_ANCHORS:-$top/.anchors}
abuild=/tmp/shardtab-anchors
anchor_sp=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)
anchor_nccl=$anchor_sp/nvidia/nccl
anchor_nvshmem=$anchor_sp/nvidia/nvshmem

# anchor_build NAME: one anchor into $abuild/NAME/jacobi (cg: $abuild/cg/cg)
anchor_build() {
  local name=$1 mg=$anchors/multi-gpu-programming-models o=$abuild/$1 cuda_home
  # shellcheck disable=SC2054  # one nvcc flag, its commas included
  local anchor_arch=(-gencode arch=compute_90,code=sm_90)
  cuda_home=$(dirname "$(dirname "$(command -v nvcc)")")
  mkdir -p "$o"
  case $name in
  single_gpu | multi_threaded_p2p_opt)
    nvcc -DHAVE_CUB -Xcompiler -fopenmp -lineinfo -ldl "${anchor_arch[@]}" -std=c++17 "$mg/$name/jacobi.cu" \
      -o "$o/jacobi" ;;
  nccl | nccl_graphs)
    nvcc -DHAVE_CUB -lineinfo "${anchor_arch[@]}" -std=c++17 -c "$mg/$name/jacobi_kernels.cu" -o "$o/jacobi_kernels.o" &&
      mpicxx -I"$cuda_home/include" -I"$anchor_nccl/include" -std=c++17 "$mg/$name/jacobi.cpp" "$o/jacobi_kernels.o" \
        -L"$cuda_home/lib64" -L"$abuild/lib" -lcudart -ldl -lnccl -Wl,-rpath,"$anchor_nccl/lib" -o "$o/jacobi" ;;
  nvshmem)
    nvcc -DHAVE_CUB -ccbin=mpic++ -dc -Xcompiler -fopenmp -lineinfo "${anchor_arch[@]}" -std=c++17 \
      -I"$anchor_nvshmem/include" "$mg/nvshmem/jacobi.cu" -c -o "$o/jacobi.o" &&
      nvcc -ccbin=mpic++ "${anchor_arch[@]}" "$o/jacobi.o" -o "$o/jacobi" -L"$abuild/lib" -lnvshmem_host \
        "$anchor_nvshmem/lib/libnvshmem_device.a" -L"$cuda_home/lib64" -lcuda -lcudart -ldl -lnvidia-ml \
        -Xlinker -rpath -Xlinker "$anchor_nvshmem/lib" ;;
  cpu-free)
    # the anchor's README: every src/**/*.cu but PERKS, whose lines leave main.cu in this
    # build copy (its code knows sm_60-80 only); version numbers 0-4 unchanged
    # shellcheck disable=SC2046  # the object files, one word each
    rm -rf "$o/src" && cp -r "$anchors/cpu-free-model/Stencil/jacobi2D" "$o/src" &&
      rm -rf "$o/src/src/PERKS" "$o/src/PERKS" && sed -i '/PERKS/d' "$o/src/src/main.cu" &&
      (cd "$o/src" && find src -name '*.cu' -print0 | xargs -0 -P 8 -I{} sh -c \
        'nvcc -O2 -std=c++17 -rdc=true -Xcompiler -fopenmp -I include -gencode arch=compute_90,code=sm_90 -c "$1" -o "$1.o"' _ {}) &&
      (cd "$o/src" && nvcc -rdc=true "${anchor_arch[@]}" $(find src -name '*.cu.o') -o "$o/jacobi" -lgomp -lcuda) ;;
  cg)
    rm -rf "$o/src" && cp -r "$anchors/cpu-free-model/CG" "$o/src" && (
      set -e
      cd "$o/src"
      find src -name '*.cu' -print0 | xargs -0 -P 4 -I{} sh -c \
        "nvcc -O2 -std=c++17 -arch=sm_90 -rdc=true -ccbin=mpic++ -Xcompiler -fopenmp -I include -I '$anchor_nvshmem/include' -c \"\$1\" -o \"\$1.o\"" _ {}
      mpicc -O2 -I include -c src/mmio.c -o src/mmio.c.o
      mpic++ -O2 -std=c++17 -I include -I "$cuda_home/include" -c src/mmio_wrapper.cpp -o src/mmio_wrapper.cpp.o
      # shellcheck disable=SC2046  # the object files, one word each
      nvcc -arch=sm_90 -rdc=true -ccbin=mpic++ $(find src -name '*.o') -o "$o/cg" \
        -L"$abuild/lib" -lnvshmem_host "$anchor_nvshmem/lib/libnvshmem_device.a" -L"$cuda_home/lib64" \
        -lcuda -lcudart -lnvidia-ml -lgomp -ldl -Xlinker -rpath -Xlinker "$anchor_nvshmem/lib"
    ) ;;
  esac
}

# anchors_build NAME...: the named anchors at once, each logged; says which built
anchors_build() {
  local a
  if ((dry)); then say "# anchors: would build $* from $anchors into $abuild"; return 0; fi
  mkdir -p "$abuild/lib"
  export -f anchor_build
  export anchors abuild anchor_nccl anchor_nvshmem
  # the wheels ship only versioned names: give the linker plain ones
  ln -sf "$anchor_nccl"/lib/libnccl.so.* "$abuild/lib/libnccl.so" 2>/dev/null
  ln -sf "$anchor_nvshmem"/lib/libnvshmem_host.so.* "$abuild/lib/libnvshmem_host.so" 2>/dev/null
  for a in "$@"; do
    timeout 600 bash -c 'anchor_build "$1"' _ "$a" >"$out/build-anchor-$a.log" 2>&1 &
  done
  wait
  for a in "$@"; do
    if [[ -x $abuild/$a/jacobi || -x $abuild/$a/cg ]]; then say "# anchor $a: built"; else
      say "# anchor $a: build failed ($out/build-anchor-$a.log)"
      tail -5 "$out/build-anchor-$a.log" | tee -a "$log"
    fi
  done
  export LD_LIBRARY_PATH=$anchor_nvshmem/lib:$anchor_nccl/lib:${LD_LIBRARY_PATH:-}
}

# anchor_jacobi NAME NX NY NITER GPUS: one run's seconds (and the anchor's own reference), or nothing
anchor_jacobi() {
  local a=$1 nx=$2 ny=$3 niter=$4 g=$5 line f
  case $a in
  single_gpu)
    line=$(timeout 300 "$abuild/$a/jacobi" -nx "$nx" -ny "$ny" -niter "$niter" -csv 2>>"$log" | grep "^single_gpu")
    IFS=', ' read -r -a f <<<"$line"
    echo "${f[5]:-}" ;;
  multi_threaded_p2p_opt)
    line=$(timeout 300 "$abuild/$a/jacobi" -nx "$nx" -ny "$ny" -niter "$niter" -csv 2>>"$log" | grep "^multi_threaded")
    IFS=', ' read -r -a f <<<"$line"
    echo "${f[7]:-} ${f[8]:-}" ;;
  cpu-free-v2 | cpu-free-v4)
    line=$(CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((g - 1))) timeout 60 "$abuild/cpu-free/jacobi" -v "${a#cpu-free-v}" -s \
      -nx "$nx" -ny "$ny" -niter "$niter" 2>>"$log" | grep "^Execution time")
    awk '{print $3}' <<<"$line" ;;
  *)
    line=$(run -np "$g" "$abuild/$a/jacobi" -nx "$nx" -ny "$ny" -niter "$niter" -csv 2>>"$log" | grep "^$a")
    IFS=', ' read -r -a f <<<"$line"
    echo "${f[7]:-} ${f[8]:-}" ;;
  esac
}

# poisson_mtx N FILE: the 2D 5-point Poisson matrix of an N^2 grid (MatrixMarket, symmetric, lower
# triangle), the anchor CG's input for cg --poisson 2d:N
poisson_mtx() {
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

# anchor_cg N VERSION: the anchor CG's -s time line for 1000 iterations of 2d:N at one rank
anchor_cg() {
  local mtx=/tmp/shardtab-anchors/poisson-$1.mtx
  [[ -f $mtx ]] || poisson_mtx "$1" "$mtx" >>"$log" 2>&1
  # shellcheck disable=SC2086  # word-split flag from mpi-env.sh
  timeout 300 mpirun $mpi_oversubscribe -np 1 "$abuild/cg/cg" -v "$2" -s -niter 1000 -matrix_path "$mtx" 2>>"$log" |
    tr '\n' ' '
}

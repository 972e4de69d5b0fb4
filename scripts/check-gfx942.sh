#!/usr/bin/env bash
# check-gfx942.sh - compiles every HIP source's device code for gfx942 (MI300A/X)
# with Debian's clang 19, as far as Debian allows: to gfx942 assembly, without
# the link. Debian 12's ROCm (5.2) has no gfx942 device libraries, so no
# gfx942 binary can be linked here; this proves the kernels compile and select
# instructions for it. (clang 15, which builds the HIP backend, rejects gfx942.)
# Usage: scripts/check-gfx942.sh [outdir]   (the .s files stay in outdir)
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build-test-gfx942}
clang=$(command -v clang++-19 || true)
if [[ -z $clang ]]; then
  echo "check-gfx942: clang++-19 not found (Debian: apt-get install clang-19)" >&2
  exit 1
fi
mkdir -p "$out"
count=0
while IFS= read -r src; do
  asm=$out/$(basename "$src").gfx942.s
  "$clang" -x hip --offload-arch=gfx942 -nogpulib --rocm-path=/usr -std=c++17 \
    -I"$top/include" -I"$top/src/platform" -I"$top/kernels/jacobi" -I"$top/kernels/sparse" \
    -I"$top/kernels/cg" -I"$top/kernels/shardtab" -I"$top/tests/shardtab" \
    -I"$(dirname "$top/$src")" \
    --cuda-device-only -S -o "$asm" "$top/$src"
  kernels=$(grep -c '^\s*s_endpgm' "$asm" || true)
  echo "# gfx942: $src compiled, $kernels kernel bodies"
  count=$((count + 1))
done < <(cd "$top" && git ls-files '*.hip')
echo "# gfx942: $count HIP sources compiled for gfx942 (device code, not linked)"

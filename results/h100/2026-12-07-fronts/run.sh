#!/usr/bin/env bash
# run.sh - the direct faces from Python (shardtab.Faces, tests/python/check_faces.py) on one
# NVIDIA GPU under MPS, in one call: the CUDA build's python.faces cases (1, 2 and 4 ranks,
# and 4 over simulated nodes of two: through the table, and through MPI staged), with the
# halo's and the collectives' Python cases beside them. (This machine has no Fortran
# compiler: fortran.faces runs on the host backend only.)
# Run on the device machine from the repository root:  OUT=<dir> bash <this file>
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$here/../../../scripts/gpu-common.sh"
gpu_start "${OUT:-$here/out}" fronts.log
trap 'mps_stop' EXIT
b=$top/build-gpu
[[ -d $top/.debs ]] && dpkg -i "$top"/.debs/*.deb >>"$log" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
python3 -c "import numpy, mpi4py, cupy; print('numpy', numpy.__version__, 'cupy', cupy.__version__)" 2>&1 | tee -a "$log"
step "configure" timeout 300 cmake -S "$top" -B "$b" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=ON
step "build" timeout 400 cmake --build "$b" -j 16 --target shardtab_shared
mps_start
step "python faces, halo, collectives" timeout 300 ctest --test-dir "$b" \
  -R "python[.](faces|halo|collectives)" --output-on-failure
say "# seconds: $SECONDS"
say "# failures: $failures"
exit $((failures > 0))

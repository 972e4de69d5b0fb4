#!/usr/bin/env bash
# deps.sh - installs the Debian packages this project needs, only those missing
# (gfortran, python3-mpi4py and python3-numpy: the Fortran and Python fronts;
# python3-venv, -pip, -setuptools and -wheel: the Python package's wheel, built
# and installed by pip; python3-scipy: src/python/examples/cg.py's SciPy path
# and check, which it runs without too; black and clang-format: the format,
# pyproject.toml and .clang-format, checked by tests/style; doxygen: the API
# reference, docs/Doxyfile.in, built with the library and checked by tests/docs).
# Usage: scripts/deps.sh [--hip] [--slurm]
#   --hip    adds Debian's ROCm: hipcc, libamdhip64-dev, rocm-device-libs, and clang-19
#            (gfx942 device code, scripts/check-gfx942.sh)
#   --slurm  adds Slurm and munge, for the real-Slurm tests (tests/slurm/cluster.sh;
#            slurmd brings slurm-wlm-basic-plugins, which has the PMIx plugin), and
#            environment-modules: a real 'module' command for the jobs' module tests
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

packages=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libcmocka-dev
          python3 shellcheck iproute2 util-linux procps valgrind
          gfortran python3-mpi4py python3-numpy python3-scipy
          python3-venv python3-pip python3-setuptools python3-wheel black clang-format
          doxygen)
for option in "$@"; do
  case $option in
    --hip) packages+=(hipcc libamdhip64-dev rocm-device-libs clang-19) ;;
    --slurm) packages+=(slurmctld slurmd slurm-client munge environment-modules) ;;
    *) echo "deps.sh: unknown option '$option' (expected --hip or --slurm)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "deps.sh: missing ${missing[*]} and no apt-get here: install them by hand" >&2
  exit 1
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo="sudo"
fi
echo "# installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

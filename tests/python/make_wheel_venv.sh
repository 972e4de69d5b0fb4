#!/usr/bin/env bash
# make_wheel_venv.sh - the set-up of the wheel cases (python.wheel.*): builds
# the package's wheel from the source tree as a user would (pip wheel
# --no-build-isolation: setup.py builds libshardtab.so with CMake), and
# installs it into a fresh venv that sees the system's NumPy and mpi4py
# (--system-site-packages), with no PYTHONPATH or SHARDTAB_LIBRARY set.
# Checks too that the build left nothing in the source tree's src/python.
#
# Usage: make_wheel_venv.sh PYTHON SOURCE_DIR WORK_DIR
#   WORK_DIR (made afresh) gets venv/, dist/ (the wheel) and tmp/ (the build's
#   temporary folders, so that a build stopped half-way leaves them there)
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: make_wheel_venv.sh PYTHON SOURCE_DIR WORK_DIR" >&2; exit 2; }
python=$1 source=$2 work=$3
unset PYTHONPATH SHARDTAB_LIBRARY

tree_files() { find "$source/src/python" | LC_ALL=C sort; }
before=$(tree_files)
rm -rf "$work"
mkdir -p "$work/tmp"
"$python" -m venv --system-site-packages "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check)
TMPDIR=$work/tmp "${pip[@]}" wheel --no-index --no-build-isolation --no-deps \
    -w "$work/dist" "$source/src/python"
wheels=("$work"/dist/shardtab-*.whl)
[ -f "${wheels[0]}" ] || { echo "make_wheel_venv.sh: pip wrote no wheel to $work/dist" >&2; exit 1; }
"${pip[@]}" install --no-index "${wheels[0]}"
after=$(tree_files)
if [ "$before" != "$after" ]; then
    echo "make_wheel_venv.sh: the build changed $source/src/python:" >&2
    diff <(echo "$before") <(echo "$after") >&2 || true
    exit 1
fi
echo "# wheel python: ${wheels[0]##*/} installed in $work/venv"

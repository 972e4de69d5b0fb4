#!/usr/bin/env bash
# gpu_driver.sh - the GPU driver (scripts/gpu.sh) tested where there is no GPU: every verb's
# dry run prints its steps and exits 0, bad usage exits 2 with one message, and shellcheck
# passes on the driver and the files it sources. Its real runs need a GPU (results/).
# Usage: gpu_driver.sh <source-dir>
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
top=$1
driver=$top/scripts/gpu.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "gpu_driver: $*" >&2; exit 1; }

dry() { # verb...: its dry run exits 0 and names the steps it would take
  local expect=$1
  shift
  OUT=$work/out "$driver" --dry-run "$@" >"$work/dry.txt" 2>&1 || fail "--dry-run $* exited $?"
  grep -q -- "$expect" "$work/dry.txt" || fail "--dry-run $*: no '$expect' in: $(head -5 "$work/dry.txt")"
}
dry "ctest --test-dir .* -L gpu" check
dry "ctest --test-dir .* -L examples" check --programs examples
dry "jacobi" bench --programs jacobi
dry "cg" compare "$top" "$top" --programs cg

rc=0
"$driver" --no-such-option >"$work/bad.txt" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "an unknown option exited $rc, not 2"
rc=0
"$driver" frobnicate >"$work/bad.txt" 2>&1 || rc=$?
[[ $rc -eq 2 ]] || fail "an unknown verb exited $rc, not 2"

if command -v shellcheck >/dev/null; then
  (cd "$top" && shellcheck -x -S warning scripts/gpu.sh scripts/gpu-common.sh scripts/gpu-anchors.sh) ||
    fail "shellcheck"
else
  echo "gpu_driver: no shellcheck here; the dry runs only"
fi
echo "# gpu_driver: OK"

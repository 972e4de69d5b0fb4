#!/usr/bin/env bash
# check-no-gpu.sh - a GPU build run where no GPU is must say so clearly, from
# rank 0 only, and exit 1: never crash, hang or print a stack of errors.
# Usage: scripts/check-no-gpu.sh path/to/program [args...]   (multi_scal, jacobi, cg)
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/mpi-env.sh
source "$top/scripts/mpi-env.sh"
binary=$1
shift
name=$(basename "$binary")
if nvidia-smi -L >/dev/null 2>&1 || [[ -e /dev/kfd ]]; then
  echo "# check-no-gpu: a GPU is present here, nothing to check"
  exit 0
fi
set +e
# shellcheck disable=SC2086
err=$(timeout 60 mpirun $mpi_oversubscribe -np 2 "$binary" "$@" 2>&1 >/dev/null)
rc=$?
set -e
count=$(grep -c "^$name: error: .*no GPU found" <<<"$err" || true)
if [[ $rc -ne 1 || $count -ne 1 ]]; then
  echo "check-no-gpu: want exit 1 and one 'no GPU found' line, got exit $rc and $count:" >&2
  echo "$err" >&2
  exit 1
fi
echo "# check-no-gpu: OK ($(grep "no GPU found" <<<"$err" | cut -c1-100)...)"

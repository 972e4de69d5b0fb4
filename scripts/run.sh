#!/usr/bin/env bash
# run.sh - sets up, builds and runs the main job: mpirun -np 4 ./multi_scal.
# The backend is chosen by the build (auto: a GPU backend where a GPU and its
# compiler are found, else the host backend).
# Usage: scripts/run.sh [-np N] [multi_scal options]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ranks=4
if [[ "${1:-}" == "-np" ]]; then
  ranks=$2
  shift 2
fi
"$top/scripts/deps.sh"
# shellcheck source=scripts/mpi-env.sh
source "$top/scripts/mpi-env.sh"
cmake -S "$top" -B "$top/build" -DSHARDTAB_BACKEND="${SHARDTAB_BACKEND:-auto}" >/dev/null
cmake --build "$top/build" -j "$(nproc)" --target multi_scal >/dev/null
cd "$top/build"
# shellcheck disable=SC2086
exec mpirun $mpi_oversubscribe -np "$ranks" ./multi_scal "$@"

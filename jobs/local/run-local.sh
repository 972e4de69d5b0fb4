#!/bin/bash
# run-local.sh - runs multi_scal on a workstation or one GPU node: one rank per GPU found (or 4 host-backend ranks), peer check, then the benchmark as JSON.
#
# Usage: jobs/local/run-local.sh [multi_scal options...]     e.g. jobs/local/run-local.sh -i 20
#   Extra options go to the benchmark run after the defaults (a later -n wins).
#
# Environment (all optional):
#   MULTI_SCAL              the binary (default <repo>/build/multi_scal)
#   SHARDTAB_LOCAL_RANKS    rank count; default: GPUs found by nvidia-smi -L, else
#                           rocm-smi, else rocminfo; 4 when none is found (host backend)
#   SHARDTAB_SHARD_ELEMS    doubles per rank (default 64M = 512 MiB on a GPU, 1M on the host)
#   SHARDTAB_RESULTS_DIR    results root (default <repo>/results); each run gets local-<date>-<pid>/
#   SHARDTAB_MPIRUN         the launcher (default mpirun)
#   SHARDTAB_MPIRUN_FLAGS   replaces the binding flags chosen below
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
job_name=run-local.sh
# shellcheck source=jobs/lib/common.sh
source "$repo/jobs/lib/common.sh"   # count_of
multi_scal=${MULTI_SCAL:-$repo/build/multi_scal}
mpirun=${SHARDTAB_MPIRUN:-mpirun}
results_root=${SHARDTAB_RESULTS_DIR:-$repo/results}

# gpu_count: GPUs visible to this machine, 0 when no tool finds any
gpu_count() {
  local count=0
  if command -v nvidia-smi >/dev/null 2>&1; then
    count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
  fi
  if ((count == 0)) && command -v rocm-smi >/dev/null 2>&1; then
    count=$(rocm-smi --showid 2>/dev/null | grep -o '^GPU\[[0-9]*\]' | sort -u | wc -l || true)
  fi
  if ((count == 0)) && command -v rocminfo >/dev/null 2>&1; then
    # each GPU agent (an MI250X GCD counts as one) has a 'Name: gfxNNN' line
    count=$(rocminfo 2>/dev/null | grep -cE '^[[:space:]]*Name:[[:space:]]+gfx[0-9a-f]+' || true)
  fi
  echo "$count"
}

if [[ ! -x $multi_scal ]]; then
  echo "run-local.sh: $multi_scal is not an executable: build first (cmake -S . -B build && cmake --build build), or set MULTI_SCAL" >&2
  exit 1
fi
gpus=$(gpu_count)
if [[ -n ${SHARDTAB_LOCAL_RANKS:-} ]]; then
  ranks=$SHARDTAB_LOCAL_RANKS
  origin="SHARDTAB_LOCAL_RANKS"
elif ((gpus > 0)); then
  ranks=$gpus
  origin="$gpus GPUs found"
else
  ranks=4
  origin="no GPU found: host backend (build with -DSHARDTAB_BACKEND=host if this binary is a GPU build)"
fi
if ((gpus > 0)); then
  shard_elems=${SHARDTAB_SHARD_ELEMS:-64M}
else
  shard_elems=${SHARDTAB_SHARD_ELEMS:-1M}
fi

# ---- launcher flags: one rank per GPU, spread over the NUMA domains -------------------
cores=$(nproc)
launch=("$mpirun" -np "$ranks")
if "$mpirun" --version 2>/dev/null | grep -Eq "Open MPI|OpenRTE"; then
  if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
  if ((ranks <= cores)); then
    default_flags="--map-by numa --bind-to numa"
  else
    default_flags="--oversubscribe --bind-to none"   # correctness runs only: timings mean little
  fi
else
  default_flags="-bind-to numa"   # MPICH's hydra
fi
read -r -a bind_flags <<<"${SHARDTAB_MPIRUN_FLAGS:-$default_flags}"
launch+=("${bind_flags[@]}")

shard=$(count_of "$shard_elems")
n=$((shard * ranks))
out_dir=$results_root/local-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$out_dir"
echo "# run-local.sh: $ranks ranks ($origin), n $n doubles, launch: ${launch[*]}" | tee "$out_dir/job.txt"

# ---- 1. every pair of ranks: write through the table, owner verifies ---------------------
if ! "${launch[@]}" "$multi_scal" --check-peers --json "$out_dir/check-peers.json" \
     | tee "$out_dir/check-peers.txt"; then
  echo "run-local.sh: peer check failed, see $out_dir/check-peers.txt" >&2
  exit 1
fi
# ---- 2. the benchmark -------------------------------------------------------------------------
"${launch[@]}" "$multi_scal" -n "$n" --json "$out_dir/multi_scal.json" "$@" | tee "$out_dir/multi_scal.txt"
echo "# run-local.sh: results in $out_dir (summary: python3 $repo/jobs/summarize.py $out_dir)"

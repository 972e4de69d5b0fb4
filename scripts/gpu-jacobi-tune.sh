#!/usr/bin/env bash
# gpu-jacobi-tune.sh - on an NVIDIA machine: the jacobi kernel's knobs against
# each other, one GPU, single rank (the 1-GPU reference and the table solve of
# one rank): rows in flight per thread (JACOBI_ROWS_IN_FLIGHT), resident blocks
# per multiprocessor the grid aims at (JACOBI_BLOCKS_PER_SM), and the cost of the
# norm (-nccheck 1 against a norm only once). Prints seconds per 1000
# iterations; docs/performance.md explains the choice. Also 16-byte accesses
# against one column a thread (JACOBI_VEC4).
# Usage: scripts/gpu-jacobi-tune.sh [--sizes "16384 2048"] [outdir]
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/gpu-common.sh"
sizes="16384 2048"
if [[ ${1:-} == --sizes ]]; then sizes=$2; shift 2; fi
gpu_start "${1:-$top/jacobi-tune-out}" jacobi-tune.log
build=$top/build-gpu-jacobi
gpu_build_cuda "$build"
printf "%-8s %-6s %-6s %-8s %-6s %12s %12s\n" size rows bps nccheck vec4 "ref s" "run s" | tee -a "$log"
for n in $sizes; do
  # rows in flight, blocks per SM, -nccheck, 16-byte accesses (1) or one column a thread (0)
  for cfg in "4 3 1 1" "1 3 1 1" "8 3 1 1" "4 2 1 1" "4 6 1 1" "4 3 1000 1" "8 4 1 0" "8 8 1 0"; do
    read -r g b c v <<<"$cfg"
    json=$out/tune-$n-$g-$b-$c-$v.json
    if run -np 1 -x JACOBI_ROWS_IN_FLIGHT="$g" -x JACOBI_BLOCKS_PER_SM="$b" -x JACOBI_VEC4="$v" \
      "$build/jacobi" -nx "$n" -ny "$n" -niter 1000 -nccheck "$c" --repeat 3 --json "$json" >>"$log" 2>&1; then
      read -r t ref <<<"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["seconds"], d["reference_seconds"])' "$json")"
    else
      t=FAILED ref=FAILED
    fi
    printf "%-8s %-6s %-6s %-8s %-6s %12s %12s\n" "$n" "$g" "$b" "$c" "$v" "$ref" "$t" | tee -a "$log"
  done
done

#!/usr/bin/env bash
# gpu-jacobi-tune.sh - on an NVIDIA machine: the jacobi kernel's knobs against
# each other, one GPU, one rank, per grid shape and launch mode: rows in flight
# per thread (JACOBI_ROWS_IN_FLIGHT), resident blocks per multiprocessor the
# tiles aim at (JACOBI_BLOCKS_PER_SM; a persistent grid loops over tiles beyond
# what fits), 16-byte accesses against one column a thread (JACOBI_VEC4), and
# the persistent kernel's norm block (JACOBI_NORM_BLOCK), and the fewest rows
# of a strip (JACOBI_MIN_STRIP_ROWS). A half grid (say
# 2048x1026) is one GPU's share of a two-GPU run. Prints seconds per -niter
# iterations (the median of 3 solves); docs/performance.md explains the choice.
# Usage: scripts/gpu-jacobi-tune.sh [--shapes "2048x2048 2048x1026"] [--launches "persistent graph"]
#                                   [--configs "G B V N S,G B V N S,..."] [--niter N] [outdir]
#   --configs  comma-separated groups: rows in flight, blocks per SM, vec4, norm
#              block, fewest strip rows (default: a set around the defaults, 4 3 1 1 8)
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
shapes="2048x2048 2048x1026 1024x1024 1024x514 4096x2050"
launches="persistent graph"
niter=1000
configs=("4 3 1 1 8" "4 3 1 0 8" "8 3 1 1 8" "1 3 1 1 8" "4 2 1 1 8" "4 6 1 1 8" "8 4 0 1 8")
while [[ $# -gt 0 ]]; do
  case $1 in
  --shapes) shapes=$2; shift 2 ;;
  --launches) launches=$2; shift 2 ;;
  --niter) niter=$2; shift 2 ;;
  --configs) IFS=',' read -r -a configs <<<"$2"; shift 2 ;;
  *) break ;;
  esac
done
gpu_start "${1:-$top/jacobi-tune-out}" jacobi-tune.log
build=$top/build-gpu-jacobi
gpu_build_cuda "$build"
csv=$out/jacobi-tune.csv
echo "shape,launch,rows_in_flight,blocks_per_sm,vec4,norm_block,min_strip_rows,seconds,reference_seconds" >"$csv"
printf "%-10s %-11s %-5s %-4s %-5s %-5s %-5s %12s\n" shape launch rows bps vec4 normb strip "run s" | tee -a "$log"
for shape in $shapes; do
  nx=${shape%x*} ny=${shape#*x}
  for launch in $launches; do
    # rows in flight, blocks per SM, 16-byte accesses (1) or one column a thread (0), norm
    # block, fewest rows a strip
    for cfg in "${configs[@]}"; do
      read -r g b v nb sr <<<"$cfg"
      [[ $launch != persistent && $nb == 0 ]] && continue
      json=$out/tune.json
      if run -np 1 -x JACOBI_ROWS_IN_FLIGHT="$g" -x JACOBI_BLOCKS_PER_SM="$b" -x JACOBI_VEC4="$v" \
        -x JACOBI_NORM_BLOCK="$nb" -x JACOBI_MIN_STRIP_ROWS="$sr" "$build/jacobi" -nx "$nx" -ny "$ny" -niter "$niter" --launch "$launch" \
        --repeat 3 --cpu-check no --json "$json" >>"$log" 2>&1; then
        read -r t ref <<<"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["seconds"], d["reference_seconds"])' "$json")"
      else
        t=FAILED ref=FAILED
        failures=$((failures + 1))
      fi
      echo "$shape,$launch,$g,$b,$v,$nb,$sr,$t,$ref" >>"$csv"
      printf "%-10s %-11s %-5s %-4s %-5s %-5s %-5s %12s\n" "$shape" "$launch" "$g" "$b" "$v" "$nb" "$sr" "$t" | tee -a "$log"
    done
  done
done
rm -f "$out/tune.json"
say "# gpu-jacobi-tune: $failures failure(s)"
exit "$((failures > 0))"

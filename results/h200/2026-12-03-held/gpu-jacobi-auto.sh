#!/usr/bin/env bash
# gpu-jacobi-auto.sh - on the NVIDIA machine: jacobi's --launch auto against
# every mode it chooses from, one rank, at the sizes of docs/performance.md's
# one-GPU table, in one job. Each run is the median of --repeat 3 solves after
# jacobi's warm-up, verified; modes are run in turn (persistent onchip temporal
# auto), sizes from small to large, for ROUNDS rounds; the table gives each
# mode's median over the rounds, the mode auto ran, and auto / the fastest.
#
# Usage: scripts/gpu-jacobi-auto.sh JACOBI [outdir]
#   JACOBI        a CUDA build's jacobi binary
#   AUTO_SIZES    N (N x N) sizes (default "1024 2048 4096 16384")
#   AUTO_ROUNDS   rounds (default 2)
# Writes into outdir: auto.log (every run), auto-timing.txt, auto-table.txt.
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
jacobi=$(realpath "${1:?usage: scripts/gpu-jacobi-auto.sh JACOBI [outdir]}")
gpu_start "${2:-${OUT:-./gpu-jacobi-auto-out}}" auto.log
sizes=${AUTO_SIZES:-"1024 2048 4096 16384"}
rounds=${AUTO_ROUNDS:-2}
: >"$out/auto-timing.txt"
for ((round = 1; round <= rounds; round++)); do
  for n in $sizes; do
    for launch in persistent onchip temporal auto; do
      # shellcheck disable=SC2086,SC2154  # word-split flag from mpi-env.sh
      r=$(timeout 120 mpirun $mpi_oversubscribe --bind-to none -np 1 "$jacobi" -nx "$n" -ny "$n" \
        -niter 1000 --repeat 3 --cpu-check no --launch "$launch" 2>&1)
      echo "$r" >>"$log"
      t=$(solve_time "$r")
      ok=$(grep -c "^# verify jacobi: OK" <<<"$r")
      # "size mode ran seconds": a mode that refuses the size (on chip above
      # what fits) or fails is "-"
      if [[ -n $t && $ok -eq 1 ]]; then
        echo "$n $launch ${t%% *} ${t##* }"
      else
        echo "$n $launch - -"
      fi | tee -a "$log" >>"$out/auto-timing.txt"
    done
  done
done
python3 - "$out/auto-timing.txt" >"$out/auto-table.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    n, mode, ran, t = line.split()
    if t != "-":
        runs.setdefault(n, {}).setdefault(mode, []).append((ran, float(t)))
print(f"{'size':>6} {'persistent':>11} {'onchip':>9} {'temporal':>9} {'auto':>9} {'auto ran':>10} {'auto/best':>9}")
for n, modes in runs.items():
    med = {m: statistics.median(t for _, t in v) for m, v in modes.items()}
    best = min(v for m, v in med.items() if m != "auto")
    cell = lambda m: f"{med[m] * 1e3:.3f}" if m in med else "-"
    ran = modes.get("auto", [("-", 0)])[0][0]
    ratio = f"{med['auto'] / best:.3f}" if "auto" in med else "-"
    print(f"{n:>6} {cell('persistent'):>11} {cell('onchip'):>9} {cell('temporal'):>9} {cell('auto'):>9} {ran:>10} {ratio:>9}")
PY
tee -a "$log" <"$out/auto-table.txt"
say "# gpu-jacobi-auto: ms a solve of 1000 iterations"

#!/usr/bin/env bash
# gpu-onchip-bisect.sh - on the NVIDIA machine, in one call: the on-chip solve
# of several source trees (git archives of the commits to bisect, unpacked)
# timed side by side. Builds every tree's jacobi (CUDA backend, no tests) at
# once, the cores shared between them; then runs jacobi --launch onchip at
# each size for every tree in turn (A B C A B C ...: each sees the same
# machine state), each run the median of --repeat solves after a warm-up, and
# verified; writes a table of each tree's median over the rounds, its ratio to
# the first tree, and the 1-GPU reference's median (a solve without MPI steps).
#
# Usage: scripts/gpu-onchip-bisect.sh TREE... (the first is the baseline)
#   BISECT_SIZES    NXxNY sizes (default "2048x2048 2048x1026")
#   BISECT_ROUNDS   rounds over the trees (default 3)
#   BISECT_NITER    iterations a solve (default 1000)
#   BISECT_REPEAT   timed solves a run (default 3)
#   BISECT_BACKEND  cuda (default), or host to try the plumbing on a CPU
#   BISECT_JOBS     build jobs over all trees (default 16)
#   BISECT_BUILD    where the builds go (default /tmp/onchip-bisect)
#   BISECT_BUDGET_S no run starts past this many seconds (default 330)
# Writes into $OUT (or ./gpu-onchip-bisect-out): bisect.log (everything),
# bisect-timing.txt (one line a run), bisect-table.txt (the table),
# bisect-regs.txt (cuobjdump -res-usage of every tree's on-chip kernels).
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
(($# >= 1)) || { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
gpu_start "${OUT:-./gpu-onchip-bisect-out}" bisect.log
sizes=${BISECT_SIZES:-"2048x2048 2048x1026"}
rounds=${BISECT_ROUNDS:-3}
niter=${BISECT_NITER:-1000}
repeat=${BISECT_REPEAT:-3}
backend=${BISECT_BACKEND:-cuda}
jobs=${BISECT_JOBS:-16}
builds=${BISECT_BUILD:-/tmp/onchip-bisect}
budget=${BISECT_BUDGET_S:-330}
SECONDS=0

trees=() names=()
for dir in "$@"; do
  [[ -f $dir/CMakeLists.txt ]] || { say "# $dir: no CMakeLists.txt"; exit 2; }
  trees+=("$(cd "$dir" && pwd)")
  names+=("$(basename "$dir")")
done
n=${#trees[@]}
per=$((jobs / n > 0 ? jobs / n : 1))
command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1
say "# $n trees (${names[*]}), backend $backend, -j $per each; sizes $sizes; $rounds rounds"

# ---- the builds, all at once ---------------------------------------------------------------
build_one() { # build_one TREE DIR: configure and build jacobi, its output in DIR.log
  {
    timeout 120 cmake -S "$1" -B "$2" -DSHARDTAB_BACKEND="$backend" -DSHARDTAB_BUILD_TESTS=OFF &&
      timeout 280 cmake --build "$2" -j "$per" --target jacobi
  } >"$2.log" 2>&1
}
mkdir -p "$builds"
pids=()
for ((i = 0; i < n; i++)); do
  build_one "${trees[i]}" "$builds/${names[i]}" &
  pids+=($!)
done
built=()
for ((i = 0; i < n; i++)); do
  if wait "${pids[i]}" && [[ -x $builds/${names[i]}/jacobi ]]; then
    built+=("${names[i]}")
  else
    say "# ${names[i]}: the build failed (its log below)"
    tail -20 "$builds/${names[i]}.log" | tee -a "$log"
    failures=$((failures + 1))
  fi
  cat "$builds/${names[i]}.log" >>"$log"
done
say "# built in ${SECONDS} s: ${built[*]}"
((${#built[@]} > 0)) || exit 1

# each tree's on-chip kernels as built: registers, stack (spills), local memory
# shellcheck disable=SC2012  # the CUDA folders, as gpu_sanitize finds its tool
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
: >"$out/bisect-regs.txt"
for name in "${built[@]}"; do
  [[ -n $cuobjdump ]] || break
  timeout 60 "$cuobjdump" -res-usage "$builds/$name/jacobi" 2>>"$log" |
    awk -v t="$name" '/Function .*jacobi_onchip_kernel/ { f = $2; sub(/:$/, "", f); getline; print t, f, $0 }' |
    sed 's/_Z20jacobi_onchip_kernelILi\([0-9]*\)ELi\([0-9]*\)ELb\([01]\)EEv11jacobi_stepm/onchip<\1,\2,\3>/' \
      >>"$out/bisect-regs.txt"
done
grep -E "onchip<(8|16),512,0>" "$out/bisect-regs.txt" | tee -a "$log"

# ---- the runs, the trees in turn -----------------------------------------------------------
# one_run NAME NX NY: "run_seconds ref_seconds" of a verified run, or "- -"
one_run() {
  local r t ref ok
  # shellcheck disable=SC2086,SC2154  # word-split flag from mpi-env.sh
  r=$(timeout 60 mpirun $mpi_oversubscribe --bind-to none -np 1 "$builds/$1/jacobi" -nx "$2" \
    -ny "$3" -niter "$niter" --repeat "$repeat" --cpu-check no --launch onchip 2>&1)
  echo "$r" >>"$log"
  t=$(solve_time "$r")
  ref=$(sed -n 's/.*1 GPU reference ([a-z]* launches): [0-9]* iterations, \([0-9.]*\) s.*/\1/p' <<<"$r")
  ok=$(grep -c "^# verify jacobi: OK" <<<"$r")
  if [[ -n $t && $ok -eq 1 && $t == onchip\ * ]]; then
    echo "${t##* } ${ref:--}"
  else
    echo "- -"
  fi
}
: >"$out/bisect-timing.txt"
for ((round = 1; round <= rounds; round++)); do
  for size in $sizes; do
    nx=${size%x*} ny=${size#*x}
    for name in "${built[@]}"; do
      if ((SECONDS > budget)); then
        say "# past ${budget} s: round $round, $size, $name and later runs skipped"
        break 3
      fi
      echo "$name $size $round $(one_run "$name" "$nx" "$ny")" | tee -a "$log" >>"$out/bisect-timing.txt"
    done
  done
done
bad=$(grep -c -- " - -$" "$out/bisect-timing.txt")
((bad == 0)) || say "# $bad runs failed, did not verify or did not run on chip (bisect.log)"
failures=$((failures + bad))

# ---- the table: each tree's median over its rounds, against the first tree ----------------
python3 - "$out/bisect-timing.txt" "${built[@]}" >"$out/bisect-table.txt" <<'PY'
import statistics, sys
runs, order = {}, sys.argv[2:]
for line in open(sys.argv[1]):
    name, size, _, run, ref = line.split()
    runs.setdefault(size, {}).setdefault(name, []).append((run, ref))
med = lambda xs: statistics.median(xs) if xs else None
fmt = lambda v: f"{v * 1e3:.3f}" if v else "-"
print(f"{'size':>10} {'tree':>12} {'run ms':>8} {'/first':>7} {'ref ms':>8}  runs ok  (each: ms)")
for size, trees in runs.items():
    first = None
    for name in order:
        got = trees.get(name, [])
        run = med([float(r) for r, _ in got if r != "-"])
        ref = med([float(f) for _, f in got if f != "-"])
        first = first or run
        ratio = f"{run / first:.3f}" if run and first else "-"
        each = " ".join(fmt(float(r)) if r != "-" else "-" for r, _ in got)
        ok = sum(r != "-" for r, _ in got)
        print(f"{size:>10} {name:>12} {fmt(run):>8} {ratio:>7} {fmt(ref):>8}  {ok}/{len(got)}  ({each})")
PY
tee -a "$log" <"$out/bisect-table.txt"
say "# gpu-onchip-bisect: $failures failures, ${SECONDS} s"
exit $((failures > 0))

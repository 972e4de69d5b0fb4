#!/usr/bin/env bash
# gpu-ab.sh - on the NVIDIA machine, in one call: this tree (B) against another
# tree (A, e.g. the commit before a refactor) in the same job. Builds both CUDA
# backends; checks B on the GPU (ctest -L gpu, every jacobi launch mode from a
# random start, multi_scal's modes); then times jacobi's launch modes at each
# size for A and B in turn (A B A B ...: both see the same machine state), each
# run the median of 3 solves after a warm-up, every run verified, and writes a
# table of the medians over the rounds, B / A, and the mode auto ran in each.
#
# Usage: scripts/gpu-ab.sh OTHER_TREE [outdir]
#   OTHER_TREE  a source tree (git archive of a commit, unpacked)
#   GPU_AB_SIZES     sizes, N or NXxNY (default "16384 4096 2048 1024")
#   GPU_AB_LAUNCHES  launch modes (default "persistent onchip temporal auto")
#   GPU_AB_ROUNDS    rounds of A then B (default 2)
# Writes into outdir: ab.log (everything), ab-timing.txt (one line a run),
# ab-table.txt (the table).
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -u
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
other=$(cd "${1:?usage: scripts/gpu-ab.sh OTHER_TREE [outdir]}" && pwd)
gpu_start "${2:-${OUT:-./gpu-ab-out}}" ab.log
sizes=${GPU_AB_SIZES:-"16384 4096 2048 1024"}
launches=${GPU_AB_LAUNCHES:-"persistent onchip temporal auto"}
rounds=${GPU_AB_ROUNDS:-2}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >>"$log" 2>&1

# ---- the two builds: B with its tests, A's programs alone ---------------------------------
gpu_build_cuda "$top/build-gpu-ab-b" -DSHARDTAB_BUILD_TESTS=ON
if ! cmake -S "$other" -B "$top/build-gpu-ab-a" -DSHARDTAB_BACKEND=cuda -DSHARDTAB_BUILD_TESTS=OFF >>"$log" 2>&1 ||
  ! cmake --build "$top/build-gpu-ab-a" -j 16 --target jacobi >>"$log" 2>&1; then
  say "# the other tree did not build"
  exit 1
fi
jac_a=$top/build-gpu-ab-a/jacobi
jac_b=$top/build-gpu-ab-b/jacobi

# ---- B on the GPU: the GPU tests, every launch mode verified, multi_scal's modes ----------
step "ctest -L gpu" bash -c "cd '$top/build-gpu-ab-b' && timeout 240 ctest -L gpu --output-on-failure"
for launch in persistent onchip temporal graph stream auto; do
  step "jacobi $launch 1024x1026 random" expect_line "^# verify jacobi: OK" \
    run -np 1 "$jac_b" -nx 1024 -ny 1026 -niter 301 --launch "$launch" --init random --cpu-check yes
done
step "multi_scal, every mode" expect_line "^# verify global: OK" \
  run -np 1 "$top/build-gpu-ab-b/multi_scal" --n 10000003 --mode all

# ---- A against B, in turn ------------------------------------------------------------------
# one_run TREE JACOBI NX NY LAUNCH: "seconds ran" of a verified run, or "- -"
one_run() {
  local r t ok ran seconds
  r=$(timeout 120 mpirun $mpi_oversubscribe --bind-to none -np 1 "$2" -nx "$3" -ny "$4" -niter 1000 \
    --repeat 3 --cpu-check no --launch "$5" 2>&1)
  echo "$r" >>"$log"
  t=$(solve_time "$r")
  ok=$(grep -c "^# verify jacobi: OK" <<<"$r")
  if [[ -n $t && $ok -eq 1 ]]; then
    read -r ran _ seconds <<<"$t"
    echo "$seconds $ran"
  elif grep -q "cannot run here" <<<"$r"; then
    echo "refused refused" # the mode does not fit this grid: the same answer from both trees
  else
    echo "- -" # counted below: this runs in a subshell
  fi
}
: >"$out/ab-timing.txt"
for size in $sizes; do
  nx=${size%x*} ny=${size#*x}
  for launch in $launches; do
    for ((round = 1; round <= rounds; round++)); do
      for tree in a b; do
        jac=$jac_a
        [[ $tree == b ]] && jac=$jac_b
        echo "$size $launch $tree $round $(one_run "$tree" "$jac" "$nx" "$ny" "$launch")" >>"$out/ab-timing.txt"
      done
    done
  done
done

bad=$(grep -c -- " - -$" "$out/ab-timing.txt")
((bad == 0)) || say "# $bad timed runs failed or did not verify (ab.log)"
failures=$((failures + bad))

# the table: per size and mode, each tree's median over its rounds, B / A, what ran
python3 - "$out/ab-timing.txt" >"$out/ab-table.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    size, launch, tree, _, seconds, ran = line.split()
    runs.setdefault((size, launch), {}).setdefault(tree, []).append((seconds, ran))
print(f"{'grid':>11} {'launch':>10} {'A s':>9} {'B s':>9} {'B/A':>6}  ran (A / B)")
for (size, launch), trees in runs.items():
    med = {}
    for t in "ab":
        got = [float(s) for s, _ in trees.get(t, []) if s not in ("-", "refused")]
        med[t] = statistics.median(got) if got else None
    ran = {t: ",".join(sorted({r for _, r in trees.get(t, [])})) for t in "ab"}
    ratio = f"{med['b'] / med['a']:.3f}" if med["a"] and med["b"] else "-"
    fmt = lambda v: f"{v:.5f}" if v else "-"
    print(f"{size:>11} {launch:>10} {fmt(med['a']):>9} {fmt(med['b']):>9} {ratio:>6}  {ran['a']} / {ran['b']}")
PY
tee -a "$log" <"$out/ab-table.txt"
say "# gpu-ab: $failures failures"
exit $((failures > 0))

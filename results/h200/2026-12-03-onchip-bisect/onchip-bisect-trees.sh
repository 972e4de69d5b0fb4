#!/usr/bin/env bash
# onchip-bisect-trees.sh - the source trees gpu-onchip-bisect.sh (beside it) times,
# made in the git checkout the caller stands in: .bisect/<name> for each
# commit, a git archive unpacked (without results/ and docs/, which no build
# reads), and .bisect/tools/ holding the bisect script and the two it
# sources, so that carrying .bisect alone to the device machine is enough.
# .bisect is added once to the repository's .git/info/exclude (shared by its
# worktrees): the trees stay out of git status.
#
# Usage: (cd CHECKOUT && path/to/onchip-bisect-trees.sh [COMMIT...])
#   default: 616ece4 (on chip 7.5 ms at 2048^2), 83d60ef, 7a71319, 4cb02ba,
#   de10096, main (9.5 ms) and onchip-ab (main with the proposed fix); each
#   directory is named as the commit is given ('/' as '-')
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scripts=$(cd "$here/../../../scripts" && pwd)
top=$(git rev-parse --show-toplevel)
cd "$top"
commits=("$@")
((${#commits[@]} > 0)) || commits=(616ece4 83d60ef 7a71319 4cb02ba de10096 main onchip-ab)
exclude=$(git rev-parse --git-common-dir)/info/exclude
mkdir -p "$(dirname "$exclude")"
grep -qx '/.bisect/' "$exclude" 2>/dev/null || echo '/.bisect/' >>"$exclude"
for c in "${commits[@]}"; do
  dir=.bisect/${c//\//-}
  rm -rf "$dir"
  mkdir -p "$dir"
  git archive "$c" | tar -x -C "$dir" --exclude=results --exclude=docs
  echo "$dir: $(git rev-parse --short "$c") $(du -sh "$dir" | cut -f1)"
done
study=.bisect/tools/results/h200/2026-12-03-onchip-bisect
mkdir -p .bisect/tools/scripts "$study"
cp "$here/gpu-onchip-bisect.sh" "$study/"
cp "$scripts/gpu-common.sh" "$scripts/mpi-env.sh" .bisect/tools/scripts/
echo "$top/.bisect: $(du -sh .bisect | cut -f1)"

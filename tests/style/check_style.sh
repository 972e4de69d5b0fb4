#!/usr/bin/env bash
# check_style.sh - fails where a source does not follow the tree's format:
# clang-format (the root's .clang-format) for C, C++ and HIP, black (the
# root's pyproject.toml) for Python; and where a source has no license line. Prints each file that differs and the
# command that formats it. The formatters are Debian 12's (clang-format 14,
# black 23): another version may lay code out otherwise.
# Usage: tests/style/check_style.sh [--root DIR]
# Exit: 0 every file formatted; 1 some are not; 2 a formatter or every source missing.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ ${1:-} == --root ]] && root=$(cd "$2" && pwd)
cd "$root"
clang_format=$(command -v clang-format-14 || command -v clang-format || true)
black=$(command -v black || true)
[[ -n $clang_format ]] || { echo "check_style: clang-format not found (Debian: apt-get install clang-format)" >&2; exit 2; }
[[ -n $black ]] || { echo "check_style: black not found (Debian: apt-get install black)" >&2; exit 2; }

# the tracked sources where the root is a checkout's top (git), or every
# source below the root (a tarball, or a folder inside another checkout)
top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null || true)
list() {
  if [[ -n $top && $(cd "$top" && pwd -P) == $(pwd -P) ]]; then
    git -C "$root" ls-files -- "$@"
  else
    local globs=() g
    for g in "$@"; do globs+=(-o -name "$g"); done
    find . -type f \( -false "${globs[@]}" \) ! -path './build*' | sed 's|^\./||'
  fi
}

status=0
mapfile -t c_files < <(list '*.c' '*.h' '*.hip')
((${#c_files[@]})) || { echo "check_style: no C or HIP source found under $root" >&2; exit 2; }
for f in "${c_files[@]}"; do
  if ! "$clang_format" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "check_style: $f is not formatted: $clang_format -i --style=file $f"
    status=1
  fi
done
mapfile -t py_files < <(list '*.py')
if ((${#py_files[@]})) && ! "$black" --check --quiet "${py_files[@]}" 2>/dev/null; then
  "$black" --check "${py_files[@]}" 2>&1 | sed -n 's/^would reformat \(.*\)$/check_style: \1 is not formatted: black \1/p' || true
  status=1
fi
# every source names its license (LICENSE), in the form the other files have
mapfile -t licensed < <(list '*.c' '*.h' '*.hip' '*.in' '*.f90' '*.py' '*.sh' '*.cmake' 'CMakeLists.txt' '*.sbatch')
for f in "${licensed[@]}"; do
  [[ $f == results/* || ($f == docs/* && $f != docs/examples/*) || $f == *.pc.in || $f == docs/Doxyfile.in ]] && continue
  if ! grep -q "SPDX-License-Identifier: BSD-3-Clause" "$f"; then
    echo "check_style: $f has no license line: add 'SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers' after its first comment"
    status=1
  fi
done
echo "check_style: ${#c_files[@]} C/HIP files, ${#py_files[@]} Python files: $( ((status == 0)) && echo formatted || echo "some not formatted")"
exit "$status"

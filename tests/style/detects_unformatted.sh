#!/usr/bin/env bash
# detects_unformatted.sh - proves check_style.sh fails where it must: a tree of
# one formatted and one unformatted file of each kind, with the project's
# settings, must fail naming exactly the two unformatted ones.
# Usage: detects_unformatted.sh SOURCE_DIR WORK_DIR
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
cp "$src/.clang-format" "$src/pyproject.toml" "$work/"
printf 'int good(int x)\n{\n    return x + 1;\n}\n' >"$work/good.c"
printf 'int bad( int x ) { return x+1; }\n' >"$work/bad.c"
printf 'def good(x):\n    return x + 1\n' >"$work/good.py"
printf 'def bad( x ):\n  return x+1\n' >"$work/bad.py"
rc=0
out=$(bash "$src/tests/style/check_style.sh" --root "$work" 2>&1) || rc=$?
echo "$out"
fail() { echo "detects_unformatted: FAIL: $*"; exit 1; }
((rc == 1)) || fail "exit $rc, want 1"
grep -q "^check_style: bad.c is not formatted" <<<"$out" || fail "bad.c not named"
grep -q "^check_style: .*bad.py is not formatted" <<<"$out" || fail "bad.py not named"
! grep -q "good\.\(c\|py\) is not formatted" <<<"$out" || fail "a formatted file named"
echo "detects_unformatted: PASS"

#!/usr/bin/env bash
# detects_unformatted.sh - proves check_style.sh fails where it must: a tree of
# one formatted and one unformatted file of each kind, with the project's
# settings, and a formatted file without its license line, must fail naming
# exactly the two unformatted ones and the unlicensed one.
# Usage: detects_unformatted.sh SOURCE_DIR WORK_DIR
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
cp "$src/.clang-format" "$src/pyproject.toml" "$work/"
spdx="SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers"
printf '/* %s */\nint good(int x)\n{\n    return x + 1;\n}\n' "$spdx" >"$work/good.c"
printf '/* %s */\nint bad( int x ) { return x+1; }\n' "$spdx" >"$work/bad.c"
printf 'int unlicensed(int x)\n{\n    return x + 1;\n}\n' >"$work/unlicensed.c"
printf '# %s\ndef good(x):\n    return x + 1\n' "$spdx" >"$work/good.py"
printf '# %s\ndef bad( x ):\n  return x+1\n' "$spdx" >"$work/bad.py"
rc=0
out=$(bash "$src/tests/style/check_style.sh" --root "$work" 2>&1) || rc=$?
echo "$out"
fail() { echo "detects_unformatted: FAIL: $*"; exit 1; }
((rc == 1)) || fail "exit $rc, want 1"
grep -q "^check_style: bad.c is not formatted" <<<"$out" || fail "bad.c not named"
grep -q "^check_style: .*bad.py is not formatted" <<<"$out" || fail "bad.py not named"
grep -q "^check_style: unlicensed.c has no license line" <<<"$out" || fail "unlicensed.c not named"
! grep -q "good\.\(c\|py\) \(is not formatted\|has no license\)" <<<"$out" || fail "a good file named"
! grep -q "unlicensed.c is not formatted" <<<"$out" || fail "unlicensed.c named as unformatted"
echo "detects_unformatted: PASS"

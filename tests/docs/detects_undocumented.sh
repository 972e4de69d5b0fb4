#!/usr/bin/env bash
# detects_undocumented.sh - proves check_reference.sh fails where it must: the
# real headers plus three planted ones (documented declarations beside an
# undocumented function, a @param naming no parameter, an undocumented
# enumerator, and a header without its @file block) must fail naming exactly the
# planted faults.
# Usage: detects_undocumented.sh SOURCE_DIR DOXYGEN DOXYFILE WORK_DIR
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
src=$1 doxygen=$2 doxyfile=$3 work=$4
rm -rf "$work" && mkdir -p "$work/planted"
cat >"$work/planted/planted_good.h" <<'HEADER'
/** @file planted_good.h - every declaration documented. */
/** Returns x + 1. */
int planted_documented(int x);
/** A documented enum. */
enum planted_good_enum {
    PLANTED_DOCUMENTED_VALUE = 0 /**< documented */
};
HEADER
cat >"$work/planted/planted_bad.h" <<'HEADER'
/** @file planted_bad.h - one declaration without a comment, one comment wrong. */
int planted_undocumented(int x);
/** Returns x - 1.
 * @param y not a parameter of this function */
int planted_bad_param(int x);
/** One enumerator documented, one not. */
enum planted_bad_enum {
    PLANTED_ALSO_DOCUMENTED = 0, /**< documented */
    PLANTED_UNDOCUMENTED_VALUE = 1
};
HEADER
cat >"$work/planted/planted_unfiled.h" <<'HEADER'
/* planted_unfiled.h - no @file block: its declarations would go unchecked */
/** Returns x * 2. */
int planted_unfiled(int x);
HEADER
rc=0
out=$(bash "$src/tests/docs/check_reference.sh" "$doxygen" "$doxyfile" "$work/check" \
  "$work"/planted/planted_*.h 2>&1) || rc=$?
echo "$out"
((rc == 77)) && exit 77
fail() { echo "detects_undocumented: FAIL: $*"; exit 1; }
((rc == 1)) || fail "exit $rc, want 1"
grep -q "planted_bad.h:[0-9]*: .*planted_undocumented.* is not documented" <<<"$out" ||
  fail "planted_undocumented not named"
grep -q "planted_bad.h:[0-9]*: .*argument 'y'.*planted_bad_param" <<<"$out" ||
  fail "planted_bad_param's @param y not named"
grep -q "planted_bad.h:[0-9]*: enumerator PLANTED_UNDOCUMENTED_VALUE is not documented" <<<"$out" ||
  fail "PLANTED_UNDOCUMENTED_VALUE not named"
grep -q "planted_unfiled.h has no page" <<<"$out" || fail "planted_unfiled.h not named"
! grep -q "planted_good.h\|planted_documented\|PLANTED_DOCUMENTED_VALUE\|PLANTED_ALSO" <<<"$out" ||
  fail "a documented declaration named"
echo "detects_undocumented: PASS"

#!/usr/bin/env python3
"""check-skips.py - the cases ctest skipped, read from its JUnit files: listed
by name, and under CI (CI=true in the environment) a failure of the run.

USAGE  scripts/check-skips.py JUNIT.xml...     (ctest --output-junit JUNIT.xml)

A case skipped when ctest did not run it to a verdict: it exited with its
SKIP_RETURN_CODE (77 here: a package, a namespace or a GPU missing), matched
its SKIP_REGULAR_EXPRESSION, was disabled, or was not run (a fixture or its
program missing). Each is printed, one line a case, with the reason it gave.

Exit 0: no case skipped, or some did and CI is not "true" (the lines then are
the summary). Exit 1: under CI=true some case skipped, or a file is missing or
is no JUnit (a stage that wrote nothing cannot show that it skipped nothing).
Exit 2: bad usage. Python's standard library only.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import os
import sys
import xml.etree.ElementTree as ElementTree

PROGRAM = "check-skips"


def reason_of(case):
    """Why the case skipped: the last line of its output that says 'skip'
    (a test's own reason, e.g. '# comm_check: skipped (no GPU)'), else
    ctest's (SKIP_RETURN_CODE=77, Disabled, ...)."""
    out = case.findtext("system-out") or ""
    said = [line.strip() for line in out.splitlines() if "skip" in line.lower()]
    if said:
        return said[-1]
    skipped = case.find("skipped")
    if skipped is not None and skipped.get("message"):
        return skipped.get("message")
    return (
        out.strip().splitlines()[-1] if out.strip() else case.get("status", "not run")
    )


def skips_in(path):
    """(cases in the file, [(name, reason)] of those that skipped)."""
    root = ElementTree.parse(path).getroot()
    if root.tag not in ("testsuite", "testsuites"):
        raise ValueError(f"its root is <{root.tag}>, not <testsuite>")
    cases = list(root.iter("testcase"))
    skipped = [
        (case.get("name", "?"), reason_of(case))
        for case in cases
        if case.find("skipped") is not None
        or case.get("status") in ("notrun", "disabled")
    ]
    return len(cases), skipped


def main(argv):
    if len(argv) < 2 or any(a.startswith("-") for a in argv[1:]):
        print(f"{PROGRAM}: error: usage: check-skips.py JUNIT.xml...", file=sys.stderr)
        return 2
    in_ci = os.environ.get("CI", "").lower() == "true"
    total, skipped = 0, []
    for path in argv[1:]:
        try:
            count, found = skips_in(path)
        except (OSError, ElementTree.ParseError, ValueError) as e:
            print(
                f"{PROGRAM}: error: {path}: {e}: the stage that writes it did not "
                "finish, or is no ctest --output-junit file",
                file=sys.stderr,
            )
            return 1
        total += count
        skipped += [(name, reason, path) for name, reason in found]
    for name, reason, path in skipped:
        print(f"# skipped: {name} ({reason}; {os.path.basename(path)})")
    print(
        f"# {PROGRAM}: {total} cases in {len(argv) - 1} JUnit file(s), "
        f"{len(skipped)} skipped"
    )
    if skipped and in_ci:
        names = ", ".join(name for name, _, _ in skipped)
        print(
            f"{PROGRAM}: error: {len(skipped)} case(s) skipped, and under CI=true "
            f"a skipped case fails the run: {names}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

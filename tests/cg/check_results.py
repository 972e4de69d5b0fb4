#!/usr/bin/env python3
"""check_results.py - runs one cg case (through tests/lib/run_case.sh) that writes a
result file, then checks that file against the run's own printed lines: the --json
document (strict JSON, the residual history as long as the iterations + 1, its bits
those the printed fingerprint hashed, verified) or the --trace CSV (its header, every
rank's six phases in their order, the iteration traced).

Usage: check_results.py json FILE [--expect KEY=JSON]... -- COMMAND...
       check_results.py trace FILE --ranks N [--ordered] -- COMMAND...
  FILE is removed before the run and after a passing check. COMMAND must exit 0.
  --expect KEY=JSON   the document's KEY holds this JSON value (repeatable)
  --ordered           each rank's phase times never go back (begin <= reduced <= ...)
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import argparse
import csv
import json
import math
import os
import re
import struct
import subprocess
import sys

PHASES = ["begin", "reduced", "barrier", "product", "decided", "end"]


def fnv1a(data):
    """The program's fingerprint (cg_main.c): 64-bit FNV-1a over the bytes."""
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def no_constant(name):
    raise ValueError("%s is not JSON" % name)


def printed(stdout):
    """The run's iteration count and fingerprints, from its own lines."""
    it = re.search(
        r"^# cg: ([0-9]+) iterations, (converged|not converged), ", stdout, re.M
    )
    fp = re.search(
        r"^# cg fingerprint: x ([0-9a-f]{16}), residual history ([0-9a-f]{16})$",
        stdout,
        re.M,
    )
    if not it or not fp:
        raise AssertionError("the run printed no iteration line or no fingerprint line")
    return int(it.group(1)), it.group(2) == "converged", fp.group(1), fp.group(2)


def check_json(path, expects, stdout):
    problems = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    doc = json.loads(text, parse_constant=no_constant)
    iterations, converged, x_print, history_print = printed(stdout)
    hist = doc.get("residual_history")

    def want(cond, what):
        if not cond:
            problems.append(what)

    want(
        doc.get("program") == "cg", "program is %r, expected 'cg'" % doc.get("program")
    )
    want(
        doc.get("verified") is True,
        "verified is %r, expected true" % doc.get("verified"),
    )
    want(
        doc.get("exit_status") == 0,
        "exit_status is %r, expected 0" % doc.get("exit_status"),
    )
    want(
        doc.get("iterations") == iterations,
        "iterations %r, the run printed %d" % (doc.get("iterations"), iterations),
    )
    want(
        doc.get("converged") is converged,
        "converged %r, the run printed %s" % (doc.get("converged"), converged),
    )
    want(
        doc.get("x_fingerprint") == x_print,
        "x_fingerprint %r, the run printed %s" % (doc.get("x_fingerprint"), x_print),
    )
    want(
        doc.get("history_fingerprint") == history_print,
        "history_fingerprint %r, the run printed %s"
        % (doc.get("history_fingerprint"), history_print),
    )
    if not isinstance(hist, list) or not all(
        isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool))
        for v in hist
    ):
        problems.append("residual_history is not a list of numbers: %r" % (hist,))
    else:
        want(
            len(hist) == iterations + 1,
            "residual_history has %d values, expected iterations + 1 = %d"
            % (len(hist), iterations + 1),
        )
        want(
            all(math.isfinite(v) and v >= 0 for v in hist),
            "residual_history holds a value that is negative or not finite",
        )
        # x_0 = 0: r_0 = b, its relative residual exactly 1
        want(len(hist) > 0 and hist[0] == 1.0, "residual_history[0] is not 1")
        want(
            len(hist) > 0 and hist[-1] == doc.get("relative_residual"),
            "the last residual %r is not relative_residual %r"
            % (hist[-1] if hist else None, doc.get("relative_residual")),
        )
        # %.17g reads back to the same double: the history's bits are the device's
        got = "%016x" % fnv1a(b"".join(struct.pack("=d", float(v)) for v in hist))
        want(
            got == history_print,
            "the history's bits hash to %s, the run's fingerprint is %s"
            % (got, history_print),
        )
    each = doc.get("seconds_each")
    if isinstance(each, list) and each and doc.get("repeat") == len(each):
        want(
            doc.get("seconds") == sorted(each)[len(each) // 2],
            "seconds is not the median of seconds_each",
        )
    else:
        problems.append(
            "seconds_each %r does not hold --repeat %r times"
            % (each, doc.get("repeat"))
        )
    if doc.get("cpu_checked") is True:
        want(
            doc.get("cpu_iterations") == iterations,
            "cpu_iterations differs from iterations",
        )
        want(
            doc.get("max_difference_from_cpu", 1.0) <= doc.get("verify_tolerance", 0.0),
            "max_difference_from_cpu above verify_tolerance",
        )
    for key, value in expects:
        want(
            key in doc and doc[key] == value and type(doc[key]) is type(value),
            "%s is %r, expected %r" % (key, doc.get(key, "(absent)"), value),
        )
    return problems


def check_trace(path, ranks, ordered, stdout):
    problems = []
    iterations = printed(stdout)[0]
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().splitlines()
    comments = [line for line in lines if line.startswith("#")]
    body = [line for line in lines if not line.startswith("#")]
    if not body or body[0] != "rank,phase,us":
        return [
            "the first line after the comments is %r, expected 'rank,phase,us'"
            % (body[0] if body else None)
        ]
    traced = iterations // 2
    if comments != [
        "# cg trace of iteration %d: microseconds since it began, rank by rank" % traced
    ]:
        problems.append(
            "the comment lines %r do not name iteration %d" % (comments, traced)
        )
    rows = list(csv.reader(body[1:]))
    seen = {}
    for row in rows:
        if len(row) != 3 or not re.fullmatch(r"[0-9]+", row[0]) or row[1] not in PHASES:
            problems.append("a bad row: %r" % (row,))
            continue
        try:
            us = float(row[2])
        except ValueError:
            problems.append("a bad time: %r" % (row,))
            continue
        if not math.isfinite(us):
            problems.append("a time that is not finite: %r" % (row,))
        seen.setdefault(int(row[0]), []).append((row[1], us))
    if sorted(seen) != list(range(ranks)):
        problems.append(
            "rows for ranks %s, expected 0 to %d" % (sorted(seen), ranks - 1)
        )
    for rank, phases in sorted(seen.items()):
        names = [name for name, _ in phases]
        if names != PHASES:
            problems.append(
                "rank %d's phases are %s, expected %s" % (rank, names, PHASES)
            )
            continue
        if phases[0][1] != 0.0:
            problems.append("rank %d's begin is at %g us, not 0" % (rank, phases[0][1]))
        if ordered:
            for (a, ta), (b, tb) in zip(phases, phases[1:]):
                if tb < ta:
                    problems.append(
                        "rank %d: %s at %.3f us, before %s at %.3f us: the phases "
                        "go back in time" % (rank, b, tb, a, ta)
                    )
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["json", "trace"])
    parser.add_argument("file")
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--ranks", type=int, default=0)
    parser.add_argument("--ordered", action="store_true")
    argv = sys.argv[1:]
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        parser.error("no command after --")
    command = argv[argv.index("--") + 1 :]
    args = parser.parse_args(argv[: argv.index("--")])
    expects = []
    for spec in args.expect:
        key, _, value = spec.partition("=")
        expects.append((key, json.loads(value)))

    if os.path.exists(args.file):
        os.remove(args.file)
    run = subprocess.run(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    sys.stdout.write(run.stdout)
    if run.returncode != 0:
        print("FAIL: the case exited %d" % run.returncode)
        return 1
    if not os.path.isfile(args.file) or os.path.getsize(args.file) == 0:
        print("FAIL: %s is missing or empty" % args.file)
        return 1
    try:
        if args.kind == "json":
            problems = check_json(args.file, expects, run.stdout)
        else:
            problems = check_trace(args.file, args.ranks, args.ordered, run.stdout)
    except (ValueError, AssertionError) as e:
        problems = ["%s: %s" % (args.file, e)]
    if problems:
        with open(args.file, encoding="utf-8", errors="replace") as f:
            print("---- %s\n%s----" % (args.file, f.read()))
        for p in problems:
            print("FAIL: %s" % p)
        return 1
    os.remove(args.file)
    print("PASS: %s" % args.file)
    return 0


if __name__ == "__main__":
    sys.exit(main())

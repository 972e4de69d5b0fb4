#!/usr/bin/env python3
"""planted_faults.py - which planted fault each case of a build tree plants, read from
ctest's own description of the cases (ctest --show-only=json-v1): the test hooks it sets
(SHARDTAB_FAULT, JACOBI_TEST_FAULT, ... in its environment, a driver's --env, or a line of
a bad-usage table, where a malformed hook must be refused), the
faults its program is told to make (--fault, --never-arrive, --inject-leak, a hostile
case), and the ranks its driver stops or kills from outside. A fault is named with its
program, so the same spec planted in two programs counts twice.

Usage: planted_faults.py list BUILD [--json FILE]
         every planted fault and the cases that plant it; --json: also saved
       planted_faults.py compare OLD.json NEW.json
         every fault OLD's cases plant, NEW's must plant too: lists any that is gone
         (exit 1), else says how many are kept (exit 0)
       planted_faults.py run BUILD
         runs every case that plants a fault (ctest -R, 3 at a time) and lists each with
         its result; exit 1 if any failed, i.e. a fault was not caught
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import json
import os
import re
import subprocess
import sys

# test hooks: environment variables that plant a defect (src/platform/test_hooks.h, the
# programs' own), and the stand-ins a case sets for a limit of the machine
HOOKS = (
    "SHARDTAB_FAULT",
    "JACOBI_TEST_FAULT",
    "JACOBI_TEST_CORRUPT",
    "MULTI_SCAL_TEST_CORRUPT",
    "JACOBI_TEST_SKIP_SIGNAL",
    "JACOBI_TEST_STALL",
    "JACOBI_TEST_SLOW_RANK",
    "CG_TEST_STALL",
)
# a program's own options that make it misbehave on purpose
FAULT_OPTIONS = {
    "--fault": 1,
    "--fault-small": 0,
    "--fault-rank": 1,
    "--never-arrive": 1,
    "--slots-differ": 0,
    "--inject-leak": 0,
    "--mismatch": 0,
    "--bad-alignment": 0,
    "--held": 0,
}
# programs whose first argument names a hostile case
HOSTILE = ("hostile_handles", "fortran_hostile", "check_hostile.py")
DRIVERS = (
    "run_case.sh",
    "stop_rank.sh",
    "sigkill.sh",
    "repro_ranks.sh",
    "check_results.py",
    "bad_usage.sh",
    "bash",
    "env",
    "python3",
)


def describe(build):
    out = subprocess.run(
        ["ctest", "--show-only=json-v1"],
        cwd=build,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)["tests"]


def program_of(command):
    """The program a case runs: the word after mpiexec's -n N (and any env VAR=...),
    or the command itself."""
    for i, word in enumerate(command):
        if os.path.basename(word) in ("mpiexec", "mpirun") and i + 1 < len(command):
            rest = command[i + 1 :]
            j = 0
            while j < len(rest):
                if rest[j] in ("-n", "-np", "--np"):
                    j += 2
                elif rest[j].startswith("-") or "=" in rest[j] or rest[j] == "env":
                    j += 1
                else:
                    break
            if j < len(rest):
                return os.path.basename(rest[j]), rest[j + 1 :]
            return "?", []
    names = [os.path.basename(w) for w in command]
    for i, name in enumerate(names):
        if name not in DRIVERS and not command[i].startswith("-") and "/" in command[i]:
            return name, command[i + 1 :]
    return names[0], command[1:]


def faults_of(test):
    command = test.get("command") or []
    env = []
    for prop in test.get("properties", []):
        if prop["name"] == "ENVIRONMENT":
            env += prop["value"]
    for i, word in enumerate(command):
        if word == "--env" and i + 1 < len(command):
            env.append(command[i + 1])
    program, args = program_of(command)
    # the program of an MPMD line's second part, and a python script
    if program in ("python3", "python") and args:
        program = os.path.basename(args[0])
        args = args[1:]
    plants = []
    for setting in env:
        var, _, value = setting.partition("=")
        if var in HOOKS and value != "":
            plants.append(f"{var}={value}")
    words = command[command.index("--") + 1 :] if "--" in command else command
    for i, word in enumerate(words):
        if word in FAULT_OPTIONS and (
            word not in ("--fault-rank", "--held") or "--fault" in words
        ):
            plants.append(" ".join(words[i : i + 1 + FAULT_OPTIONS[word]]))
        if re.match(r"^[A-Z_]+=", word) and word.split("=")[0] in HOOKS:
            plants.append(word)
    if program in HOSTILE and args:
        plants.append(f"case {args[0]}")
    driver = os.path.basename(command[1]) if len(command) > 1 else ""
    if driver == "stop_rank.sh":
        plants.append("a rank stopped from outside (SIGSTOP)")
    if driver == "sigkill.sh":
        opts = dict(zip(command[2::2], command[3::2]))
        plants.append(
            f"signal {opts.get('--signal', 'KILL')} to {opts.get('--target', 'rank')}"
            f" during {opts.get('--phase', 'run')}"
        )
    faults = {f"{program}: {', '.join(sorted(set(plants)))}"} if plants else set()
    if driver == "bad_usage.sh":
        # a table's lines: each line's hooks are a fault of their own (a malformed one,
        # which the program must refuse)
        table, program = command[-2], os.path.basename(command[-1])
        for line in open(table):
            fields = [f.strip() for f in line.split("|")]
            if line.startswith("#") or len(fields) < 4:
                continue
            hooks = sorted(w for w in fields[2].split() if w.split("=")[0] in HOOKS)
            if hooks:
                faults.add(f"{program}: {', '.join(hooks)}")
    # one fault a case: everything it plants, together
    return faults


def list_faults(build):
    table = {}
    for test in describe(build):
        for fault in faults_of(test):
            table.setdefault(fault, []).append(test["name"])
    return table


def main(argv):
    if len(argv) >= 3 and argv[1] == "list":
        table = list_faults(argv[2])
        for fault in sorted(table):
            print(f"{fault}\n    {' '.join(sorted(table[fault]))}")
        print(
            f"# {len(table)} planted faults, {len({t for v in table.values() for t in v})} cases"
        )
        if len(argv) == 5 and argv[3] == "--json":
            with open(argv[4], "w") as f:
                json.dump(table, f, indent=1, sort_keys=True)
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        old, new = (json.load(open(p)) for p in argv[2:4])
        gone = sorted(set(old) - set(new))
        for fault in gone:
            print(f"GONE: {fault} (was planted by {' '.join(old[fault])})")
        print(
            f"# {len(old)} planted faults before, {len(new)} after; {len(gone)} no longer planted"
        )
        return 1 if gone else 0
    if len(argv) == 3 and argv[1] == "run":
        table = list_faults(argv[2])
        cases = sorted({t for v in table.values() for t in v})
        regex = "^(" + "|".join(re.escape(c) for c in cases) + ")$"
        result = subprocess.run(
            ["ctest", "-R", regex, "-j", "3"],
            cwd=argv[2],
            capture_output=True,
            text=True,
        )
        status = {}
        for line in result.stdout.splitlines():
            m = re.search(r"Test +#\d+: (\S+) \.+\**\s*(Passed|Failed|\w+)", line)
            if m:
                status[m.group(1)] = m.group(2)
        for fault in sorted(table):
            marks = " ".join(
                f"{c}:{status.get(c, 'not run')}" for c in sorted(table[fault])
            )
            print(f"{fault}\n    {marks}")
        bad = [c for c in cases if status.get(c) != "Passed"]
        print(
            f"# {len(table)} planted faults, {len(cases)} cases, {len(cases) - len(bad)} caught"
            f"{': not ' + ' '.join(bad) if bad else ''}"
        )
        return 1 if bad else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""check_skips_test.py - scripts/check-skips.py against JUnit files with and
without a skipped case: under CI=true a skip fails (exit 1, the case named),
otherwise it is a printed line (exit 0); a missing file fails, no file is bad
usage. One file is written by hand in ctest's form, one by this machine's
ctest itself (a project of a passing, a skipped (exit 77) and a disabled
case), so that a change of ctest's format shows here.

USAGE  python3 check_skips_test.py CHECKER CMAKE CTEST WORKDIR
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import os
import shutil
import subprocess
import sys

checker, cmake, ctest, work = sys.argv[1:5]
problems = []

SKIPPED = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="t" tests="2" failures="0" disabled="0" skipped="1" hostname="" time="0">
\t<testcase name="slurm.cluster-up" classname="slurm.cluster-up" time="0.1" status="notrun">
\t\t<skipped message="SKIP_RETURN_CODE=77"/>
\t\t<system-out># slurm: skipped (slurmctld not installed)
</system-out>
\t</testcase>
\t<testcase name="unit.test_cli" classname="unit.test_cli" time="0.1" status="run">
\t\t<system-out></system-out>
\t</testcase>
</testsuite>
"""
CLEAN = SKIPPED.replace('status="notrun"', 'status="run"').replace(
    '\t\t<skipped message="SKIP_RETURN_CODE=77"/>\n', ""
)


def run(files, ci):
    env = dict(os.environ)
    env.pop("CI", None)
    if ci is not None:
        env["CI"] = ci
    p = subprocess.run(
        [sys.executable, checker] + files,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    return p.returncode, p.stdout, p.stderr


def expect(what, files, ci, code, out=None, err=None):
    got, stdout, stderr = run(files, ci)
    if got != code:
        problems.append(f"{what}: exit {got}, want {code}\n{stdout}{stderr}")
    if out and out not in stdout:
        problems.append(f"{what}: stdout lacks {out!r}:\n{stdout}")
    if err and err not in stderr:
        problems.append(f"{what}: stderr lacks {err!r}:\n{stderr}")


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
skipped, clean = os.path.join(work, "skipped.xml"), os.path.join(work, "clean.xml")
with open(skipped, "w") as f:
    f.write(SKIPPED)
with open(clean, "w") as f:
    f.write(CLEAN)

line = "# skipped: slurm.cluster-up (# slurm: skipped (slurmctld not installed); skipped.xml)"
expect(
    "a skip under CI=true",
    [clean, skipped],
    "true",
    1,
    out=line,
    err="1 case(s) skipped, and under CI=true a skipped case fails the run: slurm.cluster-up",
)
expect("a skip outside CI", [clean, skipped], None, 0, out=line)
expect("a skip under CI=false", [skipped], "false", 0, out=line)
expect(
    "no skip under CI=true",
    [clean],
    "true",
    0,
    out="2 cases in 1 JUnit file(s), 0 skipped",
)
expect(
    "a missing file under CI=true",
    [clean, os.path.join(work, "none.xml")],
    "true",
    1,
    err="none.xml",
)
expect("a missing file outside CI", [os.path.join(work, "none.xml")], None, 1)
expect("no file", [], "true", 2, err="usage")

# ctest's own JUnit: a pass, a skip by SKIP_RETURN_CODE, a disabled case
project = os.path.join(work, "project")
os.makedirs(project)
with open(os.path.join(project, "CMakeLists.txt"), "w") as f:
    f.write(
        """cmake_minimum_required(VERSION 3.21)
project(skips NONE)
enable_testing()
add_test(NAME passes COMMAND sh -c "exit 0")
add_test(NAME skips COMMAND sh -c "echo '# skips: skipped (nothing to run on)'; exit 77")
add_test(NAME disabled COMMAND sh -c "exit 0")
set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)
set_tests_properties(disabled PROPERTIES DISABLED TRUE)
"""
    )
build = os.path.join(work, "build")
subprocess.run(
    [cmake, "-S", project, "-B", build], check=True, stdout=subprocess.DEVNULL
)
junit = os.path.join(work, "ctest.xml")
subprocess.run([ctest, "--output-junit", junit], cwd=build, stdout=subprocess.DEVNULL)
expect(
    "ctest's JUnit under CI=true",
    [junit],
    "true",
    1,
    out="# skipped: skips (# skips: skipped (nothing to run on); ctest.xml)",
    err="2 case(s) skipped, and under CI=true a skipped case fails the run: skips, disabled",
)
expect(
    "ctest's JUnit outside CI",
    [junit],
    None,
    0,
    out="3 cases in 1 JUnit file(s), 2 skipped",
)

if problems:
    for p in problems:
        print(f"check_skips_test: FAIL: {p}")
    sys.exit(1)
print("# check_skips_test: OK (a skip fails under CI=true, is printed otherwise)")

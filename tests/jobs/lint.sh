#!/bin/bash
# lint.sh - checks every job and test script of the jobs/, slurm/ and multihost/ suites and the drivers' shell library: 'bash -n' (syntax) or shellcheck.
#
# Usage: lint.sh syntax|shellcheck SOURCE_DIR
# syntax also byte-compiles jobs/summarize.py and tests/jobs/check_result.py when
# python3 is there. shellcheck exits 77 (ctest: skipped) when shellcheck is not installed.
# Scripts are executable and open with '#!' and a one-line purpose comment on line 2; sourced libraries
# (jobs/lib/*.sh, tests/lib's) with the purpose comment on line 1 and '# shellcheck shell=bash'.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

mode=${1:?usage: lint.sh syntax|shellcheck SOURCE_DIR}
source_dir=${2:?usage: lint.sh syntax|shellcheck SOURCE_DIR}
cd "$source_dir"
scripts=(jobs/frontier/*.sh jobs/frontier/*.sbatch jobs/local/*.sh
         tests/jobs/*.sh tests/slurm/*.sh tests/multihost/*.sh)
libraries=(jobs/lib/*.sh tests/lib/driver.sh tests/lib/job_case.sh tests/lib/mpi-test-env.sh)
for script in "${scripts[@]}" "${libraries[@]}"; do
  [[ -f $script ]] || { echo "lint.sh: $script is missing" >&2; exit 1; }
done

failures=0
case $mode in
  syntax)
    for script in "${scripts[@]}"; do
      bash -n "$script" || { echo "lint.sh: syntax error in $script" >&2; failures=$((failures + 1)); }
      [[ $(sed -n 2p "$script") == '# '* ]] || { echo "lint.sh: $script: line 2 is not its one-line purpose comment" >&2; failures=$((failures + 1)); }
      grep -q '^set -euo pipefail$' "$script" || { echo "lint.sh: $script lacks 'set -euo pipefail'" >&2; failures=$((failures + 1)); }
      [[ -x $script ]] || { echo "lint.sh: $script is not executable (chmod +x)" >&2; failures=$((failures + 1)); }
    done
    for library in "${libraries[@]}"; do
      bash -n "$library" || { echo "lint.sh: syntax error in $library" >&2; failures=$((failures + 1)); }
      [[ $(sed -n 1p "$library") == '# '* ]] || { echo "lint.sh: $library: line 1 is not its one-line purpose comment" >&2; failures=$((failures + 1)); }
      grep -q '^# shellcheck shell=bash$' "$library" || { echo "lint.sh: $library lacks '# shellcheck shell=bash'" >&2; failures=$((failures + 1)); }
    done
    if command -v python3 >/dev/null 2>&1; then
      for python in jobs/summarize.py tests/jobs/check_result.py; do
        python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$python" ||
          failures=$((failures + 1))
      done
    fi
    ;;
  shellcheck)
    if ! command -v shellcheck >/dev/null 2>&1; then
      echo "lint.sh: shellcheck is not installed (apt-get install shellcheck): skipped"
      exit 77
    fi
    shellcheck --version | sed -n 2p
    shellcheck -x --source-path=SCRIPTDIR --shell=bash "${scripts[@]}" "${libraries[@]}" || failures=$((failures + 1))
    ;;
  *) echo "lint.sh: mode '$mode': expected syntax or shellcheck" >&2; exit 2 ;;
esac
echo "lint.sh: $mode: ${#scripts[@]} scripts, ${#libraries[@]} libraries, $failures failure(s)"
((failures == 0))

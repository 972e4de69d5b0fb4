#!/usr/bin/env bash
# help_version.sh - every program of a release answers --help, -h and --version: each as
# one MPI process (a singleton, as a user types it), exit 0, nothing on stderr; the help's
# first line is its usage ("Usage: ..."), and --version prints exactly one line,
# "PROGRAM (shardtab) VERSION, BACKEND backend", with the project's version and the build's
# backend.
#
# Usage: help_version.sh VERSION BACKEND PROGRAM...
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

if [[ $# -lt 3 ]]; then
    echo "help_version.sh: usage: help_version.sh VERSION BACKEND PROGRAM..." >&2
    exit 2
fi
version=$1 backend=$2
shift 2
# a singleton's session directory of its own, as tests/lib/bad_usage.sh gives each run
export OMPI_MCA_ess_singleton_isolated=1
work=$(mktemp -d "${TMPDIR:-/tmp}/help_version.XXXXXX")
trap 'rm -rf "$work"' EXIT

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
n=0
for program in "$@"; do
    name=$(basename "$program")
    for flag in --help -h --version; do
        n=$((n + 1))
        rc=0
        OMPI_MCA_orte_tmpdir_base=$work/s$n timeout -k 5 20 "$program" "$flag" \
            >"$work/out" 2>"$work/err" </dev/null || rc=$?
        if ((rc != 0)); then
            fail "$name $flag: exit $rc, want 0 ($(head -c 300 "$work/err"))"
            continue
        fi
        [[ -s $work/err ]] && fail "$name $flag: wrote to stderr: $(head -c 300 "$work/err")"
        if [[ $flag == --version ]]; then
            want="$name (shardtab) $version, $backend backend"
            [[ "$(cat "$work/out")" == "$want" ]] ||
                fail "$name --version: printed '$(head -c 300 "$work/out")', want exactly '$want'"
        else
            head -n 1 "$work/out" | grep -q "^Usage: " ||
                fail "$name $flag: the first line is '$(head -n 1 "$work/out")', not 'Usage: ...'"
        fi
    done
    echo "# $name: --help, -h and --version checked"
done
if ((failures)); then
    echo "# help_version: $failures failure(s)"
    exit 1
fi
echo "# help_version: OK ($# programs)"

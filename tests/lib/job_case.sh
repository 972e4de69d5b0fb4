# job_case.sh - the start every driver of the job scripts shares (tests/jobs/run_job_test.sh, tests/slurm/run_slurm_case.sh): its options read into variables, the tools it checks with, an empty work folder, written once.
# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # the variables set and read here are the caller's
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers

# job_case_options SCRIPT SPEC... -- ARGS...: for each '--NAME VALUE' in ARGS,
# sets NAME's variable to VALUE. A SPEC is NAME (the variable: NAME, its dashes
# as underscores) or NAME:VARIABLE, and a '?' at its end makes the option
# optional. Any other word is an unknown option, and a required option not
# given is missing: SCRIPT says which, and exits 2. The caller declares the
# variables first (empty).
job_case_options() {
  local script=$1 spec name var
  local -A variable_of=()
  local -a required=()
  shift
  while [[ $1 != -- ]]; do
    spec=${1%\?}
    name=${spec%%:*}
    var=${spec#*:}
    variable_of[--$name]=${var//-/_}
    if [[ $1 != *\? ]]; then required+=("$name"); fi
    shift
  done
  shift
  while (($#)); do
    if [[ -z ${variable_of[$1]+set} || $# -lt 2 ]]; then
      echo "$script: unknown option '$1'" >&2
      exit 2
    fi
    printf -v "${variable_of[$1]}" '%s' "$2"
    shift 2
  done
  for name in "${required[@]}"; do
    var=${variable_of[--$name]}
    if [[ -z ${!var} ]]; then
      echo "$script: --$name is missing" >&2
      exit 2
    fi
  done
}

# job_case_enter: with source_dir and work set, the tools of the checks
# (frontier: the Frontier job scripts; check: check_result.py; summarize: jobs/summarize.py),
# then WORK emptied and made the current folder.
job_case_enter() {
  frontier=$source_dir/jobs/frontier
  check=(python3 "$source_dir/tests/jobs/check_result.py")
  summarize=(python3 "$source_dir/jobs/summarize.py")
  rm -rf "$work"
  mkdir -p "$work"
  cd "$work" || exit 2
}

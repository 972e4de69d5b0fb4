#!/bin/bash
# submit-scaling.sh - submits one weak- or strong-scaling job of multi_scal, jacobi or cg per node count (sbatch -N k).
#
# Usage: jobs/frontier/submit-scaling.sh [-A project] [-t HH:MM:SS] [-n] [multi_scal|jacobi|cg] weak|strong NODES...
#   e.g. jobs/frontier/submit-scaling.sh -A abc123 weak 1 2 4 8 16 32 64
#        jobs/frontier/submit-scaling.sh -A abc123 jacobi strong 1 2 4 8
#        jobs/frontier/submit-scaling.sh -A abc123 cg strong 1 2 4 8
#   -A  project to charge (else SBATCH_ACCOUNT, which sbatch reads itself)
#   -t  time limit of each job (default: the script's own #SBATCH -t)
#   -n  dry run: print the sbatch commands, submit nothing
#   the program defaults to multi_scal; cg has a strong study only: at 1 node its rank counts
#   inside the node (SHARDTAB_CG_RANK_COUNTS, default 1 2 4 8), at K nodes K x 8 (SHARDTAB_GPUS_PER_NODE)
# Run it from the repository root: the jobs read build-frontier/ and write results/
# relative to the submit directory. Sizes come from the environment:
#   multi_scal weak:   SHARDTAB_SHARD_ELEMS doubles per rank (default 256M = 2 GiB per GCD)
#   multi_scal strong: SHARDTAB_TOTAL_ELEMS doubles in all   (default 4G = 32 GiB)
#   jacobi weak:       SHARDTAB_JACOBI_NX x SHARDTAB_JACOBI_ROWS_PER_RANK per rank (default 8192 x 1024)
#   jacobi strong:     SHARDTAB_JACOBI_NX x SHARDTAB_JACOBI_NY in all (default 16384 x 16384)
#   jacobi, both:      SHARDTAB_JACOBI_NITER (default 1000)
#   cg strong:         SHARDTAB_CG_POISSON (default 2d:2048) or SHARDTAB_CG_MATRIX (a file),
#                      SHARDTAB_CG_NITER (default 1000)
# and are set in the environment of every sbatch call (env VAR=VALUE sbatch ...),
# which sbatch passes on to its job, so all jobs of a study agree even if the shell
# changes between submissions. (Not --export=ALL,VAR=VALUE: with it, Slurm 22.05
# loaded root's login environment into the job, module function and all.) Other
# sbatch settings come from sbatch's own variables (SBATCH_PARTITION, SBATCH_WAIT, ...).
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

usage() {
  sed -n '4,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
  exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sbatch_args=()
dry_run=0
while getopts "A:t:nh" flag; do
  case $flag in
    A) sbatch_args+=(-A "$OPTARG") ;;
    t) sbatch_args+=(-t "$OPTARG") ;;
    n) dry_run=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
program=multi_scal
if [[ ${1:-} == multi_scal || ${1:-} == jacobi || ${1:-} == cg ]]; then
  program=$1
  shift
fi
(($# >= 2)) || usage

study=$1
shift
case $program:$study in
  multi_scal:weak) sizes=("SHARDTAB_SHARD_ELEMS=${SHARDTAB_SHARD_ELEMS:-256M}") ;;
  multi_scal:strong) sizes=("SHARDTAB_TOTAL_ELEMS=${SHARDTAB_TOTAL_ELEMS:-4G}") ;;
  jacobi:weak) sizes=("SHARDTAB_JACOBI_NX=${SHARDTAB_JACOBI_NX:-8192}"
                      "SHARDTAB_JACOBI_ROWS_PER_RANK=${SHARDTAB_JACOBI_ROWS_PER_RANK:-1024}"
                      "SHARDTAB_JACOBI_NITER=${SHARDTAB_JACOBI_NITER:-1000}") ;;
  jacobi:strong) sizes=("SHARDTAB_JACOBI_NX=${SHARDTAB_JACOBI_NX:-16384}"
                        "SHARDTAB_JACOBI_NY=${SHARDTAB_JACOBI_NY:-16384}"
                        "SHARDTAB_JACOBI_NITER=${SHARDTAB_JACOBI_NITER:-1000}") ;;
  cg:strong) if [[ -n ${SHARDTAB_CG_MATRIX:-} ]]; then
               sizes=("SHARDTAB_CG_MATRIX=$SHARDTAB_CG_MATRIX")
             else
               sizes=("SHARDTAB_CG_POISSON=${SHARDTAB_CG_POISSON:-2d:2048}")
             fi
             sizes+=("SHARDTAB_CG_NITER=${SHARDTAB_CG_NITER:-1000}") ;;
  cg:weak) echo "submit-scaling.sh: cg has no weak study (its job solves one matrix at every node count): use cg strong NODES..." >&2; exit 2 ;;
  *) echo "submit-scaling.sh: study '$study': expected weak or strong" >&2; usage ;;
esac
for nodes in "$@"; do
  if [[ ! $nodes =~ ^[1-9][0-9]*$ ]]; then
    echo "submit-scaling.sh: node count '$nodes' is not a positive integer" >&2
    exit 2
  fi
done
if [[ $program == cg ]]; then
  script=$here/cg-strong-scaling.sbatch
  results=results/cg-strong
elif [[ $program == jacobi ]]; then
  script=$here/jacobi-$study-scaling.sbatch
  results=results/jacobi-$study
else
  script=$here/$study-scaling.sbatch
  results=results/$study
fi

echo "# $program $study scaling at $* nodes, ${sizes[*]}"
for nodes in "$@"; do
  command=(env "${sizes[@]}" sbatch "${sbatch_args[@]}" -N "$nodes" "$script")
  if ((dry_run)); then
    echo "${command[*]}"
  else
    "${command[@]}"
  fi
done
echo "# when all have run: python3 jobs/summarize.py $results"

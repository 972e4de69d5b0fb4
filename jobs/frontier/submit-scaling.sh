#!/bin/bash
# submit-scaling.sh - submits one weak- or strong-scaling job of multi_scal per node count (sbatch -N k).
#
# Usage: jobs/frontier/submit-scaling.sh [-A project] [-t HH:MM:SS] [-n] weak|strong NODES...
#   e.g. jobs/frontier/submit-scaling.sh -A abc123 weak 1 2 4 8 16 32 64
#   -A  project to charge (else SBATCH_ACCOUNT, which sbatch reads itself)
#   -t  time limit of each job (default: the script's own #SBATCH -t)
#   -n  dry run: print the sbatch commands, submit nothing
# Run it from the repository root: the jobs read build-frontier/ and write results/
# relative to the submit directory. Sizes come from the environment:
#   weak:   SHARDTAB_SHARD_ELEMS doubles per rank (default 256M = 2 GiB per GCD)
#   strong: SHARDTAB_TOTAL_ELEMS doubles in all   (default 4G = 32 GiB)
# and are written into every job's environment (--export), so all jobs of a study
# agree even if the shell changes between submissions.
set -euo pipefail

usage() {
  sed -n '4,8s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
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
(($# >= 2)) || usage

study=$1
shift
case $study in
  weak) size_export=SHARDTAB_SHARD_ELEMS=${SHARDTAB_SHARD_ELEMS:-256M} ;;
  strong) size_export=SHARDTAB_TOTAL_ELEMS=${SHARDTAB_TOTAL_ELEMS:-4G} ;;
  *) echo "submit-scaling.sh: study '$study': expected weak or strong" >&2; usage ;;
esac
for nodes in "$@"; do
  if [[ ! $nodes =~ ^[1-9][0-9]*$ ]]; then
    echo "submit-scaling.sh: node count '$nodes' is not a positive integer" >&2
    exit 2
  fi
done

echo "# $study scaling at $* nodes, $size_export"
for nodes in "$@"; do
  command=(sbatch "${sbatch_args[@]}" -N "$nodes" --export="ALL,$size_export"
           "$here/$study-scaling.sbatch")
  if ((dry_run)); then
    echo "${command[*]}"
  else
    "${command[@]}"
  fi
done
echo "# when all have run: python3 jobs/summarize.py results/$study"

# common.sh - sourced by the job scripts of jobs/: sizes, modules, the srun line, and the checks a job makes before it starts.
# shellcheck shell=bash
#
# The caller sets job_name (its file name, for messages), sources this file,
# then calls job_setup. Environment read here (sbatch passes the submitting
# shell's environment on; all optional):
#   SHARDTAB_MODULES            modules to load where a 'module' command exists
#                               (default Frontier's: "$SHARDTAB_PRGENV craype-accel-amd-gfx90a
#                               $SHARDTAB_ROCM_MODULE"); empty: load none
#   SHARDTAB_PRGENV             programming environment in that default (PrgEnv-cray)
#   SHARDTAB_ROCM_MODULE        ROCm module in that default (rocm; e.g. rocm/6.2.4)
#   SHARDTAB_GPUS_PER_NODE      ranks per node, one GPU each (default 8: 4 MI250X x 2 GCDs)
#   SHARDTAB_CPUS_PER_TASK      CPUs per rank (default 7: Frontier's 56 usable cores / 8)
#   SHARDTAB_GPU_BIND           srun --gpu-bind (default closest)
#   SHARDTAB_ALLOW_TASK_SHARING 1: srun --gres-flags=allow-task-sharing (Slurm 23.11 and
#                               later), for GPU IPC where Slurm confines a task to its GPU
#   SHARDTAB_SRUN_ARGS          more srun options for every launch (e.g. "--mpi=pmix")
#
# Slurm runs a copy of the batch script from its spool folder, so a job finds
# this file through SHARDTAB_JOBS_DIR or the script path Slurm recorded
# (scontrol show job: Command=); see the top of any *.sbatch.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers

# ---- messages, sizes ----------------------------------------------------------------------

# job_fail MESSAGE...: the job's one error line, then exit 1
job_fail() {
  echo "${job_name:-job}: $*" >&2
  exit 1
}

# count_of TEXT: a count with an optional K/M/G/T suffix (powers of 1024), as multi_scal reads it
count_of() {
  local text=$1 scale=1
  case $text in
    *K) scale=$((1 << 10)) ;;
    *M) scale=$((1 << 20)) ;;
    *G) scale=$((1 << 30)) ;;
    *T) scale=$((1 << 40)) ;;
  esac
  text=${text%[KMGT]}
  if [[ ! $text =~ ^[1-9][0-9]*$ ]]; then
    echo "${job_name:-job}: '$1' is not a count (digits, optionally K, M, G or T)" >&2
    return 1
  fi
  echo $((text * scale))
}

# job_positive NAME VALUE: VALUE must be a positive integer (NAME: the variable that set it)
job_positive() {
  [[ $2 =~ ^[1-9][0-9]*$ ]] || job_fail "$1='$2' is not a positive integer"
}

# gib BYTES: BYTES in GiB, two decimals
gib() {
  awk -v bytes="$1" 'BEGIN { printf "%.2f", bytes / 1073741824 }'
}

# ---- environment ---------------------------------------------------------------------------

# job_load_modules: the site's modules where 'module' exists; job_modules says what was
# loaded, or skipped (job_describe prints it)
job_load_modules() {
  local frontier="${SHARDTAB_PRGENV:-PrgEnv-cray} craype-accel-amd-gfx90a ${SHARDTAB_ROCM_MODULE:-rocm}"
  local modules=()
  read -r -a modules <<<"${SHARDTAB_MODULES-$frontier}"
  if ((${#modules[@]} == 0)); then
    job_modules="none (SHARDTAB_MODULES is empty)"
  elif ! command -v module >/dev/null 2>&1; then
    job_modules="none: no 'module' command here, skipped ${modules[*]} (SHARDTAB_MODULES sets the list; empty for none)"
  elif module load "${modules[@]}"; then
    job_modules="${modules[*]}"
  else
    job_fail "module load ${modules[*]} failed: set SHARDTAB_MODULES to this site's modules (empty for none)"
  fi
  export MPICH_GPU_SUPPORT_ENABLED=1   # Cray MPICH: GPU-aware (the GTL is linked by build.sh); others ignore it
}

# job_require_binary PATH VARIABLE: PATH must be an executable (VARIABLE overrides it)
job_require_binary() {
  [[ -x $1 ]] || job_fail "$1 is not an executable: run jobs/frontier/build.sh, or set $2"
}

# job_slurm_version: srun's version (22.05.8), empty when srun does not say
job_slurm_version() {
  srun --version 2>/dev/null | awk '{ print $2; exit }'
}

# version_at_least HAVE WANT: HAVE >= WANT, as dotted version numbers
version_at_least() {
  [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1) == "$2" ]]
}

# job_cpus_per_node: the fewest CPUs any node of this job has (SLURM_JOB_CPUS_PER_NODE: "56(x2),28")
job_cpus_per_node() {
  local groups=() group count fewest=""
  IFS=, read -r -a groups <<<"${SLURM_JOB_CPUS_PER_NODE:-${SLURM_CPUS_ON_NODE:-}}"
  for group in "${groups[@]}"; do
    count=${group%%(*}
    [[ $count =~ ^[0-9]+$ ]] || continue
    if [[ -z $fewest ]] || ((count < fewest)); then fewest=$count; fi
  done
  echo "$fewest"
}

# job_memory_available: bytes of host memory a node of this job can give: MemAvailable
# of this (the first) node, capped by the job's --mem or --mem-per-cpu when it has one
job_memory_available() {
  local kib bytes cpus
  kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
  [[ $kib =~ ^[0-9]+$ ]] || return 0   # no /proc/meminfo: no check
  bytes=$((kib * 1024))
  if [[ ${SLURM_MEM_PER_NODE:-} =~ ^[0-9]+$ ]] && ((SLURM_MEM_PER_NODE > 0)); then
    bytes=$((SLURM_MEM_PER_NODE * 1048576 < bytes ? SLURM_MEM_PER_NODE * 1048576 : bytes))
  elif [[ ${SLURM_MEM_PER_CPU:-} =~ ^[0-9]+$ ]] && ((SLURM_MEM_PER_CPU > 0)); then
    cpus=$(job_cpus_per_node)
    if [[ -n $cpus ]]; then
      bytes=$((SLURM_MEM_PER_CPU * 1048576 * cpus < bytes ? SLURM_MEM_PER_CPU * 1048576 * cpus : bytes))
    fi
  fi
  echo "$bytes"
}

# job_binary_is_gpu BINARY: true when BINARY links a GPU runtime (else: a host-backend build,
# whose shards live in host memory)
job_binary_is_gpu() {
  ldd "$1" 2>/dev/null | grep -Eq 'libamdhip64|libcudart'
}

# job_setup: modules, the layout variables, the --gres-flags check; every job calls it first
# shellcheck disable=SC2034  # submit_dir, results_root: set here for the job scripts
job_setup() {
  submit_dir=${SLURM_SUBMIT_DIR:-$PWD}
  results_root=${SHARDTAB_RESULTS_DIR:-$submit_dir/results}
  gpus_per_node=${SHARDTAB_GPUS_PER_NODE:-8}
  cpus_per_task=${SHARDTAB_CPUS_PER_TASK:-7}
  gpu_bind=${SHARDTAB_GPU_BIND:-closest}
  allocated=${SLURM_NNODES:?not inside a Slurm job}
  job_positive SHARDTAB_GPUS_PER_NODE "$gpus_per_node"
  job_positive SHARDTAB_CPUS_PER_TASK "$cpus_per_task"
  read -r -a srun_extra <<<"${SHARDTAB_SRUN_ARGS:-}"
  slurm_version=$(job_slurm_version)
  job_load_modules

  # Slurm 23.11 added --gres-flags=allow-task-sharing; 22.05's srun rejects it
  # ("Invalid --gres-flags specification"), so ask for it only where it exists.
  allow_task_sharing=0
  if [[ ${SHARDTAB_ALLOW_TASK_SHARING:-0} == 1 ]]; then
    if [[ -n $slurm_version ]] && ! version_at_least "$slurm_version" 23.11; then
      job_fail "SHARDTAB_ALLOW_TASK_SHARING=1 asks srun for --gres-flags=allow-task-sharing, which" \
               "Slurm $slurm_version does not have (it came with Slurm 23.11): unset SHARDTAB_ALLOW_TASK_SHARING"
    fi
    allow_task_sharing=1
  fi
}

# job_peer_check_advice: what to try when the peer check fails, never the setting already in force
job_peer_check_advice() {
  if ((allow_task_sharing)); then
    echo "--gres-flags=allow-task-sharing was given; if every off-diagonal pair failed, ask the site how" \
         "the tasks of a step may open each other's GPUs (SHARDTAB_GPU_BIND, SHARDTAB_SRUN_ARGS)"
  elif [[ -n $slurm_version ]] && ! version_at_least "$slurm_version" 23.11; then
    echo "if every off-diagonal pair failed, the tasks cannot see each other's GPUs: Slurm $slurm_version" \
         "has no --gres-flags=allow-task-sharing; try SHARDTAB_GPU_BIND=none"
  else
    echo "if every off-diagonal pair failed, retry with SHARDTAB_ALLOW_TASK_SHARING=1"
  fi
}

# ---- the launch --------------------------------------------------------------------------

# job_check_layout NODES: NODES within the allocation, and GPUS_PER_NODE ranks of
# CPUS_PER_TASK CPUs each fit a node; refuses with the variable to change
job_check_layout() {
  local nodes=$1 cpus need
  if [[ ! $nodes =~ ^[1-9][0-9]*$ ]] || ((nodes > allocated)); then
    job_fail "node count '$nodes' is not within the allocation's $allocated"
  fi
  cpus=$(job_cpus_per_node)
  need=$((gpus_per_node * cpus_per_task))
  if [[ -n $cpus ]] && ((need > cpus)); then
    job_fail "$gpus_per_node ranks per node x $cpus_per_task CPUs per rank need $need CPUs per node, and" \
             "this job's nodes have $cpus: lower SHARDTAB_CPUS_PER_TASK (or SHARDTAB_GPUS_PER_NODE)"
  fi
  if [[ ${SLURM_GPUS_ON_NODE:-} =~ ^[0-9]+$ ]] && ((gpus_per_node > SLURM_GPUS_ON_NODE)); then
    job_fail "$gpus_per_node ranks per node, one GPU each, and this job's nodes have $SLURM_GPUS_ON_NODE" \
             "GPUs: set SHARDTAB_GPUS_PER_NODE=$SLURM_GPUS_ON_NODE"
  fi
}

# job_check_memory BYTES_PER_NODE WHAT HINT: refuse before starting when a node cannot hold it
job_check_memory() {
  local need=$1 have
  have=$(job_memory_available)
  if [[ -n $have ]] && ((need > have)); then
    job_fail "$2 needs $(gib "$need") GiB of host memory per node, and a node of this job has" \
             "$(gib "$have") GiB available: $3"
  fi
}

# jacobi_check_grid NX NY NITER REPEAT NODES: a jacobi run of NODES x GPUS_PER_NODE ranks
# on that grid can start: every rank gets a row, and the host memory of a node holds
# what each of its ranks keeps there (jacobi's own estimate: the reference's whole
# starting grid, then its rows three times, in 4-byte floats)
jacobi_check_grid() {
  local nx=$1 ny=$2 nodes=$5 ranks rows
  job_positive "nx (SHARDTAB_JACOBI_NX)" "$nx"
  job_positive "ny (SHARDTAB_JACOBI_NY)" "$ny"
  job_positive SHARDTAB_JACOBI_NITER "$3"
  job_positive SHARDTAB_JACOBI_REPEAT "$4"
  ranks=$((nodes * gpus_per_node))
  if ((ny - 2 < ranks)); then
    job_fail "a $nx x $ny grid has $((ny - 2)) interior rows, fewer than the $ranks ranks of $nodes node(s):" \
             "raise SHARDTAB_JACOBI_NY, or run on fewer nodes"
  fi
  rows=$(((ny - 2 + ranks - 1) / ranks))
  job_check_memory $((gpus_per_node * 4 * nx * (ny + 3 * rows + 4))) \
    "a $nx x $ny jacobi grid on each of $gpus_per_node ranks" "use a smaller grid (every rank also solves the whole grid alone, as the reference)"
}

# cg_check_matrix POISSON MATRIX RANKS BINARY: a cg run of RANKS ranks a node can
# start on that matrix (the Poisson spec 2d:N|3d:N, or the MatrixMarket file MATRIX when it
# is not empty): the spec within cg's 32-bit columns, the file readable with a size line,
# and the host memory of the node holding what its ranks keep there. That is an estimate:
# every rank builds or reads the whole matrix (CSR: 8 bytes a row, 12 a nonzero; reading a
# file, 64 bytes more a nonzero), rank 0 six vectors more for its check, and a host-backend
# BINARY the shards themselves (12 bytes a nonzero and 16 vectors of 8 bytes a row, in all).
# Sets cg_rows and cg_nonzeros (a file's nonzeros: at most, from its size line).
cg_check_matrix() {
  local poisson=$1 matrix=$2 ranks=$3 binary=$4 dim digits n most banner size per_rank need what
  local fields=()
  if [[ -n $matrix ]]; then
    [[ -f $matrix && -r $matrix ]] || job_fail "SHARDTAB_CG_MATRIX='$matrix' is not a readable file"
    banner=$(head -n 1 "$matrix" | tr '[:upper:]' '[:lower:]')
    [[ $banner == '%%matrixmarket '* ]] ||
      job_fail "SHARDTAB_CG_MATRIX='$matrix' is not a MatrixMarket file (its first line is not '%%MatrixMarket ...')"
    size=$(awk 'NR > 1 && !/^%/ && NF { print; exit }' "$matrix")
    read -r -a fields <<<"$size"
    if ((${#fields[@]} != 3)) || [[ ! ${fields[0]}${fields[1]}${fields[2]} =~ ^[0-9]+$ ]] ||
       ((${#fields[0]} > 10 || ${#fields[1]} > 10 || ${#fields[2]} > 15)); then
      job_fail "SHARDTAB_CG_MATRIX='$matrix': its size line '$size' is not 'rows columns entries' within cg's limits"
    fi
    cg_rows=$((10#${fields[0]}))
    ((cg_rows >= 1 && cg_rows <= 2147483647 && 10#${fields[1]} == cg_rows)) ||
      job_fail "SHARDTAB_CG_MATRIX='$matrix' is ${fields[0]} x ${fields[1]}: cg needs a square matrix of 1 to 2147483647 rows"
    cg_nonzeros=$((10#${fields[2]}))
    [[ $banner != *symmetric* ]] || cg_nonzeros=$((2 * cg_nonzeros))   # the lower triangle, mirrored
    per_rank=$((8 * (cg_rows + 1) + (12 + 64) * cg_nonzeros))
    what="the $cg_rows-row matrix of $matrix on each of $ranks ranks"
  else
    [[ $poisson =~ ^([23])d:([0-9]+)$ ]] ||
      job_fail "SHARDTAB_CG_POISSON='$poisson' is not 2d:N or 3d:N (N a positive integer)"
    dim=${BASH_REMATCH[1]} digits=${BASH_REMATCH[2]}
    most=$((dim == 2 ? 46340 : 1290))   # N^dim rows within cg's 32-bit columns
    n=0
    ((${#digits} > 6)) || n=$((10#$digits))
    if ((n < 1 || n > most)); then
      job_fail "SHARDTAB_CG_POISSON='$poisson': N must be 1 to $most for ${dim}d (cg's columns are 32-bit: N^$dim rows at most 2^31 - 1)"
    fi
    if ((dim == 2)); then
      cg_rows=$((n * n)) cg_nonzeros=$((5 * n * n - 4 * n))
    else
      cg_rows=$((n * n * n)) cg_nonzeros=$((7 * n * n * n - 6 * n * n))
    fi
    per_rank=$((8 * (cg_rows + 1) + 12 * cg_nonzeros))
    what="a $poisson Poisson matrix on each of $ranks ranks"
  fi
  need=$((ranks * per_rank + 48 * cg_rows))
  job_binary_is_gpu "$binary" || need=$((need + 12 * cg_nonzeros + 128 * cg_rows))
  job_check_memory "$need" "$what" "use a smaller matrix (SHARDTAB_CG_POISSON, SHARDTAB_CG_MATRIX) or fewer ranks a node (SHARDTAB_CG_RANK_COUNTS on one node, SHARDTAB_GPUS_PER_NODE on more): every rank holds the whole matrix"
}

# job_launch NODES [RANKS_PER_NODE]: sets launch=(srun ...) for NODES x RANKS_PER_NODE ranks
# (default GPUS_PER_NODE), one GPU each
job_launch() {
  local nodes=$1 per_node=${2:-$gpus_per_node}
  launch=(srun -N"$nodes" -n$((nodes * per_node)) --ntasks-per-node="$per_node"
          -c"$cpus_per_task" --gpus-per-task=1 --gpu-bind="$gpu_bind")
  if ((allow_task_sharing)); then
    launch+=(--gres-flags=allow-task-sharing)
  fi
  launch+=("${srun_extra[@]}")
}

# job_describe BINARY: the lines every job.txt starts with
job_describe() {
  echo "job        ${SLURM_JOB_ID:-?} ${SLURM_JOB_NAME:-} on ${SLURM_JOB_NODELIST:-?} ($allocated nodes)"
  echo "date       $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "slurm      ${slurm_version:-unknown}"
  echo "modules    $job_modules"
  echo "binary     $1"
  echo "layout     $gpus_per_node ranks per node, $cpus_per_task CPUs per rank, --gpu-bind=$gpu_bind"
}

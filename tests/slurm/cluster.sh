#!/bin/bash
# cluster.sh - brings a real Slurm of one or more virtual nodes up on this machine, in a scratch folder, and down again.
#
# Usage: tests/slurm/cluster.sh up DIR [--nodes N] [--cpus C] [--gpus G]
#        tests/slurm/cluster.sh down DIR
#   up    installs Slurm and munge through scripts/deps.sh --slurm, writes
#         DIR/etc/{slurm.conf,gres.conf,mpi.conf}, starts munged (as the munge user, on a
#         socket of its own), slurmctld and one slurmd per virtual node, and waits
#         until every node is idle. N nodes (default 2) of C CPUs (default 4) and
#         G GPUs (default 4) each: the GPUs are gres entries whose files are
#         symlinks to /dev/null, and CPUs may exceed the real cores
#         (SlurmdParameters=config_overrides). Then: source DIR/env.sh (SLURM_CONF).
#   down  cancels every job, waits for the job steps' slurmstepd to end (KILLs
#         those left after 10 s, with their tasks), stops slurmd, slurmctld and
#         munged by the PIDs that up recorded (TERM, then KILL after 10 s), checks
#         that no slurmstepd, slurmd, slurmctld or munged of DIR is left, and
#         removes DIR (kept, with its logs, when one would not stop).
#
# Exit status: 0 done; 1 failed (the daemons' logs in DIR/log are printed);
# 77 refused: this machine does not let us run the daemons (not root, no
# packages, munge user refused, ...). The reason goes to DIR/refused, and every
# test of tests/slurm reads it and skips itself with it.
# SHARDTAB_SLURM_FORCE_REFUSAL=REASON: refuse with REASON (pins the skip path).
#
# Notes, from bringing Slurm 22.05 up as root without systemd:
#   - ProctrackType=proctrack/linuxproc, TaskPlugin=task/none: no cgroups needed;
#   - MpiDefault=pmix: Debian's Open MPI has PMIx but not PMI-1/PMI-2;
#   - partition with OverSubscribe=EXCLUSIVE, or a step's --gpus-per-task fails
#     with "Step requested GRES but job doesn't have GRES";
#   - two slurmd on one host: TmpFS=DIR/tmp/%n, or their PMIx folders collide, and
#     a TaskProlog that gives each node's job steps a vader backing folder of its
#     own, since Open MPI's shared-memory segment names carry the host name;
#   - mpi.conf PMIxCollFence=ring: Slurm's tree fence is no barrier on fewer nodes
#     than TreeWidth (below, at mpi.conf), and Open MPI's MPI_Init needs one.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
readonly refused_status=77
readonly ready_seconds=60

usage() {
  sed -n '4,5s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
  exit 2
}

action=${1:-}
dir=${2:-}
[[ -n $action && -n $dir ]] || usage
shift 2
nodes=2 cpus=4 gpus=4
while (($#)); do
  case $1 in
    --nodes) nodes=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    *) echo "cluster.sh: unknown option '$1'" >&2; usage ;;
  esac
done
for value in "$nodes" "$cpus" "$gpus"; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "cluster.sh: '$value' is not a positive count" >&2; exit 2; }
done
if [[ $action == down && ! -d $dir ]]; then
  echo "cluster.sh: down: no $dir, nothing to stop"
  exit 0
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# refuse REASON: this machine will not run the daemons; say so where the tests look
refuse() {
  echo "$*" >"$dir/refused"
  echo "cluster.sh: refused: $*" >&2
  exit "$refused_status"
}

fail() {
  echo "cluster.sh: $*" >&2
  local log
  for log in "$dir"/log/*.log; do
    [[ -f $log ]] || continue
    echo "--- $log (last 30 lines)" >&2
    tail -n 30 "$log" >&2
  done
  exit 1
}

# started NAME PID: the process PID runs the program NAME (not a PID reused by another,
# nor a zombie: one that has exited and waits for init to reap it)
started() {
  [[ -r /proc/$2/comm && $(cat "/proc/$2/comm" 2>/dev/null) == "$1" ]] &&
    [[ $(awk '{ print $3 }' "/proc/$2/stat" 2>/dev/null) != Z ]]
}

# alive PID: that process exists (it may still be exec'ing into its program)
alive() {
  kill -0 "$1" 2>/dev/null
}

# free_ports COUNT: COUNT TCP ports free on 127.0.0.1 now, one a line
free_ports() {
  python3 - "$1" <<'PYTHON'
import socket, sys
held = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    held.append(s)
print("\n".join(str(s.getsockname()[1]) for s in held))
PYTHON
}

# stop_pids NAME FILE...: TERM the processes recorded in the FILEs (all at once), KILL
# those left after 10 s; false if one still runs
stop_pids() {
  local name=$1 file pid tries running pids=()
  shift
  for file in "$@"; do
    [[ -f $file ]] || continue
    pid=$(cat "$file")
    if started "$name" "$pid"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  for ((tries = 0; tries < 100; tries++)); do
    running=0
    for pid in "${pids[@]}"; do
      if started "$name" "$pid"; then running=1; fi
    done
    ((running)) || break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do
    if started "$name" "$pid"; then
      echo "cluster.sh: $name ($pid) ignored TERM for 10 s: KILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
    if started "$name" "$pid"; then
      echo "cluster.sh: $name ($pid) is still running" >&2
      return 1
    fi
  done
  for file in "$@"; do
    rm -f "$file"
  done
}

# cluster_stepds: the slurmstepd processes of DIR's cluster, one PID a line (slurmd
# hands them its environment, where SLURM_CONF names DIR's slurm.conf)
cluster_stepds() {
  local pid
  for pid in $(pgrep -x slurmstepd); do
    if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$dir/etc/slurm.conf"; then
      echo "$pid"
    fi
  done
  return 0
}

# with_descendants PID...: those processes and every process below them, one PID a line
with_descendants() {
  ps -e -o pid= -o ppid= | awk -v roots="$*" '
    { children[$2] = children[$2] " " $1 }
    END {
      n = split(roots, queue, " ")
      for (i = 1; i <= n; i++) {
        print queue[i]
        m = split(children[queue[i]], below, " ")
        for (j = 1; j <= m; j++) queue[++n] = below[j]
      }
    }'
}

cluster_down() {
  local status=0 tries stepds
  if [[ -f $dir/env.sh && -f $dir/run/slurmctld.pid ]]; then
    # shellcheck source=/dev/null
    source "$dir/env.sh"
    if started slurmctld "$(cat "$dir/run/slurmctld.pid")"; then
      scancel --full --quiet --partition=batch 2>/dev/null || true
      for ((tries = 0; tries < 100; tries++)); do
        [[ -z $(squeue -h -o %i 2>/dev/null) ]] && break
        sleep 0.1
      done
    fi
  fi
  # a job step's slurmstepd ends soon after its job (KillWait=5) while its slurmd runs;
  # one that does not (stopped, stuck) is KILLed with its tasks, or it would outlive DIR
  for ((tries = 0; tries < 100; tries++)); do
    [[ -z $(cluster_stepds) ]] && break
    sleep 0.1
  done
  stepds=$(cluster_stepds)
  if [[ -n $stepds ]]; then
    echo "cluster.sh: slurmstepd ${stepds//$'\n'/ } did not end within 10 s: KILL, with its tasks" >&2
    # shellcheck disable=SC2046,SC2086 # one PID a word
    kill -KILL $(with_descendants $stepds) 2>/dev/null || true
    for ((tries = 0; tries < 50; tries++)); do
      [[ -z $(cluster_stepds) ]] && break
      sleep 0.1
    done
  fi
  stop_pids slurmd "$dir"/run/slurmd-*.pid || status=1
  # slurmctld's helper (slurmscriptd) ends with it: wait for it by its PID too
  local helpers="" pid
  if [[ -f $dir/run/slurmctld.pid ]] && started slurmctld "$(cat "$dir/run/slurmctld.pid")"; then
    helpers=$(pgrep -P "$(cat "$dir/run/slurmctld.pid")" || true)
  fi
  stop_pids slurmctld "$dir/run/slurmctld.pid" || status=1
  for pid in $helpers; do
    for ((tries = 0; tries < 50; tries++)); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      echo "cluster.sh: slurmctld's helper $pid outlived it" >&2
      status=1
    fi
  done
  stop_pids munged "$dir/run/munged.pid" || status=1
  stepds=$(cluster_stepds)
  if [[ -n $stepds ]]; then
    echo "cluster.sh: slurmstepd ${stepds//$'\n'/ } of $dir is still running" >&2
    status=1
  fi
  rm -f "$dir/env.sh"
  if ((status == 0)); then
    echo "cluster.sh: down: no slurmstepd, slurmd, slurmctld or munged of $dir is running"
    # nothing of the cluster outlives it; a failed down keeps DIR/log to read
    if [[ -f $dir/etc/slurm.conf ]]; then rm -rf "${dir:?}"; fi
  fi
  return "$status"
}

if [[ $action == down ]]; then
  cluster_down
  exit
fi
[[ $action == up ]] || usage

# ---- 0. may we? -------------------------------------------------------------------------
rm -f "$dir/refused"
[[ -z ${SHARDTAB_SLURM_FORCE_REFUSAL:-} ]] || refuse "$SHARDTAB_SLURM_FORCE_REFUSAL"
[[ $(id -u) -eq 0 ]] || refuse "not root: munged must start as the munge user and slurmd as root"
if [[ -f $dir/env.sh ]]; then
  echo "cluster.sh: a cluster of $dir seems up already: bringing it down first"
  cluster_down || fail "could not stop the old cluster of $dir"
fi
started_at=$SECONDS
if ! "$repo/scripts/deps.sh" --slurm >"$dir/deps.log" 2>&1; then
  refuse "Slurm's packages could not be installed (scripts/deps.sh --slurm): $(tail -n 3 "$dir/deps.log" | tr '\n' ' ')"
fi
for program in munged slurmctld slurmd sbatch srun setpriv; do
  command -v "$program" >/dev/null || refuse "no $program after scripts/deps.sh --slurm"
done
id munge >/dev/null 2>&1 || refuse "no munge user (the munge package creates it)"

# ---- 1. the scratch folder, the configuration -------------------------------------------
# munged's and PMIx's Unix sockets live below DIR: their paths must stay under 108 bytes
((${#dir} <= 64)) || fail "$dir is too long for the Unix sockets below it (64 characters at most): use a shorter folder"
rm -rf "${dir:?}"/{etc,state,spool,tmp,log,dev,munge}
mkdir -p "$dir/etc" "$dir/state" "$dir/log" "$dir/run"
install -d -o munge -g munge -m 0755 "$dir/munge"
host=$(hostname -s)
memory_mib=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
mapfile -t ports < <(free_ports $((nodes + 1)))
node_names=()
for ((node = 1; node <= nodes; node++)); do
  name=node$node
  node_names+=("$name")
  mkdir -p "$dir/spool/$name" "$dir/tmp/$name" "$dir/dev/$name"
  for ((gpu = 0; gpu < gpus; gpu++)); do
    ln -s /dev/null "$dir/dev/$name/gpu$gpu"
  done
done

{
  echo "# slurm.conf - written by tests/slurm/cluster.sh: $nodes virtual nodes on $host"
  echo "ClusterName=shardtab"
  echo "SlurmctldHost=$host(127.0.0.1)"
  echo "SlurmctldPort=${ports[0]}"
  echo "SlurmUser=root"
  echo "AuthType=auth/munge"
  echo "CredType=cred/munge"
  echo "AuthInfo=socket=$dir/munge/munge.socket"
  echo "StateSaveLocation=$dir/state"
  echo "SlurmdSpoolDir=$dir/spool/%n"
  echo "SlurmctldPidFile=$dir/run/slurmctld.daemon.pid"
  echo "SlurmdPidFile=$dir/run/slurmd-%n.daemon.pid"
  echo "SlurmctldLogFile=$dir/log/slurmctld.log"
  echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
  echo "ProctrackType=proctrack/linuxproc"
  echo "TaskPlugin=task/none"
  echo "TaskProlog=$dir/etc/task-prolog.sh"
  echo "MpiDefault=pmix"
  echo "SelectType=select/cons_tres"
  echo "SelectTypeParameters=CR_CPU"
  echo "SlurmdParameters=config_overrides"
  echo "GresTypes=gpu"
  echo "TmpFS=$dir/tmp/%n"
  echo "JobAcctGatherType=jobacct_gather/none"
  echo "AccountingStorageType=accounting_storage/none"
  echo "JobCompType=jobcomp/none"
  echo "ReturnToService=2"
  echo "MinJobAge=4"   # with 600, sbatch --wait came back 10 s after a 2 s job; with 4, within 2 s
  echo "KillWait=5"
  echo "InactiveLimit=0"
  echo "EnforcePartLimits=ALL"   # refuse at submission a job no node set can hold (sbatch -N3 on 2 nodes)
  for ((node = 1; node <= nodes; node++)); do
    echo "NodeName=node$node NodeHostname=$host NodeAddr=127.0.0.1 Port=${ports[node]}" \
         "CPUs=$cpus RealMemory=$memory_mib Gres=gpu:$gpus State=UNKNOWN"
  done
  echo "PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE OverSubscribe=EXCLUSIVE State=UP"
} >"$dir/etc/slurm.conf"
{
  echo "# gres.conf - written by tests/slurm/cluster.sh: GPUs that are /dev/null"
  for name in "${node_names[@]}"; do
    echo "NodeName=$name Name=gpu File=$dir/dev/$name/gpu[0-$((gpus - 1))]"
  done
} >"$dir/etc/gres.conf"
# The PMIx fences of job steps: ring, also for a fence without data. Slurm's default
# (PMIxCollFence unset) takes its tree algorithm for a fence without data, and that
# tree is built with reverse_tree_info(), which for fewer nodes than TreeWidth (50)
# makes every node a root without children: each node's slurmstepd completes such a
# fence by itself, at once (tests/slurm/pmix_fence.py shows it: the first node leaves
# a 2 s late node's fence after 0 s). Open MPI 4.1's MPI_Init ends with one of them,
# the barrier after add_procs, and without it a rank of one node leaves MPI_Init and
# sends while a rank of the other node still waits in the modex fence, before its PML
# registered its receive callbacks: ob1's TCP BTL accepts the connection and calls a
# null callback (SIGSEGV in MPI_Init: ompi_mpi_init > opal_progress > libevent >
# mca_btl_tcp.so > address 0), and the first node's ranks may then wait in their first
# collective until the step is killed. That was about 1 two-node step in 100 under
# load here, and none with ring. It is no artefact of the virtual nodes (distinct host
# names or addresses for them changed nothing): any job on fewer nodes than TreeWidth
# gets the same tree.
{
  echo "# mpi.conf - written by tests/slurm/cluster.sh: every PMIx fence a barrier across the nodes"
  echo "PMIxCollFence=ring"
} >"$dir/etc/mpi.conf"
# Job steps only (not the batch step, whose mpirun would pass it on to every node):
# Open MPI names its shared-memory files after the host, the same for every node here.
cat >"$dir/etc/task-prolog.sh" <<PROLOG
#!/bin/bash
# task-prolog.sh - Slurm TaskProlog of the test cluster: for job steps, a vader backing folder per virtual node.
set -euo pipefail
if [[ \${SLURM_STEP_ID:-batch} =~ ^[0-9]+\$ ]]; then
  echo "export OMPI_MCA_btl_vader_backing_directory=$dir/tmp/\${SLURMD_NODENAME:?}"
fi
PROLOG
chmod 0755 "$dir/etc/task-prolog.sh"
printf 'export SLURM_CONF=%q\n' "$dir/etc/slurm.conf" >"$dir/env.sh.new"
export SLURM_CONF=$dir/etc/slurm.conf

# ---- 2. munged, as the munge user, on a socket of its own -------------------------------------
head -c 1024 /dev/urandom >"$dir/munge/munge.key"
chown munge:munge "$dir/munge/munge.key"
chmod 0400 "$dir/munge/munge.key"
setsid setpriv --reuid=munge --regid=munge --clear-groups \
  munged --foreground --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
         --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" \
         --log-file="$dir/munge/munged.log" </dev/null >"$dir/log/munged.log" 2>&1 &
echo $! >"$dir/run/munged.pid"
for ((tries = 0; tries < 50; tries++)); do
  [[ -S $dir/munge/munge.socket ]] && break
  alive "$(cat "$dir/run/munged.pid")" || break
  sleep 0.1
done
if [[ ! -S $dir/munge/munge.socket ]]; then
  rm -f "$dir/run/munged.pid"
  refuse "munged did not start as the munge user: $(tail -n 3 "$dir/log/munged.log" "$dir/munge/munged.log" 2>/dev/null | tr '\n' ' ')"
fi

# ---- 3. slurmctld, then one slurmd per virtual node ---------------------------------------------
setsid slurmctld -D -i </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
echo $! >"$dir/run/slurmctld.pid"
for name in "${node_names[@]}"; do
  setsid slurmd -D -N "$name" </dev/null >>"$dir/log/slurmd-$name.out" 2>&1 &
  echo $! >"$dir/run/slurmd-$name.pid"
done
mv "$dir/env.sh.new" "$dir/env.sh"   # from here on, 'down' knows what to stop

# ---- 4. wait until every node is idle ---------------------------------------------------------
deadline=$((SECONDS + ready_seconds))
while :; do
  states=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u || true)
  idle=$(grep -c ' idle$' <<<"$states" || true)
  ((idle == nodes)) && break
  alive "$(cat "$dir/run/slurmctld.pid")" || { cluster_down >&2 || true; fail "slurmctld exited"; }
  for name in "${node_names[@]}"; do
    alive "$(cat "$dir/run/slurmd-$name.pid")" || { cluster_down >&2 || true; fail "slurmd of $name exited"; }
  done
  if ((SECONDS > deadline)); then
    cluster_down >&2 || true
    fail "nodes not idle after ${ready_seconds} s: ${states:-no answer from slurmctld}"
  fi
  sleep 0.2
done
echo "cluster.sh: up in $((SECONDS - started_at)) s: Slurm $(sinfo --version | awk '{ print $2 }'), $nodes nodes" \
     "x $cpus CPUs x $gpus GPUs (partition batch), PMIx fences by ring;" \
     "source $dir/env.sh"
sinfo -N -o '%N %t %c %G %m'

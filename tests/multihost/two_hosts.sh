#!/bin/bash
# two_hosts.sh - a real two-host MPI launch of multi_scal (and cg) on one machine (network namespaces as hosts); checks one table per host.
#
# Usage: two_hosts.sh --program MULTI_SCAL [--mpiexec MPIRUN] [--timeout S]
#                     [--collectives STREAM_CHECK COMM_CHECK] [--cg CG]
#
# Builds, as root, three network namespaces joined by a bridge in the root
# namespace: stmh-<pid>-a and -b are the hosts (10.213.X.2 and .3, names host-a
# and host-b), stmh-<pid>-l the launcher (10.213.X.1) where mpirun runs, as on a
# login node. The /24 exists only inside these namespaces: the root namespace
# holds the bridge and the veth ends, no address, so no traffic leaves them.
# mpirun reaches the hosts through launch_agent.sh (ip netns exec + unshare --uts),
# with Open MPI's TCP transport pinned to the subnet. Then, on 2 hosts x 2 ranks:
#   - the header says 2 nodes, 2 ranks per node;
#   - every Rank line names host-a or host-b, each host holds node-ranks 0 and 1
#     of one node of its own (the table of a node holds its own ranks only);
#   - local, ring and global verify; --check-peers passes on both nodes;
#   - with --collectives, the communication layer's tests (tests/shardtab/comm) on the
#     two hosts: each host's table and pads inside it, MPI between them;
#   - with --cg, cg on the two hosts (the columns of the other host by MPI, the dot
#     products all-reduced across them): "4 ranks on 2 nodes", stream launches, verified
#     against the CPU's CG, and with --repro the fingerprint of the same run on one host.
# Everything made is torn down on exit (trap). When namespaces are refused (no
# CAP_NET_ADMIN, no ip/unshare, a container), it says why, runs the same checks
# on one host split by SHARDTAB_RANKS_PER_NODE=2, and exits 77 (ctest: skipped)
# if that passed, 1 if not. STMH_FORCE_SIMULATION=1 takes that path on purpose.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

readonly skip_code=77
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
program=""
stream_check="" comm_check="" cg=""
mpiexec=mpirun
limit=60
while (($#)); do
  case $1 in
    --program) program=$2; shift 2 ;;
    --mpiexec) mpiexec=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    --collectives) stream_check=$2 comm_check=$3; shift 3 ;;
    --cg) cg=$2; shift 2 ;;
    *) echo "two_hosts.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[[ -x $program ]] || { echo "two_hosts.sh: --program '$program' is not an executable" >&2; exit 2; }
[[ -z $cg || -x $cg ]] || { echo "two_hosts.sh: --cg '$cg' is not an executable" >&2; exit 2; }
program=$(cd "$(dirname "$program")" && pwd)/$(basename "$program")
mpiexec=$(command -v "$mpiexec") || { echo "two_hosts.sh: no mpiexec" >&2; exit 2; }

# shellcheck source=../lib/driver.sh
source "$here/../lib/driver.sh"

tag=$$
subnet_octet=$((RANDOM % 200 + 20))
prefix=10.213.$subnet_octet
subnet=$prefix.0/24
bridge=stmh${tag}br
roles=(l a b)
declare -A namespace=() address=() hostname=()
for role in "${roles[@]}"; do
  namespace[$role]=stmh-$tag-$role
done
address=([l]=$prefix.1 [a]=$prefix.2 [b]=$prefix.3)
hostname=([a]=host-a [b]=host-b)
work=$(mktemp -d "${TMPDIR:-/tmp}/stmh-$tag.XXXXXX")
made_namespaces=()
made_links=()

# ---- teardown: whatever was made, in reverse --------------------------------------------
teardown() {
  local status=$? ns pid
  for ns in "${made_namespaces[@]}"; do
    # processes this test started in the namespace (a hung orted, say)
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      kill -KILL "$pid" 2>/dev/null || true
    done
    ip netns del "$ns" 2>/dev/null || true
  done
  for link in "${made_links[@]}"; do
    ip link del "$link" 2>/dev/null || true   # veth ends vanish with their namespace
  done
  rm -rf "$work"
  exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT TERM

# ---- the checks, shared by the real and the simulated run -----------------------------------
# check_run OUTPUT KEY: KEY is 'host' (real hosts: group ranks by host name) or
# 'node' (simulation: group by node index). Prints every failure; returns 1 on any.
check_run() {
  local output=$1 key=$2 failures=0 line rank host node node_rank group mode
  declare -A ranks_of=() node_of=()
  fail() { echo "two_hosts.sh: FAIL: $*" >&2; failures=$((failures + 1)); }

  grep -Eq '^# backend [a-z]+, 4 ranks, 2 nodes, 2 ranks per node' "$output" ||
    fail "no '# backend ..., 4 ranks, 2 nodes, 2 ranks per node' line"
  while IFS= read -r line; do
    [[ $line =~ ^#\ Rank\ +([0-9]+)\ on\ ([^ ]+)\ +node\ +([0-9]+)\ node-rank\ +([0-9]+)\  ]] || continue
    rank=${BASH_REMATCH[1]} host=${BASH_REMATCH[2]} node=${BASH_REMATCH[3]} node_rank=${BASH_REMATCH[4]}
    if [[ $key == host ]]; then
      [[ $host == host-a || $host == host-b ]] || fail "rank $rank runs on '$host', not host-a or host-b"
      group=$host
      if [[ -n ${node_of[$host]:-} && ${node_of[$host]} != "$node" ]]; then
        fail "$host holds ranks of nodes ${node_of[$host]} and $node: one host, one table"
      fi
      node_of[$host]=$node
    else
      group=node$node
    fi
    ranks_of[$group]="${ranks_of[$group]:-}$node_rank "
  done <"$output"
  if ((${#ranks_of[@]} != 2)); then
    fail "ranks are spread over ${#ranks_of[@]} ${key}s (${!ranks_of[*]}), not 2"
  fi
  for group in "${!ranks_of[@]}"; do
    [[ $(tr ' ' '\n' <<<"${ranks_of[$group]}" | sed '/^$/d' | sort -n | paste -sd' ') == "0 1" ]] ||
      fail "$group holds node-ranks '${ranks_of[$group]}', expected exactly 0 and 1"
  done
  if [[ $key == host && ${node_of[host-a]:-x} == "${node_of[host-b]:-y}" ]]; then
    fail "host-a and host-b share node index ${node_of[host-a]:-?}: their tables are not separate"
  fi
  for mode in local ring global; do
    grep -Eq "^# verify $mode: OK \\([0-9]+ elements, 4 shards\\)$" "$output" || fail "mode $mode did not verify"
  done
  ((failures == 0))
}

# check_peers OUTPUT: both nodes' 2 x 2 peer matrices written and verified
check_peers() {
  local output=$1
  if ! grep -q '^# check-peers node 0:' "$output" || ! grep -q '^# check-peers node 1:' "$output" ||
     ! grep -q '^# check-peers: OK (4 pairs' "$output"; then
    echo "two_hosts.sh: FAIL: --check-peers did not pass on two nodes of two ranks (4 pairs)" >&2
    return 1
  fi
}

# cg's run, the same on two hosts (or nodes) and on one: a matrix small enough for the CPU's
# CG, --repro so that the two give the same bits
cg_args=(--poisson 2d:37 --repro --cpu-check yes)

# check_cg OUTPUT JSON: cg on 2 nodes of 2 ranks solved with stream launches and verified
check_cg() {
  local output=$1 json=$2 failures=0
  fail() { echo "two_hosts.sh: FAIL: cg: $*" >&2; failures=$((failures + 1)); }
  grep -Eq '^# cg: 1369 rows, 6697 nonzeros \(Poisson\), 4 ranks on 2 nodes, backend ' "$output" ||
    fail "no '# cg: 1369 rows, 6697 nonzeros (Poisson), 4 ranks on 2 nodes' line"
  grep -q '^# cg: variant standard, launch stream (auto: 2 nodes),' "$output" ||
    fail "no 'launch stream (auto: 2 nodes)': across nodes the host moves the columns between launches"
  grep -Eq '^# verify cg: OK \([0-9]+ iterations as the CPU' "$output" || fail "no '# verify cg: OK' against the CPU's CG"
  if command -v python3 >/dev/null; then
    python3 "$here/../jobs/check_result.py" "$json" --ranks 4 --nodes 2 --cpu-checked || fail "$json"
  fi
  ((failures == 0))
}

# check_cg_fingerprint TWO ONE: the --repro fingerprint of the run across nodes (output TWO)
# is the one-node run's (output ONE), which said it ran on one node
check_cg_fingerprint() {
  local printed
  if ! grep -Eq '^# cg: 1369 rows, 6697 nonzeros \(Poisson\), 4 ranks, backend ' "$2"; then
    echo "two_hosts.sh: FAIL: cg on one node: no '# cg: ... 4 ranks, backend' line" >&2
    return 1
  fi
  printed=$(grep -E '^# cg fingerprint: x [0-9a-f]{16}, residual history [0-9a-f]{16}$' "$1") || {
    echo "two_hosts.sh: FAIL: cg across nodes printed no fingerprint" >&2
    return 1
  }
  if ! grep -qxF "$printed" "$2"; then
    echo "two_hosts.sh: FAIL: cg --repro across nodes ($printed) differs from one node" \
         "($(grep '^# cg fingerprint' "$2"))" >&2
    return 1
  fi
}

# ---- fallback: one host, split in two by the library's simulation ----------------------------
simulate() {
  local reason=$1
  echo "two_hosts.sh: no network namespaces here: $reason"
  echo "two_hosts.sh: running the SHARDTAB_RANKS_PER_NODE=2 simulation instead (skip if it passes)"
  local run
  mpi_launch_flags "$mpiexec" SHARDTAB_RANKS_PER_NODE
  run=("$mpiexec" "${launch_flags[@]+"${launch_flags[@]}"}" -np 4)
  export SHARDTAB_RANKS_PER_NODE=2
  if timeout "$limit" "${run[@]}" "$program" -n 4096 >"$work/sim.out" 2>&1 &&
     check_run "$work/sim.out" node &&
     timeout "$limit" "${run[@]}" "$program" --check-peers >"$work/sim-peers.out" 2>&1 &&
     check_peers "$work/sim-peers.out" &&
     { [[ -z $cg ]] || simulate_cg "${run[@]}"; }; then
    echo "two_hosts.sh: simulation passed; the real two-host launch was skipped"
    exit "$skip_code"
  fi
  cat "$work"/sim*.out
  echo "two_hosts.sh: FAIL: the simulation failed too" >&2
  exit 1
}

# simulate_cg LAUNCH...: cg on 2 simulated nodes of 2 ranks, then on 1 of 4, the checks above
simulate_cg() {
  timeout "$limit" "$@" "$cg" "${cg_args[@]}" --json "$work/sim-cg.json" >"$work/sim-cg.out" 2>&1 &&
    check_cg "$work/sim-cg.out" "$work/sim-cg.json" &&
    SHARDTAB_RANKS_PER_NODE=4 timeout "$limit" "$@" "$cg" "${cg_args[@]}" >"$work/sim-cg-one.out" 2>&1 &&
    check_cg_fingerprint "$work/sim-cg.out" "$work/sim-cg-one.out"
}

# step DESCRIPTION COMMAND...: runs COMMAND; on failure, falls back with the reason
step() {
  local description=$1
  shift
  if ! "$@" 2>"$work/step.err"; then
    simulate "$description failed ($*): $(tr '\n' ' ' <"$work/step.err")"
  fi
}

# ---- 1. the network: a bridge, and one namespace per role on a veth pair ---------------------
[[ ${STMH_FORCE_SIMULATION:-0} != 1 ]] || simulate "STMH_FORCE_SIMULATION=1 (a test of this fallback)"
command -v ip >/dev/null || simulate "no 'ip' command (iproute2)"
command -v unshare >/dev/null || simulate "no 'unshare' command (util-linux)"
"$mpiexec" --version 2>/dev/null | grep -Eq "Open MPI|OpenRTE" ||
  simulate "$mpiexec is not Open MPI (the launch agent and --mca flags are Open MPI's)"
[[ $(id -u) -eq 0 ]] || simulate "not root (network namespaces need CAP_NET_ADMIN)"
step "unshare --uts" unshare --uts true
step "creating bridge $bridge" ip link add "$bridge" type bridge
made_links+=("$bridge")
step "bringing up $bridge" ip link set "$bridge" up
for role in "${roles[@]}"; do
  ns=${namespace[$role]}
  step "ip netns add $ns" ip netns add "$ns"
  made_namespaces+=("$ns")
  step "creating veth stmh${tag}$role" ip link add "stmh${tag}$role" type veth peer name "stmh${tag}${role}p"
  made_links+=("stmh${tag}$role")
  step "attaching stmh${tag}$role" ip link set "stmh${tag}$role" master "$bridge" up
  step "moving stmh${tag}${role}p into $ns" ip link set "stmh${tag}${role}p" netns "$ns"
  step "addressing $ns" ip -n "$ns" addr add "${address[$role]}/24" dev "stmh${tag}${role}p"
  step "bringing up $ns" ip -n "$ns" link set "stmh${tag}${role}p" up
  step "bringing up lo in $ns" ip -n "$ns" link set lo up
done
echo "# two_hosts.sh: namespaces ${namespace[*]} on $subnet (bridge $bridge)"

# ---- 2. the launch: mpirun in the launcher namespace, the ranks on host-a and host-b ---------------
printf '%s slots=2\n' "${address[a]}" "${address[b]}" >"$work/hostfile"
export STMH_HOSTS="${address[a]}:${namespace[a]}:${hostname[a]} ${address[b]}:${namespace[b]}:${hostname[b]}"
# shellcheck disable=SC2054 # tcp,self,vader is one argument
launch=(ip netns exec "${namespace[l]}" timeout "$limit"
        "$mpiexec" -np 4 --hostfile "$work/hostfile"
        --mca plm_rsh_agent "$here/launch_agent.sh" --mca plm_rsh_no_tree_spawn 1
        --mca btl tcp,self,vader --mca pml ob1
        --mca btl_tcp_if_include "$subnet" --mca oob_tcp_if_include "$subnet"
        -x PATH -x LD_LIBRARY_PATH -x OMPI_MCA_btl_vader_single_copy_mechanism)
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
cd "$work"   # the remote 'hosts' share this filesystem: same paths everywhere

status=0
"${launch[@]}" "$program" -n 4096 --json "$work/two_hosts.json" >"$work/run.out" 2>&1 || status=$?
cat "$work/run.out"
if ((status != 0)); then
  echo "two_hosts.sh: FAIL: multi_scal on two hosts exited $status (124: no end within ${limit}s)" >&2
  exit 1
fi
check_run "$work/run.out" host
# the JSON must tell the same story (skipped without python3)
! command -v python3 >/dev/null || python3 - "$work/two_hosts.json" <<'PYTHON'
import json, sys
data = json.load(open(sys.argv[1]))
hosts = {}
for info in data["rank_info"]:
    hosts.setdefault(info["host"], set()).add((info["node"], info["node_rank"]))
assert data["nodes"] == 2 and data["exit_status"] == 0, data
assert sorted(hosts) == ["host-a", "host-b"], hosts
assert all(sorted(r for _, r in v) == [0, 1] and len({n for n, _ in v}) == 1 for v in hosts.values()), hosts
assert all(r["verified"] for r in data["results"]) and len(data["results"]) == 3, data["results"]
PYTHON

status=0
"${launch[@]}" "$program" --check-peers >"$work/peers.out" 2>&1 || status=$?
cat "$work/peers.out"
((status == 0)) || { echo "two_hosts.sh: FAIL: --check-peers on two hosts exited $status" >&2; exit 1; }
check_peers "$work/peers.out"
said="every mode verified, every pair checked"
if [[ -n $stream_check ]]; then
  for test in "$stream_check" "$comm_check --rounds 3"; do
    status=0
    # shellcheck disable=SC2086 # the test and its arguments are words
    "${launch[@]}" $test >"$work/comm.out" 2>&1 || status=$?
    cat "$work/comm.out"
    ((status == 0)) || { echo "two_hosts.sh: FAIL: $test on two hosts exited $status" >&2; exit 1; }
    grep -Eq '^# (stream|comm)_check: OK [(]4 ranks[)]$' "$work/comm.out" ||
      { echo "two_hosts.sh: FAIL: $test did not say OK" >&2; exit 1; }
  done
  grep -q '^# comm_check: 4 ranks, 2 node ranks' "$work/comm.out" ||
    { echo "two_hosts.sh: FAIL: comm_check did not see a table of 2 ranks per host" >&2; exit 1; }
  said="$said, every collective verified"
fi
if [[ -n $cg ]]; then
  status=0
  "${launch[@]}" "$cg" "${cg_args[@]}" --json "$work/cg.json" >"$work/cg.out" 2>&1 || status=$?
  cat "$work/cg.out"
  ((status == 0)) || { echo "two_hosts.sh: FAIL: cg on two hosts exited $status (124: no end within ${limit}s)" >&2; exit 1; }
  check_cg "$work/cg.out" "$work/cg.json" || exit 1
  # the same run on one host (this one, outside the namespaces): one node, the same bits
  mpi_launch_flags "$mpiexec"
  status=0
  timeout "$limit" "$mpiexec" "${launch_flags[@]+"${launch_flags[@]}"}" -np 4 "$cg" "${cg_args[@]}" \
    >"$work/cg-one.out" 2>&1 || status=$?
  ((status == 0)) || { cat "$work/cg-one.out"; echo "two_hosts.sh: FAIL: cg on one host exited $status" >&2; exit 1; }
  check_cg_fingerprint "$work/cg.out" "$work/cg-one.out" || exit 1
  said="$said, cg verified across the hosts with one host's --repro fingerprint"
fi
echo "two_hosts.sh: OK: 2 hosts x 2 ranks, one table per host, $said"

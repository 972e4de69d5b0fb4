#!/bin/bash
# launch_agent.sh - Open MPI rsh launch agent of the two-host test: runs a command "on" a host, i.e. in its network namespace under its own hostname.
#
# Called by mpirun (--mca plm_rsh_agent) as: launch_agent.sh [options] HOST COMMAND...
# STMH_HOSTS maps each host to its namespace and name, space-separated
# ADDRESS:NAMESPACE:HOSTNAME triples (two_hosts.sh sets it). COMMAND is what ssh
# would hand to the remote shell (orted with its environment), so sh parses it.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

while [[ ${1:-} == -* ]]; do   # rsh-style flags (-n, -x, ...) mean nothing here
  shift
done
host=${1:?launch_agent.sh: no host given}
shift
for entry in ${STMH_HOSTS:?launch_agent.sh: STMH_HOSTS is not set}; do
  IFS=: read -r address namespace hostname <<<"$entry"
  if [[ $host == "$address" || $host == "$hostname" ]]; then
    # a fresh UTS namespace, so MPI_Get_processor_name reports this host's name
    # shellcheck disable=SC2016 # $1 and $* belong to the inner shell
    exec ip netns exec "$namespace" unshare --uts /bin/sh -c 'hostname "$1" && shift && exec /bin/sh -c "$*"' \
      launch_agent "$hostname" "$@"
  fi
done
echo "launch_agent.sh: unknown host '$host' (STMH_HOSTS: $STMH_HOSTS)" >&2
exit 255

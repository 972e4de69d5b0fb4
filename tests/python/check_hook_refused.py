"""check_hook_refused.py - the package as pip installed it is a build without
test hooks: a table's create with SHARDTAB_FAULT set (a test hook) must fail
on every rank with the message that says the hook is a test build's, never
plant the fault or ignore it.

Rank 0 prints "# hook refused python: OK" when every rank saw that message.

USAGE  SHARDTAB_FAULT=open:1 mpiexec -n N VENV/bin/python -m mpi4py check_hook_refused.py
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import sys

from mpi4py import MPI

import shardtab
from rank_verdict import verdict

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
want = "SHARDTAB_FAULT is set, but it is a test hook and this build has none"
problems = []

shardtab.init(comm)
shard = None
try:
    shard = shardtab.empty(8, dtype="float64")
    with shardtab.Table(comm, shard):
        problems.append("the table was created: the hook was ignored")
except shardtab.Error as error:
    if want not in str(error):
        problems.append(f"the create failed otherwise: {error}")
del shard
shardtab.finalize()

sys.exit(verdict(comm, problems, "# hook refused python: OK"))

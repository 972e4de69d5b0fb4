"""check_wheel.py - the package as pip installed it from its wheel: imported
under `python -m mpi4py` with no PYTHONPATH or SHARDTAB_LIBRARY, from the
venv's site-packages, its libshardtab.so the one beside it, its version
CMakeLists.txt's; then one table over every rank, summed.

Rank 0 prints "# wheel python: OK" when every rank agrees.

USAGE  mpiexec -n N VENV/bin/python -m mpi4py check_wheel.py VERSION
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import importlib.metadata
import os
import sys
import sysconfig

import numpy
from mpi4py import MPI

import shardtab
import shardtab._lib
from rank_verdict import verdict

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
problems = []

for name in ("PYTHONPATH", "SHARDTAB_LIBRARY"):
    if os.environ.get(name):
        problems.append(f"{name} is set ({os.environ[name]}): the case needs neither")
package = os.path.dirname(os.path.realpath(shardtab.__file__))
site = os.path.realpath(sysconfig.get_path("platlib"))
if os.path.dirname(package) != site:
    problems.append(f"shardtab came from {package}, not from this venv's {site}")
library = os.path.realpath(shardtab._lib._find())
if library != os.path.join(package, "libshardtab.so"):
    problems.append(f"libshardtab.so came from {library}, not from beside the package")
version = importlib.metadata.version("shardtab")
if version != sys.argv[1]:
    problems.append(
        f"the installed version is {version}, CMakeLists.txt's {sys.argv[1]}"
    )
if shardtab.__version__ != version:
    problems.append(
        f"shardtab.__version__ is {shardtab.__version__}, the installed package's {version}"
    )

shardtab.init(comm)
backend = shardtab.device()["backend"]
shard = shardtab.empty(8, dtype="float64")
host = isinstance(shard, numpy.ndarray)
values = numpy.full(8, float(rank + 1))
if host:
    shard[:] = values
else:
    shard.from_host(values)
with shardtab.Table(comm, shard) as table:
    table.all_reduce("sum")
    table.check()
    got = shard.copy() if host else shard.to_host()
want = size * (size + 1) / 2
if not (got == want).all():
    problems.append(f"all_reduce gave {got}, expected {want} everywhere")
del shard
shardtab.finalize()

sys.exit(
    verdict(
        comm,
        problems,
        "# wheel python: OK",
        after=[
            f"ok:   shardtab {version} from {package}, backend {backend}, {size} ranks"
        ],
    )
)

#!/usr/bin/env python3
"""pmix_fence.py - run by srun on every node of a Slurm job step: a PMIx fence without data must wait for the last task.

Usage: srun -N 2 --ntasks-per-node=1 python3 pmix_fence.py [--delay SECONDS]

Every task calls PMIx_Init and a first fence (which lines the tasks up, if fences
are barriers); the last task then sleeps SECONDS (default 2) before it calls the
second fence, the others call it at once. Both are PMIx_Fence with no data. A fence
is a barrier: no task may leave it before the last one entered it, so each of the
others must wait about SECONDS in the second one. Open MPI's MPI_Init relies on this fence (after add_procs) to keep
any rank from sending before every rank is ready to receive.

Exit status: 0 the fence waited; 1 this task left the fence early (it says so);
2 no PMIx library, or a PMIx call failed.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import argparse
import ctypes
import ctypes.util
import os
import sys
import time


class PmixProc(ctypes.Structure):
    """pmix_proc_t: a namespace of at most 255 characters and a rank."""

    _fields_ = [("nspace", ctypes.c_char * 256), ("rank", ctypes.c_uint32)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--delay",
        type=float,
        default=2.0,
        help="the last task's delay before the fence (s)",
    )
    args = parser.parse_args()
    name = ctypes.util.find_library("pmix")
    if name is None:
        print("pmix_fence: no PMIx library (libpmix) on this node", file=sys.stderr)
        return 2
    pmix = ctypes.CDLL(name)
    me = PmixProc()
    status = pmix.PMIx_Init(ctypes.byref(me), None, ctypes.c_size_t(0))
    if status != 0:
        print(
            f"pmix_fence: PMIx_Init failed with status {status}: not launched by srun with PMIx?",
            file=sys.stderr,
        )
        return 2
    tasks = int(
        os.environ.get("SLURM_STEP_NUM_TASKS", os.environ.get("SLURM_NTASKS", "1"))
    )
    node = os.environ.get("SLURMD_NODENAME", "?")
    last = me.rank == tasks - 1
    status = pmix.PMIx_Fence(None, ctypes.c_size_t(0), None, ctypes.c_size_t(0))
    if status != 0:
        print(
            f"pmix_fence: task {me.rank} on {node}: the first PMIx_Fence failed with status {status}",
            file=sys.stderr,
        )
        return 2
    if last:
        time.sleep(args.delay)
    started = time.monotonic()
    status = pmix.PMIx_Fence(None, ctypes.c_size_t(0), None, ctypes.c_size_t(0))
    waited = time.monotonic() - started
    pmix.PMIx_Finalize(None, ctypes.c_size_t(0))
    if status != 0:
        print(
            f"pmix_fence: task {me.rank} on {node}: PMIx_Fence failed with status {status}",
            file=sys.stderr,
        )
        return 2
    if not last and waited < args.delay / 2:
        print(
            f"pmix_fence: task {me.rank} on {node} left the fence after {waited:.3f} s, while task {tasks - 1}"
            f" entered it only {args.delay:.1f} s late: the fence is no barrier across the nodes",
            file=sys.stderr,
        )
        return 1
    print(
        f"pmix_fence: task {me.rank} of {tasks} on {node}: OK, waited {waited:.3f} s in the fence"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

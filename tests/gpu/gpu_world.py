"""gpu_world.py - MPI for the GPU machine's Python checks (tests/gpu/check_*.py):
an mpi4py communicator where mpi4py is installed; otherwise (the NVIDIA
machine has none) Open MPI started through ctypes, and MPI_COMM_WORLD's
Fortran handle, which the shardtab package takes as an int."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import ctypes
import os


def world():
    """(comm, rank, size): an mpi4py communicator, or the Fortran handle."""
    try:
        from mpi4py import MPI

        return MPI.COMM_WORLD, MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
    except ImportError:
        mpi = ctypes.CDLL("libmpi.so.40", mode=ctypes.RTLD_GLOBAL)
        mpi.MPI_Init(None, None)
        mpi.MPI_Comm_c2f.restype = ctypes.c_int
        mpi.MPI_Comm_c2f.argtypes = [ctypes.c_void_p]
        handle = mpi.MPI_Comm_c2f(
            ctypes.addressof(ctypes.c_char.in_dll(mpi, "ompi_mpi_comm_world"))
        )
        return (
            handle,
            int(os.environ["OMPI_COMM_WORLD_RANK"]),
            int(os.environ["OMPI_COMM_WORLD_SIZE"]),
        )

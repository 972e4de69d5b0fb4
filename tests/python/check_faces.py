"""check_faces.py - the Python front's direct faces (shardtab.Faces) over a
table's shard: every process grid of the ranks with 1 and 2 axes (periodic
along every axis, along none, and along the first alone), each face routed
through the table and, with through_mpi, through MPI (staged, and on the
host backend straight from device memory too), handed to the exchange as an
address or, every other case, as an array; across simulated nodes
(SHARDTAB_RANKS_PER_NODE) both routes side by side. Every byte of every rank's shard starts random (a seed per rank and
case). Each rank stores its faces of one parity where Faces.dest says (its
route "table") or hands them to Faces.exchange (route "mpi"); then every
ghost face of that parity with a neighbour is compared bit for bit with the
face that neighbour made for it, and every other byte of the shard (the
other parity, ghost faces with no neighbour, the bytes around the faces)
must be unchanged. neighbor, route and node_peer are checked against the
documented rank layout, offset and ghost against the layout formula. Then
the refusals: a grid that does not match the communicator (the library's,
agreed), one rank's face_bytes outside size_t (the front's, agreed), a src
of the wrong length, a bool, an address past user space, a strided or short
array (local); the table's destroy closes faces left open. Rank 0 prints "# faces python: OK" when every
rank agrees.

USAGE  mpiexec -n N python3 check_faces.py
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import os
import sys

import numpy
from mpi4py import MPI

import shardtab
from rank_verdict import as_host, say, store, verdict

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
problems = []
SHARD_BYTES = 1 << 14
OFFSET = 40  # bytes before the faces, and some after them: must stay as they were


def grids():
    """Every grid of the ranks with 1 and 2 axes, (g0, g1) with g0 fastest."""
    yield (size,)
    for g0 in range(1, size + 1):
        if size % g0 == 0 and 1 < g0 < size:
            yield (g0, size // g0)


def coords(grid, r):
    return (r % grid[0],) if len(grid) == 1 else (r % grid[0], r // grid[0])


def rank_at(grid, c):
    return c[0] if len(grid) == 1 else c[0] + grid[0] * c[1]


def neighbor_of(grid, periodic, r, axis, side):
    """The documented layout's neighbour of rank r on (axis, side), or -1."""
    c = list(coords(grid, r))
    c[axis] += 1 if side else -1
    if not 0 <= c[axis] < grid[axis]:
        if not periodic[axis]:
            return -1
        c[axis] %= grid[axis]
    return rank_at(grid, c)


def made(r, axis, side, parity, n, case):
    """The bytes rank r makes for its face toward (axis, side) of a parity."""
    j = numpy.arange(n, dtype=numpy.uint32)
    return (
        (r * 131 + axis * 37 + side * 17 + parity * 7 + case * 3 + j) % 251 + 1
    ).astype(numpy.uint8)


def layout(face_bytes, parity, axis, side):
    """The documented byte offset of the ghost face (axis, side, parity)."""
    every = 2 * sum(face_bytes)
    return (
        OFFSET + parity * every + 2 * sum(face_bytes[:axis]) + side * face_bytes[axis]
    )


def device_copy(dst, host):
    """host (uint8) to the address dst, on any backend."""
    return lib_call(
        shardtab.lib.shardtab_memcpy_to_device(dst, host.ctypes.data, host.nbytes)
    )


def lib_call(status):
    if status != shardtab.SUCCESS:
        raise shardtab.Error(status, shardtab.lib.shardtab_last_error().decode())


routes = {"table": 0, "mpi": 0, "none": 0}  # this rank's faces, by route


def run_case(t, shard, case, grid, periodic, through_mpi, mpi_device):
    dims = len(grid)
    face_bytes = [
        8 * (3 + a) + case % 5 for a in range(dims)
    ]  # uneven, not whole words
    parity = case % 2
    rng = numpy.random.default_rng(1000 * case + rank)
    before = rng.integers(0, 256, SHARD_BYTES, dtype=numpy.uint8)
    store(shard, before.view(numpy.float64))
    comm.Barrier()
    with shardtab.Faces(
        t,
        grid=grid,
        face_bytes=face_bytes,
        periodic=periodic,
        offset_bytes=OFFSET,
        through_mpi=through_mpi,
        mpi_device=mpi_device,
    ) as f:
        node = [t.node_rank_of(r) for r in range(size)]
        out = shardtab.empty(2 * dims * 64, "uint8")  # the faces handed to the exchange
        src = [None] * (2 * dims)
        if f.nbytes != 2 * 2 * sum(face_bytes) or f.offset(dims, 0, 0) is not None:
            problems.append(f"case {case}: nbytes {f.nbytes}, offset past the axes")
        for axis in range(dims):
            for side in (0, 1):
                i = 2 * axis + side
                n = neighbor_of(grid, periodic, rank, axis, side)
                route = (
                    "none"
                    if n < 0
                    else "mpi"
                    if through_mpi or node[n] < 0
                    else "table"
                )
                got = (
                    f.neighbor(axis, side),
                    f.route(axis, side),
                    f.node_peer(axis, side),
                )
                want = (n, route, node[n] if route == "table" else -1)
                if got != want:
                    problems.append(
                        f"case {case}: face ({axis}, {side}): neighbor, route, node_peer "
                        f"{got}, expected {want}"
                    )
                for p in range(2):
                    at = layout(face_bytes, p, axis, side)
                    if f.offset(axis, side, p) != at:
                        problems.append(
                            f"case {case}: offset({axis}, {side}, {p}) is not {at}"
                        )
                    if f.ghost(axis, side, p) != shard_address(shard) + at:
                        problems.append(
                            f"case {case}: ghost({axis}, {side}, {p}) is not at {at}"
                        )
                face = made(rank, axis, side, parity, face_bytes[axis], case)
                dest = f.dest(axis, side, parity)
                if route == "table" and dest is not None:
                    device_copy(dest, face)
                elif route == "table" or dest is not None:
                    problems.append(
                        f"case {case}: dest({axis}, {side}) {dest} for route {route}"
                    )
                routes[route] += 1
                if route == "mpi":  # an address, or every other case the array itself
                    device_copy(shard_address(out) + 64 * i, face)
                    src[i] = shard_address(out) + 64 * i
                    if case % 2:
                        src[i] = out[64 * i : 64 * i + face_bytes[axis]]
        comm.Barrier()  # every store through the table done
        f.exchange(parity, src)
        comm.Barrier()
        after = as_host(shard).view(numpy.uint8)
        want = before.copy()
        for axis in range(dims):
            for side in (0, 1):
                n = neighbor_of(grid, periodic, rank, axis, side)
                if n >= 0:  # its face toward this rank: its side 1 - side
                    at = layout(face_bytes, parity, axis, side)
                    want[at : at + face_bytes[axis]] = made(
                        n, axis, 1 - side, parity, face_bytes[axis], case
                    )
        wrong = numpy.flatnonzero(after != want)
        if wrong.size:
            problems.append(
                f"case {case} (grid {grid}, periodic {periodic}, through_mpi {through_mpi}, "
                f"mpi_device {mpi_device}): {wrong.size} bytes differ, the first at {wrong[0]}"
            )
        comm.Barrier()
    return sum(2 * b for b in face_bytes)


def shard_address(array):
    interface = (
        getattr(array, "__cuda_array_interface__", None) or array.__array_interface__
    )
    return interface["data"][0]


def part_exchange(on_host):
    shard = shardtab.empty(SHARD_BYTES // 8, "float64")
    cases = compared = 0
    nodes = os.environ.get("SHARDTAB_RANKS_PER_NODE", "")
    with shardtab.Table(comm, shard) as t:
        for grid in grids():
            shapes = [(False,) * len(grid), (True,) * len(grid)] + [(True, False)] * (
                len(grid) > 1
            )
            for periodic in shapes:
                for through_mpi, mpi_device in (
                    (False, False),
                    (True, False),
                    (True, on_host),
                ):
                    compared += run_case(
                        t, shard, cases, grid, periodic, through_mpi, mpi_device
                    )
                    cases += 1
    say(
        f"{cases} cases at {size} ranks{' over nodes of ' + nodes if nodes else ''}, "
        f"{comm.allreduce(compared)} ghost bytes compared bit for bit, faces through "
        f"the table {comm.allreduce(routes['table'])}, through MPI "
        f"{comm.allreduce(routes['mpi'])}, with no neighbour {comm.allreduce(routes['none'])}"
    )


def expect_error(what, action, fragment):
    """action() must raise shardtab.Error on every rank, its message holding fragment."""
    try:
        action()
    except shardtab.Error as error:
        if fragment not in str(error):
            problems.append(f"{what}: the message is {error}")
        elif rank == 0:
            say(f"{what}: {error}")
        return
    except Exception as error:  # noqa: BLE001 - reported, not raised
        problems.append(
            f"{what}: raised {type(error).__name__}: {error}, not shardtab.Error"
        )
        return
    problems.append(f"{what}: no error")


def part_errors():
    shard = shardtab.empty(SHARD_BYTES // 8, "float64")
    with shardtab.Table(comm, shard) as t:
        expect_error(
            "a grid of one rank too many",
            lambda: shardtab.Faces(t, grid=size + 1, face_bytes=64),
            f"the grid {size + 1} x 1 x 1 is not the table's {size} ranks",
        )
        expect_error(
            "the last rank's face_bytes outside size_t",
            lambda: shardtab.Faces(
                t, grid=size, face_bytes=-1 if rank == size - 1 else 64
            ),
            "face_bytes[0] is -1, outside the C size_t",
        )
        with shardtab.Faces(
            t, grid=size, face_bytes=64, periodic=True, through_mpi=True
        ) as f:
            try:
                f.exchange(0, [None])
                problems.append("a src of one entry for two faces: no error")
            except ValueError as error:
                if "src has 1 entries; 2 faces have 1 axes" not in str(error):
                    problems.append(f"a src of one entry: {error}")
        f.close()  # again: nothing
        g = shardtab.Faces(t, grid=size, face_bytes=64, periodic=True, parities=1)
        for what, entry, kind in (
            ("a bool", True, TypeError),
            ("an address past user space", 1 << 64, ValueError),
            ("a strided array", numpy.zeros(128, numpy.uint8)[::2], ValueError),
            ("an array too short", numpy.zeros(63, numpy.uint8), ValueError),
        ):
            try:
                g.exchange(0, [entry, entry])
                problems.append(f"src {what}: no error")
            except kind:
                pass
            except Exception as error:  # noqa: BLE001 - reported, not raised
                problems.append(f"src {what}: {type(error).__name__}: {error}")
        try:
            f.ghost(0, 0, 0)
            problems.append("ghost() of closed faces: no error")
        except shardtab.Error as error:
            if "the faces are closed" not in str(error):
                problems.append(f"ghost() of closed faces: {error}")
    # the table's destroy closed g, still open over it
    if g._faces is not None:
        problems.append("the table's destroy left its faces open")
    g.close()


shardtab.init(comm, allow_shared_device=True)  # a GPU machine: ranks may share one
backend = shardtab.device()["backend"]
part_exchange(backend == "host")
part_errors()
if shardtab.peer_mappings() != 0:
    problems.append(f"{shardtab.peer_mappings()} peer mappings left")
heading = f"# faces python: backend {backend}, {size} ranks"
status = verdict(comm, problems, "# faces python: OK", before=[heading], most=20)
shardtab.finalize()
sys.exit(status)

"""cg.py - conjugate gradients from the Python front: the 2D 5-point Poisson
matrix in CSR form, its rows split over the ranks, the direction vector p
shared through a shardtab.Table so that each rank's product reads the entries
other ranks own straight from their shards, and the dot products summed by
the table's all_reduce.

    mpiexec -n N python3 -m mpi4py cg.py [--n 32] [--niter 200] [--tol 1e-8]
                                         [--no-scipy]

The matrix is n^2 x n^2 (4 on the diagonal, -1 to each grid neighbour). With
SciPy it is built as a scipy.sparse CSR matrix (and checked equal, array for
array, to the NumPy construction); without SciPy, or with --no-scipy, by NumPy
alone. Rows are split evenly: contiguous blocks whose sizes differ by at most
one (with 3 to 5 nonzeros a row, the ranks' nonzeros differ little; the run
prints them).
Each rank's CSR arrays (indptr, indices, data) live in shardtab.empty memory,
and so does its part of p, over which the table is made.

Rank 0 checks the result against a plain CG on the whole matrix (the same
iteration count, x within 1e-8 relative, the true residual below 2 tol) and,
with SciPy, against scipy.sparse.linalg.cg (it converges within one
iteration more, as SciPy's releases count them, and not in one fewer, and its
x agrees within 1e-8), then prints
"# verify cg.py: OK (...)" or "# verify cg.py: FAILED (...)"; every rank then
exits 1 on failure.

Host backend: arrays are NumPy arrays, a peer's shard a NumPy view of its
memory. On a GPU backend the same code runs over CuPy arrays made from the
package's DeviceArrays (__cuda_array_interface__), if CuPy is importable.
The ranks must share one node: a peer's shard on another node has no view.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import argparse
import math
import sys

import numpy
from mpi4py import MPI

import shardtab

try:
    import scipy.sparse
    import scipy.sparse.linalg
except ImportError:
    scipy = None


def poisson_rows_numpy(n, first, last):
    """Rows [first, last) of the n^2 x n^2 5-point matrix as CSR arrays
    (indptr, indices, data), each row's columns ascending as SciPy sorts them."""
    rows = numpy.arange(first, last, dtype=numpy.int64)
    ix, iy = rows % n, rows // n
    columns = numpy.stack([rows - n, rows - 1, rows, rows + 1, rows + n], axis=1)
    present = numpy.stack(
        [iy > 0, ix > 0, numpy.ones_like(ix, bool), ix < n - 1, iy < n - 1], axis=1
    )
    values = numpy.broadcast_to(
        numpy.array([-1.0, -1.0, 4.0, -1.0, -1.0]), (len(rows), 5)
    )
    indptr = numpy.zeros(len(rows) + 1, numpy.int64)
    numpy.cumsum(present.sum(axis=1), out=indptr[1:])
    return indptr, columns[present], values[present].copy()


def poisson_scipy(n):
    """The whole matrix as a scipy.sparse CSR matrix: kron(I, T) + kron(T, I)."""
    t = scipy.sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    eye = scipy.sparse.identity(n)
    a = (scipy.sparse.kron(eye, t) + scipy.sparse.kron(t, eye)).tocsr()
    a.sort_indices()
    return a


def csr_product(indptr, indices, data, x):
    """y = A x for CSR arrays, NumPy alone (the reference's, without SciPy)."""
    rows = numpy.repeat(numpy.arange(len(indptr) - 1), numpy.diff(indptr))
    return numpy.bincount(rows, weights=data * x[indices], minlength=len(indptr) - 1)


def conjugate_gradients(product, dot, b, p, tol, niter, xp):
    """Plain CG from x = 0 on the vectors' owners' parts: product(p) is A p,
    dot(u, v) the whole vectors' dot product, p the storage of the direction
    (the table's shard in the distributed run). It stops, as SciPy's cg does,
    when |r| < tol |b| at the top of an iteration. Returns (x, iterations,
    converged)."""
    x = xp.zeros_like(b)
    r = b.copy()
    p[...] = r
    rr = dot(r, r)
    target = tol * math.sqrt(dot(b, b))
    k = 0
    while k < niter and math.sqrt(rr) >= target:
        q = product(p)
        alpha = rr / dot(p, q)
        x += alpha * p
        r -= alpha * q
        rr_next = dot(r, r)
        p *= rr_next / rr
        p += r
        rr = rr_next
        k += 1
    return x, k, math.sqrt(rr) < target


def parse():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=32, help="grid side (n^2 rows)")
    parser.add_argument("--niter", type=int, default=200, help="most iterations")
    parser.add_argument("--tol", type=float, default=1e-8, help="relative residual")
    parser.add_argument(
        "--no-scipy", action="store_true", help="NumPy alone, as without SciPy"
    )
    args = parser.parse_args()
    if args.n < 1 or args.niter < 1 or not args.tol > 0:
        parser.error("--n and --niter must be 1 or more, --tol above 0")
    return args


def solve(comm, args, use_scipy):
    """The distributed solve; returns (rank 0's verdict lines, failed)."""
    rank, size = comm.Get_rank(), comm.Get_size()
    n, rows = args.n, args.n * args.n
    starts = [r * rows // size for r in range(size + 1)]
    first, last = starts[rank], starts[rank + 1]
    on_gpu = shardtab.device()["backend"] != "host"
    why = None
    if on_gpu:
        try:
            import cupy as xp
        except ImportError:
            xp = None
            why = "a GPU backend needs CuPy for this example, and it is not importable"
        shardtab.agree(comm, why)
    else:
        xp = numpy

    def as_xp(array):
        """A package array (NumPy, or a DeviceArray on GPUs) as an xp array
        over the same memory."""
        return xp.asarray(array) if on_gpu else array

    def shard_copy(values):
        """values copied into shard memory of the package's (shardtab.empty)."""
        out = shardtab.empty(len(values), values.dtype)
        if on_gpu:
            out.from_host(values)
        else:
            out[...] = values
        return as_xp(out)

    # the matrix's rows of this rank; SciPy's and NumPy's constructions agree
    indptr, indices, data = poisson_rows_numpy(n, first, last)
    if use_scipy:
        mine = poisson_scipy(n)[first:last]
        same = (
            numpy.array_equal(mine.indptr, indptr)
            and numpy.array_equal(mine.indices, indices)
            and numpy.array_equal(mine.data, data)
        )
        shardtab.agree(
            comm, None if same else f"rank {rank}: SciPy's rows differ from NumPy's"
        )
        indptr, indices, data = mine.indptr, mine.indices, mine.data
    d_indptr, d_indices, d_data = (shard_copy(a) for a in (indptr, indices, data))

    # the nonzeros whose column rank q owns: their positions, per q; the row
    # of each nonzero, from indptr
    owner = numpy.searchsorted(starts, indices, side="right") - 1
    reads = [
        (int(q), xp.asarray(numpy.flatnonzero(owner == q))) for q in numpy.unique(owner)
    ]
    nonzeros = len(indices)
    row_of = xp.searchsorted(d_indptr, xp.arange(nonzeros), side="right") - 1

    b = numpy.random.default_rng(20240611).standard_normal(rows)
    p_memory = shardtab.empty(last - first, "float64")
    dot_memory = shardtab.empty(1, "float64")
    with shardtab.Table(comm, p_memory, label="cg p") as table, shardtab.Table(
        comm, dot_memory, label="cg dot"
    ) as dots:
        p = as_xp(p_memory)
        views = {}
        for q, _ in reads:
            view = p_memory if q == rank else table.peer(q)
            if view is None:
                why = why or f"rank {rank} reads rank {q}'s p, which is on another node"
            views[q] = view
        shardtab.agree(comm, why)
        views = {q: as_xp(view) for q, view in views.items()}
        dot_slot = as_xp(dot_memory)
        gathered = xp.empty(nonzeros, "float64")

        def product(p):
            # every rank's p is written before any rank reads it; the reads
            # end before any rank writes p again, as each rank's next write
            # follows the all_reduce of p.q, which needs every rank's product
            if on_gpu:
                xp.cuda.get_current_stream().synchronize()
            comm.Barrier()
            for q, where in reads:  # rank q's p, through the table
                gathered[where] = views[q][d_indices[where] - starts[q]]
            return xp.bincount(
                row_of, weights=d_data * gathered, minlength=last - first
            )

        def dot(u, v):
            # the same bits on every rank: every rank takes the same branches
            dot_slot[0] = xp.dot(u, v)
            dots.all_reduce("sum", count=1)
            return float(dot_slot[0])

        x, iterations, converged = conjugate_gradients(
            product, dot, xp.asarray(b[first:last]), p, args.tol, args.niter, xp
        )
        if on_gpu:
            dots.check()
    x = xp.asnumpy(x) if on_gpu else x
    pieces = comm.gather(x, root=0)
    spread = comm.gather(nonzeros, root=0)
    if rank != 0:
        return [], False

    # rank 0: the reference solves on the whole matrix
    x = numpy.concatenate(pieces)
    lines, problems = [], []
    if use_scipy:
        a = poisson_scipy(n)
        product_whole = a.dot
    else:
        whole = poisson_rows_numpy(n, 0, rows)
        product_whole = lambda v: csr_product(*whole, v)  # noqa: E731
    if not converged:
        problems.append(f"not converged in {args.niter} iterations (raise --niter)")
    x_ref, k_ref, _ = conjugate_gradients(
        product_whole, numpy.dot, b, numpy.empty(rows), args.tol, args.niter, numpy
    )
    error = numpy.linalg.norm(x - x_ref) / numpy.linalg.norm(x_ref)
    residual = numpy.linalg.norm(b - product_whole(x)) / numpy.linalg.norm(b)
    lines.append(
        f"checked: plain CG on the whole matrix: {k_ref} iterations, "
        f"|x - x_ref|/|x_ref| = {error:.2e}; |b - A x|/|b| = {residual:.2e}"
    )
    if k_ref != iterations:
        problems.append(f"{iterations} iterations, the whole matrix's CG {k_ref}")
    if not error <= 1e-8:
        problems.append(f"x differs from the whole matrix's CG by {error:.2e}")
    if not residual <= 2 * args.tol:
        problems.append(f"the true residual {residual:.2e} is above 2 tol")
    if use_scipy:

        def scipy_cg(maxiter):
            try:
                return scipy.sparse.linalg.cg(
                    a, b, rtol=args.tol, atol=0.0, maxiter=maxiter
                )
            except TypeError:  # SciPy before 1.12 names it tol
                return scipy.sparse.linalg.cg(
                    a, b, tol=args.tol, atol=0.0, maxiter=maxiter
                )

        # SciPy's releases count differently where the residual is looked at:
        # before 1.12 after an iteration, from 1.12 before the next one, so
        # that a solve of k iterations converges at maxiter k or k + 1
        x_sp, info = scipy_cg(iterations + 1)
        _, info_short = scipy_cg(iterations - 1) if iterations > 1 else (None, 1)
        error_sp = numpy.linalg.norm(x - x_sp) / numpy.linalg.norm(x_sp)
        lines.append(
            f"checked: scipy.sparse.linalg.cg {scipy.__version__}: info {info} at "
            f"maxiter {iterations + 1}, {info_short} at {iterations - 1}; "
            f"|x - x_scipy|/|x_scipy| = {error_sp:.2e}"
        )
        if info != 0 or info_short == 0:
            problems.append(
                f"SciPy's cg does not take {iterations} iterations (info {info} at maxiter "
                f"{iterations + 1}, {info_short} at {iterations - 1})"
            )
        if not error_sp <= 1e-8:
            problems.append(f"x differs from SciPy's by {error_sp:.2e}")
    counts = "/".join(str(starts[r + 1] - starts[r]) for r in range(size))
    counts += " rows, " + "/".join(str(z) for z in spread) + " nonzeros"
    lines.insert(
        0,
        f"# cg: backend {shardtab.device()['backend']}, {size} ranks, n {n}: "
        f"{rows} rows, {5 * rows - 4 * n} nonzeros, "
        f"split evenly by rows: {counts}; matrix by {'SciPy' if use_scipy else 'NumPy'}",
    )
    lines += [f"FAIL: {why}" for why in problems]
    summary = (
        f"{size} ranks, {rows} rows, {iterations} iterations, "
        f"|x - x_ref|/|x_ref| = {error:.1e}"
        + (", against SciPy's cg too" if use_scipy else "")
    )
    verdict = "FAILED" if problems else "OK"
    lines.append(f"# verify cg.py: {verdict} ({summary})")
    return lines, bool(problems)


def main():
    args = parse()
    comm = MPI.COMM_WORLD
    shardtab.init(comm, allow_shared_device=True)
    lines, failed = solve(comm, args, scipy is not None and not args.no_scipy)
    for line in lines:
        print(line, flush=True)
    failed = comm.bcast(failed, root=0)
    shardtab.finalize()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

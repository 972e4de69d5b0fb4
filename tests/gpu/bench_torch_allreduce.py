"""bench_torch_allreduce.py - the all-reduces that coll_bench is measured
against, timed the way coll_bench times ours: NCCL's all_reduce
through torch.distributed, and torch SymmetricMemory's one_shot_all_reduce and
two_shot_all_reduce, float32 sum, from --min to --max bytes in x2 steps.

USAGE  mpirun -np N python3 bench_torch_allreduce.py [--min B] [--max B]
           [--repeats R] [--graph-max B] [--algos nccl,symm-one-shot,symm-two-shot]
One process per GPU (rank r on GPU OMPI_COMM_WORLD_LOCAL_RANK % visible GPUs).
torch.distributed starts from the environment: MASTER_ADDR (default
127.0.0.1), MASTER_PORT (default 29517; give every rank the same), RANK and
WORLD_SIZE from OMPI_COMM_WORLD_RANK / OMPI_COMM_WORLD_SIZE (through
tests/gpu/gpu_world.py, which starts MPI with or without mpi4py).

Method (coll_bench's, src/coll_bench/coll_bench.c): for each size and path, 3
warm-up calls and a device synchronize; then R repeats (default 5), each after
a barrier, of `iters` calls back to back (100 up to 1 MiB, 20 up to 64 MiB,
then 5), torch.cuda.synchronize() at the end; a repeat's time per call is the
slowest rank's (an all-reduce with MAX of the rank's time); the median of the
repeats is printed. algbw = size / time; busbw = algbw * 2 (n - 1) / n. Up to
--graph-max bytes (default 4096; 0: none) each path is also captured 20 calls
to a CUDA graph and the graph replayed (rows "<algo>-graph"), as coll_bench's
"graph" rows. The barriers, the MAX, the agreements and the #wrong sums go
through a gloo group (the default group, on the CPU, as coll_bench's go through
MPI), so that they hold when a GPU path refuses to start.

The paths:
  nccl           dist.all_reduce(x) on a group of backend "nccl", in place.
  symm-one-shot  torch.ops.symm_mem.one_shot_all_reduce_out(buf, "sum", group,
                 out): buf is symmetric memory (symm_mem.empty + rendezvous),
                 out a plain tensor. One-shot cannot run in place (each rank
                 reads every peer's buf while it writes its result), so this
                 is its fastest form: the input already in symmetric memory,
                 no staging copy.
  symm-two-shot  torch.ops.symm_mem.two_shot_all_reduce_(buf, "sum", group),
                 in place in symmetric memory.
Every path's result is then checked on fresh inputs, every element: the inputs
are coll_bench's, (rank + 1) + (i % 13) / 4, so the sum is exact in any order
and #wrong counts the elements that differ from it. A path that cannot start
(NCCL or symmetric memory refused, e.g. two ranks on one GPU) prints one
"# <algo>: not run (<reason>)" line and the others still run. NVLink multicast
is never used: NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and
NVSHMEM_DISABLE_NVLS=1 are forced before torch is imported.

Exit 0 when every result that ran verified (the last line says "every result
verified", or "nothing ran" when no path started), 1 when one did not (or an
error stopped the run), 2 on a bad option.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import argparse
import ctypes
import os
import sys
import time
import traceback
import warnings
from datetime import timedelta

# never NVLink multicast: the host's GPUs are shared (KINDS.md)
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
os.environ["NVSHMEM_DISABLE_NVLS"] = "1"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

from gpu_world import world  # noqa: E402  (tests/gpu/gpu_world.py)

ALGOS = ("nccl", "symm-one-shot", "symm-two-shot")
GRAPH_CALLS = 20


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--min", type=int, default=8)
    p.add_argument("--max", type=int, default=1 << 30)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--graph-max", type=int, default=4096)
    p.add_argument("--algos", default=",".join(ALGOS))
    o = p.parse_args()
    o.algos = [a for a in o.algos.split(",") if a]
    if (
        not 4 <= o.min <= o.max <= 1 << 31
        or not 1 <= o.repeats <= 64
        or any(a not in ALGOS for a in o.algos)
    ):
        p.error(
            f"expected 4 <= --min <= --max <= 2 GiB, --repeats 1 to 64, --algos of {','.join(ALGOS)}"
        )
    return o


def mpi_finalize(comm):
    """gpu_world started MPI: end it (mpirun counts a rank that exits without)."""
    if isinstance(comm, int):
        ctypes.CDLL("libmpi.so.40", mode=ctypes.RTLD_GLOBAL).MPI_Finalize()
    else:
        from mpi4py import MPI

        if not MPI.Is_finalized():
            MPI.Finalize()


def first_line(e):
    s = f"{type(e).__name__}: {e}".strip()
    return s.splitlines()[0][:300] if s else type(e).__name__


class Bench:
    def __init__(self, rank, size, o):
        self.rank, self.size, self.o = rank, size, o
        self.dev = torch.device("cuda", torch.cuda.current_device())
        self.max_count = o.max // 4
        # i % 13 / 4 for every i, once: inputs and wanted sums are made from it on the GPU
        idx = torch.arange(self.max_count, device=self.dev, dtype=torch.int32)
        self.frac = (idx % 13).to(torch.float32).mul_(0.25)
        del idx
        self.runs = {}  # algo -> (setup state) for the paths that started
        self.no_graph = {}  # algo -> why its capture failed once
        self.wrong_total = 0

    # ---- the CPU group: barriers, agreement, the slowest rank's time --------------------
    def agree(self, why):
        """why: None when this rank is fine. Every rank gets the first failing rank's reason."""
        got = [None] * self.size
        dist.all_gather_object(got, why)
        for r, w in enumerate(got):
            if w is not None:
                return f"rank {r}: {w}" if self.size > 1 else w
        return None

    def max_over_ranks(self, seconds):
        t = torch.tensor([seconds], dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.item()

    def sum_over_ranks(self, n):
        t = torch.tensor([n], dtype=torch.int64)
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        return int(t.item())

    # ---- inputs and the check ------------------------------------------------------------
    def fill(self, t, count):
        torch.add(self.frac[:count], float(self.rank + 1), out=t[:count])

    def wrong(self, t, count):
        n = self.size
        want = self.frac[:count] * float(n) + float(n * (n + 1) // 2)
        return int((t[:count] != want).sum().item())

    # ---- the paths: start-up (one small call on every rank), then a launch per count ----
    def setup(self):
        """Starts each asked-for path; a path that any rank cannot start is not run."""
        lines = []
        if "nccl" in self.o.algos:
            why = None
            try:
                pg = dist.new_group(backend="nccl", timeout=timedelta(seconds=120))
            except Exception as e:  # noqa: BLE001  (the reason is printed)
                pg, why = None, first_line(e)
            why = self.agree(
                why
            )  # new_group is collective: every rank made it or none uses it
            if why is None:
                x = torch.empty(self.max_count, dtype=torch.float32, device=self.dev)

                def make(c, x=x, pg=pg):
                    xc = x[:c]
                    return lambda: dist.all_reduce(xc, group=pg)

                why = self.probe(make, x)
            if why is None:
                self.runs["nccl"] = {"inp": x, "result": x, "make": make}
            else:
                lines.append(f"# nccl: not run ({why})")
        symm = [a for a in self.o.algos if a.startswith("symm-")]
        if symm:
            why, hdl = None, None
            try:
                import torch.distributed._symmetric_memory as symm_mem

                gname = dist.group.WORLD.group_name
                if hasattr(symm_mem, "set_backend"):
                    try:
                        symm_mem.set_backend(
                            "CUDA"
                        )  # torch's own peer mappings (no NVSHMEM)
                    except (
                        Exception
                    ):  # noqa: BLE001  (already set, or an older torch: its default)
                        pass
                if hasattr(symm_mem, "enable_symm_mem_for_group"):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        symm_mem.enable_symm_mem_for_group(gname)
                buf = symm_mem.empty(
                    self.max_count, dtype=torch.float32, device=self.dev
                )
                out = torch.empty(self.max_count, dtype=torch.float32, device=self.dev)
            except Exception as e:  # noqa: BLE001
                why = first_line(e)
            why = self.agree(
                why
            )  # rendezvous is collective: only when every rank allocated
            if why is None:
                try:
                    hdl = symm_mem.rendezvous(buf, gname)
                    torch.cuda.synchronize()
                except Exception as e:  # noqa: BLE001
                    why = first_line(e)
                why = self.agree(why)
            if why is not None:
                lines += [f"# {a}: not run (symmetric memory: {why})" for a in symm]
            else:
                try:
                    self.symm_backend = symm_mem.get_backend(self.dev)
                except Exception:  # noqa: BLE001  (an older torch: one backend)
                    self.symm_backend = None
                ops = torch.ops.symm_mem
                for a in symm:
                    why = None
                    try:
                        if a == "symm-one-shot":
                            op, result = ops.one_shot_all_reduce_out, out

                            def make(c, op=op):
                                bc, oc = buf[:c], out[:c]
                                return lambda: op(bc, "sum", gname, oc)

                        else:
                            op, result = ops.two_shot_all_reduce_, buf

                            def make(c, op=op):
                                bc = buf[:c]
                                return lambda: op(bc, "sum", gname)

                    except (AttributeError, RuntimeError) as e:
                        why = f"this torch has no such op ({first_line(e)})"
                    why = self.agree(why)
                    if why is None:
                        why = self.probe(make, buf)
                    if why is None:
                        self.runs[a] = {
                            "inp": buf,
                            "result": result,
                            "make": make,
                            "hdl": hdl,
                        }
                    else:
                        lines.append(f"# {a}: not run ({why})")
        return lines

    def probe(self, make, inp):
        """One call on 1024 elements (its result is the sweep's to check); None when it
        ran on every rank, else the first failing rank's reason."""
        why = None
        try:
            c = min(1024, self.max_count)
            self.fill(inp, c)
            torch.cuda.synchronize()
            dist.barrier()
            make(c)()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            why = first_line(e)
        return self.agree(why)

    # ---- timing ---------------------------------------------------------------------------
    def time_call(self, launch, iters, per_launch=1):
        """The median over repeats of the slowest rank's seconds per call."""
        for _ in range(3):
            launch()
        torch.cuda.synchronize()
        times = []
        for _ in range(self.o.repeats):
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                launch()
            torch.cuda.synchronize()
            times.append(
                self.max_over_ranks((time.perf_counter() - t0) / (iters * per_launch))
            )
        return sorted(times)[len(times) // 2]

    def row(self, nbytes, count, algo, seconds, wrong):
        if self.rank != 0:
            return
        algbw = nbytes / seconds / 1e9
        busbw = algbw * 2.0 * (self.size - 1) / self.size
        print(
            f"  {nbytes:10d} {count:11d} {'float':>6s} {'sum':>5s} {algo:>13s} {seconds * 1e6:10.2f} "
            f"{algbw:8.2f} {busbw:8.2f} {wrong:7d}",
            flush=True,
        )

    def graph_row(self, nbytes, count, algo, seconds):
        if self.rank == 0:
            print(
                f"  {nbytes:10d} {count:11d} {'float':>6s} {'sum':>5s} {algo + '-graph':>13s} "
                f"{seconds * 1e6:10.2f} {'':8s} {'':8s} {'-':>7s}   ({GRAPH_CALLS} calls a graph)",
                flush=True,
            )

    def size_step(self, nbytes):
        count = nbytes // 4
        iters = 100 if nbytes <= 1 << 20 else 20 if nbytes <= 64 << 20 else 5
        for algo in ALGOS:
            if algo not in self.runs:
                continue
            r = self.runs[algo]
            inp, result, launch = r["inp"], r["result"], r["make"](count)
            self.fill(inp, count)
            torch.cuda.synchronize()
            seconds = self.time_call(launch, iters)
            # then one call on fresh inputs, every element checked
            self.fill(inp, count)
            if result is not inp:
                result[:count].fill_(-1.0)
            torch.cuda.synchronize()
            dist.barrier()
            launch()
            torch.cuda.synchronize()
            wrong = self.sum_over_ranks(self.wrong(result, count))
            self.wrong_total += wrong
            self.row(nbytes, count, algo, seconds, wrong)
        if nbytes > self.o.graph_max:
            return
        for algo in ALGOS:
            if algo not in self.runs:
                continue
            why = self.no_graph.get(algo)
            graph = None
            if why is None:
                launch = self.runs[algo]["make"](count)
                try:
                    graph = torch.cuda.CUDAGraph()
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        with torch.cuda.graph(graph, capture_error_mode="thread_local"):
                            for _ in range(GRAPH_CALLS):
                                launch()
                        torch.cuda.synchronize()
                    # torch warns "The CUDA Graph is empty": nothing to time (NCCL's in-place
                    # all-reduce of one rank launches no work)
                    if any("graph is empty" in str(w.message).lower() for w in caught):
                        why = "the capture recorded no work: the graph is empty"
                except Exception as e:  # noqa: BLE001
                    why = first_line(e)
                    try:
                        torch.cuda.synchronize()
                    except Exception:  # noqa: BLE001
                        pass
                why = self.agree(why)
            if why is None:
                seconds = self.time_call(graph.replay, iters // 10 + 1, GRAPH_CALLS)
                self.graph_row(nbytes, count, algo, seconds)
            else:
                if algo not in self.no_graph and self.rank == 0:
                    print(
                        f"# {nbytes} B: {algo}: no graph ({why}); none at the larger sizes",
                        flush=True,
                    )
                self.no_graph[algo] = why
            del graph


def main():
    o = parse()
    comm, rank, size = world()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    os.environ["RANK"], os.environ["WORLD_SIZE"] = str(rank), str(size)
    local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", rank))
    code = 0
    try:
        ngpu = torch.cuda.device_count()
        if ngpu == 0:
            raise RuntimeError("no GPU visible")
        torch.cuda.set_device(local % ngpu)
        dist.init_process_group(
            backend="gloo",
            init_method="env://",
            rank=rank,
            world_size=size,
            timeout=timedelta(seconds=180),
        )
        bench = Bench(rank, size, o)
        lines = bench.setup()
        if rank == 0:
            try:
                v = torch.cuda.nccl.version()
                nccl = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
            except Exception:  # noqa: BLE001
                nccl = "?"
            shared = size > ngpu
            print(
                f"# bench_torch_allreduce: {size} ranks on {ngpu} visible GPUs"
                f"{' (ranks share a GPU)' if shared else ''}, device {torch.cuda.get_device_name()}, "
                f"torch {torch.__version__}, NCCL {nccl}, symmetric memory backend "
                f"{getattr(bench, 'symm_backend', None) or '-'}; median of {o.repeats} repeats, "
                "the slowest rank's time per call"
            )
            for line in lines:
                print(line)
            print(
                f"# {'size':>10s} {'count':>11s} {'type':>6s} {'redop':>5s} {'algo':>13s} {'time(us)':>10s} "
                f"{'algbw':>8s} {'busbw':>8s} {'#wrong':>7s}",
                flush=True,
            )
        nbytes = o.min
        while nbytes <= o.max and bench.runs:
            bench.size_step(nbytes)
            nbytes *= 2
        torch.cuda.synchronize()
        dist.barrier()  # no rank leaves while a peer may still read its symmetric memory
        if bench.wrong_total:
            code = 1
        if rank == 0:
            ran = [a for a in ALGOS if a in bench.runs]
            verdict = (
                "WRONG results (see #wrong)"
                if code
                else "every result verified"
                if ran
                else "nothing ran"
            )
            print(
                f"# bench_torch_allreduce: {verdict}"
                f" (ran: {', '.join(ran) or 'none'}; not run: "
                f"{', '.join(a for a in o.algos if a not in bench.runs) or 'none'})",
                flush=True,
            )
    except Exception:  # noqa: BLE001
        sys.stdout.flush()
        print(f"bench_torch_allreduce: error: rank {rank}:", file=sys.stderr)
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(
            1
        )  # mpirun then ends the other ranks rather than leaving them in a collective
    sys.stdout.flush()
    sys.stderr.flush()
    mpi_finalize(comm)
    # no teardown of the process groups: a NCCL group that refused to start can hang it
    os._exit(code)


if __name__ == "__main__":
    main()

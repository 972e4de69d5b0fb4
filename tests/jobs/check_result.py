#!/usr/bin/env python3
"""check_result.py - asserts that a multi_scal, jacobi or cg --json file holds a verified run of the expected shape.

Usage: check_result.py FILE --ranks P --nodes K [multi_scal: --n N --modes M --peers]
                                                [jacobi: --nx NX --ny NY --variant V --iterations I]
                                                [cg: --rows R --nonzeros Z --variant V --iterations I
                                                     --cpu-checked]
The program is the file's own "program" field (multi_scal when absent).
multi_scal --peers: a --check-peers run (no benchmark results, exit_status 0).
jacobi: verified, no mismatches, times > 0, the rows split over the ranks in
order with K nodes of P/K ranks each, and every ghost-row edge taken by the way
the variant says (MPI between nodes and in variant mpi, the table otherwise).
cg: P ranks on K nodes (its "nodes" field), verified, exit status 0, a
stream launch wherever K > 1 (cg refuses persistent across nodes), times > 0
and us_per_iteration their median over the iterations, the residual history
one entry an iteration from 1 (x_0 = 0) to the run's relative residual;
--cpu-checked: the CPU's CG ran, as many iterations.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import argparse
import json
import sys


def check_common(data, args, problems):
    """Ranks, nodes and one rank_info entry per rank: the same for both programs."""
    for key, value in (("ranks", args.ranks), ("nodes", args.nodes)):
        if data.get(key) != value:
            problems.append(f"{key} is {data.get(key)!r}, expected {value!r}")
    if len(data.get("rank_info", [])) != args.ranks:
        problems.append(
            f"rank_info has {len(data.get('rank_info', []))} entries, expected {args.ranks}"
        )


def check_multi_scal(data, args, problems):
    expect = {
        "exit_status": 0,
        "ranks_per_node_min": args.ranks // args.nodes,
        "ranks_per_node_max": args.ranks // args.nodes,
    }
    if args.n is not None:
        expect["n"] = args.n
    for key, value in expect.items():
        if data.get(key) != value:
            problems.append(f"{key} is {data.get(key)!r}, expected {value!r}")
    results = data.get("results", [])
    if args.peers:
        if results:
            problems.append("a --check-peers run holds benchmark results")
        return
    if len(results) != args.modes:
        problems.append(f"{len(results)} results, expected {args.modes}")
    for result in results:
        if not result.get("verified") or result.get("mismatches") != 0:
            problems.append(f"mode {result.get('mode')} not verified: {result}")
        if not result.get("gbps", 0) > 0:
            problems.append(f"mode {result.get('mode')} has no bandwidth: {result}")


def check_jacobi(data, args, problems):
    if data.get("verified") is not True or data.get("mismatches") != 0:
        problems.append(
            f"not verified: verified {data.get('verified')!r}, mismatches {data.get('mismatches')!r}"
        )
    for key in ("seconds", "reference_seconds"):
        if not isinstance(data.get(key), (int, float)) or not data[key] > 0:
            problems.append(f"{key} is {data.get(key)!r}, expected a time > 0")
    if not isinstance(data.get("iterations"), int) or data["iterations"] < 1:
        problems.append(
            f"iterations is {data.get('iterations')!r}, expected a count >= 1"
        )
    for key, value in (
        ("nx", args.nx),
        ("ny", args.ny),
        ("variant", args.variant),
        ("iterations", args.iterations),
    ):
        if value is not None and data.get(key) != value:
            problems.append(f"{key} is {data.get(key)!r}, expected {value!r}")

    ranks = data.get("rank_info", [])
    if len(ranks) != args.ranks or not isinstance(data.get("ny"), int):
        return
    # the interior rows 1 .. ny-2, in rank order, every rank at least one
    row = 1
    for info in ranks:
        if info.get("row_start") != row or not info.get("rows", 0) >= 1:
            problems.append(
                f"rank {info.get('rank')}: rows [{info.get('row_start')}, +{info.get('rows')}),"
                f" expected to start at {row} with at least one row"
            )
            return
        row += info["rows"]
    if row != data["ny"] - 1:
        problems.append(
            f"the ranks' rows end at {row}, expected {data['ny'] - 1} (ny - 1)"
        )
    per_node = {}
    for info in ranks:
        per_node[info.get("node")] = per_node.get(info.get("node"), 0) + 1
    if sorted(per_node.values()) != [args.ranks // args.nodes] * args.nodes:
        problems.append(
            f"ranks per node {per_node}, expected {args.nodes} nodes of {args.ranks // args.nodes}"
        )
    # each edge: MPI when the neighbour is on another node or the variant is mpi, else the table
    if args.ranks < 2:
        return
    for index, info in enumerate(ranks):
        for side, neighbour in (
            ("above_via", ranks[index - 1]),
            ("below_via", ranks[(index + 1) % len(ranks)]),
        ):
            if side not in info:
                continue
            remote = (
                neighbour.get("node") != info.get("node")
                or data.get("variant") == "mpi"
            )
            expected = "mpi" if remote else "table"
            if info[side] != expected:
                problems.append(
                    f"rank {info.get('rank')}: {side} is {info[side]!r}, expected {expected!r}"
                    f" (neighbour on node {neighbour.get('node')}, variant {data.get('variant')})"
                )


def check_cg(data, args, problems):
    expect = {
        "ranks": args.ranks,
        "nodes": args.nodes,
        "verified": True,
        "exit_status": 0,
        "rows": args.rows,
        "nonzeros": args.nonzeros,
        "variant": args.variant,
        "iterations": args.iterations,
    }
    for key, value in expect.items():
        if value is not None and data.get(key) != value:
            problems.append(f"{key} is {data.get(key)!r}, expected {value!r}")
    launches = ("persistent", "stream") if args.nodes == 1 else ("stream",)
    if data.get("launch") not in launches:
        problems.append(
            f"launch is {data.get('launch')!r} on {args.nodes} node(s), expected {' or '.join(launches)}"
        )
    iterations = data.get("iterations")
    if not isinstance(iterations, int) or iterations < 1:
        problems.append(f"iterations is {iterations!r}, expected a count >= 1")
        return
    each = data.get("seconds_each", [])
    if len(each) != data.get("repeat") or not all(
        isinstance(t, (int, float)) and t > 0 for t in each
    ):
        problems.append(
            f"seconds_each is {each!r}, expected {data.get('repeat')!r} times > 0"
        )
        return
    median = sorted(each)[len(each) // 2]
    if data.get("seconds") != median:
        problems.append(
            f"seconds is {data.get('seconds')!r}, expected the median {median!r}"
        )
    per_iteration = data.get("us_per_iteration")
    if not isinstance(per_iteration, (int, float)) or not (
        abs(per_iteration - median / iterations * 1e6) <= 1e-9 * per_iteration
    ):
        problems.append(
            f"us_per_iteration is {per_iteration!r}, expected {median / iterations * 1e6!r}"
        )
    history = data.get("residual_history", [])
    if len(history) != iterations + 1:
        problems.append(
            f"residual_history has {len(history)} entries, expected {iterations + 1}"
        )
    elif history[0] != 1 or history[-1] != data.get("relative_residual"):
        problems.append(
            f"residual_history runs from {history[0]!r} to {history[-1]!r}, expected 1 to"
            f" the relative residual {data.get('relative_residual')!r}"
        )
    if args.cpu_checked and (
        data.get("cpu_checked") is not True or data.get("cpu_iterations") != iterations
    ):
        problems.append(
            f"cpu_checked {data.get('cpu_checked')!r}, cpu_iterations {data.get('cpu_iterations')!r}:"
            f" expected the CPU's CG to have run {iterations} iterations"
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--n", type=int)
    parser.add_argument("--modes", type=int, default=3)
    parser.add_argument("--peers", action="store_true")
    parser.add_argument("--nx", type=int)
    parser.add_argument("--ny", type=int)
    parser.add_argument("--variant")
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--rows", type=int)
    parser.add_argument("--nonzeros", type=int)
    parser.add_argument("--cpu-checked", action="store_true")
    args = parser.parse_args()

    with open(args.file, encoding="utf-8") as stream:
        data = json.load(stream)
    program = data.get("program", "multi_scal")
    problems = []
    if program == "cg":
        check_cg(data, args, problems)  # no rank_info: it checks ranks and nodes
    else:
        check_common(data, args, problems)
    if program == "multi_scal":
        check_multi_scal(data, args, problems)
    elif program == "jacobi":
        check_jacobi(data, args, problems)
    elif program != "cg":
        problems.append(f"program is {program!r}, expected multi_scal, jacobi or cg")
    for problem in problems:
        print(f"check_result.py: {args.file}: {problem}", file=sys.stderr)
    if not problems:
        print(
            f"check_result.py: {args.file}: ok ({program}, {args.ranks} ranks, {args.nodes} nodes)"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

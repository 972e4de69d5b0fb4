#!/usr/bin/env python3
"""check_result.py - asserts that a multi_scal --json file holds a verified run of the expected shape.

Usage: check_result.py FILE --ranks P --nodes K [--n N] [--modes M] [--peers]
--peers: a --check-peers run (no benchmark results, exit_status 0).
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--n", type=int)
    parser.add_argument("--modes", type=int, default=3)
    parser.add_argument("--peers", action="store_true")
    args = parser.parse_args()

    with open(args.file, encoding="utf-8") as stream:
        data = json.load(stream)
    problems = []
    expect = {"program": "multi_scal", "ranks": args.ranks, "nodes": args.nodes, "exit_status": 0,
              "ranks_per_node_min": args.ranks // args.nodes, "ranks_per_node_max": args.ranks // args.nodes}
    if args.n is not None:
        expect["n"] = args.n
    for key, value in expect.items():
        if data.get(key) != value:
            problems.append(f"{key} is {data.get(key)!r}, expected {value!r}")
    if len(data.get("rank_info", [])) != args.ranks:
        problems.append(f"rank_info has {len(data.get('rank_info', []))} entries, expected {args.ranks}")
    results = data.get("results", [])
    if args.peers:
        if results:
            problems.append("a --check-peers run holds benchmark results")
    else:
        if len(results) != args.modes:
            problems.append(f"{len(results)} results, expected {args.modes}")
        for result in results:
            if not result.get("verified") or result.get("mismatches") != 0:
                problems.append(f"mode {result.get('mode')} not verified: {result}")
            if not result.get("gbps", 0) > 0:
                problems.append(f"mode {result.get('mode')} has no bandwidth: {result}")
    for problem in problems:
        print(f"check_result.py: {args.file}: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_result.py: {args.file}: ok ({args.ranks} ranks, {args.nodes} nodes)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

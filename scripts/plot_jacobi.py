#!/usr/bin/env python3
"""plot_jacobi.py - draws scripts/gpu-jacobi.sh's jacobi-bench.csv as time per
iteration against grid size, one line per variant and GPU count (the anchors
and ours; dashed: one GPU), log scales, so that where each one stops scaling
shows. The CPU-free model computes no norm: its lines compare with ours at
one norm per solve.
Usage: scripts/plot_jacobi.py jacobi-bench.csv out.png [title]"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {  # variant: label
    "single_gpu": "anchor single_gpu",
    "multi_threaded_p2p_opt": "anchor multi_threaded_p2p_opt",
    "nccl": "anchor nccl",
    "nccl_graphs": "anchor nccl_graphs",
    "nvshmem": "anchor nvshmem",
    "cpu-free-v2": "CPU-free model -v 2 (baseline P2P, no norm)",
    "cpu-free-v4": "CPU-free model -v 4 (persistent Design 2, no norm)",
    "jacobi-persistent": "jacobi, persistent launch",
    "jacobi-graph": "jacobi, graph launches",
    "jacobi-stream": "jacobi, stream launches",
    "jacobi-persistent-one-norm": "jacobi, persistent, one norm",
    "jacobi-host-sync": "jacobi host-sync",
    "jacobi-mpi": "jacobi mpi (host-staged)",
}
MARKERS = "os^vdpP*Xh<>"


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    title = (
        sys.argv[3]
        if len(sys.argv) > 3
        else "Jacobi, 1000 iterations, norm every iteration"
    )
    fig, ax = plt.subplots(figsize=(9, 6))
    keys = []
    for r in rows:
        if (r["variant"], r["gpus"]) not in keys and r["seconds"]:
            keys.append((r["variant"], r["gpus"]))
    for i, (variant, gpus) in enumerate(keys):
        points = sorted(
            (int(r["nx"]), float(r["seconds"]) / int(r["niter"]) * 1e6)
            for r in rows
            if (r["variant"], r["gpus"]) == (variant, gpus) and r["seconds"]
        )
        style = ("-" if variant.startswith("jacobi") else "--") if gpus != "1" else ":"
        ax.plot(
            [p[0] ** 2 for p in points],
            [p[1] for p in points],
            style + MARKERS[i % len(MARKERS)],
            label="%s, %s GPU%s"
            % (LABELS.get(variant, variant), gpus, "" if gpus == "1" else "s"),
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("grid points (nx x ny)")
    ax.set_ylabel("time per iteration (us)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6.5)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()

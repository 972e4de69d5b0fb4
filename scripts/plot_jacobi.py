#!/usr/bin/env python3
"""plot_jacobi.py - draws scripts/gpu-jacobi.sh's jacobi-bench.csv as time per
iteration against grid size, one line per variant (the anchors and ours), log
scales, so that where each one stops scaling shows.
Usage: scripts/plot_jacobi.py jacobi-bench.csv out.png [title]"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {  # variant: (label, line style)
    "single_gpu": ("anchor single_gpu (1 GPU)", ":o"),
    "multi_threaded_p2p_opt": ("anchor multi_threaded_p2p_opt", "--s"),
    "nccl": ("anchor nccl", "--^"),
    "nccl_graphs": ("anchor nccl_graphs", "--v"),
    "nvshmem": ("anchor nvshmem", "--d"),
    "jacobi-table": ("jacobi table (device signals, graphs)", "-o"),
    "jacobi-table-launch-stream": ("jacobi table, stream launches", "-s"),
    "jacobi-host-sync": ("jacobi host-sync", "-^"),
    "jacobi-mpi": ("jacobi mpi (host-staged)", "-v"),
    "jacobi-table-rpn1": ("jacobi table, simulated 2 nodes (ghost rows by MPI)", "-d"),
}


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    title = sys.argv[3] if len(sys.argv) > 3 else "Jacobi, 1000 iterations, norm every iteration"
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for variant, (label, style) in STYLE.items():
        points = sorted((int(r["nx"]), float(r["seconds"]) / int(r["niter"]) * 1e6)
                        for r in rows if r["variant"] == variant and r["seconds"])
        if points:
            ax.plot([p[0] ** 2 for p in points], [p[1] for p in points], style, label=label)
    ref = sorted((int(r["nx"]), float(r["reference_seconds"]) / int(r["niter"]) * 1e6)
                 for r in rows if r["variant"] == "jacobi-table" and r["reference_seconds"])
    if ref:
        ax.plot([p[0] ** 2 for p in ref], [p[1] for p in ref], ":x", color="gray",
                label="jacobi's own 1-GPU reference (same kernel)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("grid points (nx x ny)")
    ax.set_ylabel("time per iteration (us)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""plot_bench.py - draws a multi_scal --bench JSON as bandwidth against shard size,
one line per table mode and per baseline, so the gap to the copy engines shows;
given the log of the same job, also PyTorch's mul_ (scripts/gpu-torch-baseline.py
lines, the median over the GPUs at each size).
Usage: scripts/plot_bench.py bench.json out.png [title [job.log]]"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import json
import re
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {  # operation: (label, line style)
    "local": ("table: local", "-o"),
    "copy-d2d": ("copy engine: device to device", "--o"),
    "remote": ("table: remote, one GPU active", "-s"),
    "copy-peer-1way": ("copy engine: to the peer, one way", "--s"),
    "ring": ("table: ring, both GPUs at once", "-^"),
    "copy-peer-2way": ("copy engine: to the peer, both ways", "--^"),
    "global": ("table: global (half local, half remote)", "-d"),
    "kernel-push": ("kernel copy to the peer (remote stores)", ":s"),
    "kernel-pull": ("kernel copy from the peer (remote loads)", ":v"),
    "host-staged": ("host-staged update", ":x"),
    "mpi-p2p": ("MPI messages through the host", ":+"),
}


def main():
    path, out = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "multi_scal --bench"
    rows = json.load(open(path))["bench"]
    fig, ax = plt.subplots(figsize=(12, 6))
    for op, (label, style) in STYLE.items():
        pts = sorted(
            (r["shard_bytes"] / 2**20, r["gbps_median"])
            for r in rows
            if r["operation"] == op
        )
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
    if len(sys.argv) > 4:
        torch = {}
        for m in re.finditer(
            r"# torch mul_: (\d+) bytes, ([\d.]+) GB/s", open(sys.argv[4]).read()
        ):
            torch.setdefault(int(m.group(1)) / 2**20, []).append(float(m.group(2)))
        pts = sorted((mib, statistics.median(v)) for mib, v in torch.items())
        ax.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            "-.*",
            color="black",
            label="PyTorch mul_ in place, same job",
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("MiB per shard")
    ax.set_ylabel("GB/s per GPU (bytes read + written), median of repeats")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(
        fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0)
    )  # beside the axes
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()

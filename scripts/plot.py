#!/usr/bin/env python3
"""plot.py - draws the figures of docs/ from the runs' outputs (needs matplotlib).

Usage:
  scripts/plot.py bench BENCH.json OUT.png [TITLE [JOB.log]]
      a multi_scal --bench JSON as bandwidth against shard size, one line per table
      mode and per baseline, so the gap to the copy engines shows; given the log of the
      same job, also PyTorch's mul_ (scripts/gpu-torch-baseline.py's lines, the median
      over the GPUs at each size)
  scripts/plot.py jacobi TIMES OUT.png [TITLE]
      jacobi's time per iteration against grid size, one line per variant and GPU count
      (the anchors and ours; dotted: one GPU), log scales, so that where each one stops
      scaling shows. TIMES: scripts/gpu.sh bench's timing.txt, or the jacobi-bench.csv
      of the older runs under results/. The CPU-free model computes no norm: its lines
      compare with ours at one norm per solve
  scripts/plot.py pairs RESULT.json OUT.png [TITLE]
      the multi_scal --bench-pairs matrix as a heat map: row = the rank whose kernel
      scales, column = the rank whose shard it is
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import csv
import json
import re
import statistics
import sys

if __name__ == "__main__" and (
    len(sys.argv) < 4 or sys.argv[1] not in ("bench", "jacobi", "pairs")
):
    sys.exit(__doc__)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BENCH_STYLE = {  # operation: (label, line style)
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
JACOBI_LABELS = {  # variant: label
    "single_gpu": "anchor single_gpu",
    "multi_threaded_p2p_opt": "anchor multi_threaded_p2p_opt",
    "nccl": "anchor nccl",
    "nccl_graphs": "anchor nccl_graphs",
    "nvshmem": "anchor nvshmem",
    "cpu-free-v2": "CPU-free model -v 2 (baseline P2P, no norm)",
    "cpu-free-v4": "CPU-free model -v 4 (persistent Design 2, no norm)",
    "jacobi-persistent": "jacobi, persistent launch",
    "jacobi-onchip": "jacobi, on chip",
    "jacobi-temporal": "jacobi, temporal passes",
    "jacobi-auto": "jacobi, auto",
    "jacobi-graph": "jacobi, graph launches",
    "jacobi-stream": "jacobi, stream launches",
    "jacobi-persistent-one-norm": "jacobi, persistent, one norm",
    "jacobi-host-sync": "jacobi host-sync",
    "jacobi-mpi": "jacobi mpi (host-staged)",
}
MARKERS = "os^vdpP*Xh<>"


def finish(figure, axes, out, title, xlabel, ylabel, legend):
    """Log axes (x base 2), labels, grid and legend; the figure written to out."""
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(**legend)
    figure.tight_layout()
    figure.savefig(out, dpi=110)


def plot_bench(path, out, title="multi_scal --bench", log=None):
    rows = json.load(open(path))["bench"]
    figure, axes = plt.subplots(figsize=(12, 6))
    for operation, (label, style) in BENCH_STYLE.items():
        points = sorted(
            (r["shard_bytes"] / 2**20, r["gbps_median"])
            for r in rows
            if r["operation"] == operation
        )
        if points:
            axes.plot(
                [p[0] for p in points], [p[1] for p in points], style, label=label
            )
    if log:
        torch = {}
        for m in re.finditer(
            r"# torch mul_: (\d+) bytes, ([\d.]+) GB/s", open(log).read()
        ):
            torch.setdefault(int(m.group(1)) / 2**20, []).append(float(m.group(2)))
        points = sorted((mib, statistics.median(v)) for mib, v in torch.items())
        axes.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            "-.*",
            color="black",
            label="PyTorch mul_ in place, same job",
        )
    finish(
        figure,
        axes,
        out,
        title,
        "MiB per shard",
        "GB/s per GPU (bytes read + written), median of repeats",
        {"fontsize": 8, "loc": "upper left", "bbox_to_anchor": (1.01, 1.0)},
    )


def jacobi_points(path):
    """(variant, gpus, nx * ny, seconds per iteration) from either kind of file."""
    if path.endswith(".csv"):
        for r in csv.DictReader(open(path)):
            if r["seconds"]:
                n = int(r["nx"]) * int(r["ny"])
                yield r["variant"], r["gpus"], n, float(r["seconds"]) / int(r["niter"])
        return
    runs = {}
    for line in open(
        path
    ):  # gpu.sh: program, "npG NXxNY what", tree, round, value, ran
        program, config, tree, _, value, _ = line.rstrip("\n").split("\t")
        if program != "jacobi" or value in ("-", "refused"):
            continue
        np, grid, what = config.split()
        variant = what if tree == "anchor" else f"jacobi-{what}"
        nx, ny = grid.split("x")
        runs.setdefault((variant, np[2:], int(nx) * int(ny)), []).append(float(value))
    for (variant, gpus, n), seconds in runs.items():
        yield variant, gpus, n, statistics.median(seconds) / 1000  # 1000 iterations


def plot_jacobi(path, out, title="Jacobi, 1000 iterations, norm every iteration"):
    rows = list(jacobi_points(path))
    figure, axes = plt.subplots(figsize=(9, 6))
    keys = []
    for variant, gpus, _, _ in rows:
        if (variant, gpus) not in keys:
            keys.append((variant, gpus))
    for i, (variant, gpus) in enumerate(keys):
        points = sorted(
            (n, s * 1e6) for v, g, n, s in rows if (v, g) == (variant, gpus)
        )
        style = ("-" if variant.startswith("jacobi") else "--") if gpus != "1" else ":"
        axes.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            style + MARKERS[i % len(MARKERS)],
            label="%s, %s GPU%s"
            % (JACOBI_LABELS.get(variant, variant), gpus, "" if gpus == "1" else "s"),
        )
    finish(
        figure,
        axes,
        out,
        title,
        "grid points (nx x ny)",
        "time per iteration (us)",
        {"fontsize": 6.5},
    )


def plot_pairs(path, out, title="multi_scal --bench-pairs"):
    data = json.load(open(path))
    matrix = data["pairs_gbps"]
    n = len(matrix)
    figure, axes = plt.subplots(figsize=(1.2 * n + 3, 1.0 * n + 2))
    image = axes.imshow(matrix, cmap="viridis")
    for w in range(n):
        for o in range(n):
            value = matrix[w][o]
            axes.text(
                o,
                w,
                "%.0f" % value,
                ha="center",
                va="center",
                color="black" if value > 0.6 * max(map(max, matrix)) else "white",
                fontsize=9,
            )
    axes.set_xticks(range(n))
    axes.set_yticks(range(n))
    axes.set_xlabel("owner of the shard (node rank)")
    axes.set_ylabel("rank whose kernel scales it")
    axes.set_title(
        "%s\n%.0f MiB per shard, GB/s read + written"
        % (title, data["pairs_shard_bytes"] / 2**20),
        fontsize=10,
    )
    figure.colorbar(image, ax=axes, label="GB/s")
    figure.tight_layout()
    figure.savefig(out, dpi=110)


PLOTS = {"bench": plot_bench, "jacobi": plot_jacobi, "pairs": plot_pairs}

if __name__ == "__main__":
    PLOTS[sys.argv[1]](*sys.argv[2:])

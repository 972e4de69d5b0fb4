#!/usr/bin/env python3
"""plot_pairs.py - draws the multi_scal --bench-pairs matrix of a JSON result as a
heat map: row = the rank whose kernel scales, column = the rank whose shard it is.
Usage: scripts/plot_pairs.py result.json out.png [title]"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    data = json.load(open(sys.argv[1]))
    matrix = data["pairs_gbps"]
    n = len(matrix)
    title = sys.argv[3] if len(sys.argv) > 3 else "multi_scal --bench-pairs"
    fig, ax = plt.subplots(figsize=(1.2 * n + 3, 1.0 * n + 2))
    image = ax.imshow(matrix, cmap="viridis")
    for w in range(n):
        for o in range(n):
            value = matrix[w][o]
            ax.text(
                o,
                w,
                "%.0f" % value,
                ha="center",
                va="center",
                color="black" if value > 0.6 * max(map(max, matrix)) else "white",
                fontsize=9,
            )
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    ax.set_xlabel("owner of the shard (node rank)")
    ax.set_ylabel("rank whose kernel scales it")
    ax.set_title(
        "%s\n%.0f MiB per shard, GB/s read + written"
        % (title, data["pairs_shard_bytes"] / 2**20),
        fontsize=10,
    )
    fig.colorbar(image, ax=ax, label="GB/s")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()

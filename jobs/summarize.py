#!/usr/bin/env python3
"""summarize.py - turns multi_scal, jacobi and cg --json result files into scaling tables (text and CSV).

Usage: python3 jobs/summarize.py [--csv FILE] [--plot FILE.png] [--study auto|weak|strong] PATH...

PATH is a result JSON file or a folder searched for *.json (results/weak, say).
Files that are not multi_scal, jacobi or cg results, or hold no results
(--check-peers runs), are skipped with a note. Each program gets its own table.

multi_scal: runs with the same kernel, nodes, ranks and n are repeats: the
table keeps the best GB/s of each mode and counts the runs. Efficiency is the
GB/s per rank relative to the run with the fewest ranks:
  (gbps / ranks) / (gbps_base / ranks_base)
For weak scaling (n per rank fixed) that is t_base / t; for strong scaling
(n fixed) it is the speed-up divided by the growth in ranks. 1.0 is perfect.

jacobi: runs with the same variant, nodes, ranks and grid are repeats: the table
keeps the shortest solve time ("seconds", itself the median of the run's
--repeat solves). Speed-up is t_base / t against the run of the same variant
with the fewest ranks; efficiency is t_base / t for weak scaling (rows per rank
fixed) and the speed-up divided by the growth in ranks for strong scaling (grid
fixed). vs_1gpu is the run's own 1-GPU reference time over its time.

cg: runs with the same variant, nodes, ranks and matrix are repeats: the table
keeps the shortest time per iteration ("us_per_iteration", from the median of
the run's --repeat solves) and shows the launch that ran. Its rows are keyed by
nodes and ranks (a study runs several rank counts on one node, then full nodes;
a file without "nodes", written before cg ran across nodes, counts as 1 node);
speed-up is t_base / t per iteration against the run of the same variant with
the fewest ranks, efficiency the speed-up divided by the growth in ranks for
strong scaling (one matrix) and t_base / t for weak scaling (rows per rank
fixed).

With several programs among the files, the CSV of each goes to FILE with
-multi_scal, -jacobi or -cg before its extension.

Exit status: 0 all runs verified, 1 some run failed verification or exited
non-zero (the table still prints, the row marked FAILED), 2 bad usage or no data.
Python 3 standard library only; with matplotlib importable, --plot draws GB/s
and efficiency against nodes, otherwise the plot is skipped with a message.
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers

import argparse
import csv
import json
import os
import sys

MODE_ORDER = ["local", "ring", "global"]
PROGRAMS = ["multi_scal", "jacobi", "cg"]
JACOBI_VARIANT_ORDER = ["table", "host-sync", "mpi"]
CG_VARIANT_ORDER = ["standard", "pipelined"]


def find_json_files(paths):
    """Every *.json under the given files and folders, sorted, each once."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            for folder, _, names in os.walk(path):
                found.extend(
                    os.path.join(folder, name)
                    for name in names
                    if name.endswith(".json")
                )
        elif os.path.isfile(path):
            found.append(path)
        else:
            raise FileNotFoundError(path)
    return sorted(set(found))


def load_run(path):
    """A multi_scal, jacobi or cg result as a dict, or None (with the reason) when it is not one."""
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except (OSError, ValueError) as error:
        return None, f"unreadable ({error})"
    if not isinstance(data, dict) or data.get("program", "multi_scal") not in PROGRAMS:
        return None, "not a multi_scal, jacobi or cg result"
    data.setdefault("program", "multi_scal")
    if data["program"] == "jacobi":
        keys = ("ranks", "nodes", "nx", "ny")
    elif data["program"] == "cg":
        data.setdefault("nodes", 1)  # written before cg ran across nodes
        keys = ("ranks", "nodes", "rows", "nonzeros")
    elif not data.get("results"):
        if data.get("bench"):
            return (
                None,
                "a --bench sweep (not summarized here: run the modes, without --bench)",
            )
        return None, "no benchmark results (a --check-peers run?)"
    else:
        keys = ("ranks", "nodes", "n")
    for key in keys:
        if not isinstance(data.get(key), int):
            return None, f"field '{key}' missing or not an integer"
    return data, None


def group_runs(runs):
    """Rows keyed by (kernel, nodes, ranks, n): best GB/s per mode over the repeats."""
    rows = {}
    for path, data in runs:
        key = (str(data.get("kernel", "-")), data["nodes"], data["ranks"], data["n"])
        row = rows.setdefault(
            key,
            {
                "kernel": key[0],
                "nodes": key[1],
                "ranks": key[2],
                "n": key[3],
                "runs": 0,
                "gbps": {},
                "table_create_ms": None,
                "failed": False,
                "failed_files": [],
                "backend": data.get("backend", "?"),
            },
        )
        row["runs"] += 1
        verified = data.get("exit_status", 0) == 0 and all(
            r.get("verified", False) and not r.get("mismatches", 0)
            for r in data["results"]
        )
        if not verified:
            row["failed"] = True
            row["failed_files"].append(path)
        ms = data.get("table_create_ms")
        if isinstance(ms, (int, float)):
            row["table_create_ms"] = (
                ms
                if row["table_create_ms"] is None
                else min(row["table_create_ms"], ms)
            )
        for result in data["results"]:
            if not result.get("verified", False) or result.get("mismatches", 0):
                continue  # an unverified figure means nothing
            mode = result.get("mode", "?")
            row["gbps"][mode] = max(
                row["gbps"].get(mode, 0.0), float(result.get("gbps", 0.0))
            )
    return sorted(
        rows.values(), key=lambda r: (r["kernel"], r["ranks"], r["nodes"], r["n"])
    )


def guess_study(rows):
    if len({r["n"] for r in rows}) == 1:
        return "strong"
    if len({r["n"] / r["ranks"] for r in rows}) == 1:
        return "weak"
    return "mixed"


def add_efficiency(rows, modes):
    """Per kernel variant, relative to its row with the fewest ranks (rows are sorted)."""
    bases = {}
    for row in rows:
        base = bases.setdefault(row["kernel"], row)
        row["efficiency"] = {}
        for mode in modes:
            if mode in row["gbps"] and base["gbps"].get(mode):
                per_rank = row["gbps"][mode] / row["ranks"]
                base_per_rank = base["gbps"][mode] / base["ranks"]
                row["efficiency"][mode] = per_rank / base_per_rank


def format_table(rows, modes, study):
    base = rows[0]
    lines = [
        f"# multi_scal {study} scaling, backend {base['backend']}: {len(rows)} configurations",
        f"# GB/s: bytes read + written by all ranks / slowest rank's time, best of the runs;"
        f" eff: GB/s per rank vs the fewest ranks ({base['nodes']} nodes x {base['ranks'] // base['nodes']} ranks)",
    ]
    header = f"{'kernel':>8} {'nodes':>6} {'ranks':>6} {'n':>14} {'n/rank':>12} {'runs':>4} {'table_ms':>9}"
    for mode in modes:
        header += f" {mode + ' GB/s':>13} {'eff':>5}"
    header += "  status"
    lines.append(header)
    for row in rows:
        ms = row["table_create_ms"]
        line = (
            f"{row['kernel']:>8} {row['nodes']:>6} {row['ranks']:>6} {row['n']:>14} {row['n'] // row['ranks']:>12}"
            f" {row['runs']:>4} {(f'{ms:.3f}' if ms is not None else '-'):>9}"
        )
        for mode in modes:
            gbps = row["gbps"].get(mode)
            eff = row["efficiency"].get(mode)
            line += f" {(f'{gbps:.2f}' if gbps is not None else '-'):>13}"
            line += f" {(f'{eff:.2f}' if eff is not None else '-'):>5}"
        line += "  FAILED" if row["failed"] else "  ok"
        lines.append(line)
    return "\n".join(lines)


def write_csv(path, rows, modes, study):
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        header = [
            "study",
            "kernel",
            "nodes",
            "ranks",
            "n",
            "n_per_rank",
            "runs",
            "table_create_ms",
        ]
        for mode in modes:
            header += [f"{mode}_gbps", f"{mode}_efficiency"]
        writer.writerow(header + ["verified"])
        for row in rows:
            record = [
                study,
                row["kernel"],
                row["nodes"],
                row["ranks"],
                row["n"],
                row["n"] // row["ranks"],
                row["runs"],
                ""
                if row["table_create_ms"] is None
                else f"{row['table_create_ms']:.6f}",
            ]
            for mode in modes:
                gbps = row["gbps"].get(mode)
                eff = row["efficiency"].get(mode)
                record += [
                    "" if gbps is None else f"{gbps:.6f}",
                    "" if eff is None else f"{eff:.6f}",
                ]
            writer.writerow(record + ["false" if row["failed"] else "true"])


def write_plot(path, rows, modes, study):
    try:
        import matplotlib  # pylint: disable=import-outside-toplevel

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    except ImportError:
        print(
            f"# plot skipped: matplotlib is not importable (pip install matplotlib), {path} not written"
        )
        return
    figure, (rate_axes, eff_axes) = plt.subplots(1, 2, figsize=(11, 4))
    for kernel in sorted({row["kernel"] for row in rows}):
        mine = [row for row in rows if row["kernel"] == kernel]
        nodes = [row["nodes"] for row in mine]
        for mode in modes:
            label = mode if kernel == "-" else f"{mode} ({kernel})"
            rate_axes.plot(
                nodes,
                [r["gbps"].get(mode, float("nan")) for r in mine],
                marker="o",
                label=label,
            )
            eff_axes.plot(
                nodes,
                [r["efficiency"].get(mode, float("nan")) for r in mine],
                marker="o",
                label=label,
            )
    rate_axes.set(
        xscale="log",
        yscale="log",
        xlabel="nodes",
        ylabel="GB/s (all ranks)",
        title=f"{study} scaling",
    )
    eff_axes.set(
        xscale="log",
        xlabel="nodes",
        ylabel="efficiency",
        ylim=(0, 1.2),
        title="GB/s per rank vs smallest",
    )
    save_plot(figure, (rate_axes, eff_axes), path)


def save_plot(figure, axes_pair, path):
    """A study's two panels, gridded and labelled, written to path."""
    for axes in axes_pair:
        axes.grid(True, which="both", alpha=0.3)
        axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    print(f"# plot written to {path}")


# ---- jacobi ---------------------------------------------------------------------------------


def jacobi_group_runs(runs):
    """Rows keyed by (variant, nodes, ranks, nx, ny): the shortest verified solve over the repeats."""
    rows = {}
    for path, data in runs:
        key = (
            str(data.get("variant", "-")),
            data["nodes"],
            data["ranks"],
            data["nx"],
            data["ny"],
        )
        row = rows.setdefault(
            key,
            {
                "variant": key[0],
                "nodes": key[1],
                "ranks": key[2],
                "nx": key[3],
                "ny": key[4],
                "runs": 0,
                "seconds": None,
                "reference_seconds": None,
                "iterations": data.get("iterations"),
                "failed": False,
                "failed_files": [],
                "backend": data.get("backend", "?"),
                "launch": "-",
            },
        )
        row["runs"] += 1
        seconds = data.get("seconds")
        if (
            data.get("verified") is not True
            or data.get("mismatches", 0)
            or not isinstance(seconds, (int, float))
        ):
            row["failed"] = True
            row["failed_files"].append(path)
            continue  # an unverified time means nothing
        if row["seconds"] is None or seconds < row["seconds"]:
            row["seconds"] = float(seconds)
            row["iterations"] = data.get("iterations")
            # the launch that ran (persistent, graph, stream, ...; "host" loop marked)
            launch = str(data.get("launch", "-"))
            row["launch"] = launch + ("/host" if data.get("host_loop") else "")
        reference = data.get("reference_seconds")
        if isinstance(reference, (int, float)) and reference > 0:
            row["reference_seconds"] = (
                reference
                if row["reference_seconds"] is None
                else min(row["reference_seconds"], reference)
            )

    def order(row):
        rank = (
            JACOBI_VARIANT_ORDER.index(row["variant"])
            if row["variant"] in JACOBI_VARIANT_ORDER
            else 99
        )
        return (rank, row["variant"], row["ranks"], row["nodes"], row["nx"], row["ny"])

    return sorted(rows.values(), key=order)


def jacobi_guess_study(rows):
    if len({(r["nx"], r["ny"]) for r in rows}) == 1:
        return "strong"
    if len({(r["nx"], (r["ny"] - 2) / r["ranks"]) for r in rows}) == 1:
        return "weak"
    return "mixed"


def jacobi_add_scaling(rows, study):
    """Speed-up and efficiency per variant, relative to its row with the fewest ranks (rows are sorted)."""
    bases = {}
    for row in rows:
        base = bases.setdefault(row["variant"], row)
        row["speedup"] = row["efficiency"] = row["vs_1gpu"] = None
        if row["seconds"] and row["reference_seconds"]:
            row["vs_1gpu"] = row["reference_seconds"] / row["seconds"]
        if not row["seconds"] or not base["seconds"]:
            continue
        row["speedup"] = base["seconds"] / row["seconds"]
        if study == "weak":
            row["efficiency"] = row["speedup"]
        else:
            row["efficiency"] = row["speedup"] / (row["ranks"] / base["ranks"])


def jacobi_format_table(rows, study):
    base = rows[0]
    lines = [
        f"# jacobi {study} scaling, backend {base['backend']}: {len(rows)} configurations",
        "# seconds: the timed solve (median of a run's repeats), best of the runs; speedup: t_base / t against the"
        f" fewest ranks of the variant ({base['nodes']} nodes x {base['ranks'] // base['nodes']} ranks);"
        " eff: "
        + ("t_base / t" if study == "weak" else "speedup / growth in ranks")
        + "; vs_1gpu: the run's own 1-GPU reference / its time; launch: how its steps ran (/host: a host loop)",
    ]
    lines.append(
        f"{'variant':>9} {'launch':>16} {'nodes':>6} {'ranks':>6} {'nx':>7} {'ny':>8} {'rows/rank':>9} {'runs':>4}"
        f" {'iters':>6} {'seconds':>10} {'ref_s':>10} {'vs_1gpu':>7} {'speedup':>7} {'eff':>5}  status"
    )

    def show(value, form):
        return "-" if value is None else format(value, form)

    for row in rows:
        lines.append(
            f"{row['variant']:>9} {row['launch']:>16} {row['nodes']:>6} {row['ranks']:>6} {row['nx']:>7} {row['ny']:>8}"
            f" {(row['ny'] - 2) // row['ranks']:>9} {row['runs']:>4} {show(row['iterations'], 'd'):>6}"
            f" {show(row['seconds'], '.6f'):>10} {show(row['reference_seconds'], '.6f'):>10}"
            f" {show(row['vs_1gpu'], '.2f'):>7} {show(row['speedup'], '.2f'):>7}"
            f" {show(row['efficiency'], '.2f'):>5}  {'FAILED' if row['failed'] else 'ok'}"
        )
    return "\n".join(lines)


def jacobi_write_csv(path, rows, study):
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(
            [
                "study",
                "variant",
                "launch",
                "nodes",
                "ranks",
                "nx",
                "ny",
                "rows_per_rank",
                "runs",
                "iterations",
                "seconds",
                "reference_seconds",
                "speedup_vs_1gpu",
                "speedup",
                "efficiency",
                "verified",
            ]
        )
        for row in rows:

            def cell(value, form=".6f"):
                return "" if value is None else format(value, form)

            writer.writerow(
                [
                    study,
                    row["variant"],
                    row["launch"],
                    row["nodes"],
                    row["ranks"],
                    row["nx"],
                    row["ny"],
                    (row["ny"] - 2) // row["ranks"],
                    row["runs"],
                    "" if row["iterations"] is None else row["iterations"],
                    cell(row["seconds"], ".9f"),
                    cell(row["reference_seconds"], ".9f"),
                    cell(row["vs_1gpu"]),
                    cell(row["speedup"]),
                    cell(row["efficiency"]),
                    "false" if row["failed"] else "true",
                ]
            )


def jacobi_write_plot(path, rows, study):
    try:
        import matplotlib  # pylint: disable=import-outside-toplevel

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    except ImportError:
        print(
            f"# plot skipped: matplotlib is not importable (pip install matplotlib), {path} not written"
        )
        return
    figure, (time_axes, eff_axes) = plt.subplots(1, 2, figsize=(11, 4))
    for variant in sorted({row["variant"] for row in rows}):
        mine = [row for row in rows if row["variant"] == variant]
        nodes = [row["nodes"] for row in mine]
        time_axes.plot(
            nodes,
            [r["seconds"] or float("nan") for r in mine],
            marker="o",
            label=variant,
        )
        eff_axes.plot(
            nodes,
            [r["efficiency"] or float("nan") for r in mine],
            marker="o",
            label=variant,
        )
    time_axes.set(
        xscale="log",
        yscale="log",
        xlabel="nodes",
        ylabel="solve time (s)",
        title=f"jacobi {study} scaling",
    )
    eff_axes.set(
        xscale="log",
        xlabel="nodes",
        ylabel="efficiency",
        ylim=(0, 1.2),
        title="vs the fewest ranks",
    )
    save_plot(figure, (time_axes, eff_axes), path)


def summarize_multi_scal(runs, args, csv_path, plot_path):
    """The multi_scal table; returns the files of failed runs."""
    rows = group_runs(runs)
    modes = [m for m in MODE_ORDER if any(m in r["gbps"] for r in rows)]
    modes += sorted({m for r in rows for m in r["gbps"]} - set(modes))
    add_efficiency(rows, modes)
    study = guess_study(rows) if args.study == "auto" else args.study
    if args.study == "auto" and study == "mixed":
        print(
            "# note: neither n nor n per rank is constant across these runs: is this one study?"
        )
    print(format_table(rows, modes, study))
    if csv_path:
        write_csv(csv_path, rows, modes, study)
        print(f"# CSV written to {csv_path}")
    if plot_path:
        write_plot(plot_path, rows, modes, study)
    return [path for row in rows for path in row["failed_files"]]


def summarize_jacobi(runs, args, csv_path, plot_path):
    """The jacobi table; returns the files of failed runs."""
    rows = jacobi_group_runs(runs)
    study = jacobi_guess_study(rows) if args.study == "auto" else args.study
    if args.study == "auto" and study == "mixed":
        print(
            "# note: neither the grid nor the rows per rank are constant across these runs: is this one study?"
        )
    jacobi_add_scaling(rows, study)
    print(jacobi_format_table(rows, study))
    if csv_path:
        jacobi_write_csv(csv_path, rows, study)
        print(f"# CSV written to {csv_path}")
    if plot_path:
        jacobi_write_plot(plot_path, rows, study)
    return [path for row in rows for path in row["failed_files"]]


# ---- cg -------------------------------------------------------------------------------------


def cg_group_runs(runs):
    """Rows keyed by (variant, nodes, ranks, matrix, rows, nonzeros): the shortest verified time per iteration."""
    rows = {}
    for path, data in runs:
        key = (
            str(data.get("variant", "-")),
            data["nodes"],
            data["ranks"],
            str(data.get("matrix", "?")),
            data["rows"],
            data["nonzeros"],
        )
        row = rows.setdefault(
            key,
            {
                "variant": key[0],
                "nodes": key[1],
                "ranks": key[2],
                "matrix": key[3],
                "rows": key[4],
                "nonzeros": key[5],
                "runs": 0,
                "us_per_iteration": None,
                "seconds": None,
                "iterations": data.get("iterations"),
                "launch": "-",
                "failed": False,
                "failed_files": [],
                "backend": data.get("backend", "?"),
            },
        )
        row["runs"] += 1
        per_iteration = data.get("us_per_iteration")
        if (
            data.get("verified") is not True
            or data.get("exit_status", 0) != 0
            or not isinstance(per_iteration, (int, float))
            or not per_iteration > 0
        ):
            row["failed"] = True
            row["failed_files"].append(path)
            continue  # an unverified time means nothing
        if row["us_per_iteration"] is None or per_iteration < row["us_per_iteration"]:
            row["us_per_iteration"] = float(per_iteration)
            seconds = data.get("seconds")
            row["seconds"] = (
                float(seconds) if isinstance(seconds, (int, float)) else None
            )
            row["iterations"] = data.get("iterations")
            row["launch"] = str(data.get("launch", "-"))

    def order(row):
        rank = (
            CG_VARIANT_ORDER.index(row["variant"])
            if row["variant"] in CG_VARIANT_ORDER
            else 99
        )
        return (
            rank,
            row["variant"],
            row["ranks"],
            row["nodes"],
            row["rows"],
            row["matrix"],
        )

    return sorted(rows.values(), key=order)


def cg_guess_study(rows):
    if len({(r["matrix"], r["rows"], r["nonzeros"]) for r in rows}) == 1:
        return "strong"
    if len({r["rows"] / r["ranks"] for r in rows}) == 1:
        return "weak"
    return "mixed"


def cg_add_scaling(rows, study):
    """Speed-up and efficiency per variant, relative to its row with the fewest ranks (rows are sorted)."""
    bases = {}
    for row in rows:
        base = bases.setdefault(row["variant"], row)
        row["speedup"] = row["efficiency"] = None
        if not row["us_per_iteration"] or not base["us_per_iteration"]:
            continue
        row["speedup"] = base["us_per_iteration"] / row["us_per_iteration"]
        if study == "weak":
            row["efficiency"] = row["speedup"]
        else:
            row["efficiency"] = row["speedup"] / (row["ranks"] / base["ranks"])


def cg_format_table(rows, study):
    def nodes_text(count):
        return f"{count} node" + ("s" if count > 1 else "")

    base = rows[0]
    fewest, most = min(r["nodes"] for r in rows), max(r["nodes"] for r in rows)
    span = nodes_text(most) if fewest == most else f"{fewest} to {most} nodes"
    lines = [
        f"# cg {study} scaling, backend {base['backend']}: {len(rows)} configurations, {span}",
        "# us/iter: the timed solve (median of a run's repeats) / its iterations, best of the runs; speedup:"
        f" t_base / t against the fewest ranks of the variant ({base['ranks']} on {nodes_text(base['nodes'])});"
        " eff: "
        + ("t_base / t" if study == "weak" else "speedup / growth in ranks")
        + "; launch: how the solve ran (persistent: one cooperative launch; stream: a launch a phase)",
    ]
    lines.append(
        f"{'variant':>9} {'launch':>10} {'nodes':>6} {'ranks':>6} {'matrix':>14} {'rows':>11} {'nonzeros':>12}"
        f" {'rows/rank':>10} {'runs':>4} {'iters':>6} {'us/iter':>10} {'seconds':>10} {'speedup':>7} {'eff':>5}  status"
    )

    def show(value, form):
        return "-" if value is None else format(value, form)

    for row in rows:
        lines.append(
            f"{row['variant']:>9} {row['launch']:>10} {row['nodes']:>6} {row['ranks']:>6} {row['matrix']:>14}"
            f" {row['rows']:>11} {row['nonzeros']:>12} {row['rows'] // row['ranks']:>10} {row['runs']:>4}"
            f" {show(row['iterations'], 'd'):>6} {show(row['us_per_iteration'], '.3f'):>10}"
            f" {show(row['seconds'], '.6f'):>10} {show(row['speedup'], '.2f'):>7}"
            f" {show(row['efficiency'], '.2f'):>5}  {'FAILED' if row['failed'] else 'ok'}"
        )
    return "\n".join(lines)


def cg_write_csv(path, rows, study):
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(
            [
                "study",
                "variant",
                "launch",
                "nodes",
                "ranks",
                "matrix",
                "rows",
                "nonzeros",
                "rows_per_rank",
                "runs",
                "iterations",
                "us_per_iteration",
                "seconds",
                "speedup",
                "efficiency",
                "verified",
            ]
        )
        for row in rows:

            def cell(value, form=".6f"):
                return "" if value is None else format(value, form)

            writer.writerow(
                [
                    study,
                    row["variant"],
                    row["launch"],
                    row["nodes"],
                    row["ranks"],
                    row["matrix"],
                    row["rows"],
                    row["nonzeros"],
                    row["rows"] // row["ranks"],
                    row["runs"],
                    "" if row["iterations"] is None else row["iterations"],
                    cell(row["us_per_iteration"]),
                    cell(row["seconds"], ".9f"),
                    cell(row["speedup"]),
                    cell(row["efficiency"]),
                    "false" if row["failed"] else "true",
                ]
            )


def cg_write_plot(path, rows, study):
    try:
        import matplotlib  # pylint: disable=import-outside-toplevel

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    except ImportError:
        print(
            f"# plot skipped: matplotlib is not importable (pip install matplotlib), {path} not written"
        )
        return
    figure, (time_axes, eff_axes) = plt.subplots(1, 2, figsize=(11, 4))
    for variant in sorted({row["variant"] for row in rows}):
        mine = [row for row in rows if row["variant"] == variant]
        ranks = [row["ranks"] for row in mine]
        time_axes.plot(
            ranks,
            [r["us_per_iteration"] or float("nan") for r in mine],
            marker="o",
            label=variant,
        )
        eff_axes.plot(
            ranks,
            [r["efficiency"] or float("nan") for r in mine],
            marker="o",
            label=variant,
        )
    time_axes.set(
        xscale="log",
        yscale="log",
        xlabel="ranks",
        ylabel="us per iteration",
        title=f"cg {study} scaling",
    )
    eff_axes.set(
        xscale="log",
        xlabel="ranks",
        ylabel="efficiency",
        ylim=(0, 1.2),
        title="vs the fewest ranks",
    )
    save_plot(figure, (time_axes, eff_axes), path)


def summarize_cg(runs, args, csv_path, plot_path):
    """The cg table; returns the files of failed runs."""
    rows = cg_group_runs(runs)
    study = cg_guess_study(rows) if args.study == "auto" else args.study
    if args.study == "auto" and study == "mixed":
        print(
            "# note: neither the matrix nor the rows per rank are constant across these runs: is this one study?"
        )
    cg_add_scaling(rows, study)
    print(cg_format_table(rows, study))
    if csv_path:
        cg_write_csv(csv_path, rows, study)
        print(f"# CSV written to {csv_path}")
    if plot_path:
        cg_write_plot(plot_path, rows, study)
    return [path for row in rows for path in row["failed_files"]]


def output_path(path, program, several):
    """PATH itself, or with -PROGRAM before its extension when several programs share it."""
    if not path or path == "-":
        return None
    if not several:
        return path
    stem, extension = os.path.splitext(path)
    return f"{stem}-{program}{extension}"


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Scaling tables from multi_scal, jacobi and cg --json result files."
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="result JSON files or folders holding them",
    )
    parser.add_argument(
        "--csv",
        default="scaling.csv",
        help="CSV file to write (default scaling.csv; '-' for none)",
    )
    parser.add_argument("--plot", help="PNG file to draw (needs matplotlib)")
    parser.add_argument(
        "--study",
        choices=["auto", "weak", "strong"],
        default="auto",
        help="label of the study (default: weak if n per rank is constant, strong if n is)",
    )
    args = parser.parse_args(argv)

    try:
        files = find_json_files(args.paths)
    except FileNotFoundError as missing:
        print(f"summarize.py: no such file or folder: {missing}", file=sys.stderr)
        return 2
    runs = []
    for path in files:
        data, reason = load_run(path)
        if data is None:
            print(f"# skipped {path}: {reason}", file=sys.stderr)
        else:
            runs.append((path, data))
    if not runs:
        print(
            f"summarize.py: no multi_scal, jacobi or cg results among {len(files)} JSON files in {' '.join(args.paths)}",
            file=sys.stderr,
        )
        return 2

    programs = [
        program
        for program in PROGRAMS
        if any(data["program"] == program for _, data in runs)
    ]
    summaries = {
        "multi_scal": summarize_multi_scal,
        "jacobi": summarize_jacobi,
        "cg": summarize_cg,
    }
    failed = []
    for index, program in enumerate(programs):
        if index:
            print()
        mine = [(path, data) for path, data in runs if data["program"] == program]
        several = len(programs) > 1
        failed += summaries[program](
            mine,
            args,
            output_path(args.csv, program, several),
            output_path(args.plot, program, several),
        )
    if failed:
        print(
            f"summarize.py: {len(failed)} run(s) not verified or exited non-zero; their rows say FAILED:"
            f" {' '.join(failed)}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

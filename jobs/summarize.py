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
from dataclasses import dataclass
from typing import Callable, Optional

PROGRAMS = ["multi_scal", "jacobi", "cg"]
MODE_ORDER = ["local", "ring", "global"]


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
    if data["program"] == "cg":
        data.setdefault("nodes", 1)  # written before cg ran across nodes
    elif data["program"] == "multi_scal" and not data.get("results"):
        if data.get("bench"):
            return (
                None,
                "a --bench sweep (not summarized here: run the modes, without --bench)",
            )
        return None, "no benchmark results (a --check-peers run?)"
    for key in TABLES[data["program"]].integers:
        if not isinstance(data.get(key), int):
            return None, f"field '{key}' missing or not an integer"
    return data, None


# ---- what differs between the programs: how repeats merge, and the columns -----------------


def is_number(value):
    return isinstance(value, (int, float))


def merge_multi_scal(row, data):
    """Best GB/s per mode over the repeats; the run fails unless every mode verified."""
    verified = data.get("exit_status", 0) == 0 and all(
        r.get("verified", False) and not r.get("mismatches", 0) for r in data["results"]
    )
    ms = data.get("table_create_ms")
    if is_number(ms):
        old = row.get("table_create_ms")
        row["table_create_ms"] = ms if old is None else min(old, ms)
    for result in data["results"]:
        if not result.get("verified", False) or result.get("mismatches", 0):
            continue  # an unverified figure means nothing
        mode = result.get("mode", "?")
        row["gbps"][mode] = max(
            row["gbps"].get(mode, 0.0), float(result.get("gbps", 0.0))
        )
    return verified


def merge_jacobi(row, data):
    """The shortest verified solve over the repeats, and the launch that ran it."""
    seconds = data.get("seconds")
    if (
        data.get("verified") is not True
        or data.get("mismatches", 0)
        or not is_number(seconds)
    ):
        return False  # an unverified time means nothing
    if row["seconds"] is None or seconds < row["seconds"]:
        row["seconds"] = float(seconds)
        row["iterations"] = data.get("iterations")
        # the launch that ran (persistent, graph, stream, ...; "host" loop marked)
        launch = str(data.get("launch", "-"))
        row["launch"] = launch + ("/host" if data.get("host_loop") else "")
    reference = data.get("reference_seconds")
    if is_number(reference) and reference > 0:
        old = row["reference_seconds"]
        row["reference_seconds"] = reference if old is None else min(old, reference)
    return True


def merge_cg(row, data):
    """The shortest verified time per iteration over the repeats, and its launch."""
    per_iteration = data.get("us_per_iteration")
    if (
        data.get("verified") is not True
        or data.get("exit_status", 0) != 0
        or not is_number(per_iteration)
        or not per_iteration > 0
    ):
        return False  # an unverified time means nothing
    if row["us_per_iteration"] is None or per_iteration < row["us_per_iteration"]:
        row["us_per_iteration"] = float(per_iteration)
        seconds = data.get("seconds")
        row["seconds"] = float(seconds) if is_number(seconds) else None
        row["iterations"] = data.get("iterations")
        row["launch"] = str(data.get("launch", "-"))
    return True


@dataclass
class Column:
    """One column: its head and width in the text table, its head in the CSV, and the
    value of a row; the text shows it with form ('-' for none), the CSV with csv_form
    (the value itself when None; '' for none)."""

    head: str
    width: int
    csv_head: str
    value: Callable
    form: str = ""
    csv_form: Optional[str] = None


def field(name):
    return lambda row: row.get(name)


def fixed_columns(specs):
    """Columns from (head, width, csv_head, field or function, form, csv_form) tuples."""
    columns = []
    for head, width, csv_head, value, form, csv_form in specs:
        value = field(value) if isinstance(value, str) else value
        columns.append(Column(head, width, csv_head, value, form, csv_form))
    return columns


def solver_columns(launch_width, problem, times):
    """jacobi's and cg's columns: the variant and launch, where it ran, the problem's
    columns, the repeats and iterations, the times, then the scaling."""
    return fixed_columns(
        [
            ("variant", 9, "variant", "variant", "", None),
            ("launch", launch_width, "launch", "launch", "", None),
            ("nodes", 6, "nodes", "nodes", "", None),
            ("ranks", 6, "ranks", "ranks", "", None),
        ]
        + problem
        + [
            ("runs", 4, "runs", "runs", "", None),
            ("iters", 6, "iterations", "iterations", "d", None),
        ]
        + times
        + [
            ("speedup", 7, "speedup", "speedup", ".2f", ".6f"),
            ("eff", 5, "efficiency", "efficiency", ".2f", ".6f"),
        ]
    )


def jacobi_rows_per_rank(row):
    return (row["ny"] - 2) // row["ranks"]


def cg_rows_per_rank(row):
    return row["rows"] // row["ranks"]


JACOBI_COLUMNS = solver_columns(
    16,
    [
        ("nx", 7, "nx", "nx", "", None),
        ("ny", 8, "ny", "ny", "", None),
        ("rows/rank", 9, "rows_per_rank", jacobi_rows_per_rank, "", None),
    ],
    [
        ("seconds", 10, "seconds", "seconds", ".6f", ".9f"),
        ("ref_s", 10, "reference_seconds", "reference_seconds", ".6f", ".9f"),
        ("vs_1gpu", 7, "speedup_vs_1gpu", "vs_1gpu", ".2f", ".6f"),
    ],
)
CG_COLUMNS = solver_columns(
    10,
    [
        ("matrix", 14, "matrix", "matrix", "", None),
        ("rows", 11, "rows", "rows", "", None),
        ("nonzeros", 12, "nonzeros", "nonzeros", "", None),
        ("rows/rank", 10, "rows_per_rank", cg_rows_per_rank, "", None),
    ],
    [
        ("us/iter", 10, "us_per_iteration", "us_per_iteration", ".3f", ".6f"),
        ("seconds", 10, "seconds", "seconds", ".6f", ".9f"),
    ],
)


def multi_scal_modes(rows):
    """The modes any row measured: local, ring, global first, then the others by name."""
    modes = [m for m in MODE_ORDER if any(m in r["gbps"] for r in rows)]
    return modes + sorted({m for r in rows for m in r["gbps"]} - set(modes))


def multi_scal_columns(rows):
    columns = fixed_columns(
        [
            ("kernel", 8, "kernel", "kernel", "", None),
            ("nodes", 6, "nodes", "nodes", "", None),
            ("ranks", 6, "ranks", "ranks", "", None),
            ("n", 14, "n", "n", "", None),
            (
                "n/rank",
                12,
                "n_per_rank",
                lambda row: row["n"] // row["ranks"],
                "",
                None,
            ),
            ("runs", 4, "runs", "runs", "", None),
            ("table_ms", 9, "table_create_ms", "table_create_ms", ".3f", ".6f"),
        ]
    )
    for mode in multi_scal_modes(rows):
        columns += [
            Column(
                f"{mode} GB/s",
                13,
                f"{mode}_gbps",
                lambda r, m=mode: r["gbps"].get(m),
                ".2f",
                ".6f",
            ),
            Column(
                "eff",
                5,
                f"{mode}_efficiency",
                lambda r, m=mode: r["efficiency"].get(m),
                ".2f",
                ".6f",
            ),
        ]
    return columns


def multi_scal_scaling(rows, study):  # pylint: disable=unused-argument
    """GB/s per rank against the row of the kernel with the fewest ranks, for every mode."""
    bases = {}
    for row in rows:
        base = bases.setdefault(row["kernel"], row)
        row["efficiency"] = {}
        for mode in multi_scal_modes(rows):
            if mode in row["gbps"] and base["gbps"].get(mode):
                per_rank = row["gbps"][mode] / row["ranks"]
                base_per_rank = base["gbps"][mode] / base["ranks"]
                row["efficiency"][mode] = per_rank / base_per_rank


def time_scaling(time):
    """Speed-up t_base / t against the variant's row with the fewest ranks; efficiency:
    the speed-up (weak) or the speed-up over the growth in ranks (strong)."""

    def scale(rows, study):
        bases = {}
        for row in rows:
            base = bases.setdefault(row["variant"], row)
            row["speedup"] = row["efficiency"] = None
            if not row[time] or not base[time]:
                continue
            row["speedup"] = base[time] / row[time]
            if study == "weak":
                row["efficiency"] = row["speedup"]
            else:
                row["efficiency"] = row["speedup"] / (row["ranks"] / base["ranks"])

    return scale


def jacobi_scaling(rows, study):
    time_scaling("seconds")(rows, study)
    for row in rows:
        row["vs_1gpu"] = None
        if row["seconds"] and row["reference_seconds"]:
            row["vs_1gpu"] = row["reference_seconds"] / row["seconds"]


def eff_text(study):
    return "t_base / t" if study == "weak" else "speedup / growth in ranks"


def nodes_text(count):
    return f"{count} node" + ("s" if count > 1 else "")


def multi_scal_legend(rows, study):  # pylint: disable=unused-argument
    base = rows[0]
    return (
        "# GB/s: bytes read + written by all ranks / slowest rank's time, best of the runs;"
        f" eff: GB/s per rank vs the fewest ranks ({base['nodes']} nodes x {base['ranks'] // base['nodes']} ranks)"
    )


def jacobi_legend(rows, study):
    base = rows[0]
    return (
        "# seconds: the timed solve (median of a run's repeats), best of the runs; speedup: t_base / t against the"
        f" fewest ranks of the variant ({base['nodes']} nodes x {base['ranks'] // base['nodes']} ranks);"
        f" eff: {eff_text(study)}; vs_1gpu: the run's own 1-GPU reference / its time;"
        " launch: how its steps ran (/host: a host loop)"
    )


def cg_legend(rows, study):
    base = rows[0]
    return (
        "# us/iter: the timed solve (median of a run's repeats) / its iterations, best of the runs; speedup:"
        f" t_base / t against the fewest ranks of the variant ({base['ranks']} on {nodes_text(base['nodes'])});"
        f" eff: {eff_text(study)}; launch: how the solve ran (persistent: one cooperative launch;"
        " stream: a launch a phase)"
    )


def cg_span(rows):
    fewest, most = min(r["nodes"] for r in rows), max(r["nodes"] for r in rows)
    return ", " + (nodes_text(most) if fewest == most else f"{fewest} to {most} nodes")


@dataclass
class Table:
    """A program's table: which fields a run needs, which repeat one configuration
    (key), how a repeat merges into its row, the row order, what one study holds fixed,
    the scaling, the columns and the plot."""

    integers: tuple  # fields a run must hold as integers
    key: tuple  # the fields of a configuration: runs with the same are repeats
    series: str  # the field whose rows scale against each other (kernel, variant)
    start: dict  # a new row's other fields
    merge: Callable  # merge(row, data) -> whether the run verified
    order: tuple  # after the series: the fields the rows are sorted by
    problem: Callable  # a row's problem: one for all rows is a strong study
    per_rank: Callable  # a row's share: one for all rows is a weak study
    mixed: str  # what the note says is not constant, with its verb
    scaling: Callable  # scaling(rows, study) adds speedup/efficiency
    columns: Callable  # columns(rows) -> [Column]
    legend: Callable  # legend(rows, study) -> the table's second line
    plot_x: str
    plot_lines: Callable  # plot_lines(series, its rows, all rows) -> [(label, times, efficiencies)]
    plot_ylabel: str
    plot_title: str
    plot_eff_title: str
    series_order: tuple = ()  # series shown first, in this order
    span: Callable = lambda rows: ""  # the title's tail


NAN = float("nan")


def solver_lines(time):
    """jacobi's and cg's plot: a line a variant, its time and its efficiency."""
    return lambda variant, mine, rows: [
        (
            variant,
            [r[time] or NAN for r in mine],
            [r["efficiency"] or NAN for r in mine],
        )
    ]


TABLES = {
    "multi_scal": Table(
        integers=("ranks", "nodes", "n"),
        key=("kernel", "nodes", "ranks", "n"),
        series="kernel",
        start={"gbps": {}, "table_create_ms": None},
        merge=merge_multi_scal,
        order=("ranks", "nodes", "n"),
        problem=lambda r: r["n"],
        per_rank=lambda r: r["n"] / r["ranks"],
        mixed="n nor n per rank is",
        scaling=multi_scal_scaling,
        columns=multi_scal_columns,
        legend=multi_scal_legend,
        plot_x="nodes",
        plot_lines=lambda kernel, mine, rows: [
            (
                mode if kernel == "-" else f"{mode} ({kernel})",
                [r["gbps"].get(mode, NAN) for r in mine],
                [r["efficiency"].get(mode, NAN) for r in mine],
            )
            for mode in multi_scal_modes(rows)
        ],
        plot_ylabel="GB/s (all ranks)",
        plot_title="{study} scaling",
        plot_eff_title="GB/s per rank vs smallest",
    ),
    "jacobi": Table(
        integers=("ranks", "nodes", "nx", "ny"),
        key=("variant", "nodes", "ranks", "nx", "ny"),
        series="variant",
        series_order=("table", "host-sync", "mpi"),
        start={"seconds": None, "reference_seconds": None, "launch": "-"},
        merge=merge_jacobi,
        order=("ranks", "nodes", "nx", "ny"),
        problem=lambda r: (r["nx"], r["ny"]),
        per_rank=lambda r: (r["nx"], (r["ny"] - 2) / r["ranks"]),
        mixed="the grid nor the rows per rank are",
        scaling=jacobi_scaling,
        columns=lambda rows: JACOBI_COLUMNS,
        legend=jacobi_legend,
        plot_x="nodes",
        plot_lines=solver_lines("seconds"),
        plot_ylabel="solve time (s)",
        plot_title="jacobi {study} scaling",
        plot_eff_title="vs the fewest ranks",
    ),
    "cg": Table(
        integers=("ranks", "nodes", "rows", "nonzeros"),
        key=("variant", "nodes", "ranks", "matrix", "rows", "nonzeros"),
        series="variant",
        series_order=("standard", "pipelined"),
        start={"us_per_iteration": None, "seconds": None, "launch": "-"},
        merge=merge_cg,
        order=("ranks", "nodes", "rows", "matrix"),
        problem=lambda r: (r["matrix"], r["rows"], r["nonzeros"]),
        per_rank=lambda r: r["rows"] / r["ranks"],
        mixed="the matrix nor the rows per rank are",
        scaling=time_scaling("us_per_iteration"),
        columns=lambda rows: CG_COLUMNS,
        legend=cg_legend,
        span=cg_span,
        plot_x="ranks",
        plot_lines=solver_lines("us_per_iteration"),
        plot_ylabel="us per iteration",
        plot_title="cg {study} scaling",
        plot_eff_title="vs the fewest ranks",
    ),
}

# ---- one renderer for every program ---------------------------------------------------------


def group_runs(table, runs):
    """Rows keyed by the table's configuration fields, each repeat merged in."""
    rows = {}
    for path, data in runs:
        # the fields of a configuration the run may lack: "-" or "?", as strings
        key = tuple(
            data[name]
            if name in table.integers
            else str(data.get(name, "?" if name == "matrix" else "-"))
            for name in table.key
        )
        row = rows.setdefault(
            key,
            dict(
                zip(table.key, key),
                runs=0,
                iterations=data.get("iterations"),
                failed=False,
                failed_files=[],
                backend=data.get("backend", "?"),
                **{
                    name: dict(value) if isinstance(value, dict) else value
                    for name, value in table.start.items()
                },
            ),
        )
        row["runs"] += 1
        if not table.merge(row, data):
            row["failed"] = True
            row["failed_files"].append(path)

    def order(row):
        series = row[table.series]
        rank = table.series_order.index(series) if series in table.series_order else 99
        return (rank, series) + tuple(row[name] for name in table.order)

    return sorted(rows.values(), key=order)


def guess_study(table, rows):
    if len({table.problem(r) for r in rows}) == 1:
        return "strong"
    if len({table.per_rank(r) for r in rows}) == 1:
        return "weak"
    return "mixed"


def text_cell(column, row):
    value = column.value(row)
    return "-" if value is None else format(value, column.form)


def csv_cell(column, row):
    value = column.value(row)
    if value is None:
        return ""
    return value if column.csv_form is None else format(value, column.csv_form)


def format_table(program, table, rows, columns, study):
    base = rows[0]
    lines = [
        f"# {program} {study} scaling, backend {base['backend']}: {len(rows)} configurations"
        + table.span(rows),
        table.legend(rows, study),
        " ".join(f"{c.head:>{c.width}}" for c in columns) + "  status",
    ]
    for row in rows:
        cells = " ".join(f"{text_cell(c, row):>{c.width}}" for c in columns)
        lines.append(cells + ("  FAILED" if row["failed"] else "  ok"))
    return "\n".join(lines)


def write_csv(path, rows, columns, study):
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["study"] + [c.csv_head for c in columns] + ["verified"])
        for row in rows:
            writer.writerow(
                [study]
                + [csv_cell(c, row) for c in columns]
                + ["false" if row["failed"] else "true"]
            )


def write_plot(path, table, rows, study):
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
    for series in sorted({row[table.series] for row in rows}):
        mine = [row for row in rows if row[table.series] == series]
        x = [row[table.plot_x] for row in mine]
        for label, times, efficiencies in table.plot_lines(series, mine, rows):
            time_axes.plot(x, times, marker="o", label=label)
            eff_axes.plot(x, efficiencies, marker="o", label=label)
    time_axes.set(
        xscale="log",
        yscale="log",
        xlabel=table.plot_x,
        ylabel=table.plot_ylabel,
        title=table.plot_title.format(study=study),
    )
    eff_axes.set(
        xscale="log",
        xlabel=table.plot_x,
        ylabel="efficiency",
        ylim=(0, 1.2),
        title=table.plot_eff_title,
    )
    for axes in (time_axes, eff_axes):
        axes.grid(True, which="both", alpha=0.3)
        axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    print(f"# plot written to {path}")


def summarize(program, runs, args, csv_path, plot_path):
    """One program's table (and CSV, plot); returns the files of failed runs."""
    table = TABLES[program]
    rows = group_runs(table, runs)
    study = guess_study(table, rows) if args.study == "auto" else args.study
    if args.study == "auto" and study == "mixed":
        print(
            f"# note: neither {table.mixed} constant across these runs: is this one study?"
        )
    table.scaling(rows, study)
    columns = table.columns(rows)
    print(format_table(program, table, rows, columns, study))
    if csv_path:
        write_csv(csv_path, rows, columns, study)
        print(f"# CSV written to {csv_path}")
    if plot_path:
        write_plot(plot_path, table, rows, study)
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
    failed = []
    for index, program in enumerate(programs):
        if index:
            print()
        mine = [(path, data) for path, data in runs if data["program"] == program]
        several = len(programs) > 1
        failed += summarize(
            program,
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

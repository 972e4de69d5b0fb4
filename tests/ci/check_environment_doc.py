#!/usr/bin/env python3
"""check_environment_doc.py - every environment variable the sources read is in
docs/environment.md, and every one the document lists is read somewhere.

What counts as read, in src/ and kernels/: a getenv("NAME") or test_hook_read("NAME", ...)
in C, an os.environ.get("NAME") or os.environ["NAME"] in Python, and the names of the
programs' tuning tables (quoted NAMEs of their prefixes, JACOBI_ and SCAL_, in the files
that read those tables through getenv(table[v].name)). What counts as documented: a name
in backquotes in the first column of a table of docs/environment.md.

Usage: check_environment_doc.py SOURCE_DIR
"""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import pathlib
import re
import sys

CALLS = re.compile(
    r'(?:\bgetenv|\btest_hook_read|os\.environ\.get)\(\s*"([A-Z][A-Z0-9_]+)"'
    r'|os\.environ\[\s*"([A-Z][A-Z0-9_]+)"\s*\]'
)
# files whose getenv takes a name from a table of names
TABLES = {"src/jacobi/jacobi_options.c": "JACOBI_", "src/multi_scal/options.c": "SCAL_"}


def read_names(top):
    names = {}
    for path in sorted(top.glob("src/**/*")) + sorted(top.glob("kernels/**/*")):
        if path.suffix not in (".c", ".h", ".hip", ".py") or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        rel = str(path.relative_to(top))
        for match in CALLS.finditer(text):
            names.setdefault(match.group(1) or match.group(2), rel)
        prefix = TABLES.get(rel)
        if prefix:
            for name in re.findall(r'"(' + prefix + r'[A-Z0-9_]+)"', text):
                if "TEST" not in name:
                    names.setdefault(name, rel)
    return names


def documented_names(doc):
    names = set()
    for line in doc.read_text().splitlines():
        match = re.match(r"^\| `([A-Z][A-Z0-9_]+)` \|", line)
        if match:
            names.add(match.group(1))
    return names


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    top = pathlib.Path(argv[1])
    read = read_names(top)
    documented = documented_names(top / "docs/environment.md")
    missing = sorted(set(read) - documented)
    stale = sorted(documented - set(read))
    for name in missing:
        print(f"FAIL: {name} is read ({read[name]}) but not in docs/environment.md")
    for name in stale:
        print(
            f"FAIL: {name} is in docs/environment.md but nothing in src/ or kernels/ reads it"
        )
    print(f"# {len(read)} variables read, {len(documented)} documented")
    if missing or stale:
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

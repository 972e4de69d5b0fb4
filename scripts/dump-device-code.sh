#!/usr/bin/env bash
# dump-device-code.sh - writes the device code of every GPU source of a
# configured build as text, so that two trees (before and after a move or a
# split) can be compared kernel for kernel without a GPU: PTX (compute_90) from
# a CUDA build, gfx90a assembly from a HIP build. Each source is compiled with
# the build's own command (compile_commands.json), only the output changed, so
# the include paths and flags are the build's. Paths, file-name hashes and
# debug sections are masked: what stays is what the GPU would run.
#
# Usage: scripts/dump-device-code.sh <build-dir> <out-dir>
#   <build-dir>  configured with -DSHARDTAB_BACKEND=cuda or hip and
#                -DCMAKE_EXPORT_COMPILE_COMMANDS=ON (nothing needs to be built)
#   <out-dir>    gets one <source>.ptx or <source>.gfx90a.s a source, masked,
#                and functions.ptx or functions.gfx90a.s: every function of
#                every source, sorted by name, its local labels renumbered, so
#                that code moved between files compares equal
# Compare two trees: diff <out-a>/functions.ptx <out-b>/functions.ptx (or
# diff -r where the sources kept their file names).
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
[[ $# -eq 2 ]] || { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
db=$build/compile_commands.json
[[ -f $db ]] || { echo "dump-device-code: no $db (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)" >&2; exit 2; }

python3 - "$db" "$out" <<'PY'
import json, os, re, shlex, subprocess, sys

db, out = sys.argv[1], sys.argv[2]
done = set()
functions = {}  # name -> masked text, over every source


def split_functions(text, ptx):
    """Each function's text by name: PTX .entry/.func definitions (to the brace
    that closes them), or the gfx90a chunk from a '.type NAME,@function' to
    the next one (its body and kernel descriptor)."""
    found = {}
    lines = text.splitlines()
    if ptx:
        i = 0
        while i < len(lines):
            m = re.match(r"^(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)", lines[i])
            if not m:
                i += 1
                continue
            j = i
            while j < len(lines) and lines[j] != "}":
                if lines[j].rstrip().endswith(";") and j > i and "{" not in "".join(lines[i:j + 1]):
                    break  # a declaration, no body
                j += 1
            found[m.group(1)] = "\n".join(lines[i:j + 1])
            i = j + 1
    else:
        starts = [(k, m.group(1)) for k, l in enumerate(lines)
                  for m in [re.match(r"^\s*\.type\s+([\w.$]+),@function", l)] if m]
        for n, (k, name) in enumerate(starts):
            end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
            body = [l for l in lines[k:end] if not re.match(r"^\s*\.(amdgpu_metadata|end_amdgpu_metadata)", l)]
            found[name] = "\n".join(body)
    for name, body in found.items():
        # local labels carry the function's place in its file
        body = re.sub(r"(\$L__BB|\.LBB|\.Lfunc_end|\.Ltmp|\.Lfunc_begin)[0-9]+", r"\1N", body)
        functions[name] = body


for entry in json.load(open(db)):
    src = entry["file"]
    if not src.endswith(".hip") or src in done:
        continue
    done.add(src)
    words = shlex.split(entry["command"])
    compiler = os.path.basename(words[0])
    # drop the object output and the compile-only flag; ask for device text instead
    keep, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w in ("-o", "-MF", "-MT"):
            skip = True
            continue
        if w in ("-c", "-MD", "-MMD", "-g", "-ggdb") or w.startswith("--generate-code") or w.startswith("-gencode"):
            continue
        keep.append(w)
    name = os.path.basename(src)
    if "nvcc" in compiler:
        target = os.path.join(out, name + ".ptx")
        cmd = keep + ["-ptx", "-arch=compute_90", "-o", target]
    else:
        target = os.path.join(out, name + ".gfx90a.s")
        keep = [w for w in keep if not w.startswith("--offload-arch")]
        cmd = keep + ["--offload-arch=gfx90a", "--cuda-device-only", "-S", "-o", target]
    subprocess.run(cmd, check=True, cwd=entry["directory"])
    text = open(target).read()
    # what depends on where the tree lies, not on the code
    text = re.sub(r"_INTERNAL_[0-9a-f]+_[0-9]+_[A-Za-z0-9_]+?_([0-9a-f]{8})", "_INTERNAL_X", text)
    # nvcc's name for a file-static symbol: _INTERNAL_<hash of the file>_<len>_<file>
    text = re.sub(r"_INTERNAL_[0-9a-f]{8}_", "_INTERNAL_X_", text)
    text = re.sub(r"__unnamed_[0-9]+", "__unnamed_N", text)
    text = re.sub(r'^\s*\.file\s.*$', "", text, flags=re.M)
    text = re.sub(r'^\s*\.(section\s+\.debug|loc|ident).*$', "", text, flags=re.M)
    text = re.sub(r"^// .*$", "", text, flags=re.M)
    open(target, "w").write(text)
    split_functions(text, target.endswith(".ptx"))
    print(f"# {name}: {sum(1 for l in text.splitlines() if l.strip())} lines")

if functions:
    kind = "ptx" if any(f.endswith(".ptx") for f in os.listdir(out)) else "gfx90a.s"
    with open(os.path.join(out, "functions." + kind), "w") as f:
        for name in sorted(functions):
            f.write(f"\n;;;; {name}\n{functions[name]}\n")
    print(f"# {len(functions)} functions in functions.{kind}")
PY

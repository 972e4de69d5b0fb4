#!/usr/bin/env bash
# check_hip_names.sh - fails when a GPU source uses a HIP name that
# src/platform/gpu_runtime.h does not map onto CUDA, i.e. code that builds for
# AMD but would not build with -DSHARDTAB_BACKEND=cuda.
#
# Scans kernels/*/*.hip, src/shardtab/backend_gpu.c, tests/gpu/*.c and every
# source under include/ src/ kernels/ tests/ that includes gpu_runtime.h, plus
# any FILE given, for identifiers \bhip[A-Z][A-Za-z0-9_]*\b outside comments,
# string and character literals. A name counts as mapped when the CUDA branch
# of gpu_runtime.h (the #else of its `#if !defined(GPU_BACKEND_CUDA)`) has a
# `#define NAME`, a `typedef ... NAME;` or a `static inline ... NAME(`.
#
# Usage: tests/platform/check_hip_names.sh [--root DIR] [--header FILE] [FILE...]
#        tests/platform/check_hip_names.sh [--root DIR] --self-test
#   --root DIR     the source tree (default: the parent of this script's folder)
#   --header FILE  the mapping header (default: DIR/src/platform/gpu_runtime.h)
#   --self-test    prove the check works: a temporary file using hipFakeFunction
#                  must make it fail, naming that file, line and name, while names
#                  only in comments or strings are ignored, and mapped names pass.
#   HIP_NAMES_EXTRA_FILES (environment): more files to scan, separated by ':'.
# Exit: 0 all mapped; 1 unmapped names found (or self-test failed); 2 usage or
# set-up error.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail

self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$self")/../.." && pwd)
header=""
self_test=0
files=()

while (($#)); do
  case $1 in
    --root)
      [[ $# -ge 2 ]] || { echo "check_hip_names: --root needs a folder" >&2; exit 2; }
      root=$2
      shift 2
      ;;
    --header)
      [[ $# -ge 2 ]] || { echo "check_hip_names: --header needs a file" >&2; exit 2; }
      header=$2
      shift 2
      ;;
    --self-test)
      self_test=1
      shift
      ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    --)
      shift
      files+=("$@")
      break
      ;;
    -*)
      echo "check_hip_names: unknown option '$1' (see --help)" >&2
      exit 2
      ;;
    *)
      files+=("$1")
      shift
      ;;
  esac
done
[[ -n $header ]] || header=$root/src/platform/gpu_runtime.h

if ! command -v python3 >/dev/null; then
  echo "check_hip_names: python3 is needed (Debian: apt-get install python3)" >&2
  exit 2
fi

if ((self_test)); then
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_hip_names.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  cat >"$tmp/fake.c" <<'EOF'
/* hipCommentOnlyName must be ignored: it is in a comment */
#include "gpu_runtime.h"
static void fake(void *p)
{
    const char *s = "hipStringOnlyName must be ignored \" hipEscapedName too";
    (void)s; // hipLineCommentName is ignored as well
    (void)hipMalloc(&p, 8);
    (void)hipFakeFunction(p);
}
EOF
  cat >"$tmp/mapped.c" <<'EOF'
#include "gpu_runtime.h"
static hipError_t fine(void **p) { return hipMalloc(p, 8) == hipSuccess ? hipSuccess : hipGetLastError(); }
EOF
  fail=0
  set +e
  out=$(bash "$self" --root "$root" --header "$header" "$tmp/fake.c" 2>&1)
  rc=$?
  ok_out=$(bash "$self" --root "$root" --header "$header" "$tmp/mapped.c" 2>&1)
  ok_rc=$?
  env_out=$(HIP_NAMES_EXTRA_FILES="$tmp/fake.c" bash "$self" --root "$root" --header "$header" 2>&1)
  env_rc=$?
  set -e
  printf '%s\n' "$out" | sed 's/^/# self-test> /'
  if [[ $rc -ne 1 ]]; then
    echo "self-test: want exit 1 for a file using hipFakeFunction, got $rc" >&2
    fail=1
  fi
  if ! grep -q "fake\.c:8: hipFakeFunction" <<<"$out"; then
    echo "self-test: the output does not name fake.c:8: hipFakeFunction" >&2
    fail=1
  fi
  for ignored in hipCommentOnlyName hipStringOnlyName hipEscapedName hipLineCommentName hipMalloc; do
    if grep -q "$ignored" <<<"$out"; then
      echo "self-test: $ignored was reported, but it is in a comment, a string, or mapped" >&2
      fail=1
    fi
  done
  if [[ $ok_rc -ne 0 ]]; then
    echo "self-test: want exit 0 for a file using only mapped names, got $ok_rc:" >&2
    printf '%s\n' "$ok_out" >&2
    fail=1
  fi
  if [[ $env_rc -ne 1 ]] || ! grep -q "fake\.c:8: hipFakeFunction" <<<"$env_out"; then
    echo "self-test: HIP_NAMES_EXTRA_FILES=fake.c did not fail naming hipFakeFunction (exit $env_rc)" >&2
    fail=1
  fi
  if ((fail)); then
    echo "# check_hip_names self-test: FAILED" >&2
    exit 1
  fi
  echo "# check_hip_names self-test: OK (an unmapped name fails with file:line, comments and strings are ignored, mapped names pass)"
  exit 0
fi

if [[ -n ${HIP_NAMES_EXTRA_FILES:-} ]]; then
  IFS=: read -r -a extra <<<"$HIP_NAMES_EXTRA_FILES"
  files+=("${extra[@]}")
fi

python3 - "$root" "$header" "${files[@]}" <<'PY'
import glob
import os
import re
import sys

root, header = sys.argv[1], sys.argv[2]
extra = sys.argv[3:]
NAME = re.compile(r"\bhip[A-Z][A-Za-z0-9_]*\b")


def strip(text):
    """Blank out comments, string and character literals, keeping newlines
    (so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * max(0, j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def cuda_branch(text):
    """The text of gpu_runtime.h's CUDA branch: the #else of `#if
    !defined(GPU_BACKEND_CUDA)` / `#ifndef GPU_BACKEND_CUDA`, or the body of
    `#if defined(GPU_BACKEND_CUDA)` / `#ifdef GPU_BACKEND_CUDA`."""
    lines = text.split("\n")
    directive = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)")
    depth, start, target, negated, keep = 0, None, None, False, []
    for line in lines:
        m = directive.match(line)
        if not m:
            if start is not None and keep is not None:
                keep.append(line)
            continue
        kind, rest = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef"):
            depth += 1
            if kind == "if":
                m = re.match(r"\s*(!?)\s*defined\s*(\(\s*GPU_BACKEND_CUDA\s*\)|\s+GPU_BACKEND_CUDA)\s*$",
                             rest)
                neg = bool(m and m.group(1))
            else:
                m = re.match(r"\s*GPU_BACKEND_CUDA\s*$", rest)
                neg = kind == "ifndef"
            if start is None and m:
                negated = neg
                start, target = True, depth
                keep = None if negated else []
                continue
        elif kind == "endif":
            if start is not None and depth == target:
                break
            depth -= 1
        elif kind in ("else", "elif") and start is not None and depth == target:
            if negated and keep is None:
                keep = []
            else:
                keep = None
            continue
        if start is not None and keep is not None:
            keep.append(line)
    if start is None or not keep:
        return None
    return "\n".join(keep)


def rel(path):
    try:
        r = os.path.relpath(path, root)
    except ValueError:
        return path
    return path if r.startswith("..") else r


try:
    with open(header, encoding="utf-8", errors="replace") as f:
        branch = cuda_branch(strip(f.read()))
except OSError as e:
    print(f"check_hip_names: cannot read {header}: {e.strerror}", file=sys.stderr)
    sys.exit(2)
if branch is None:
    print(f"check_hip_names: no CUDA branch (#if !defined(GPU_BACKEND_CUDA) ... #else) in {header}",
          file=sys.stderr)
    sys.exit(2)

mapped = set(re.findall(r"^\s*#\s*define\s+(hip[A-Z]\w*)", branch, re.M))
mapped |= set(re.findall(r"\btypedef\b[^;]*?\b(hip[A-Z]\w*)\s*(?:\[[^\]]*\]\s*)*;", branch))
mapped |= set(re.findall(r"\bstatic\s+(?:__\w+\s+)*(?:inline\s+)?[\w\s\*]*?\b(hip[A-Z]\w*)\s*\(",
                         branch))
if not mapped:
    print(f"check_hip_names: no mapped hip* names found in the CUDA branch of {header}",
          file=sys.stderr)
    sys.exit(2)

# The files: the known GPU sources, every source that includes gpu_runtime.h,
# and the extra ones.
files = []
for pattern in ("kernels/*/*.hip", "src/shardtab/backend_gpu.c", "tests/gpu/*.c"):
    files += sorted(glob.glob(os.path.join(root, pattern)))
includes = re.compile(r'^\s*#\s*include\s*[<"](?:[\w./]*/)?gpu_runtime\.h[>"]', re.M)
suffixes = (".c", ".h", ".hip", ".cu", ".cuh", ".cc", ".cpp", ".hpp")
for top in ("include", "src", "kernels", "tests"):
    for folder, dirs, names in os.walk(os.path.join(root, top)):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(folder, name)
            if not name.endswith(suffixes) or os.path.samefile(path, header):
                continue
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    if includes.search(f.read()):
                        files.append(path)
            except OSError:
                pass
seen, unique = set(), []
for path in files:
    key = os.path.realpath(path)
    if key not in seen:
        seen.add(key)
        unique.append(path)
for path in extra:
    if not os.path.isfile(path):
        print(f"check_hip_names: no such file: {path}", file=sys.stderr)
        sys.exit(2)
    if os.path.realpath(path) not in seen:
        seen.add(os.path.realpath(path))
        unique.append(path)
if not unique:
    print(f"check_hip_names: no GPU sources found under {root}", file=sys.stderr)
    sys.exit(2)

used, missing = set(), {}
for path in unique:
    with open(path, encoding="utf-8", errors="replace") as f:
        text = strip(f.read())
    for lineno, line in enumerate(text.split("\n"), 1):
        for name in NAME.findall(line):
            used.add(name)
            if name not in mapped:
                missing.setdefault(name, []).append(f"{rel(path)}:{lineno}")
                print(f"{rel(path)}:{lineno}: {name} is not mapped for CUDA in {rel(header)}")

if missing:
    print(f"# check_hip_names: {len(missing)} unmapped HIP name(s) ({', '.join(sorted(missing))}): "
          f"add each to the CUDA branch of {rel(header)}")
    sys.exit(1)
print(f"# check_hip_names: OK ({len(used)} distinct HIP names in {len(unique)} files, all among the "
      f"{len(mapped)} names {rel(header)} maps)")
PY

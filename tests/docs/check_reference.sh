#!/usr/bin/env bash
# check_reference.sh - fails where the API reference is incomplete: runs doxygen
# on the build's Doxyfile (docs/Doxyfile.in) with its pages written under
# WORK_DIR, and fails on any warning (a public declaration without a doc comment,
# a doc comment that Doxygen cannot read), on an enumerator without a comment, and
# on any header of its INPUT that has no page: a header without its \file block,
# whose declarations Doxygen would pass over without a word. Prints each.
# Usage: check_reference.sh DOXYGEN DOXYFILE WORK_DIR [HEADER...]
#   HEADER: added to the Doxyfile's INPUT (detects_undocumented.sh plants some)
# Exit: 0 complete; 1 incomplete; 2 bad usage; 77 no doxygen (skipped).
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -euo pipefail
(($# >= 3)) || { echo "usage: check_reference.sh DOXYGEN DOXYFILE WORK_DIR [HEADER...]" >&2; exit 2; }
doxygen=$1 doxyfile=$2 work=$3
shift 3
command -v "$doxygen" >/dev/null ||
  { echo "check_reference: $doxygen not found (Debian: apt-get install doxygen): skipped"; exit 77; }
[[ -f $doxyfile ]] ||
  { echo "check_reference: no Doxyfile at $doxyfile (configure the build first)" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work"

# the Doxyfile as configured, its output moved here, XML too (for the enumerators
# below), the planted headers added
{
  cat "$doxyfile"
  echo "OUTPUT_DIRECTORY = \"$work\""
  echo "GENERATE_XML = YES"
  echo "XML_PROGRAMLISTING = NO"
  for header in "$@"; do echo "INPUT += \"$header\""; done
} >"$work/Doxyfile"
start=$SECONDS
rc=0
(cd "$work" && "$doxygen" Doxyfile) >"$work/doxygen.log" 2>&1 || rc=$?
status=0
if ((rc != 0)) || [[ -s $work/doxygen.log ]]; then
  sed 's/^/check_reference: /' "$work/doxygen.log"
  echo "check_reference: doxygen exit $rc, $(wc -l <"$work/doxygen.log") lines of warnings"
  status=1
fi

# every enumerator documented: Doxygen 1.9.4 warns of none (WARN_IF_UNDOC_ENUM_VAL
# came later), so its XML is read: an enumvalue whose descriptions hold no paragraph,
# named with its enum's place
undocumented_values=$(awk '
  /<memberdef kind="enum"/ { in_enum = 1; missing = "" }
  in_enum && /<enumvalue / { in_value = 1; name = ""; documented = 0 }
  in_value && /<name>/ { name = $0; gsub(/.*<name>|<\/name>.*/, "", name) }
  in_value && /<para>/ { documented = 1 }
  in_value && /<\/enumvalue>/ { in_value = 0; if (!documented) missing = missing " " name }
  in_enum && !in_value && /<location / {
    file = $0; sub(/.*file="/, "", file); sub(/".*/, "", file)
    line = $0; sub(/.* line="/, "", line); sub(/".*/, "", line)
    n = split(missing, names, " ")
    for (i = 1; i <= n; i++) printf "%s:%s: enumerator %s is not documented\n", file, line, names[i]
    in_enum = 0
  }' "$work"/xml/*.xml)
if [[ -n $undocumented_values ]]; then
  mapfile -t lines <<<"$undocumented_values"
  printf 'check_reference: %s\n' "${lines[@]}"
  status=1
fi

# a page for every header read: doxygen names it after the file, '_' doubled and
# '.' as '_8' (shardtab_comm.h: shardtab__comm_8h.html)
mapfile -t headers < <(grep -o '"[^"]*\.h"' "$work/Doxyfile" | tr -d '"')
for header in "${headers[@]}"; do
  page=$(basename "$header" | sed -e 's/_/__/g' -e 's/\./_8/g').html
  if [[ ! -f $work/html/$page ]]; then
    echo "check_reference: $header has no page: give it a /** @file ... */ block" \
      "(without one, Doxygen checks none of its declarations)"
    status=1
  fi
done
verdict="every declaration documented"
((status == 0)) || verdict="incomplete"
echo "check_reference: ${#headers[@]} headers in $((SECONDS - start)) s: $verdict"
exit "$status"

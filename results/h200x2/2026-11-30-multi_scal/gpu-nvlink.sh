#!/usr/bin/env bash
# gpu-nvlink.sh - reads the NVLink byte counters (Nsight Compute) of the table
# kernels and of the kernel copies at 2 ranks, to see what crosses the link per
# direction for a remote read-modify-write against a one-way copy. Evidence for
# docs/performance.md. Usage: scripts/gpu-nvlink.sh [outdir]
# Archived here beside the logs it made (results/README.md); the maintained driver is scripts/gpu.sh.
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
set -uo pipefail
# shellcheck source=scripts/gpu-common.sh disable=SC1091
source "$(dirname "$0")/../../../scripts/gpu-common.sh"
gpu_start "${1:-$top/nvlink-out}" nvlink.log
build=$top/build-gpu-nvlink
gpu_build_cuda "$build"

# the counter names differ between Nsight Compute releases: ask this one
ncu --query-metrics >"$out/ncu-metrics.txt" 2>&1
want="nvlrx__bytes nvltx__bytes nvlrx__bytes_data_user nvltx__bytes_data_user nvlrx__bytes_data_protocol nvltx__bytes_data_protocol"
metrics=""
for name in $want; do
  grep -q "^$name " "$out/ncu-metrics.txt" && metrics="${metrics:+$metrics,}$name.sum"
done
echo "# NVLink metrics used: ${metrics:-none offered}" | tee -a "$log"
metrics="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum${metrics:+,$metrics}"

# 64 MiB per shard; rank 0 runs local, remote, ring, kernel-push, kernel-pull
# (10 launches each); ncu replays each kernel, so the sweep's own verification
# is not meaningful under it: these runs are for the counters only.
export out metrics
# shellcheck disable=SC2086,SC2154,SC2016  # the inner script expands per rank
timeout 500 mpirun $mpi_oversubscribe --bind-to none -np 2 -x out -x metrics bash -c \
  'exec ncu --clock-control none --metrics "$metrics" -k regex:"scal_shard|scal_copy" --csv \
        --log-file "$out/ncu-rank$OMPI_COMM_WORLD_RANK.csv" "$0" --bench --bench-device-only \
        --bench-min 64M --bench-max 64M' "$build/multi_scal" >>"$log" 2>&1
echo "# ncu exit $?" | tee -a "$log"
python3 - "$out/ncu-rank0.csv" <<'PY' | tee -a "$log"
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, data = rows[0], rows[1:]
ix = {name: i for i, name in enumerate(head)}
per = collections.OrderedDict()
for r in data:
    key = (r[ix["ID"]], r[ix["Kernel Name"]][:40])
    per.setdefault(key, {})[r[ix["Metric Name"]]] = (r[ix["Metric Value"]], r[ix["Metric Unit"]])
print("# rank 0, launches in order: local x10, remote x10, ring x10, push x10, pull x10")
for (kid, name), m in per.items():
    print(kid, name, "; ".join("%s=%s %s" % (k, v[0], v[1]) for k, v in sorted(m.items())))
PY

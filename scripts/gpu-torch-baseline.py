#!/usr/bin/env python3
"""gpu-torch-baseline.py - PyTorch's in-place mul_ on one GPU, timed the way
multi_scal --bench times its `local` mode (bytes read + written over the device
time, CUDA events, warm-up first, median of repeats), so the two sit side by
side in one job: the baseline a user would compare the table's kernel with.
Usage: scripts/gpu-torch-baseline.py [--bytes 4G[,1G...]] [--reps 20] [--device 0[,1...]]
Prints one line per size and device:
'# torch mul_: <bytes> bytes, <GB/s> GB/s (median of <reps>) on GPU <device>'."""
# SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers
import argparse
import statistics
import sys


def size(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


def measure(torch, nbytes, device, reps):
    # events and launches on the measured GPU: events made while another GPU is
    # current would time that GPU's idle stream
    with torch.cuda.device(device):
        x = (
            torch.arange(nbytes // 8, dtype=torch.float64, device="cuda") % 7 + 1
        )  # never all ones
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(
            enable_timing=True
        )
        for _ in range(3):  # warm-up
            x.mul_(1.0000001)
        times = []
        for _ in range(reps):
            start.record()
            x.mul_(1.0000001)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / 1e3)
        gbps = 2 * x.numel() * 8 / statistics.median(times) / 1e9
        print(
            f"# torch mul_: {x.numel() * 8} bytes, {gbps:.1f} GB/s (median of {reps}) on GPU {device}"
        )
        del x
        torch.cuda.empty_cache()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--bytes", type=lambda t: [size(s) for s in t.split(",")], default=[4 << 30]
    )
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument(
        "--device", type=lambda t: [int(d) for d in t.split(",")], default=[0]
    )
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("# torch mul_: skipped, no torch here")
        return 0
    for device in args.device:
        for nbytes in args.bytes:
            measure(torch, nbytes, device, args.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())

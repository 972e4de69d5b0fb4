#!/usr/bin/env python3
"""gpu-torch-baseline.py - PyTorch's in-place mul_ on one GPU, timed the way
multi_scal --bench times its `local` mode (bytes read + written over the device
time, CUDA events, warm-up first, median of repeats), so the two sit side by
side in one job: the baseline a user would compare the table's kernel with.
Usage: scripts/gpu-torch-baseline.py [--bytes 4G] [--reps 20] [--device 0]
Prints one line: '# torch mul_: <bytes> bytes, <GB/s> GB/s (median of <reps>)'."""
import argparse
import statistics
import sys


def size(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bytes", type=size, default=4 << 30)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--device", type=int, default=0)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("# torch mul_: skipped, no torch here")
        return 0
    dev = torch.device("cuda", args.device)
    x = torch.arange(args.bytes // 8, dtype=torch.float64, device=dev) % 7 + 1  # never all ones
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):  # warm-up
        x.mul_(1.0000001)
    times = []
    for _ in range(args.reps):
        start.record()
        x.mul_(1.0000001)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    gbps = 2 * x.numel() * 8 / statistics.median(times) / 1e9
    print(f"# torch mul_: {x.numel() * 8} bytes, {gbps:.1f} GB/s (median of {args.reps})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

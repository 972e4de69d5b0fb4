/* gpu_clock.h - the rate of AMD's constant-rate counter (s_memrealtime, read by
 * wall_clock64() in kernels) by architecture, for runtimes whose
 * hipDeviceAttributeWallClockRate says 0: pure C, so that the unit tests pin
 * it on machines without ROCm. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef GPU_CLOCK_H
#define GPU_CLOCK_H

#include <string.h>

/* 25 MHz on the gfx90x GPUs (MI50/MI60 gfx906, MI100 gfx908, MI200 gfx90a);
 * 100 MHz on everything after them: gfx94x (MI300), gfx95x (MI350, MI355X)
 * and gfx10+ (as LLVM libc's GPU clock and RCCL assume). */
static inline double gpu_wall_clock_fallback_hz(const char *gcn_arch_name)
{
    return strncmp(gcn_arch_name, "gfx90", 5) == 0 ? 25e6 : 1e8;
}

#endif /* GPU_CLOCK_H */

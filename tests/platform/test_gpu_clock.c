/* test_gpu_clock.c - pins the rate of AMD's wall clock by architecture, used where the runtime does not say it: 25 MHz on the gfx90x GPUs only, 100 MHz on MI300 (gfx942) and MI350/MI355X (gfx950) and later. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpu_clock.h"

static void test_gpu_clock_gfx90x_count_25_mhz(void **state)
{
    static const char *const archs[] = {"gfx906", "gfx908", "gfx90a", "gfx90a:sramecc+:xnack-",
                                        "gfx900"};
    (void)state;
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        assert_true(gpu_wall_clock_fallback_hz(archs[i]) == 25e6);
}

static void test_gpu_clock_mi300_mi350_and_later_count_100_mhz(void **state)
{
    static const char *const archs[] = {
        "gfx940", "gfx942", "gfx942:sramecc+:xnack-", "gfx950", "gfx1030", "gfx1100", "gfx1201"};
    (void)state;
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        assert_true(gpu_wall_clock_fallback_hz(archs[i]) == 1e8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_clock_gfx90x_count_25_mhz),
        cmocka_unit_test(test_gpu_clock_mi300_mi350_and_later_count_100_mhz),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

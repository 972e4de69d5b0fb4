/* test_jacobi_share.c - the rule that sizes a persistent or on-chip grid where ranks share a device (jacobi_share_of_device, kernels/jacobi/jacobi_sweep.h), checked here on the host for every device size and rank count the GPU plans can meet. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jacobi_sweep.h"

/* For every device (1 to 304 multiprocessors: an MI250X GCD has 110 CUs, an
 * H200 132, an MI300X 304) and every count of ranks sharing it (1 to 400):
 * the ranks' grids together never need more than the device has (so all are
 * resident at once: the defect of 2 ranks under MPS, each sized to the whole
 * GPU, that waited 10 s and gave up), each rank gets as much as that allows,
 * and a rank gets nothing, so that its plan refuses, exactly when the ranks
 * outnumber the multiprocessors. */
static void test_grids_of_every_rank_fit_the_device_together(void **state)
{
    (void)state;
    for (int sms = 1; sms <= 304; sms++) {
        for (int share = 1; share <= 400; share++) {
            int own = jacobi_share_of_device(sms, share);
            assert_true(own >= 0);
            assert_true((long)own * share <= sms);      /* all resident together */
            assert_true((long)(own + 1) * share > sms); /* and no smaller than that */
            assert_int_equal(own == 0, share > sms);    /* refused only past one each */
        }
    }
}

static void test_alone_gets_the_whole_device(void **state)
{
    (void)state;
    assert_int_equal(jacobi_share_of_device(132, 1), 132);
    assert_int_equal(jacobi_share_of_device(132, 0), 132); /* no share recorded: alone */
    assert_int_equal(jacobi_share_of_device(132, -3), 132);
    assert_int_equal(jacobi_share_of_device(132, 2), 66); /* 2 ranks under MPS on one H200 */
    assert_int_equal(jacobi_share_of_device(132, 4), 33);
    assert_int_equal(jacobi_share_of_device(110, 8), 13); /* 8 ranks on one GCD */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grids_of_every_rank_fit_the_device_together),
        cmocka_unit_test(test_alone_gets_the_whole_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

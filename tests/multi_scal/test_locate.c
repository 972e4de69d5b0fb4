/* test_locate.c - pins scal_locate over prefix offsets with empty shards, and the host kernels scal_shard/scal_range scaling each element exactly once. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "partition.h"
#include "scal.h"
#include "scal_op.h"

#define MAX_SHARDS 16
#define GUARD 4 /* sentinel elements on each side of every shard */
#define SENTINEL (-12345.5)

/* ---- scal_locate ------------------------------------------------------------------- */

/* Every g in [0, total) lands in a non-empty shard that holds it. */
static void check_locate(const uint64_t *offsets, int nshards)
{
    uint64_t total = offsets[nshards];
    for (uint64_t g = 0; g < total; g++) {
        int s = scal_locate(offsets, nshards, g);
        if (s < 0 || s >= nshards || !(offsets[s] <= g && g < offsets[s + 1]))
            fail_msg("g %llu located in shard %d of %d", (unsigned long long)g, s, nshards);
        assert_true(offsets[s + 1] > offsets[s]); /* never an empty shard */
    }
}

static int lengths_to_offsets(const uint64_t *lengths, int nshards, uint64_t *offsets)
{
    offsets[0] = 0;
    for (int s = 0; s < nshards; s++)
        offsets[s + 1] = offsets[s] + lengths[s];
    return nshards;
}

static void test_locate_single_shard_is_always_shard_zero(void **state)
{
    uint64_t offsets[2] = {0, 10};
    (void)state;
    for (uint64_t g = 0; g < 10; g++)
        assert_int_equal(scal_locate(offsets, 1, g), 0);
}

static void test_locate_even_shards_boundaries(void **state)
{
    uint64_t offsets[5] = {0, 4, 8, 12, 16};
    (void)state;
    assert_int_equal(scal_locate(offsets, 4, 0), 0);
    assert_int_equal(scal_locate(offsets, 4, 3), 0);
    assert_int_equal(scal_locate(offsets, 4, 4), 1);
    assert_int_equal(scal_locate(offsets, 4, 7), 1);
    assert_int_equal(scal_locate(offsets, 4, 8), 2);
    assert_int_equal(scal_locate(offsets, 4, 12), 3);
    assert_int_equal(scal_locate(offsets, 4, 15), 3);
    check_locate(offsets, 4);
}

static void test_locate_skips_empty_shards_in_the_middle(void **state)
{
    /* shards: [0,3) empty [3,5) empty empty [5,6) */
    uint64_t offsets[7] = {0, 3, 3, 5, 5, 5, 6};
    (void)state;
    assert_int_equal(scal_locate(offsets, 6, 2), 0);
    assert_int_equal(scal_locate(offsets, 6, 3), 2);
    assert_int_equal(scal_locate(offsets, 6, 4), 2);
    assert_int_equal(scal_locate(offsets, 6, 5), 5);
    check_locate(offsets, 6);
}

static void test_locate_skips_empty_first_and_last_shards(void **state)
{
    uint64_t first[5] = {0, 0, 0, 4, 9};   /* two empty shards first */
    uint64_t last[6] = {0, 2, 5, 5, 5, 5}; /* three empty shards last */
    uint64_t both[6] = {0, 0, 1, 1, 1, 1}; /* a single element between empties */
    (void)state;
    assert_int_equal(scal_locate(first, 4, 0), 2);
    assert_int_equal(scal_locate(first, 4, 3), 2);
    assert_int_equal(scal_locate(first, 4, 4), 3);
    check_locate(first, 4);
    assert_int_equal(scal_locate(last, 5, 4), 1);
    check_locate(last, 5);
    assert_int_equal(scal_locate(both, 5, 0), 1);
    check_locate(both, 5);
}

static void test_locate_every_length_pattern_up_to_five_shards(void **state)
{
    uint64_t lengths[5], offsets[6];
    (void)state;
    /* all shard counts 1..5 with every length in 0..3: 4^5 patterns at most */
    for (int nshards = 1; nshards <= 5; nshards++) {
        int patterns = 1;
        for (int s = 0; s < nshards; s++)
            patterns *= 4;
        for (int p = 0; p < patterns; p++) {
            int code = p;
            for (int s = 0; s < nshards; s++, code /= 4)
                lengths[s] = (uint64_t)(code % 4);
            check_locate(offsets, lengths_to_offsets(lengths, nshards, offsets));
        }
    }
}

static void test_locate_partitions_with_more_shards_than_elements(void **state)
{
    uint64_t offsets[MAX_SHARDS + 1];
    (void)state;
    for (uint64_t n = 1; n <= 40; n++) {
        for (int p = 1; p <= MAX_SHARDS; p++) {
            for (int s = 0; s < p; s++)
                offsets[s] = ms_partition(n, p, s).start;
            offsets[p] = n;
            check_locate(offsets, p);
        }
    }
}

static void test_locate_huge_offsets(void **state)
{
    uint64_t offsets[4] = {0, 1ull << 40, 1ull << 40, (1ull << 61) - 1};
    (void)state;
    assert_int_equal(scal_locate(offsets, 3, 0), 0);
    assert_int_equal(scal_locate(offsets, 3, (1ull << 40) - 1), 0);
    assert_int_equal(scal_locate(offsets, 3, 1ull << 40), 2);
    assert_int_equal(scal_locate(offsets, 3, (1ull << 61) - 2), 2);
}

/* ---- the host kernels ----------------------------------------------------------------- */

/* A node of nshards shards, each in its own buffer with GUARD sentinels on
 * either side; element g of the node starts at 1 + g % 7. */
typedef struct node {
    int nshards;
    uint64_t offsets[MAX_SHARDS + 1];
    double *buffers[MAX_SHARDS];
    double *table[MAX_SHARDS];
} node_t;

static double initial(uint64_t g)
{
    return (double)(1 + g % 7);
}

static void node_make(node_t *node, const uint64_t *lengths, int nshards)
{
    assert_true(nshards >= 1 && nshards <= MAX_SHARDS);
    node->nshards = lengths_to_offsets(lengths, nshards, node->offsets);
    for (int s = 0; s < nshards; s++) {
        double *b = malloc((lengths[s] + 2 * GUARD) * sizeof *b);
        assert_non_null(b);
        for (uint64_t i = 0; i < lengths[s] + 2 * GUARD; i++)
            b[i] = SENTINEL;
        for (uint64_t i = 0; i < lengths[s]; i++)
            b[GUARD + i] = initial(node->offsets[s] + i);
        node->buffers[s] = b;
        node->table[s] = b + GUARD;
    }
}

static void node_free(node_t *node)
{
    for (int s = 0; s < node->nshards; s++)
        free(node->buffers[s]);
}

/* Element g of the node must be initial(g) * factor(g), every guard intact. */
static void node_check(const node_t *node, double (*factor)(uint64_t g, const void *ctx),
                       const void *ctx)
{
    for (int s = 0; s < node->nshards; s++) {
        uint64_t len = node->offsets[s + 1] - node->offsets[s];
        const double *b = node->buffers[s];
        for (int i = 0; i < GUARD; i++) {
            if (b[i] != SENTINEL || b[GUARD + len + i] != SENTINEL)
                fail_msg("shard %d: guard element %d touched", s, i);
        }
        for (uint64_t i = 0; i < len; i++) {
            uint64_t g = node->offsets[s] + i;
            double want = initial(g) * factor(g, ctx);
            if (node->table[s][i] != want)
                fail_msg("shard %d element %llu (g %llu): %.17g, want %.17g", s,
                         (unsigned long long)i, (unsigned long long)g, node->table[s][i], want);
        }
    }
}

/* Expected factor: alpha^(times element g was scaled) */
typedef struct hits {
    const unsigned char *count;
    double alpha;
} hits_t;

static double hits_factor(uint64_t g, const void *ctx)
{
    const hits_t *h = ctx;
    double f = 1.0;
    for (unsigned k = 0; k < h->count[g]; k++)
        f *= h->alpha;
    return f;
}

static void test_scal_shard_scales_exactly_the_chosen_shard(void **state)
{
    static const uint64_t lengths[4] = {5, 8, 3, 6};
    node_t node;
    unsigned char count[22] = {0};
    hits_t h = {count, 3.0};
    (void)state;
    node_make(&node, lengths, 4);
    assert_int_equal(scal_shard(node.table, 1, 8, 3.0), 0);
    for (uint64_t g = 5; g < 13; g++)
        count[g] = 1;
    node_check(&node, hits_factor, &h);
    /* again on another shard, with another factor: both effects compose */
    assert_int_equal(scal_shard(node.table, 3, 6, 3.0), 0);
    for (uint64_t g = 16; g < 22; g++)
        count[g] = 1;
    node_check(&node, hits_factor, &h);
    node_free(&node);
}

static void test_scal_shard_with_n_below_length_stops_at_n(void **state)
{
    static const uint64_t lengths[2] = {10, 10};
    node_t node;
    unsigned char count[20] = {0};
    hits_t h = {count, -2.0};
    (void)state;
    node_make(&node, lengths, 2);
    assert_int_equal(scal_shard(node.table, 0, 4, -2.0), 0);
    for (uint64_t g = 0; g < 4; g++)
        count[g] = 1;
    node_check(&node, hits_factor, &h);
    /* n = 0 touches nothing */
    assert_int_equal(scal_shard(node.table, 1, 0, -2.0), 0);
    node_check(&node, hits_factor, &h);
    node_free(&node);
}

/* Run one range, counting into count[] which elements it should touch. */
static void run_range(node_t *node, uint64_t begin, uint64_t count, double alpha,
                      unsigned char *hits)
{
    uint64_t total = node->offsets[node->nshards];
    scal_range_t r = {node->table, node->offsets, node->nshards, total, begin, count};
    assert_int_equal(scal_range(&r, alpha), 0);
    for (uint64_t k = 0; k < count; k++)
        hits[(begin + k) % total]++;
}

static void test_scal_range_within_one_shard(void **state)
{
    static const uint64_t lengths[3] = {6, 6, 6};
    node_t node;
    unsigned char count[18] = {0};
    hits_t h = {count, 2.0};
    (void)state;
    node_make(&node, lengths, 3);
    run_range(&node, 7, 3, 2.0, count);
    assert_int_equal(count[6], 0);
    assert_int_equal(count[7], 1);
    node_check(&node, hits_factor, &h);
    node_free(&node);
}

static void test_scal_range_wrapping_past_the_end_scales_each_element_once(void **state)
{
    static const uint64_t lengths[4] = {3, 0, 4, 2}; /* total 9, one empty shard */
    node_t node;
    unsigned char count[9] = {0};
    hits_t h = {count, 2.0};
    (void)state;
    node_make(&node, lengths, 4);
    /* g = 7, 8, 0, 1, 2: the last shard, then around to the first */
    run_range(&node, 7, 5, 2.0, count);
    assert_int_equal(count[0], 1);
    assert_int_equal(count[6], 0);
    node_check(&node, hits_factor, &h);
    node_free(&node);

    /* a full-length range starting anywhere covers the node exactly once */
    for (uint64_t begin = 0; begin < 9; begin++) {
        unsigned char once[9] = {0};
        hits_t h1 = {once, 2.0};
        node_make(&node, lengths, 4);
        run_range(&node, begin, 9, 2.0, once);
        for (int g = 0; g < 9; g++)
            assert_int_equal(once[g], 1);
        node_check(&node, hits_factor, &h1);
        node_free(&node);
    }
}

/* The multi_scal "global" rule: rank q scales len_q elements from
 * (offsets[q] + shift) % total, shift = total / nshards / 2. */
static void run_global_rule(const uint64_t *lengths, int nshards, double alpha)
{
    node_t node;
    uint64_t total, shift;
    unsigned char *count;
    hits_t h;

    node_make(&node, lengths, nshards);
    total = node.offsets[nshards];
    if (total == 0) {
        node_free(&node);
        return;
    }
    count = calloc(total, 1);
    assert_non_null(count);
    shift = total / (uint64_t)nshards / 2;
    for (int q = 0; q < nshards; q++) {
        uint64_t len = node.offsets[q + 1] - node.offsets[q];
        run_range(&node, (node.offsets[q] + shift) % total, len, alpha, count);
    }
    for (uint64_t g = 0; g < total; g++)
        if (count[g] != 1)
            fail_msg("element %llu of %llu covered %u times", (unsigned long long)g,
                     (unsigned long long)total, (unsigned)count[g]);
    h.count = count;
    h.alpha = alpha;
    node_check(&node, hits_factor, &h);
    free(count);
    node_free(&node);
}

static void test_scal_range_global_rule_scales_every_element_exactly_once(void **state)
{
    uint64_t lengths[MAX_SHARDS];
    (void)state;
    /* the partitions multi_scal makes, including more ranks than elements */
    for (uint64_t n = 1; n <= 64; n++) {
        for (int p = 1; p <= 9; p++) {
            for (int s = 0; s < p; s++)
                lengths[s] = ms_partition(n, p, s).length;
            run_global_rule(lengths, p, 2.0);
        }
    }
    run_global_rule((const uint64_t[]){1000, 1000, 999, 999, 999, 999, 999, 999}, 8, 3.0);
}

static void test_scal_range_global_rule_with_irregular_and_empty_shards(void **state)
{
    static const uint64_t a[] = {0, 5, 0, 0, 7, 1, 0};
    static const uint64_t b[] = {13, 0, 0, 0};
    static const uint64_t c[] = {0, 0, 0, 2};
    static const uint64_t d[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 40};
    (void)state;
    run_global_rule(a, 7, 2.0);
    run_global_rule(b, 4, 2.0);
    run_global_rule(c, 4, -0.5);
    run_global_rule(d, 16, 2.0);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_scal_pattern_is_exact_distinct_and_never_zero_or_one(void **state)
{
    enum { SEEDS = 8, ELEMENTS = 1024 };
    double *v = malloc(SEEDS * ELEMENTS * sizeof *v);
    (void)state;
    assert_non_null(v);
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        for (uint64_t k = 0; k < ELEMENTS; k++) {
            double x = scal_pattern(seed, k);
            assert_true(x != 0.0 && x != 1.0);
            assert_true(x - (double)(uint64_t)x == 0.25); /* integer + 1/4, exact */
            v[seed * ELEMENTS + k] = x;
        }
    }
    qsort(v, SEEDS * ELEMENTS, sizeof *v, compare_doubles);
    for (int i = 1; i < SEEDS * ELEMENTS; i++)
        if (v[i] == v[i - 1])
            fail_msg("pattern value %.17g written twice", v[i]);
    free(v);
}

static void test_scal_fill_writes_the_pattern_into_exactly_the_chosen_shard(void **state)
{
    static const uint64_t lengths[3] = {4, 9, 5};
    node_t node;
    unsigned char none[18] = {0};
    hits_t h = {none, 1.0};
    (void)state;
    node_make(&node, lengths, 3);
    assert_int_equal(scal_fill(node.table, 1, 7, 42), 0);
    for (uint64_t k = 0; k < 7; k++)
        assert_true(node.table[1][k] == scal_pattern(42, k));
    /* the two elements past n, and the other shards, keep their values */
    assert_true(node.table[1][7] == initial(4 + 7));
    assert_true(node.table[1][8] == initial(4 + 8));
    for (uint64_t k = 0; k < 7; k++) /* restore, then nothing else may differ */
        node.table[1][k] = initial(4 + k);
    node_check(&node, hits_factor, &h);
    node_free(&node);
}

static void test_scal_error_string_names_success(void **state)
{
    (void)state;
    assert_string_equal(scal_error_string(0), "no error");
    assert_string_equal(scal_error_string(1), "out of host memory");
    assert_string_equal(scal_error_string(2), "host kernel error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locate_single_shard_is_always_shard_zero),
        cmocka_unit_test(test_locate_even_shards_boundaries),
        cmocka_unit_test(test_locate_skips_empty_shards_in_the_middle),
        cmocka_unit_test(test_locate_skips_empty_first_and_last_shards),
        cmocka_unit_test(test_locate_every_length_pattern_up_to_five_shards),
        cmocka_unit_test(test_locate_partitions_with_more_shards_than_elements),
        cmocka_unit_test(test_locate_huge_offsets),
        cmocka_unit_test(test_scal_shard_scales_exactly_the_chosen_shard),
        cmocka_unit_test(test_scal_shard_with_n_below_length_stops_at_n),
        cmocka_unit_test(test_scal_range_within_one_shard),
        cmocka_unit_test(test_scal_range_wrapping_past_the_end_scales_each_element_once),
        cmocka_unit_test(test_scal_range_global_rule_scales_every_element_exactly_once),
        cmocka_unit_test(test_scal_range_global_rule_with_irregular_and_empty_shards),
        cmocka_unit_test(test_scal_pattern_is_exact_distinct_and_never_zero_or_one),
        cmocka_unit_test(test_scal_fill_writes_the_pattern_into_exactly_the_chosen_shard),
        cmocka_unit_test(test_scal_error_string_names_success),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

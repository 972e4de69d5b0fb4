/* test_faces.c - pins src/shardtab/faces.c (include/shardtab_faces.h) under
 * mpiexec at 1, 2 and 4 ranks: the layout by its formula; every rank's faces
 * stored through the table into its neighbours' ghost faces, and moved
 * through MPI (staged and straight, on one node and across simulated nodes,
 * the two routes side by side), every byte of every ghost face compared with
 * what its neighbour wrote, the other parity and the ends without a
 * neighbour untouched; each refused decomposition with one message on every
 * rank; an exchange's bad arguments. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shardtab_faces.h"
#include "table.h"
#include "mpi_case.h"

static int size;

/* The byte j of the face that rank r makes toward face index i (2 axis +
 * side) for parity p: every face, rank, parity and byte its own value. */
static unsigned char made(int r, int i, int p, size_t j)
{
    return (unsigned char)(17 + 31 * r + 7 * i + 101 * p + 13 * j + (j >> 8));
}

/* What a ghost byte holds before anything moved. */
static unsigned char before(size_t at)
{
    return (unsigned char)(0xa5 ^ (at * 29));
}

/* The decomposition at this many ranks: one periodic axis at 1 and 2; at 4 a
 * 2 x 2 grid, axis 0 periodic, axis 1 not (its ends have no neighbour), the
 * faces of the two axes of different sizes; the faces after `offset`. */
static shardtab_faces_params_t decomposition(size_t offset, int parities)
{
    shardtab_faces_params_t fp;

    memset(&fp, 0, sizeof fp);
    fp.parities = parities;
    fp.offset = offset;
    if (size < 4) {
        fp.dims = 1;
        fp.grid[0] = size;
        fp.periodic[0] = 1;
        fp.face_bytes[0] = 300;
    } else {
        fp.dims = 2;
        fp.grid[0] = fp.grid[1] = 2;
        fp.periodic[0] = 1;
        fp.face_bytes[0] = 72;
        fp.face_bytes[1] = 520;
    }
    return fp;
}

/* The neighbour of this rank on (a, s) as the test works it out. */
static int expected_neighbor(const shardtab_faces_params_t *fp, int a, int s)
{
    int c[2] = {rank % fp->grid[0], rank / fp->grid[0]}, n = fp->grid[a];

    c[a] += s ? 1 : -1;
    if (c[a] < 0 || c[a] >= n) {
        if (!fp->periodic[a])
            return -1;
        c[a] = (c[a] + n) % n;
    }
    return c[0] + fp->grid[0] * c[1];
}

typedef struct world {
    shardtab_faces_params_t fp;
    char *shard;
    size_t bytes;
    shardtab_t *t;
    shardtab_faces_t *faces;
} world_t;

/* A table whose shard holds the faces after 40 bytes, and then 24 more, each
 * byte as before() says; the faces over it. */
static void world_up(world_t *w, int through_mpi, int mpi_device)
{
    memset(w, 0, sizeof *w);
    w->fp = decomposition(40, 2);
    w->fp.through_mpi = through_mpi;
    w->fp.mpi_device = mpi_device;
    w->bytes = 40 + shardtab_faces_bytes(&w->fp) + 24;
    assert_int_equal(shardtab_mem_alloc(w->bytes, (void **)&w->shard), SHARDTAB_SUCCESS);
    for (size_t b = 0; b < w->bytes; b++)
        w->shard[b] = (char)before(b);
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, w->shard, w->bytes, &w->t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_faces_create(w->t, &w->fp, &w->faces), SHARDTAB_SUCCESS);
}

static void world_down(world_t *w)
{
    assert_int_equal(shardtab_faces_destroy(&w->faces), SHARDTAB_SUCCESS);
    assert_null(w->faces);
    assert_int_equal(shardtab_destroy(&w->t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_free(w->shard), SHARDTAB_SUCCESS);
    expect_nothing_left();
}

/* Each face's neighbour, route, node peer and places as the test works them
 * out; with `store`, this rank's faces of every parity stored through the
 * table where that is their route. */
static void check_places(world_t *w, int store)
{
    for (int a = 0; a < w->fp.dims; a++)
        for (int s = 0; s < 2; s++) {
            const int n = expected_neighbor(&w->fp, a, s), i = 2 * a + s;
            const int node = n < 0 ? -1 : shardtab_node_rank_of(w->t, n);
            const int route = n < 0                           ? SHARDTAB_FACES_NONE
                              : w->fp.through_mpi || node < 0 ? SHARDTAB_FACES_MPI
                                                              : SHARDTAB_FACES_TABLE;
            assert_int_equal(shardtab_faces_neighbor(w->faces, a, s), n);
            assert_int_equal(shardtab_faces_route(w->faces, a, s), route);
            assert_int_equal(shardtab_faces_node_peer(w->faces, a, s),
                             route == SHARDTAB_FACES_TABLE ? node : -1);
            for (int p = 0; p < 2; p++) {
                unsigned char *dest = shardtab_faces_dest(w->faces, a, s, p);
                assert_ptr_equal(shardtab_faces_ghost(w->faces, a, s, p),
                                 w->shard + shardtab_faces_offset(&w->fp, a, s, p));
                if (route != SHARDTAB_FACES_TABLE) {
                    assert_null(dest);
                    continue;
                }
                assert_non_null(dest);
                for (size_t j = 0; store && j < w->fp.face_bytes[a]; j++)
                    dest[j] = made(rank, i, p, j);
            }
        }
    assert_null(shardtab_faces_ghost(w->faces, w->fp.dims, 0, 0));
    assert_null(shardtab_faces_dest(w->faces, 0, 2, 0));
    assert_null(shardtab_faces_ghost(w->faces, 0, 0, 2));
    assert_int_equal(shardtab_faces_route(w->faces, -1, 0), -1);
}

/* Every byte of the shard: a ghost face of parity p whose route r has
 * filled[r][p] holds its neighbour's face toward it; every other byte is as
 * it was before. */
static void check_shard(const world_t *w, const int filled[3][2])
{
    size_t wrong = 0, first = SIZE_MAX;

    for (size_t b = 0; b < w->bytes; b++) {
        unsigned char want = before(b);
        for (int a = 0; a < w->fp.dims; a++)
            for (int s = 0; s < 2; s++)
                for (int p = 0; p < 2; p++) {
                    const size_t at = shardtab_faces_offset(&w->fp, a, s, p);
                    const int route = shardtab_faces_route(w->faces, a, s);
                    if (b >= at && b < at + w->fp.face_bytes[a] && filled[route][p])
                        want = made(shardtab_faces_neighbor(w->faces, a, s), 2 * a + (1 - s), p,
                                    b - at);
                }
        if ((unsigned char)w->shard[b] != want && wrong++ == 0)
            first = b;
    }
    if (wrong > 0)
        fprintf(stderr, "rank %d: %zu bytes wrong, the first at %zu\n", rank, wrong, first);
    assert_int_equal(wrong, 0);
}

static void test_layout_follows_its_formula(void **state)
{
    shardtab_faces_params_t fp = {.dims = 3, .parities = 2, .offset = 5};
    (void)state;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fp.face_bytes[0] = 10;
    fp.face_bytes[1] = 0; /* an axis without faces takes no bytes */
    fp.face_bytes[2] = 7;
    /* F = 2 (10 + 0 + 7) = 34 */
    assert_int_equal(shardtab_faces_bytes(&fp), 68);
    assert_int_equal(shardtab_faces_offset(&fp, 0, 0, 0), 5);
    assert_int_equal(shardtab_faces_offset(&fp, 0, 1, 0), 15);
    assert_int_equal(shardtab_faces_offset(&fp, 2, 0, 0), 25);
    assert_int_equal(shardtab_faces_offset(&fp, 2, 1, 0), 32);
    assert_int_equal(shardtab_faces_offset(&fp, 0, 0, 1), 39);
    assert_int_equal(shardtab_faces_offset(&fp, 2, 1, 1), 66);
    assert_int_equal(shardtab_faces_offset(&fp, 1, 0, 0), (size_t)-1); /* no faces */
    assert_int_equal(shardtab_faces_offset(&fp, 3, 0, 0), (size_t)-1);
    assert_int_equal(shardtab_faces_offset(&fp, 0, 2, 0), (size_t)-1);
    assert_int_equal(shardtab_faces_offset(&fp, 0, 0, 2), (size_t)-1);
    assert_int_equal(shardtab_faces_offset(NULL, 0, 0, 0), (size_t)-1);
    fp.parities = 3;
    assert_int_equal(shardtab_faces_bytes(&fp), 0);
    fp.parities = 1;
    fp.face_bytes[2] = SIZE_MAX; /* past 64 bits */
    assert_int_equal(shardtab_faces_bytes(&fp), 0);
    assert_int_equal(shardtab_faces_offset(&fp, 2, 1, 0), (size_t)-1);
    assert_int_equal(shardtab_init(MPI_COMM_WORLD, NULL), SHARDTAB_SUCCESS);
}

/* On one node: each rank stores its faces through the table, then the
 * barrier; every ghost face holds its neighbour's. */
static void test_faces_stored_through_the_table(void **state)
{
    const int filled[3][2] = {{0, 0}, {1, 1}, {0, 0}};
    world_t w;
    (void)state;
    world_up(&w, 0, 0);
    check_places(&w, 1);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    MPI_Barrier(MPI_COMM_WORLD);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    check_shard(&w, filled);
    /* nothing goes through MPI: the exchange moves nothing */
    assert_int_equal(shardtab_faces_exchange(w.faces, 0, NULL, NULL), SHARDTAB_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD); /* no rank's destroy while another reads */
    world_down(&w);
}

/* Every face through MPI, from device memory, one parity: staged through
 * the host, then straight. */
static void exchange_through_mpi(int mpi_device, int ranks_per_node)
{
    /* the MPI faces of parity 1; with simulated nodes the table's of both too */
    const int filled[3][2] = {{0, 0}, {ranks_per_node > 0, ranks_per_node > 0}, {0, 1}};
    const void *src[6] = {NULL};
    char *out = NULL;
    world_t w;

    if (ranks_per_node > 0) {
        char value[16];
        snprintf(value, sizeof value, "%d", ranks_per_node);
        setenv("SHARDTAB_RANKS_PER_NODE", value, 1);
    }
    world_up(&w, ranks_per_node == 0, mpi_device);
    check_places(&w, 0);
    assert_int_equal(shardtab_mem_alloc(6 * 520, (void **)&out), SHARDTAB_SUCCESS);
    for (int i = 0; i < 2 * w.fp.dims; i++) {
        for (size_t j = 0; j < w.fp.face_bytes[i / 2]; j++)
            out[520 * i + j] = (char)made(rank, i, 1, j);
        src[i] = out + 520 * i;
    }
    assert_int_equal(shardtab_faces_exchange(w.faces, 1, src, NULL), SHARDTAB_SUCCESS);
    if (ranks_per_node > 0) { /* the node's own faces through the table beside them */
        check_places(&w, 1);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        MPI_Barrier(MPI_COMM_WORLD);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    check_shard(&w, filled);
    MPI_Barrier(MPI_COMM_WORLD);
    assert_int_equal(shardtab_mem_free(out), SHARDTAB_SUCCESS);
    world_down(&w);
    unsetenv("SHARDTAB_RANKS_PER_NODE");
}

static void test_faces_through_mpi_staged(void **state)
{
    (void)state;
    exchange_through_mpi(0, 0);
}

static void test_faces_through_mpi_from_device_memory(void **state)
{
    (void)state;
    exchange_through_mpi(1, 0);
}

/* Simulated nodes of one rank (of two at 4 ranks): a neighbour on another
 * node through MPI, one on this node through the table. */
static void test_faces_across_simulated_nodes(void **state)
{
    (void)state;
    exchange_through_mpi(0, size == 4 ? 2 : 1);
}

/* Each refusal on every rank, in the same words. */
static void refused(shardtab_t *t, const shardtab_faces_params_t *fp, int by, const char *text)
{
    shardtab_faces_t *faces = NULL;
    char want[512];

    snprintf(want, sizeof want, "shardtab_faces_create: %s", text);
    expect_agreed(shardtab_faces_create(t, fp, &faces), SHARDTAB_ERR_INVALID_ARG, by, want);
    assert_null(faces);
}

static void test_bad_decompositions_are_refused_on_every_rank(void **state)
{
    shardtab_faces_params_t fp;
    shardtab_faces_t *faces = NULL;
    shardtab_t *t = NULL;
    char *shard = NULL, text[256];
    const void *src[6] = {NULL};
    size_t past;
    (void)state;
    fp = decomposition(0, 2);
    assert_int_equal(shardtab_mem_alloc(4096, (void **)&shard), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, shard, 4096, &t), SHARDTAB_SUCCESS);

    fp.dims = 4;
    refused(t, &fp, 0, "dims 4 is not 1, 2 or 3");
    fp = decomposition(0, 3);
    refused(t, &fp, 0, "parities 3 is not 1 or 2");
    fp = decomposition(0, 2);
    fp.grid[0] += 1;
    snprintf(text, sizeof text, "the grid %d x %d x 1 is not the table's %d ranks", fp.grid[0],
             fp.dims > 1 ? fp.grid[1] : 1, size);
    refused(t, &fp, 0, text);
    fp = decomposition(0, 2);
    fp.face_bytes[0] = fp.face_bytes[1] = 0;
    refused(t, &fp, 0, "no axis has faces (every face_bytes is 0)");
    fp = decomposition(0, 2);
    past = 4096 - shardtab_faces_bytes(&fp) + 1; /* the last rank's faces, one byte past */
    fp.offset = rank == size - 1 ? past : 0;
    snprintf(text, sizeof text, "the faces run from byte %zu past this rank's shard of 4096 bytes",
             past);
    refused(t, &fp, size - 1, text);
    if (size > 1) { /* what only the ranks together can see */
        fp = decomposition(0, 2);
        fp.through_mpi = rank == size - 1;
        snprintf(text, sizeof text,
                 "rank %d's through_mpi differs from rank 0's; every rank must give the same "
                 "dims, grid, periodic, parities and through_mpi",
                 size - 1);
        refused(t, &fp, 0, text);
        fp = decomposition(0, 2);
        fp.face_bytes[0] += rank == 1;
        snprintf(text, sizeof text,
                 "ranks 0 and 1 are neighbours on axis 0 but give %zu and %zu face_bytes there",
                 fp.face_bytes[0] - (rank == 1), fp.face_bytes[0] - (rank == 1) + 1);
        refused(t, &fp, 0, text);
    }
    /* the table stays usable; an exchange's bad arguments refused before anything moves */
    fp = decomposition(0, 1);
    fp.through_mpi = 1;
    assert_int_equal(shardtab_faces_create(t, &fp, &faces), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_faces_exchange(faces, 1, src, NULL), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_faces_exchange: parity 1 is not below the faces' 1");
    assert_int_equal(shardtab_faces_exchange(faces, 0, src, NULL), SHARDTAB_ERR_INVALID_ARG);
    assert_string_equal(said(), "shardtab_faces_exchange: src[0] is NULL, and the face on axis 0, "
                                "side 0 goes through MPI");
    assert_int_equal(shardtab_faces_exchange(NULL, 0, src, NULL), SHARDTAB_ERR_INVALID_ARG);
    assert_int_equal(shardtab_faces_destroy(&faces), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_faces_destroy(NULL), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_SUCCESS);
    expect_nothing_left();
    assert_int_equal(shardtab_finalize(), SHARDTAB_SUCCESS);
}

/* The staging's allocation failing on one rank (SHARDTAB_FAULT=faces-staging:<last>):
 * every rank's create fails with that rank's message, and nothing is left. */
static void test_a_failed_staging_fails_every_rank(void **state)
{
    shardtab_faces_params_t fp = decomposition(0, 2);
    shardtab_faces_t *faces = NULL;
    shardtab_t *t = NULL;
    char *shard = NULL, fault[32], text[96];
    (void)state;
    fp.through_mpi = 1; /* every face by MPI, staged through the host */
    assert_int_equal(shardtab_mem_alloc(4096, (void **)&shard), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_create(MPI_COMM_WORLD, shard, 4096, &t), SHARDTAB_SUCCESS);
    snprintf(fault, sizeof fault, "faces-staging:%d", size - 1);
    snprintf(text, sizeof text, "fault injected at step 'faces-staging' (SHARDTAB_FAULT=%s)",
             fault);
    setenv("SHARDTAB_FAULT", fault, 1);
    expect_agreed(shardtab_faces_create(t, &fp, &faces), SHARDTAB_ERR_NO_MEMORY, size - 1, text);
    unsetenv("SHARDTAB_FAULT");
    assert_null(faces);
    /* the table is still usable: the same faces, made */
    assert_int_equal(shardtab_faces_create(t, &fp, &faces), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_faces_destroy(&faces), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_destroy(&t), SHARDTAB_SUCCESS);
    assert_int_equal(shardtab_mem_free(shard), SHARDTAB_SUCCESS);
    expect_nothing_left();
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_follows_its_formula),
        cmocka_unit_test(test_faces_stored_through_the_table),
        cmocka_unit_test(test_faces_through_mpi_staged),
        cmocka_unit_test(test_faces_through_mpi_from_device_memory),
        cmocka_unit_test(test_faces_across_simulated_nodes),
        cmocka_unit_test(test_a_failed_staging_fails_every_rank),
        cmocka_unit_test(test_bad_decompositions_are_refused_on_every_rank)};

    return mpi_case_main(&argc, &argv, tests, sizeof tests / sizeof *tests, NULL, NULL);
}

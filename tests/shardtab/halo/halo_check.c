/* halo_check.c - the halo exchange (shardtab_halo.h), end to end under mpiexec.
 *
 * PURPOSE  Every rank fills its whole padded block, interior and ghost cells,
 *          with bytes made from (rank, cell, round, byte): random-looking,
 *          never all ones or zeros, and a ghost's bytes differ from any
 *          interior's. After each exchange every cell is compared, byte for
 *          byte: a ghost cell that has a neighbour (a face, or with --corners
 *          an edge or a corner; across a periodic axis's ends too) holds that
 *          neighbour's interior cell at that place, computed here from the
 *          neighbour's rank and cell; every other ghost cell and every
 *          interior cell is as it was.
 * USAGE    mpiexec -n <ranks> ./halo_check --grid G0[,G1[,G2]] [--block N0,..]
 *                 [--ghost W0,..] [--periodic P0,..] [--elem B] [--corners]
 *                 [--uneven] [--pad P] [--offset B] [--rounds R] [--device]
 *                 [--device-blocks N] [--pipelined]
 *                 [--fault grid|ghost|overlap|past|differ|face|skip|plant]
 *                 [--fault-rank R] [--allow-shared-gpu]
 * NOTES    The grid's length is the halo's dims. --uneven: a rank's block is one
 *          cell longer on each axis where its coordinate is odd (a face's two
 *          sides still agree). --pad P: rows and planes P cells apart more than
 *          packed (strides given, not packed). --device: the rounds are made by
 *          one kernel, shardtab_halo_exchange_block, every round but the first
 *          after the kernel XORed the interior's bytes (so that each round
 *          moves other bytes: halo_device_mark), every round's ghost cells
 *          checked by the kernel against the first round's and the round's
 *          mark, and every cell checked at its end;
 *          --device-blocks N: by a grid of N blocks, each round every block's
 *          shardtab_halo_exchange_blocks, then the grid's sync. --pipelined:
 *          the stream-ordered rounds back to back, no sync between them (each
 *          round's cells copied in, the exchange, the shard copied out, all on
 *          the stream), so that a rank runs ahead of its neighbours and puts
 *          into an inbox's other half while they still take from this one;
 *          every round checked at the end.
 *          A fault makes one rank (default the last) call create otherwise
 *          (grid: every rank), each refused on every rank with one message,
 *          exit 2; skip: that rank never calls the exchange, and every rank
 *          must end with one message, exit 1; plant: after each exchange that
 *          rank changes one byte of its first ghost cell on axis 0's lower
 *          face (the verifier must name it: exit 1). Exit 0 verified, 1 a failure, 2
 *          bad usage or a refused create; one message, from rank 0. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check_program.h"
#include "halo_device.h"
#include "shardtab_halo.h"
#include "test_stream.h"

#define PROGRAM "halo_check"

#define D 3

/* shardtab_halo_form's answers, as the first line names them */
static const char *const form_names[] = {"pulled", "pushed-ll", "pushed-put"};

typedef struct job {
    int rank, size, dims, rounds, corners, uneven, device, device_blocks, pipelined, allow_shared;
    int grid[D], periodic[D];
    size_t block[D], ghost[D], elem, pad, offset;
    const char *fault;
    int fault_rank;
} job_t;

/* ---- the command line ---------------------------------------------------------------- */

/* "a[,b[,c]]" into v (at most D values, each in [lo, hi]); the count, or 0 */
static int parse_list(const char *text, long lo, long hi, long v[D])
{
    int n = 0;
    char *end;
    while (n < D) {
        v[n] = strtol(text, &end, 10);
        if (end == text || v[n] < lo || v[n] > hi)
            return 0;
        n++;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return 0;
        text = end + 1;
    }
    return 0;
}

static int known_fault(const char *name)
{
    static const char *const faults[] = {"grid",   "ghost", "overlap", "past",
                                         "differ", "face",  "skip",    "plant"};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        if (strcmp(name, faults[i]) == 0)
            return 1;
    return 0;
}

static void parse(int argc, char **argv, job_t *j, char *err, size_t bytes)
{
    long v[D];
    int n;

    j->dims = 0;
    j->rounds = 3;
    j->elem = 8;
    j->fault_rank = -1;
    j->device_blocks = 1;
    for (int a = 0; a < D; a++) {
        j->grid[a] = 1;
        j->block[a] = 5;
        j->ghost[a] = 1;
    }
    for (int i = 1; i < argc && err[0] == '\0'; i++) {
        const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--corners") == 0) {
            j->corners = 1;
        } else if (strcmp(o, "--uneven") == 0) {
            j->uneven = 1;
        } else if (strcmp(o, "--device") == 0) {
            j->device = 1;
        } else if (strcmp(o, "--pipelined") == 0) {
            j->pipelined = 1;
        } else if (strcmp(o, "--allow-shared-gpu") == 0) {
            j->allow_shared = 1;
        } else if (val == NULL) {
            snprintf(err, bytes, "unknown option or missing value: %s", o);
        } else if (i++, strcmp(o, "--grid") == 0 && (n = parse_list(val, 1, 64, v)) > 0) {
            j->dims = n;
            for (int a = 0; a < n; a++)
                j->grid[a] = (int)v[a];
        } else if (strcmp(o, "--block") == 0 && (n = parse_list(val, 1, 4096, v)) > 0) {
            for (int a = 0; a < D; a++)
                j->block[a] = (size_t)v[a < n ? a : n - 1];
        } else if (strcmp(o, "--ghost") == 0 && (n = parse_list(val, 0, 64, v)) > 0) {
            for (int a = 0; a < D; a++)
                j->ghost[a] = (size_t)v[a < n ? a : n - 1];
        } else if (strcmp(o, "--periodic") == 0 && (n = parse_list(val, 0, 1, v)) > 0) {
            for (int a = 0; a < D; a++)
                j->periodic[a] = (int)v[a < n ? a : n - 1];
        } else if (strcmp(o, "--device-blocks") == 0 && parse_list(val, 1, 64, v) == 1) {
            j->device = 1;
            j->device_blocks = (int)v[0];
        } else if (strcmp(o, "--elem") == 0 && parse_list(val, 1, 64, v) == 1) {
            j->elem = (size_t)v[0];
        } else if (strcmp(o, "--pad") == 0 && parse_list(val, 0, 64, v) == 1) {
            j->pad = (size_t)v[0];
        } else if (strcmp(o, "--offset") == 0 && parse_list(val, 0, 4096, v) == 1) {
            j->offset = (size_t)v[0];
        } else if (strcmp(o, "--rounds") == 0 && parse_list(val, 1, 1000, v) == 1) {
            j->rounds = (int)v[0];
        } else if (strcmp(o, "--fault-rank") == 0 && parse_list(val, 0, 1 << 20, v) == 1) {
            j->fault_rank = (int)v[0];
        } else if (strcmp(o, "--fault") == 0 && known_fault(val)) {
            j->fault = val;
        } else {
            snprintf(err, bytes, "bad option or value: %s %s", o, val);
        }
    }
    if (err[0] == '\0' && j->dims == 0)
        snprintf(err, bytes, "--grid is required");
    if (err[0] == '\0' && j->fault != NULL && strcmp(j->fault, "plant") == 0 && j->ghost[0] == 0)
        snprintf(err, bytes,
                 "--fault plant changes a ghost cell on axis 0: give it --ghost 1 or more");
}

/* ---- the cells ------------------------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* byte b of cell c (a rank's padded index) of rank r in round k; stale: a ghost's */
static unsigned char cell_byte(int r, const uint64_t c[D], int k, size_t b, int stale)
{
    uint64_t h = mix((uint64_t)r << 40 ^ (uint64_t)k << 20 ^ (uint64_t)stale << 60);
    h = mix(h ^ c[0] ^ c[1] << 16 ^ c[2] << 32);
    return (unsigned char)(mix(h ^ b) >> 17);
}

static void coords_of(const job_t *j, int r, int c[D])
{
    c[0] = r % j->grid[0];
    c[1] = r / j->grid[0] % j->grid[1];
    c[2] = r / (j->grid[0] * j->grid[1]);
}

static size_t block_of(const job_t *j, int r, int a)
{
    int c[D];
    coords_of(j, r, c);
    return a < j->dims ? j->block[a] + (size_t)(j->uneven && c[a] % 2) : 1;
}

static size_t ghost_of(const job_t *j, int a)
{
    return a < j->dims ? j->ghost[a] : 0;
}

static int neighbour_of(const job_t *j, int r, const int dir[D])
{
    int c[D];
    coords_of(j, r, c);
    for (int a = 0; a < D; a++) {
        c[a] += dir[a];
        if (c[a] < 0 || c[a] >= j->grid[a]) {
            if (!j->periodic[a] || a >= j->dims)
                return -1;
            c[a] = (c[a] + j->grid[a]) % j->grid[a];
        }
    }
    return c[0] + j->grid[0] * (c[1] + j->grid[1] * c[2]);
}

/* this rank's layout: extents, strides (cells), the bytes it spans */
typedef struct layout {
    size_t extent[D], stride[D], bytes;
} layout_t;

static layout_t layout_of(const job_t *j)
{
    layout_t l;
    for (int a = 0; a < D; a++)
        l.extent[a] = block_of(j, j->rank, a) + 2 * ghost_of(j, a);
    l.stride[0] = 1;
    l.stride[1] = l.extent[0] + j->pad;
    l.stride[2] = l.stride[1] * l.extent[1] + j->pad;
    l.bytes = j->offset + (l.stride[2] * l.extent[2]) * j->elem;
    return l;
}

/* Where cell c's bytes come from: -1 its own (interior), -2 nowhere (a ghost
 * with no neighbour: stale), else the neighbour's rank, and the direction to it
 * in dir. */
static int source_of(const job_t *j, const uint64_t c[D], int dir[D])
{
    int moving = 0;

    for (int a = 0; a < D; a++) {
        const size_t g = ghost_of(j, a), n = block_of(j, j->rank, a);
        dir[a] = c[a] < g ? -1 : c[a] >= g + n ? 1 : 0;
        moving += dir[a] != 0;
    }
    if (moving == 0)
        return -1;
    if (moving > 1 && !j->corners)
        return -2;
    const int n = neighbour_of(j, j->rank, dir);
    return n >= 0 ? n : -2;
}

/* The bytes cell c should hold after round k: its own (interior), its
 * neighbour's (a ghost with one), or its stale ones; the first two XORed with
 * `mark` (--device: the last round's, every rank's interior changed alike). */
static void expected(const job_t *j, const uint64_t c[D], int k, unsigned char mark,
                     unsigned char *out)
{
    int dir[D];
    uint64_t from[D];
    const int n = source_of(j, c, dir);

    for (int a = 0; a < D && n >= 0; a++) {
        const size_t mine = block_of(j, j->rank, a), theirs = block_of(j, n, a);
        from[a] = dir[a] < 0 ? c[a] + theirs : dir[a] > 0 ? c[a] - mine : c[a];
    }
    for (size_t b = 0; b < j->elem; b++)
        out[b] = n == -1   ? cell_byte(j->rank, c, k, b, 0) ^ mark
                 : n == -2 ? cell_byte(j->rank, c, k, b, 1)
                           : cell_byte(n, from, k, b, 0) ^ mark;
}

/* every cell of this rank's block in round k: interior its own, ghosts stale */
static void fill(const job_t *j, const layout_t *l, unsigned char *host, int k)
{
    uint64_t c[D];
    memset(host, 0xa5, l->bytes);
    for (c[2] = 0; c[2] < l->extent[2]; c[2]++)
        for (c[1] = 0; c[1] < l->extent[1]; c[1]++)
            for (c[0] = 0; c[0] < l->extent[0]; c[0]++) {
                int ghost = 0;
                for (int a = 0; a < D; a++)
                    ghost |=
                        c[a] < ghost_of(j, a) || c[a] >= ghost_of(j, a) + block_of(j, j->rank, a);
                unsigned char *cell =
                    host + j->offset +
                    (c[0] * l->stride[0] + c[1] * l->stride[1] + c[2] * l->stride[2]) * j->elem;
                for (size_t b = 0; b < j->elem; b++)
                    cell[b] = cell_byte(j->rank, c, k, b, ghost);
            }
}

/* cells whose bytes are not as expected after round k (mark: expected's) */
static size_t verify(const job_t *j, const layout_t *l, const unsigned char *host, int k,
                     unsigned char mark)
{
    unsigned char want[64];
    uint64_t c[D];
    size_t wrong = 0;

    for (c[2] = 0; c[2] < l->extent[2]; c[2]++)
        for (c[1] = 0; c[1] < l->extent[1]; c[1]++)
            for (c[0] = 0; c[0] < l->extent[0]; c[0]++) {
                const unsigned char *cell =
                    host + j->offset +
                    (c[0] * l->stride[0] + c[1] * l->stride[1] + c[2] * l->stride[2]) * j->elem;
                expected(j, c, k, mark, want);
                if (memcmp(cell, want, j->elem) != 0 && wrong++ == 0)
                    fprintf(stderr, "# " PROGRAM ": rank %d: cell (%llu, %llu, %llu) is wrong\n",
                            j->rank, (unsigned long long)c[0], (unsigned long long)c[1],
                            (unsigned long long)c[2]);
            }
    return wrong;
}

/* ---- the run -------------------------------------------------------------------------- */

/* --device: a byte a cell of the padded block, axis 0 fastest, 1 where a
 * neighbour fills the ghost cell (halo_device_vary_t.filled), in device memory */
static shardtab_status_t fill_filled(const job_t *j, const layout_t *l, void **filled)
{
    const size_t cells = l->extent[0] * l->extent[1] * l->extent[2];
    unsigned char *map = malloc(cells);
    shardtab_status_t status =
        map ? shardtab_mem_alloc(cells, filled)
            : shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of the ghost map failed");
    uint64_t c[D];
    int dir[D];
    size_t k = 0;

    for (c[2] = 0; status == SHARDTAB_SUCCESS && c[2] < l->extent[2]; c[2]++)
        for (c[1] = 0; c[1] < l->extent[1]; c[1]++)
            for (c[0] = 0; c[0] < l->extent[0]; c[0]++)
                map[k++] = source_of(j, c, dir) >= 0;
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_memcpy_to_device(*filled, map, cells);
    free(map);
    return status;
}

/* --pipelined: every round enqueued back to back, then every round checked */
static shardtab_status_t run_pipelined(const job_t *j, const layout_t *l, void *shard,
                                       shardtab_t *table, shardtab_halo_t *halo, void *stream)
{
    const size_t bytes = l->bytes, rounds = (size_t)j->rounds;
    unsigned char *in = malloc(rounds * bytes), *out = malloc(rounds * bytes);
    shardtab_status_t status =
        in && out ? SHARDTAB_SUCCESS
                  : shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc of the rounds failed");
    size_t wrong = 0;

    for (int k = 0; status == SHARDTAB_SUCCESS && k < j->rounds; k++)
        fill(j, l, in + (size_t)k * bytes, k);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    for (int k = 0; status == SHARDTAB_SUCCESS && k < j->rounds; k++) {
        status = shardtab_memcpy_async(shard, in + (size_t)k * bytes, bytes, stream);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_halo_exchange(halo, stream);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_async(out + (size_t)k * bytes, shard, bytes, stream);
    }
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_stream_synchronize(stream);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_signal_check(table);
    for (int k = 0; status == SHARDTAB_SUCCESS && k < j->rounds && wrong == 0; k++)
        if ((wrong = verify(j, l, out + (size_t)k * bytes, k, 0)) > 0)
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY, "round %d: %zu cells of rank %d wrong",
                                        k, wrong, j->rank);
    free(in);
    free(out);
    return shardtab_agree(MPI_COMM_WORLD, status);
}

/* the params, with this rank's fault if it is the fault rank */
static shardtab_halo_params_t params_of(const job_t *j, const layout_t *l, size_t shard_bytes)
{
    shardtab_halo_params_t p;
    const int faulty = j->fault != NULL && j->rank == j->fault_rank;

    memset(&p, 0, sizeof p);
    p.dims = j->dims;
    p.corners = j->corners;
    p.elem_bytes = j->elem;
    p.offset = j->offset;
    for (int a = 0; a < j->dims; a++) {
        p.grid[a] = j->grid[a];
        p.periodic[a] = j->periodic[a];
        p.block[a] = block_of(j, j->rank, a);
        p.ghost[a] = j->ghost[a];
        p.stride[a] = j->pad > 0 ? l->stride[a] : 0;
    }
    if (j->fault == NULL)
        return p;
    if (strcmp(j->fault, "grid") == 0)
        p.grid[0] += 1; /* every rank */
    else if (faulty && strcmp(j->fault, "ghost") == 0)
        p.ghost[0] = p.block[0] + 1;
    else if (faulty && strcmp(j->fault, "overlap") == 0)
        p.stride[0] = 1, p.stride[1] = 1, p.stride[2] = l->stride[2];
    else if (faulty && strcmp(j->fault, "past") == 0)
        p.offset = shard_bytes - j->elem; /* one cell fits, the block not */
    else if (faulty && strcmp(j->fault, "differ") == 0)
        p.ghost[0] = p.ghost[0] > 0 ? p.ghost[0] - 1 : 1;
    else if (faulty && strcmp(j->fault, "face") == 0)
        p.block[1] += 1; /* the shard has room for it */
    return p;
}

static shardtab_status_t run(job_t *j)
{
    layout_t l = layout_of(j);
    const size_t shard_bytes = l.bytes + 4096; /* room for the faults' larger blocks */
    unsigned char *host = malloc(shard_bytes);
    void *shard = NULL, *stream = NULL, *snap = NULL, *filled = NULL;
    uint64_t *wrong_round = NULL, first_wrong = UINT64_MAX;
    shardtab_t *table = NULL;
    shardtab_halo_t *halo = NULL;
    shardtab_status_t status =
        host ? SHARDTAB_SUCCESS : shardtab_error_set(SHARDTAB_ERR_NO_MEMORY, "malloc failed");
    size_t wrong = 0;
    unsigned char mark = 0; /* --device: the last round's change of the interior */
    const int skip = j->fault != NULL && strcmp(j->fault, "skip") == 0;
    const int plant = j->fault != NULL && strcmp(j->fault, "plant") == 0;

    if (status == SHARDTAB_SUCCESS)
        status = shardtab_mem_alloc(shard_bytes, &shard);
    if (status == SHARDTAB_SUCCESS && j->device) /* the kernel's own check of every round */
        status = shardtab_mem_alloc(l.bytes, &snap);
    if (status == SHARDTAB_SUCCESS && j->device)
        status = shardtab_mem_alloc(sizeof *wrong_round, (void **)&wrong_round);
    if (status == SHARDTAB_SUCCESS && j->device)
        status = shardtab_memcpy_to_device(wrong_round, &first_wrong, sizeof first_wrong);
    if (status == SHARDTAB_SUCCESS && j->device)
        status = fill_filled(j, &l, &filled);
    status = shardtab_agree(MPI_COMM_WORLD, status);
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_agree(
            MPI_COMM_WORLD, test_stream_create(&stream) == 0
                                ? SHARDTAB_SUCCESS
                                : shardtab_error_set(SHARDTAB_ERR_DEVICE, "stream create failed"));
    if (status == SHARDTAB_SUCCESS)
        status = shardtab_create(MPI_COMM_WORLD, shard, shard_bytes, &table);
    if (status == SHARDTAB_SUCCESS) {
        shardtab_halo_params_t p = params_of(j, &l, shard_bytes);
        status = shardtab_halo_create(table, &p, &halo);
    }
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        printf("# " PROGRAM ": %d ranks, %d nodes, grid %d x %d x %d, %s, %s\n", j->size,
               shardtab_node_count(table), j->grid[0], j->grid[1], j->grid[2],
               j->device ? "device-side" : "stream-ordered", form_names[shardtab_halo_form(halo)]);
    if (status == SHARDTAB_SUCCESS && j->rank == 0 && shardtab_node_count(table) == 1 &&
        shardtab_halo_form(halo) == SHARDTAB_HALO_PUSHED_PUT) {
        shardtab_halo_device_t dev;
        if (shardtab_halo_device(halo, &dev) == SHARDTAB_SUCCESS)
            printf("# " PROGRAM ": by put, %d slices a piece\n", dev.slices);
    }
    if (status == SHARDTAB_SUCCESS && j->pipelined && !j->device)
        status = run_pipelined(j, &l, shard, table, halo, stream);
    for (int k = 0; status == SHARDTAB_SUCCESS && !(j->pipelined && !j->device) &&
                    k < (j->device ? 1 : j->rounds);
         k++) {
        fill(j, &l, host, k);
        status = shardtab_memcpy_to_device(shard, host, l.bytes);
        if (status == SHARDTAB_SUCCESS) /* every rank's cells in place before any exchange */
            status = shardtab_agree(MPI_COMM_WORLD, status);
        if (status == SHARDTAB_SUCCESS && j->device) {
            shardtab_signals_t sig;
            shardtab_halo_device_t dev;
            status = shardtab_signals(table, &sig);
            if (status == SHARDTAB_SUCCESS)
                status = shardtab_halo_device(halo, &dev);
            halo_device_vary_t vary = {.origin = (unsigned char *)shard + j->offset,
                                       .snap = snap,
                                       .filled = filled,
                                       .wrong = wrong_round,
                                       .elem = j->elem};
            for (int a = 0; a < D; a++) {
                vary.ghost[a] = ghost_of(j, a);
                vary.block[a] = block_of(j, j->rank, a);
                vary.stride[a] = l.stride[a];
            }
            mark = halo_device_mark(j->rounds - 1);
            if (status == SHARDTAB_SUCCESS &&
                halo_device_exchanges(&sig, &dev, j->rounds, j->device_blocks, &vary, stream))
                status = shardtab_error_set(SHARDTAB_ERR_DEVICE, "launch failed");
        } else if (status == SHARDTAB_SUCCESS && !(skip && j->rank == j->fault_rank)) {
            status = shardtab_halo_exchange(halo, stream);
        }
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_stream_synchronize(stream);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_signal_check(table);
        if (status == SHARDTAB_SUCCESS)
            status = shardtab_memcpy_to_host(host, shard, l.bytes);
        if (status == SHARDTAB_SUCCESS && j->device)
            status = shardtab_memcpy_to_host(&first_wrong, wrong_round, sizeof first_wrong);
        if (status == SHARDTAB_SUCCESS && first_wrong != UINT64_MAX)
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY,
                                        "round %llu: rank %d's ghost cells held another round's "
                                        "bytes (checked in the kernel)",
                                        (unsigned long long)first_wrong, j->rank);
        if (status == SHARDTAB_SUCCESS && plant && j->rank == j->fault_rank)
            host[j->offset + (ghost_of(j, 0) - 1 + ghost_of(j, 1) * l.stride[1] +
                              ghost_of(j, 2) * l.stride[2]) *
                                 j->elem] ^= 0x5a;
        if (status == SHARDTAB_SUCCESS && !(skip && j->rank == j->fault_rank) &&
            (wrong = verify(j, &l, host, k, mark)) > 0)
            status = shardtab_error_set(SHARDTAB_ERR_VERIFY, "round %d: %zu cells of rank %d wrong",
                                        k, wrong, j->rank);
        status = shardtab_agree(MPI_COMM_WORLD, status);
    }
    if (status == SHARDTAB_SUCCESS && j->rank == 0)
        printf("# " PROGRAM ": %d %s exchanges OK, every cell byte for byte\n", j->rounds,
               j->device      ? "device-side"
               : j->pipelined ? "stream-ordered (pipelined)"
                              : "stream-ordered");
    shardtab_status_t released = shardtab_halo_destroy(&halo);
    /* a bounded MPI step that gave up leaves the ranks out of step: the table's
     * destroy would be refused, its message in the place of this one; the job
     * ends */
    const int out_of_step =
        status == SHARDTAB_ERR_TIMEOUT && table != NULL && shardtab_node_count(table) > 1;
    if (table != NULL && !out_of_step) {
        shardtab_status_t destroyed = shardtab_destroy(&table);
        released = released != SHARDTAB_SUCCESS ? released : destroyed;
    }
    if (stream != NULL)
        test_stream_destroy(stream);
    if (shard != NULL && !out_of_step)
        (void)shardtab_mem_free(shard);
    if (snap != NULL)
        (void)shardtab_mem_free(snap);
    if (wrong_round != NULL)
        (void)shardtab_mem_free(wrong_round);
    if (filled != NULL)
        (void)shardtab_mem_free(filled);
    free(host);
    return status != SHARDTAB_SUCCESS ? status : released;
}

int main(int argc, char **argv)
{
    job_t j;
    char err[256] = "";
    shardtab_status_t status;
    int code;

    memset(&j, 0, sizeof j);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.size);
    parse(argc, argv, &j, err, sizeof err);
    if (j.fault_rank < 0)
        j.fault_rank = j.size - 1;
    if ((code = check_program_start(PROGRAM, j.rank, err, j.allow_shared, &status)) >= 0)
        return code;
    if (status == SHARDTAB_SUCCESS)
        status = run(&j);
    status = check_program_verdict(PROGRAM, j.rank, j.size, status, NULL);
    return check_program_end(PROGRAM, j.rank, status, SHARDTAB_SUCCESS);
}

/* faces.c - direct faces (include/shardtab_faces.h): each rank's layout
 * checked, every rank's gathered and compared, then each face's neighbour,
 * route and places (its ghost face in this shard; where its own face goes,
 * through the table); and the exchange of the faces that go through MPI,
 * host-synchronous, each wait bounded by the table's patience. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "shardtab_faces.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "grid.h"
#include "internal.h"
#include "mpi_steps.h"
#include "table.h"

#define D SHARDTAB_HALO_MAX_DIMS
#define FACES (2 * D) /* a face's index: 2 axis + side */
/* A face's MPI tag: this base, then the faces' id (modulo 256) and the
 * parity, then the index of the ghost face it fills, as its receiver sees it:
 * two faces between the same ranks (a periodic axis of two), two faces
 * objects of one table, and two parities never cross. Under 32767, the least
 * MPI_TAG_UB; above the halo's tags (its 27 directions). */
#define ST_FACES_TAG 0x4000
#define ST_FACES_IDS 256

/* What every rank tells every other: its params, resolved (axes past dims:
 * one rank, not periodic, no faces). */
typedef struct st_faces_desc {
    int64_t dims, grid[D], periodic[D], parities, through_mpi;
    uint64_t face[D], offset;
} st_faces_desc_t;

struct shardtab_faces {
    shardtab_t *table;
    uint64_t id; /* the table's faces made before these, on every rank */
    st_faces_desc_t mine;
    char *ghost[2][FACES]; /* this rank's ghost faces, in its shard */
    char *dest[2][FACES];  /* its faces' places in the neighbours' shards: route TABLE */
    int neighbor[FACES], node_peer[FACES], route[FACES];
    int mpi_device;
    char *host;    /* staging: [FACES] faces out, then [FACES] in, each its axis's bytes */
    int exchanges; /* exchanges that moved faces */
    shardtab_stream_t last_stream; /* the last such exchange's: its copies from host */
    int gave_up;                   /* an exchange gave up: a late message may land in host */
};

static const char *const create_call = "shardtab_faces_create";

/* ---- the layout, one place ----------------------------------------------------------- */

/* Byte offset of face (a, s, p) from d->offset, or UINT64_MAX if out of range
 * or past 64 bits. */
static uint64_t desc_offset(const st_faces_desc_t *d, int a, int s, int p)
{
    uint64_t before = 0, all = 0, at;

    if (a < 0 || a >= d->dims || d->face[a] == 0 || s < 0 || s > 1 || p < 0 || p >= d->parities)
        return UINT64_MAX;
    for (int b = 0; b < d->dims; b++) {
        if (__builtin_add_overflow(all, d->face[b], &all))
            return UINT64_MAX;
        if (b < a)
            before += d->face[b];
    }
    if (__builtin_mul_overflow(all, 2 * (uint64_t)p, &at) ||
        __builtin_mul_overflow(before, 2, &before) || __builtin_add_overflow(at, before, &at) ||
        __builtin_add_overflow(at, (uint64_t)s * d->face[a], &at))
        return UINT64_MAX;
    return at;
}

/* The faces' bytes from the offset on (parities x F), or UINT64_MAX. */
static uint64_t desc_bytes(const st_faces_desc_t *d)
{
    uint64_t all = 0, bytes;

    for (int b = 0; b < d->dims; b++)
        if (__builtin_add_overflow(all, d->face[b], &all))
            return UINT64_MAX;
    return __builtin_mul_overflow(all, 2 * (uint64_t)d->parities, &bytes) ? UINT64_MAX : bytes;
}

/* params into d, the fields that need no table; returns the first rule
 * broken, or NULL */
static const char *describe(const shardtab_faces_params_t *p, st_faces_desc_t *d)
{
    memset(d, 0, sizeof *d);
    if (p->dims < 1 || p->dims > D)
        return "dims";
    if (p->parities < 1 || p->parities > 2)
        return "parities";
    d->dims = p->dims;
    d->parities = p->parities;
    d->through_mpi = p->through_mpi != 0;
    d->offset = p->offset;
    for (int a = 0; a < D; a++) {
        d->grid[a] = a < p->dims ? p->grid[a] : 1;
        d->periodic[a] = a < p->dims && p->periodic[a] != 0;
        d->face[a] = a < p->dims ? p->face_bytes[a] : 0;
    }
    return NULL;
}

size_t shardtab_faces_offset(const shardtab_faces_params_t *params, int axis, int side, int parity)
{
    st_faces_desc_t d;
    uint64_t at;

    if (params == NULL || describe(params, &d) != NULL ||
        (at = desc_offset(&d, axis, side, parity)) == UINT64_MAX ||
        __builtin_add_overflow(at, d.offset, &at) || at > SIZE_MAX)
        return (size_t)-1;
    return (size_t)at;
}

size_t shardtab_faces_bytes(const shardtab_faces_params_t *params)
{
    st_faces_desc_t d;
    uint64_t bytes;

    if (params == NULL || describe(params, &d) != NULL || (bytes = desc_bytes(&d)) == UINT64_MAX ||
        bytes > SIZE_MAX)
        return 0;
    return (size_t)bytes;
}

/* ---- this rank's own checks ---------------------------------------------------------- */

static shardtab_status_t resolve(const shardtab_t *t, const shardtab_faces_params_t *p,
                                 st_faces_desc_t *d)
{
    const char *broken;
    uint64_t ranks = 1, bytes, end;
    int any = 0;

    if (p == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: params is NULL", create_call);
    broken = describe(p, d);
    if (broken != NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: %s %d is not %s", create_call, broken,
                       broken[0] == 'd' ? p->dims : p->parities,
                       broken[0] == 'd' ? "1, 2 or 3" : "1 or 2");
    for (int a = 0; a < d->dims; a++) {
        if (d->grid[a] < 1)
            return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: grid[%d] = %lld is not positive",
                           create_call, a, (long long)d->grid[a]);
        ranks *= (uint64_t)d->grid[a];
        if (ranks > (uint64_t)INT_MAX)
            break;
        if (d->face[a] > (uint64_t)INT_MAX) /* one MPI message a face */
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "%s: face_bytes[%d] = %llu is above %d, one MPI message's most",
                           create_call, a, (unsigned long long)d->face[a], INT_MAX);
        any |= d->face[a] > 0;
    }
    if (ranks != (uint64_t)t->size)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: the grid %lld x %lld x %lld is not the table's %d ranks", create_call,
                       (long long)d->grid[0], (long long)d->grid[1], (long long)d->grid[2],
                       t->size);
    if (!any)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: no axis has faces (every face_bytes is 0)",
                       create_call);
    bytes = desc_bytes(d);
    if (bytes == UINT64_MAX || __builtin_add_overflow(bytes, d->offset, &end) ||
        end > (uint64_t)t->shard.bytes)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "%s: the faces run from byte %llu past this rank's shard of %zu bytes",
                       create_call, (unsigned long long)d->offset, t->shard.bytes);
    return SHARDTAB_SUCCESS;
}

/* ---- every rank's, compared ----------------------------------------------------------- */

/* The neighbour of rank r at step `by` (-1 or 1) along axis a, or -1. */
static int neighbor_of(const st_faces_desc_t *d, int r, int a, int by)
{
    int dir[D] = {0, 0, 0};

    dir[a] = by;
    return st_grid_neighbor(d->grid, d->periodic, r, dir);
}

/* The same rules on every rank over everyone's descs: the first rank and rule
 * broken named, in the same words everywhere. */
static shardtab_status_t compare(const st_faces_desc_t *all, int size)
{
    const st_faces_desc_t *first = &all[0];

    for (int r = 1; r < size; r++) {
        const st_faces_desc_t *d = &all[r];
        const char *field = d->dims != first->dims                              ? "dims"
                            : memcmp(d->grid, first->grid, sizeof d->grid) != 0 ? "grid"
                            : memcmp(d->periodic, first->periodic, sizeof d->periodic) != 0
                                ? "periodic"
                            : d->parities != first->parities       ? "parities"
                            : d->through_mpi != first->through_mpi ? "through_mpi"
                                                                   : NULL;
        if (field != NULL)
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "%s: rank %d's %s differs from rank 0's; every rank must give the "
                           "same dims, grid, periodic, parities and through_mpi",
                           create_call, r, field);
    }
    for (int r = 0; r < size; r++)
        for (int a = 0; a < first->dims; a++) {
            int n = neighbor_of(first, r, a, 1);
            if (n >= 0 && all[n].face[a] != all[r].face[a])
                return st_fail(SHARDTAB_ERR_INVALID_ARG,
                               "%s: ranks %d and %d are neighbours on axis %d but give %llu "
                               "and %llu face_bytes there",
                               create_call, r, n, a, (unsigned long long)all[r].face[a],
                               (unsigned long long)all[n].face[a]);
        }
    return SHARDTAB_SUCCESS;
}

/* ---- the places ------------------------------------------------------------------------ */

static shardtab_status_t place(shardtab_faces_t *f, const st_faces_desc_t *all)
{
    shardtab_t *t = f->table;
    const st_faces_desc_t *me = &f->mine;
    size_t most = 0;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    for (int i = 0; i < FACES; i++)
        f->neighbor[i] = f->node_peer[i] = -1;
    for (int a = 0; a < me->dims; a++)
        for (int s = 0; s < 2 && me->face[a] > 0; s++) {
            const int i = 2 * a + s, n = neighbor_of(me, t->rank, a, s ? 1 : -1);
            void *base = NULL;
            size_t bytes = 0;

            for (int p = 0; p < me->parities; p++)
                f->ghost[p][i] = (char *)t->shard.local + me->offset + desc_offset(me, a, s, p);
            f->neighbor[i] = n;
            if (n < 0)
                continue;
            if (me->through_mpi || t->node_rank_of[n] < 0) {
                f->route[i] = SHARDTAB_FACES_MPI;
                most += me->face[a];
                continue;
            }
            f->route[i] = SHARDTAB_FACES_TABLE;
            f->node_peer[i] = t->node_rank_of[n];
            status = shardtab_peer(t, n, &base, &bytes);
            if (status != SHARDTAB_SUCCESS)
                return status;
            for (int p = 0; p < me->parities; p++) /* its ghost face on the other side */
                f->dest[p][i] = (char *)base + all[n].offset + desc_offset(&all[n], a, 1 - s, p);
        }
    if (most > 0 && !f->mpi_device) {
        status = st_fault_check(ST_FAULT_FACES_STAGING); /* a test build's failure */
        if (status == SHARDTAB_SUCCESS && (f->host = calloc(2, most)) == NULL)
            status = st_fail(SHARDTAB_ERR_NO_MEMORY, "%s: calloc of %zu bytes of staging failed",
                             create_call, 2 * most);
    }
    return status;
}

shardtab_status_t shardtab_faces_create(shardtab_t *table, const shardtab_faces_params_t *params,
                                        shardtab_faces_t **faces)
{
    shardtab_status_t status = st_check_table(table, create_call);
    st_faces_desc_t *all = NULL; /* every rank's, then this rank's at [size]: kept with
                                    the receive buffer if the gather is left pending */
    shardtab_faces_t *f = NULL;
    int gave_up = 0, pending = 0;

    if (status != SHARDTAB_SUCCESS)
        return status; /* no table to agree over: local, as every call's */
    status = st_table_in_step(table, create_call);
    if (status == SHARDTAB_SUCCESS) {
        all = calloc((size_t)table->size + 1, sizeof *all);
        f = calloc(1, sizeof *f);
        if (all == NULL || f == NULL)
            status = st_fail(SHARDTAB_ERR_NO_MEMORY, "%s: calloc failed", create_call);
    }
    if (status == SHARDTAB_SUCCESS)
        status = faces == NULL ? st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: faces is NULL", create_call)
                               : resolve(table, params, &all[table->size]);
    status =
        st_gather_agreed(table, create_call, "faces", status, all, sizeof *all, &gave_up, &pending);
    if (status == SHARDTAB_SUCCESS)
        status = compare(all, table->size); /* the same verdict on every rank */
    if (status == SHARDTAB_SUCCESS) {
        f->table = table;
        f->id = table->faces_made;
        f->mine = all[table->size];
        f->mpi_device = params->mpi_device != 0;
        status = place(f, all);
    }
    status =
        gave_up ? status : st_agree_bounded(table->comm, status, st_patience_s(table), &gave_up);
    if (gave_up) /* an agreement or the gather left pending: no collective may follow */
        st_tables_out_of_step(table);
    if (!pending)
        free(all);
    if (status != SHARDTAB_SUCCESS) {
        if (f != NULL)
            free(f->host);
        free(f);
        return status;
    }
    table->faces_made++;
    *faces = f;
    return SHARDTAB_SUCCESS;
}

shardtab_status_t shardtab_faces_destroy(shardtab_faces_t **faces)
{
    shardtab_status_t status = SHARDTAB_SUCCESS;

    if (faces == NULL || *faces == NULL)
        return SHARDTAB_SUCCESS;
    if ((*faces)->gave_up) /* a late message may still land in the staging: kept */
        (*faces)->host = NULL;
    else if ((*faces)->exchanges > 0 && (*faces)->host != NULL) /* its copies from there */
        status = st_backend()->stream_synchronize((*faces)->last_stream);
    free((*faces)->host);
    free(*faces);
    *faces = NULL;
    return status;
}

/* ---- the exchange ----------------------------------------------------------------------- */

/* Every MPI face of parity p: the receives posted, then the sends (from src,
 * or staged in f->host), each waited for, bounded. A post that fails takes
 * back those before it; the neighbours' own waits then give up. */
static shardtab_status_t links(shardtab_faces_t *f, int p, const void *const *src, char *const in[],
                               char *const out[], st_steps_t *steps)
{
    shardtab_t *t = f->table;
    MPI_Request requests[2 * FACES];
    int index[2 * FACES], posted = 0, rc = MPI_SUCCESS;
    shardtab_status_t status = SHARDTAB_SUCCESS;

    const int tag = ST_FACES_TAG + (int)((f->id % ST_FACES_IDS) * 2 + (uint64_t)p) * FACES;
    const shardtab_status_t fault = st_fault_check(ST_FAULT_FACES_POST); /* a test build's */

    if (fault != SHARDTAB_SUCCESS)
        rc = MPI_ERR_OTHER; /* as if the first post failed */
    for (int i = 0; i < FACES && rc == MPI_SUCCESS; i++)
        if (f->route[i] == SHARDTAB_FACES_MPI) {
            index[posted] = i;
            rc = MPI_Irecv(f->mpi_device ? f->ghost[p][i] : in[i], (int)f->mine.face[i / 2],
                           MPI_BYTE, f->neighbor[i], tag + i, t->comm, &requests[posted++]);
        }
    for (int i = 0; i < FACES && rc == MPI_SUCCESS; i++)
        if (f->route[i] == SHARDTAB_FACES_MPI) {
            index[posted] = i;
            rc = MPI_Isend(f->mpi_device ? src[i] : out[i], (int)f->mine.face[i / 2], MPI_BYTE,
                           f->neighbor[i], tag + (i ^ 1), t->comm, &requests[posted++]);
        }
    if (rc != MPI_SUCCESS) {
        /* the failed one started nothing; the others are taken back, and the
         * ranks are out of step: a neighbour's face of this round may still
         * come, and no later exchange may take it for its own */
        status =
            fault != SHARDTAB_SUCCESS
                ? fault
                : st_mpi_check(rc, "shardtab_faces_exchange: MPI_Irecv or MPI_Isend of a face");
        for (int i = 0; i < posted - 1; i++) {
            MPI_Cancel(&requests[i]);
            MPI_Request_free(&requests[i]);
        }
        steps->gave_up = 1;
        st_tables_out_of_step(t);
        return status;
    }
    for (int k = 0; k < posted && !steps->gave_up; k++) {
        const int receive = k < posted / 2, peer = f->neighbor[index[k]];
        char what[96], step[96];
        shardtab_status_t waited;

        snprintf(what, sizeof what, "%s rank %d of a face on axis %d",
                 receive ? "MPI_Irecv from" : "MPI_Isend to", peer, index[k] / 2);
        snprintf(step, sizeof step, "its %s rank %d", receive ? "receive from" : "send to", peer);
        waited = st_steps_wait(steps, MPI_SUCCESS, &requests[k], what, step);
        if (status == SHARDTAB_SUCCESS)
            status = waited;
    }
    return status;
}

shardtab_status_t shardtab_faces_exchange(shardtab_faces_t *faces, int parity,
                                          const void *const *src, shardtab_stream_t stream)
{
    const char *call = "shardtab_faces_exchange";
    shardtab_status_t status, moved;
    char *in[FACES] = {0}, *out[FACES] = {0}, *at;
    st_steps_t steps;
    int any = 0;

    if (faces == NULL)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: no faces (NULL)", call);
    if (parity < 0 || parity >= faces->mine.parities)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "%s: parity %d is not below the faces' %d", call,
                       parity, (int)faces->mine.parities);
    for (int i = 0; i < FACES; i++)
        if (faces->route[i] == SHARDTAB_FACES_MPI) {
            if (src == NULL || src[i] == NULL)
                return st_fail(SHARDTAB_ERR_INVALID_ARG,
                               "%s: src[%d] is NULL, and the face on axis %d, side %d goes "
                               "through MPI",
                               call, i, i / 2, i % 2);
            any = 1;
        }
    status = st_check_table(faces->table, call); /* its table destroyed */
    if (status == SHARDTAB_SUCCESS)
        status = st_table_in_step(faces->table, call);
    if (status != SHARDTAB_SUCCESS || !any)
        return status;
    /* through_mpi: every face through MPI, the node's too */
    steps = (st_steps_t){faces->table, call, 0, faces->mine.through_mpi ? "through MPI" : NULL};
    /* the last exchange's copies from the staging done, if on another stream */
    status = faces->exchanges > 0 && faces->last_stream != stream && faces->host != NULL
                 ? st_backend()->stream_synchronize(faces->last_stream)
                 : SHARDTAB_SUCCESS;
    faces->exchanges++;
    faces->last_stream = stream;
    /* the faces out, after what the stream made: staged, copied on it; then one sync */
    at = faces->host;
    for (int i = 0; i < FACES && !faces->mpi_device; i++)
        if (faces->route[i] == SHARDTAB_FACES_MPI) {
            out[i] = at;
            at += faces->mine.face[i / 2];
            if (status == SHARDTAB_SUCCESS)
                status = st_backend()->copy_async(out[i], src[i], faces->mine.face[i / 2], stream);
        }
    if (status == SHARDTAB_SUCCESS)
        status = st_backend()->stream_synchronize(stream);
    for (int i = 0; i < FACES && !faces->mpi_device; i++)
        if (faces->route[i] == SHARDTAB_FACES_MPI) {
            in[i] = at;
            at += faces->mine.face[i / 2];
        }
    /* sent and received whatever came before: no neighbour waits for this rank */
    moved = links(faces, parity, src, in, out, &steps);
    faces->gave_up |= steps.gave_up;
    if (moved != SHARDTAB_SUCCESS) /* over the stream's: it leaves the ranks out of step */
        status = moved;
    /* the staged faces in, in stream order (the next exchange's sync comes before
     * the staging is written again) */
    for (int i = 0; i < FACES && !faces->mpi_device && status == SHARDTAB_SUCCESS; i++)
        if (faces->route[i] == SHARDTAB_FACES_MPI)
            status = st_backend()->copy_async(faces->ghost[parity][i], in[i],
                                              faces->mine.face[i / 2], stream);
    return status;
}

/* ---- what the faces are ------------------------------------------------------------------ */

/* face (axis, side) as an index, or -1 */
static int face_index(const shardtab_faces_t *f, int axis, int side)
{
    return f == NULL || axis < 0 || axis >= f->mine.dims || side < 0 || side > 1 ? -1
                                                                                 : 2 * axis + side;
}

void *shardtab_faces_ghost(const shardtab_faces_t *faces, int axis, int side, int parity)
{
    const int i = face_index(faces, axis, side);
    return i < 0 || parity < 0 || parity >= faces->mine.parities ? NULL : faces->ghost[parity][i];
}

void *shardtab_faces_dest(const shardtab_faces_t *faces, int axis, int side, int parity)
{
    const int i = face_index(faces, axis, side);
    return i < 0 || parity < 0 || parity >= faces->mine.parities ? NULL : faces->dest[parity][i];
}

int shardtab_faces_neighbor(const shardtab_faces_t *faces, int axis, int side)
{
    const int i = face_index(faces, axis, side);
    return i < 0 ? -1 : faces->neighbor[i];
}

int shardtab_faces_node_peer(const shardtab_faces_t *faces, int axis, int side)
{
    const int i = face_index(faces, axis, side);
    return i < 0 ? -1 : faces->node_peer[i];
}

int shardtab_faces_route(const shardtab_faces_t *faces, int axis, int side)
{
    const int i = face_index(faces, axis, side);
    return i < 0 ? -1 : faces->route[i];
}

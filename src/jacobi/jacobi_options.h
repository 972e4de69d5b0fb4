/* jacobi_options.h - the jacobi program's command line and its row split:
 * pure C, no MPI, so that every rank reaches the same verdict alone and the
 * unit tests can pin both. */
#ifndef JACOBI_OPTIONS_H
#define JACOBI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

typedef enum jacobi_variant {
    JACOBI_TABLE = 0, /* ghost rows through the table, device signals, device stop */
    JACOBI_HOST_SYNC, /* the same stores, ordered by a host sync + MPI_Barrier per iteration */
    JACOBI_MPI,       /* ghost rows by MPI messages (host-staged unless MPI is GPU-aware) */
    JACOBI_VARIANT_COUNT
} jacobi_variant_t;

#define JACOBI_MAX_SIDE (1 << 20)
#define JACOBI_MAX_ITER 10000000
#define JACOBI_MAX_REPEAT 100

typedef struct jacobi_options {
    int nx, ny;          /* grid points, boundaries included */
    int niter;           /* most iterations per solve */
    int nccheck;         /* the norm every nccheck-th iteration */
    int repeat;          /* timed solves; the median is reported */
    int graph;           /* table variant: replay captured graphs (GPU) */
    jacobi_variant_t variant;
    const char *json;    /* NULL: no JSON */
    int allow_shared_gpu;
} jacobi_options_t;

typedef enum jacobi_parse {
    JACOBI_PARSE_OK = 0,
    JACOBI_PARSE_HELP,
    JACOBI_PARSE_ERROR, /* one line in err: print it, exit 2 */
} jacobi_parse_t;

void jacobi_options_default(jacobi_options_t *opts);
jacobi_parse_t jacobi_options_parse(int argc, char **argv, jacobi_options_t *opts, char *err,
                                    size_t err_bytes);
const char *jacobi_variant_name(jacobi_variant_t variant);
const char *jacobi_usage_text(void);

/* The anchors' split of the ny - 2 interior rows over `ranks`: the first ranks
 * get (ny-2)/ranks rows, the last (ny-2) mod ranks ranks one more. start is the
 * global index of the first row (1-based: row 0 is the top boundary). */
typedef struct jacobi_rows {
    int start, count;
} jacobi_rows_t;

/* 0, or -1 with a message when a rank would get no row. */
int jacobi_split_rows(int ny, int ranks, int rank, jacobi_rows_t *rows, char *err,
                      size_t err_bytes);
/* The periodic ring of the anchors: the rank above (top) and below (bottom). */
int jacobi_top(int ranks, int rank);
int jacobi_bottom(int ranks, int rank);

#endif /* JACOBI_OPTIONS_H */

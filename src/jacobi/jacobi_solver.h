/* jacobi_solver.h - one solve's device state (this rank's rows, or the whole
 * grid for the 1-GPU reference, their ghost rows and the kernel's bookkeeping)
 * and the wiring of its edges: which neighbour's ghost rows go through the
 * table, which through MPI. */
#ifndef JACOBI_SOLVER_H
#define JACOBI_SOLVER_H

#include "jacobi_sweep.h"
#include "shardtab.h"

typedef struct jacobi_solver {
    int nx, rows;
    jacobi_real_t *a[2];      /* device: rows x nx, twice */
    jacobi_real_t *halo;      /* device: [parity][above, below][nx] */
    jacobi_ctl_t *ctl;        /* device */
    double *partials;         /* device */
    double *history;          /* device */
    int history_len;
    jacobi_real_t *init;      /* host: the starting rows, boundary columns set */
    jacobi_step_t step;
} jacobi_solver_t;

struct jacobi_job;

/* The starting rows [start, start + rows) of the global grid: zero inside,
 * sin(2 pi y / (ny - 1)) on both boundary columns. */
void jacobi_fill_initial(jacobi_real_t *rows_out, int nx, int ny, int start, int rows);

/* Device buffers of one solver; the halo in coherent memory when peers write it. */
shardtab_status_t jacobi_solver_alloc(jacobi_solver_t *s, int nx, int ny, int start, int rows,
                                      int niter, int coherent_halo);
shardtab_status_t jacobi_solver_free(jacobi_solver_t *s);
/* Back to the starting state for a new solve, the iteration count kept. Synchronous. */
shardtab_status_t jacobi_solver_reset(jacobi_solver_t *s, void *stream);
/* The first solve of a fresh solver starts at iteration 0 with nothing decided. */
shardtab_status_t jacobi_solver_start(jacobi_solver_t *s, void *stream);
/* The device's bookkeeping, read back. Synchronous. */
shardtab_status_t jacobi_solver_read_ctl(const jacobi_solver_t *s, void *stream, jacobi_ctl_t *ctl);

/* The ring of the distributed solve: edges through the table where the
 * neighbour is on this node (and the variant wants it), else through MPI. */
shardtab_status_t jacobi_wire_edges(struct jacobi_job *j);
/* The reference: the whole grid on this rank's device, its own rows wrapping
 * around to its own ghost rows, as the anchors' single-GPU code does. */
void jacobi_wire_reference(jacobi_solver_t *s, int nccheck);

#endif /* JACOBI_SOLVER_H */

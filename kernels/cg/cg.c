/* cg.c - what every backend's cg launchers share (cg.h): the phases of a
 * stream iteration and where the node barrier goes between them. */
#include "cg.h"

int cg_stream_phases(int variant)
{
    return variant == CG_PIPELINED ? 2 : 3;
}

int cg_barrier_before(int variant, int phase)
{
    /* before each product: standard's phase 1, pipelined's phase 0 */
    return variant == CG_PIPELINED ? phase == 0 : phase == 1;
}

/* shardtab_types.h - the element types and reduction operations of the
 * collectives, shared by the host API (shardtab.h) and the device code
 * (shardtab_comm.h), which must not need MPI's or a GPU runtime's headers. */
#ifndef SHARDTAB_TYPES_H
#define SHARDTAB_TYPES_H

typedef enum shardtab_type {
    SHARDTAB_FLOAT = 0,  /* IEEE binary32 */
    SHARDTAB_DOUBLE = 1, /* IEEE binary64 */
    SHARDTAB_INT64 = 2,  /* two's complement; sums wrap */
    SHARDTAB_TYPE_COUNT
} shardtab_type_t;

typedef enum shardtab_op {
    SHARDTAB_SUM = 0,
    SHARDTAB_MIN = 1, /* min(a, b) = b < a ? b : a, in node-rank order: a NaN of rank 0 wins */
    SHARDTAB_MAX = 2, /* max(a, b) = b > a ? b : a, likewise */
    SHARDTAB_OP_COUNT
} shardtab_op_t;

#endif /* SHARDTAB_TYPES_H */

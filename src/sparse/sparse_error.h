/* sparse_error.h - how every function of src/sparse reports a refusal: one
 * message into the caller's buffer, nothing printed. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef SPARSE_ERROR_H
#define SPARSE_ERROR_H

#include <stddef.h>

/* printf into err (errlen bytes, cut to fit); nothing when err is NULL or
 * errlen is 0. */
void sparse_set_error(char *err, size_t errlen, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* SPARSE_ERROR_H */

/* sparse_error.c - the one writer of src/sparse's messages (sparse_error.h). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "sparse_error.h"

#include <stdarg.h>
#include <stdio.h>

void sparse_set_error(char *err, size_t errlen, const char *format, ...)
{
    if (!err || errlen == 0)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(err, errlen, format, args);
    va_end(args);
}

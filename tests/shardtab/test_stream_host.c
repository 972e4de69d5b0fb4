/* test_stream_host.c - test_stream.h on the host backend: no stream (a launch
 * runs at once, by the calling thread or threads it starts), and the one code
 * a host launcher returns. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include <stddef.h>

#include "test_stream.h"

int test_stream_create(void **stream)
{
    *stream = NULL;
    return 0;
}

void test_stream_destroy(void *stream)
{
    (void)stream;
}

const char *test_error_string(int code)
{
    return code == 0 ? "no error" : "could not start a thread";
}

/* test_stream.h - the streams that the check programs' device code runs on
 * (comm_check, signal_example), and the runtime's words for a launcher's code:
 * test_stream.hip (HIP and CUDA), test_stream_host.c (no stream: the host
 * backend runs a launch at once). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef TEST_STREAM_H
#define TEST_STREAM_H

#ifdef __cplusplus
extern "C" {
#endif

/* A non-blocking stream in *stream (host: NULL); 0 or the runtime's code. */
int test_stream_create(void **stream);
void test_stream_destroy(void *stream);
/* The runtime's words for a code a launcher or test_stream_create returned. */
const char *test_error_string(int code);

#ifdef __cplusplus
}
#endif

#endif /* TEST_STREAM_H */

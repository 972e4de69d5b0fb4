/* test_stream.hip - test_stream.h on GPUs: a non-blocking stream of the
 * runtime, and its error strings. HIP for AMD, compiled as CUDA for NVIDIA. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "gpu_runtime.h"
#include "test_stream.h"

extern "C" int test_stream_create(void **stream)
{
    hipStream_t s;
    hipError_t err = hipStreamCreateWithFlags(&s, hipStreamNonBlocking);
    if (err == hipSuccess)
        *stream = (void *)s;
    return (int)err;
}

extern "C" void test_stream_destroy(void *stream)
{
    if (stream)
        (void)hipStreamDestroy((hipStream_t)stream);
}

extern "C" const char *test_error_string(int code)
{
    return hipGetErrorString((hipError_t)code);
}

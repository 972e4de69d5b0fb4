/* jacobi_status.h - the jacobi program's statuses: a failure of malloc or of
 * a launcher turned into the library's status, with one clear message, by
 * the function that first sees it. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef JACOBI_STATUS_H
#define JACOBI_STATUS_H

#include <stddef.h>

#include "shardtab.h"

shardtab_status_t jacobi_no_memory(const char *what, size_t bytes);
/* A launcher's or a plan's code (0: none), its text as jacobi_error_string says. */
shardtab_status_t jacobi_kernel_check(int code, const char *what);

#endif /* JACOBI_STATUS_H */

/* params.c - what a create is asked for, resolved before any rank moves: the
 * caller's shardtab_create_params_t with SHARDTAB_WAIT_TIMEOUT and the
 * defaults filled in, and SHARDTAB_RANKS_PER_NODE, each value checked. Reads
 * the environment, nothing else (no MPI). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "internal.h"
#include "table.h"

#include <stdlib.h>
#include <string.h>

shardtab_status_t st_ranks_per_node_from_env(int *ranks_per_node)
{
    const char *text = getenv("SHARDTAB_RANKS_PER_NODE");

    *ranks_per_node = 0;
    if (text == NULL || *text == '\0')
        return SHARDTAB_SUCCESS;
    if (st_parse_positive_int(text, ranks_per_node) != 0)
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "SHARDTAB_RANKS_PER_NODE='%s' is not a positive integer", text);
    return SHARDTAB_SUCCESS;
}

#define ST_MAX_SIGNAL_SLOTS (1 << 20)
/* the shortest wait limit: below it, ranks that arrive in step miss each
 * other (a destroy's agreement, a device wait on a loaded machine) */
#define ST_MIN_WAIT_TIMEOUT_S 0.001

/* A plain decimal number, nothing around it: digits, an optional fraction and
 * an optional exponent ("5", "2.5", ".5", "1e1"); not " 5", "5 ", "0x10",
 * "inf" or "nan", which strtod alone would take or refuse unevenly. */
static int decimal_seconds(const char *text)
{
    const char *p = text;
    int digits = 0;

    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (digits == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

shardtab_status_t st_create_params_resolve(const shardtab_create_params_t *params,
                                           shardtab_create_params_t *out)
{
    const char *text = getenv("SHARDTAB_WAIT_TIMEOUT");

    memset(out, 0, sizeof *out);
    if (params)
        *out = *params;
    if (out->alignment == 0)
        out->alignment = 1;
    if (out->alignment & (out->alignment - 1))
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "alignment %zu is not a power of two",
                       out->alignment);
    if (out->signal_slots < 0 || out->signal_slots > ST_MAX_SIGNAL_SLOTS)
        return st_fail(SHARDTAB_ERR_INVALID_ARG, "signal_slots %d is outside [0, %d]",
                       out->signal_slots, ST_MAX_SIGNAL_SLOTS);
    if (out->signal_slots == 0)
        out->signal_slots = SHARDTAB_SIGNAL_SLOTS_DEFAULT;
    if (!(out->wait_timeout_s >= 0.0) || out->wait_timeout_s > 1e6 ||
        (out->wait_timeout_s > 0.0 && out->wait_timeout_s < ST_MIN_WAIT_TIMEOUT_S))
        return st_fail(SHARDTAB_ERR_INVALID_ARG,
                       "wait_timeout_s %g is not 0 (the default) or a number of seconds in "
                       "[0.001, 1e6]",
                       out->wait_timeout_s);
    if (out->wait_timeout_s == 0.0 && text != NULL && *text != '\0') {
        char *end;
        double v = decimal_seconds(text) ? strtod(text, &end) : -1.0;
        if (!(v >= ST_MIN_WAIT_TIMEOUT_S) || v > 1e6)
            return st_fail(SHARDTAB_ERR_INVALID_ARG,
                           "SHARDTAB_WAIT_TIMEOUT='%s' is not a number of seconds in [0.001, "
                           "1e6] (below 1 ms, ranks that arrive together would miss each other)",
                           text);
        out->wait_timeout_s = v;
    }
    if (out->wait_timeout_s == 0.0)
        out->wait_timeout_s = SHARDTAB_WAIT_TIMEOUT_DEFAULT_S;
    return SHARDTAB_SUCCESS;
}

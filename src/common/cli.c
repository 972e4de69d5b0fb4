/* cli.c - the command-line helpers and last words the programs share (cli.h). */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int app_parse_long(const char *name, const char *text, long lo, long hi, long *value, char *err,
                   size_t err_bytes)
{
    char *end = NULL;
    long v = 0;
    int digits = text && (isdigit((unsigned char)text[0]) ||
                          (text[0] == '-' && isdigit((unsigned char)text[1])));

    errno = 0;
    if (digits)
        v = strtol(text, &end, 10);
    if (!digits || *end != '\0' || errno != 0 || v < lo || v > hi) {
        snprintf(err, err_bytes, "invalid %s '%s': expected an integer from %ld to %ld", name,
                 text ? text : "", lo, hi);
        return -1;
    }
    *value = v;
    return 0;
}

int app_parse_double(const char *name, const char *text, double lo, double *value, char *err,
                     size_t err_bytes)
{
    char *end = NULL;
    double v = text ? strtod(text, &end) : 0.0;

    /* strtod skips any leading blank: refuse them all, as app_parse_long does */
    if (!text || *text == '\0' || *end != '\0' || !isfinite(v) || v < lo ||
        isspace((unsigned char)text[0])) {
        snprintf(err, err_bytes, "invalid %s '%s': expected a number >= %g", name, text ? text : "",
                 lo);
        return -1;
    }
    *value = v;
    return 0;
}

int app_parse_word(const char *name, const char *text, const char *const *words, int count,
                   int *index, char *err, size_t err_bytes)
{
    size_t used;

    for (int i = 0; text && i < count; i++) {
        if (strcmp(text, words[i]) == 0) {
            *index = i;
            return 0;
        }
    }
    used = (size_t)snprintf(err, err_bytes, "invalid %s '%s': expected", name, text ? text : "");
    for (int i = 0; i < count && used < err_bytes; i++)
        used += (size_t)snprintf(err + used, err_bytes - used, "%s %s",
                                 i == 0           ? ""
                                 : i == count - 1 ? " or"
                                                  : ",",
                                 words[i]);
    return -1;
}

void app_option_error(int c, const char *arg, int opt, const struct option *longs, const char *dash,
                      char *err, size_t err_bytes)
{
    /* getopt_long_only takes "-name" and "--name" as long options alike */
    int is_long = strncmp(arg, dash, strlen(dash)) == 0;
    const char *name = arg + strspn(arg, "-");
    size_t len = strcspn(name, "="), used;
    int matches = 0, exact = -1, only = -1, chosen;

    if (c == ':') {
        snprintf(err, err_bytes, "option '%s' needs a value", arg);
        return;
    }
    for (int i = 0; is_long && len > 0 && longs[i].name; i++) {
        if (strncmp(longs[i].name, name, len) != 0)
            continue;
        matches++;
        only = i;
        if (strlen(longs[i].name) == len)
            exact = i;
    }
    /* the option getopt took it for: the exact name, else the one it abbreviates */
    chosen = exact >= 0 ? exact : matches == 1 ? only : -1;
    if (chosen >= 0 && name[len] == '=' && longs[chosen].has_arg == no_argument) {
        snprintf(err, err_bytes, "option '%s' takes no value (%.*s%s is a flag)", arg,
                 (int)(name - arg), arg, longs[chosen].name);
    } else if (exact < 0 && matches > 1) {
        used = (size_t)snprintf(err, err_bytes, "ambiguous option '%.*s' (could be",
                                (int)(name - arg + len), arg);
        for (int i = 0, n = 0; longs[i].name && used < err_bytes; i++)
            if (strncmp(longs[i].name, name, len) == 0)
                used += (size_t)snprintf(err + used, err_bytes - used, "%s %s%s", n++ ? "," : "",
                                         dash, longs[i].name);
        if (used < err_bytes)
            snprintf(err + used, err_bytes - used, ")");
    } else if (!is_long && opt > 0 && opt < 128 && isgraph(opt)) {
        /* a short option, perhaps inside a bundle such as -sz: name the letter */
        snprintf(err, err_bytes, "unknown option '-%c'", opt);
    } else {
        snprintf(err, err_bytes, "unknown option '%s'", arg);
    }
}

void app_say_error(const char *program, int rank, const char *message)
{
    if (rank == 0) {
        fprintf(stderr, "%s: error: %s\n", program, message);
        fflush(stderr);
    }
}

int app_exit_status(int invalid_arg)
{
    return invalid_arg ? 2 : 1;
}

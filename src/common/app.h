/* app.h - what the project's two programs (multi_scal, jacobi) share beyond
 * the library: writing a result file safely, JSON strings, the provenance of a
 * result, and how much memory this node can still give. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#ifndef APP_H
#define APP_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

/* Room for one message of the programs: it may quote a whole path. */
#define APP_MESSAGE_BYTES (4096 + 512) /* Linux's PATH_MAX, and the words around it */

/* A result file, written only when the run is over: the program writes into
 * memory (f), and commit writes a temporary file beside the target and
 * renames it over the target once every byte and the close succeeded. So a
 * run killed before the end leaves nothing behind (open only proves, with a
 * probe it removes at once, that the folder takes a file), a failed one never
 * a half file, and nothing it did not create is removed. A target that is a symbolic
 * link is resolved: the file it points to is replaced, the link stays. A
 * target that exists and is not a regular file (/dev/null, /dev/stdout, a named
 * pipe) is written in place at commit; a named pipe nobody reads is an error
 * then, not a hang. */
typedef struct app_outfile {
    FILE *f;      /* the program writes here: memory until commit */
    char *buffer; /* open_memstream's */
    size_t bytes;
    char *target;     /* the file to replace (links resolved), or the device */
    int in_place;     /* target exists and is not a regular file */
    const char *what; /* how messages name the file ("JSON file"), or NULL */
    char *asked;      /* the path asked for, for messages */
} app_outfile_t;

/* Checks that path can be written (its folder exists and is writable, or it
 * is a device or pipe) and starts the file in memory: 0, or -1 with a
 * one-line reason in err. */
int app_outfile_open(app_outfile_t *out, const char *path, char *err, size_t err_bytes);
/* The same, with the messages of open and commit naming the file as `what`
 * ("cannot write JSON file 'x.json': ..."); what must outlive the file. */
int app_outfile_open_named(app_outfile_t *out, const char *path, const char *what, char *err,
                           size_t err_bytes);
/* Writes the file (see above): 0, or -1 with the reason in err (the target is
 * then left as it was). */
int app_outfile_commit(app_outfile_t *out, char *err, size_t err_bytes);
/* Forgets what was written; a no-op when nothing is open. No file is touched. */
void app_outfile_discard(app_outfile_t *out);
/* Do paths a and b name one file: the same text, the same file where both
 * exist (links and other spellings included), or the same entry of the same
 * directory where one or both are yet to be made? */
int app_same_file(const char *a, const char *b);

void app_json_string(FILE *f, const char *s);
/* "git_commit", "date_utc" and "slurm_job_id" members, each followed by ",\n". */
void app_json_provenance(FILE *f, const char *git_commit);

/* --version: "PROGRAM (shardtab) VERSION, BACKEND backend" on stdout, from rank 0 only:
 * the library's version (shardtab_version()) and the backend it was built for. */
void app_say_version(const char *program, int rank);

/* Wording that fits the count and the backend, decided here for every program:
 * app_s(n) is "" for 1 and "s" otherwise ("%d node%s"); app_devices(n) is "GPU" or
 * "GPUs" on the GPU backends and "rank" or "ranks" on the host backend, whose ranks
 * compute on the CPU ("%d %s": "1 GPU", "2 ranks"). */
const char *app_s(long long count);
const char *app_devices(long long count);

#endif /* APP_H */

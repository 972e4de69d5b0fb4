/* app.h - what the project's two programs (multi_scal, jacobi) share beyond
 * the library: writing a result file safely, JSON strings, the provenance of a
 * result, and how much memory this node can still give. */
#ifndef APP_H
#define APP_H

#include <stdint.h>
#include <stdio.h>

/* A result file written beside its target and renamed over it only once every
 * byte and the close succeeded, so a failed run never leaves a half file and
 * never removes anything it did not create. A target that exists and is not a
 * regular file (/dev/null, /dev/stdout, a pipe) is written in place instead. */
typedef struct app_outfile {
    FILE *f;
    char *target; /* the path asked for */
    char *temp;   /* the file being written, NULL when writing in place */
    const char *what; /* how messages name the file ("JSON file"), or NULL */
} app_outfile_t;

/* 0, or -1 with a one-line reason in err. */
int app_outfile_open(app_outfile_t *out, const char *path, char *err, size_t err_bytes);
/* The same, with the messages of open and commit naming the file as `what`
 * ("cannot write JSON file 'x.json': ..."); what must outlive the file. */
int app_outfile_open_named(app_outfile_t *out, const char *path, const char *what, char *err,
                           size_t err_bytes);
/* Checks every write, flushes, closes and renames: 0, or -1 with the reason
 * in err (the temporary file is then removed, the target left as it was). */
int app_outfile_commit(app_outfile_t *out, char *err, size_t err_bytes);
/* Closes and removes the temporary file only; a no-op when nothing is open. */
void app_outfile_discard(app_outfile_t *out);

void app_json_string(FILE *f, const char *s);
/* "git_commit", "date_utc" and "slurm_job_id" members, each followed by ",\n". */
void app_json_provenance(FILE *f, const char *git_commit);

#endif /* APP_H */

/* app.c - the pieces multi_scal and jacobi share: safe result files, JSON
 * strings, provenance, available memory. */
#define _GNU_SOURCE
#include "app.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void cannot_write(char *err, size_t err_bytes, const char *what, const char *path,
                         int error)
{
    snprintf(err, err_bytes, "cannot write %s%s'%s': %s", what ? what : "", what ? " " : "", path,
             strerror(error));
}

int app_outfile_open(app_outfile_t *out, const char *path, char *err, size_t err_bytes)
{
    return app_outfile_open_named(out, path, NULL, err, err_bytes);
}

int app_outfile_open_named(app_outfile_t *out, const char *path, const char *what, char *err,
                           size_t err_bytes)
{
    struct stat st;
    mode_t mask;
    int fd, exists;

    memset(out, 0, sizeof *out);
    out->what = what;
    out->target = strdup(path);
    if (out->target == NULL) {
        snprintf(err, err_bytes, "out of memory");
        return -1;
    }
    exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device or a pipe: write through it, never rename over it */
        out->f = fopen(path, "w");
        if (out->f == NULL) {
            cannot_write(err, err_bytes, what, path, errno);
            app_outfile_discard(out);
            return -1;
        }
        return 0;
    }
    if (asprintf(&out->temp, "%s.tmp.XXXXXX", path) < 0) {
        out->temp = NULL;
        snprintf(err, err_bytes, "out of memory");
        app_outfile_discard(out);
        return -1;
    }
    fd = mkstemp(out->temp);
    if (fd < 0) {
        cannot_write(err, err_bytes, what, path, errno);
        free(out->temp);
        out->temp = NULL;
        app_outfile_discard(out);
        return -1;
    }
    /* mkstemp creates 0600: give the result the mode of the file it replaces,
     * or the one a plain fopen would have given it */
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) != 0) {
        cannot_write(err, err_bytes, what, path, errno);
        close(fd);
        app_outfile_discard(out);
        return -1;
    }
    out->f = fdopen(fd, "w");
    if (out->f == NULL) {
        cannot_write(err, err_bytes, what, path, errno);
        close(fd);
        app_outfile_discard(out);
        return -1;
    }
    return 0;
}

int app_outfile_commit(app_outfile_t *out, char *err, size_t err_bytes)
{
    int failed = 0, saved = 0;

    if (out->f == NULL) {
        snprintf(err, err_bytes, "no file open");
        return -1;
    }
    if (ferror(out->f) || fflush(out->f) != 0)
        failed = 1, saved = errno;
    if (!failed && out->temp && fsync(fileno(out->f)) != 0)
        failed = 1, saved = errno;
    if (fclose(out->f) != 0 && !failed)
        failed = 1, saved = errno;
    out->f = NULL;
    if (!failed && out->temp && rename(out->temp, out->target) != 0)
        failed = 1, saved = errno;
    if (failed) {
        snprintf(err, err_bytes, "writing %s%s'%s' failed: %s", out->what ? out->what : "",
                 out->what ? " " : "", out->target, saved ? strerror(saved) : "write error");
        app_outfile_discard(out);
        return -1;
    }
    free(out->temp);
    out->temp = NULL;
    free(out->target);
    out->target = NULL;
    return 0;
}

void app_outfile_discard(app_outfile_t *out)
{
    if (out->f)
        fclose(out->f);
    out->f = NULL;
    if (out->temp)
        unlink(out->temp); /* ours alone: the target is never touched */
    free(out->temp);
    free(out->target);
    out->temp = out->target = NULL;
}

void app_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void app_json_provenance(FILE *f, const char *git_commit)
{
    const char *job = getenv("SLURM_JOB_ID");
    char when[32];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fputs("  \"git_commit\": ", f);
    app_json_string(f, git_commit);
    fprintf(f, ",\n  \"date_utc\": \"%s\",\n  \"slurm_job_id\": ", when);
    if (job && *job)
        app_json_string(f, job);
    else
        fputs("null", f);
    fputs(",\n", f);
}

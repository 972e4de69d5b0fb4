/* app.c - the pieces the programs share: safe result files, JSON strings,
 * provenance, available memory, --version. */
/* SPDX-License-Identifier: BSD-3-Clause; Copyright (c) 2026, the shardtab developers */
#define _GNU_SOURCE
#include "app.h"
#include "shardtab.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void cannot_write(char *err, size_t err_bytes, const char *what, const char *path, int error)
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

    memset(out, 0, sizeof *out);
    out->what = what;
    out->asked = strdup(path);
    if (out->asked == NULL) {
        snprintf(err, err_bytes, "out of memory");
        return -1;
    }
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            cannot_write(err, err_bytes, what, path, EISDIR);
            app_outfile_discard(out);
            return -1;
        }
        if (!S_ISREG(st.st_mode)) {
            /* a device or a pipe: written through at commit, never renamed over */
            out->in_place = 1;
            out->target = strdup(path);
        } else {
            /* a link: the file it points to is what gets replaced */
            out->target = realpath(path, NULL);
        }
        if (out->target == NULL) {
            cannot_write(err, err_bytes, what, path, errno);
            app_outfile_discard(out);
            return -1;
        }
        if (access(out->target, W_OK) != 0 && !out->in_place) {
            cannot_write(err, err_bytes, what, path, errno);
            app_outfile_discard(out);
            return -1;
        }
    } else {
        struct stat link;
        if (lstat(path, &link) == 0) { /* a link to nothing: say so, do not guess */
            snprintf(err, err_bytes,
                     "cannot write %s%s'%s': a symbolic link to a file that does "
                     "not exist",
                     what ? what : "", what ? " " : "", path);
            app_outfile_discard(out);
            return -1;
        }
        out->target = strdup(path);
    }
    if (!out->in_place) {
        /* the temporary file goes beside the target at commit: prove now that
         * the folder takes one (access() says yes to root where creating fails,
         * in /proc say), and remove the probe at once */
        char *probe = NULL;
        int fd = -1;
        if (asprintf(&probe, "%s.tmp.XXXXXX", out->target) < 0)
            probe = NULL;
        if (probe != NULL)
            fd = mkstemp(probe);
        if (fd < 0) {
            cannot_write(err, err_bytes, what, path, probe ? errno : ENOMEM);
            free(probe);
            app_outfile_discard(out);
            return -1;
        }
        close(fd);
        unlink(probe);
        free(probe);
    } else if (!S_ISFIFO(st.st_mode)) {
        /* a device: open it now too, so that a refusal comes before the run */
        int fd = open(out->target, O_WRONLY | O_NONBLOCK);
        if (fd < 0) {
            cannot_write(err, err_bytes, what, path, errno);
            app_outfile_discard(out);
            return -1;
        }
        close(fd);
    }
    out->f = open_memstream(&out->buffer, &out->bytes);
    if (out->f == NULL) {
        cannot_write(err, err_bytes, what, path, errno);
        app_outfile_discard(out);
        return -1;
    }
    return 0;
}

/* Every byte of buffer to fd, or -1 with errno. */
static int write_all(int fd, const char *buffer, size_t bytes)
{
    while (bytes > 0) {
        ssize_t n = write(fd, buffer, bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buffer += n;
        bytes -= (size_t)n;
    }
    return 0;
}

/* In place (a device, a pipe): a pipe nobody reads fails at once (ENXIO). */
static int commit_in_place(app_outfile_t *out, int *error)
{
    int fd = open(out->target, O_WRONLY | O_NONBLOCK);

    if (fd < 0) {
        *error = errno;
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK); /* a reader is there: it may block now */
    if (write_all(fd, out->buffer, out->bytes) != 0) {
        *error = errno;
        close(fd);
        return -1;
    }
    if (close(fd) != 0) {
        *error = errno;
        return -1;
    }
    return 0;
}

/* A temporary file beside the target, then the rename. */
static int commit_replace(app_outfile_t *out, int *error)
{
    struct stat st;
    mode_t mask;
    char *temp = NULL;
    int fd, exists = stat(out->target, &st) == 0;

    if (asprintf(&temp, "%s.tmp.XXXXXX", out->target) < 0) {
        *error = ENOMEM;
        return -1;
    }
    fd = mkstemp(temp);
    if (fd < 0) {
        *error = errno;
        free(temp);
        return -1;
    }
    /* mkstemp creates 0600: give the result the mode of the file it replaces,
     * or the one a plain fopen would have given it */
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) != 0 ||
        write_all(fd, out->buffer, out->bytes) != 0 || fsync(fd) != 0) {
        *error = errno;
        close(fd);
        unlink(temp);
        free(temp);
        return -1;
    }
    if (close(fd) != 0 || rename(temp, out->target) != 0) {
        *error = errno;
        unlink(temp);
        free(temp);
        return -1;
    }
    free(temp);
    return 0;
}

int app_outfile_commit(app_outfile_t *out, char *err, size_t err_bytes)
{
    int failed = 0, error = 0;

    if (out->f == NULL) {
        snprintf(err, err_bytes, "no file open");
        return -1;
    }
    if (ferror(out->f) || fclose(out->f) != 0)
        failed = 1, error = errno;
    out->f = NULL;
    if (!failed)
        failed = out->in_place ? commit_in_place(out, &error) : commit_replace(out, &error);
    if (failed) {
        snprintf(err, err_bytes, "writing %s%s'%s' failed: %s", out->what ? out->what : "",
                 out->what ? " " : "", out->asked,
                 error == ENXIO && out->in_place ? "no process reads the named pipe"
                 : error                         ? strerror(error)
                                                 : "write error");
        app_outfile_discard(out);
        return -1;
    }
    app_outfile_discard(out);
    return 0;
}

void app_outfile_discard(app_outfile_t *out)
{
    if (out->f)
        fclose(out->f);
    out->f = NULL;
    free(out->buffer);
    free(out->target);
    free(out->asked);
    out->buffer = out->target = out->asked = NULL;
    out->bytes = 0;
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

/* The directory of path made absolute and canonical, then its last part:
 * into out (PATH_MAX); 0, or -1 when the directory cannot be resolved. */
static int canonical_entry(const char *path, char *out)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t dir_len = slash ? (size_t)(slash - path) : 1;

    if (dir_len >= sizeof dir)
        return -1;
    if (slash)
        memcpy(dir, path, dir_len);
    else
        dir[0] = '.';
    if (slash && dir_len == 0)
        dir[dir_len++] = '/';
    dir[dir_len] = '\0';
    if (realpath(dir, real) == NULL)
        return -1;
    return snprintf(out, PATH_MAX, "%s/%s", real, name) < PATH_MAX ? 0 : -1;
}

int app_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    char ca[PATH_MAX], cb[PATH_MAX];

    if (strcmp(a, b) == 0)
        return 1;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return canonical_entry(a, ca) == 0 && canonical_entry(b, cb) == 0 && strcmp(ca, cb) == 0;
}

const char *app_s(long long count)
{
    return count == 1 ? "" : "s";
}

const char *app_devices(long long count)
{
    if (shardtab_backend() == SHARDTAB_BACKEND_HOST)
        return count == 1 ? "rank" : "ranks";
    return count == 1 ? "GPU" : "GPUs";
}

void app_say_version(const char *program, int rank)
{
    if (rank == 0) {
        printf("%s (shardtab) %s, %s backend\n", program, shardtab_version(),
               shardtab_backend_name(shardtab_backend()));
        fflush(stdout);
    }
}

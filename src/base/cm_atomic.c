/* cm_atomic.c: temporary file + fsync + rename(2), the POSIX way to
 * replace a file atomically within one file system.
 *
 * Two details make the result look like a plain open(path, O_CREAT |
 * O_TRUNC, 0666): mkstemp creates 0600, so the temporary is chmod'ed to
 * the mode open would have given (the old file's mode when replacing one,
 * else 0666 & ~umask); and the stream writes through a fopencookie(3)
 * cookie that keeps the first errno of a failed write(2), because stdio
 * loses it by the time ferror() is seen, and "No space left on device" is
 * the message a user needs.
 *
 * A target that exists and is not a regular file (/dev/null, /dev/stdout,
 * a FIFO) is written in place: renaming over it would replace the device
 * with a plain file (as root, /dev/null itself). Such a target has no
 * old contents to protect. A directory is refused. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie */
#endif
#include "cm_atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cm_afile_sink {
    int fd;          /* the temporary's descriptor; closed by sink_close */
    int err;         /* first errno of a failed write, 0 if none */
    int slot;        /* its entry in the pending table, -1 when none */
};

/* The temporaries being written, for cm_atomic_unlink_pending (a signal
 * handler): a slot is claimed by compare-and-swap (0 free -> 1 filling),
 * filled, then published (2); a handler unlinks only published paths. A
 * path longer than the slot, or a 17th file open at once, is not listed
 * (its temporary can outlive a signal, as before). */
#define PENDING_MAX 16
#define PENDING_LEN 4096
static char pending_path[PENDING_MAX][PENDING_LEN];
static int pending_state[PENDING_MAX];

static int pending_add(const char *tmp)
{
    size_t len = strlen(tmp);
    if (len >= PENDING_LEN)
        return -1;
    for (int k = 0; k < PENDING_MAX; k++) {
        int zero = 0;
        if (__atomic_compare_exchange_n(&pending_state[k], &zero, 1, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            memcpy(pending_path[k], tmp, len + 1);
            __atomic_store_n(&pending_state[k], 2, __ATOMIC_RELEASE);
            return k;
        }
    }
    return -1;
}

static void pending_drop(struct cm_afile_sink *s)
{
    if (s && s->slot >= 0) {
        __atomic_store_n(&pending_state[s->slot], 0, __ATOMIC_RELEASE);
        s->slot = -1;
    }
}

void cm_atomic_unlink_pending(void)
{
    for (int k = 0; k < PENDING_MAX; k++)
        if (__atomic_load_n(&pending_state[k], __ATOMIC_ACQUIRE) == 2)
            unlink(pending_path[k]);
}

static ssize_t sink_write(void *c, const char *buf, size_t n)
{
    struct cm_afile_sink *s = c;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(s->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!s->err)
                s->err = w < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static int sink_close(void *c)
{
    struct cm_afile_sink *s = c;
    int r = close(s->fd);
    if (r != 0 && !s->err)
        s->err = errno;
    s->fd = -1;
    return r;
}

/* The mode open(path, O_CREAT, 0666) would leave: an existing file keeps
 * its permission bits, a new one gets 0666 & ~umask. umask(2) can only be
 * read by setting it; it is restored at once (no other thread of ours
 * creates files). */
static mode_t open_mode(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return st.st_mode & 07777;
    mode_t m = umask(022);
    umask(m);
    return 0666 & ~m;
}

static void afile_clear(cm_afile *f)
{
    pending_drop(f->sink);
    free(f->path);
    free(f->tmp);
    free(f->sink);
    f->fp = NULL;
    f->path = f->tmp = NULL;
    f->sink = NULL;
}

cm_status cm_atomic_open(cm_afile *f, const char *path)
{
    f->fp = NULL;
    f->path = f->tmp = NULL;
    f->sink = NULL;
    if (!path || !*path)
        return cm_error(CM_EINVAL, "empty output path");
    size_t len = strlen(path);
    f->path = strdup(path);
    f->tmp = malloc(len + 16);
    f->sink = calloc(1, sizeof *f->sink);
    if (f->sink)
        f->sink->slot = -1;
    if (!f->path || !f->tmp || !f->sink) {
        afile_clear(f);
        return cm_error(CM_ENOMEM, "out of memory opening %s", path);
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(f->tmp);
        f->tmp = NULL; /* in place: no temporary, no rename */
        if (S_ISDIR(st.st_mode)) {
            afile_clear(f);
            return cm_error(CM_EIO, "cannot write %s: %s", path,
                            strerror(EISDIR));
        }
        int fd = open(path, O_WRONLY | O_TRUNC);
        f->sink->fd = fd;
        cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
        if (fd < 0 || !(f->fp = fopencookie(f->sink, "w", io))) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            afile_clear(f);
            return cm_error(CM_EIO, "cannot write %s: %s", path, strerror(e));
        }
        return CM_OK;
    }
    memcpy(f->tmp, path, len);
    memcpy(f->tmp + len, ".tmp.XXXXXX", 12);
    mode_t mode = open_mode(path);
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        int e = errno;
        afile_clear(f);
        return cm_error(CM_EIO, "cannot write %s: %s", path, strerror(e));
    }
    f->sink->fd = fd;
    f->sink->slot = pending_add(f->tmp);
    cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
    if (fchmod(fd, mode) != 0 || !(f->fp = fopencookie(f->sink, "w", io))) {
        int e = errno;
        close(fd);
        unlink(f->tmp);
        afile_clear(f);
        return cm_error(CM_EIO, "cannot write %s: %s", path, strerror(e));
    }
    return CM_OK;
}

cm_status cm_atomic_commit(cm_afile *f)
{
    int bad = ferror(f->fp) != 0;
    int e = 0;
    if (fflush(f->fp) != 0)
        bad = 1;
    if (!bad && f->tmp && fsync(f->sink->fd) != 0) { bad = 1; e = errno; }
    if (fclose(f->fp) != 0)
        bad = 1;
    f->fp = NULL;
    if (!e)
        e = f->sink->err;
    if (!bad && f->tmp && rename(f->tmp, f->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        if (f->tmp)
            unlink(f->tmp);
        cm_status s = cm_error(CM_EIO, "cannot write %s: %s", f->path,
                               e ? strerror(e) : "write error");
        afile_clear(f);
        return s;
    }
    afile_clear(f);
    return CM_OK;
}

cm_status cm_atomic_fail(cm_afile *f)
{
    int e = f->sink ? f->sink->err : 0;
    if (f->fp && !e) { /* the error may still sit in the buffer */
        fflush(f->fp);
        e = f->sink->err;
    }
    char *path = f->path ? strdup(f->path) : NULL;
    cm_atomic_abort(f);
    cm_status s = cm_error(CM_EIO, "cannot write %s: %s",
                           path ? path : "output file",
                           e ? strerror(e) : "write error");
    free(path);
    return s;
}

void cm_atomic_abort(cm_afile *f)
{
    if (!f)
        return;
    if (f->fp)
        fclose(f->fp);
    f->fp = NULL;
    if (f->tmp)
        unlink(f->tmp);
    afile_clear(f);
}

cm_status cm_atomic_probe(const char *path)
{
    cm_afile f;
    cm_status s = cm_atomic_open(&f, path);
    if (s == CM_OK)
        cm_atomic_abort(&f);
    return s;
}

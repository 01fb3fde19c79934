/* cm_atomic.c: temporary file + fsync + rename(2), the POSIX way to
 * replace a file atomically within one file system. */
#define _POSIX_C_SOURCE 200809L
#include "cm_atomic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void afile_clear(cm_afile *f)
{
    free(f->path);
    free(f->tmp);
    f->fp = NULL;
    f->path = f->tmp = NULL;
}

cm_status cm_atomic_open(cm_afile *f, const char *path)
{
    f->fp = NULL;
    f->path = f->tmp = NULL;
    if (!path || !*path)
        return cm_error(CM_EINVAL, "empty output path");
    size_t len = strlen(path);
    f->path = strdup(path);
    f->tmp = malloc(len + 16);
    if (!f->path || !f->tmp) {
        afile_clear(f);
        return cm_error(CM_ENOMEM, "out of memory opening %s", path);
    }
    memcpy(f->tmp, path, len);
    memcpy(f->tmp + len, ".tmp.XXXXXX", 12);
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        int e = errno;
        afile_clear(f);
        return cm_error(CM_EIO, "cannot write %s: %s", path, strerror(e));
    }
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
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
    if (fflush(f->fp) != 0) { bad = 1; e = errno; }
    if (!bad && fsync(fileno(f->fp)) != 0) { bad = 1; e = errno; }
    if (fclose(f->fp) != 0 && !bad) { bad = 1; e = errno; }
    f->fp = NULL;
    if (!bad && rename(f->tmp, f->path) != 0) { bad = 1; e = errno; }
    if (bad) {
        unlink(f->tmp);
        cm_status s = cm_error(CM_EIO, "cannot write %s: %s", f->path,
                               e ? strerror(e) : "write error");
        afile_clear(f);
        return s;
    }
    afile_clear(f);
    return CM_OK;
}

void cm_atomic_abort(cm_afile *f)
{
    if (!f)
        return;
    if (f->fp)
        fclose(f->fp);
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

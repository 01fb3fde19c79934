/* cm_lock.c: flock(2) on a lock file, non-blocking. Release unlinks the
 * file before closing it, so a finished run leaves nothing behind. */
#include "cm_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

cm_status cm_lock_acquire(cm_lock *l, const char *lock_path,
                          const char *what)
{
    l->fd = -1;
    l->path = NULL;
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return cm_error(CM_EIO, "cannot create lock file %s: %s", lock_path,
                        strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return cm_error(CM_EIO, "%s is in use by another run (%s is "
                            "locked)", what, lock_path);
        return cm_error(CM_EIO, "cannot lock %s: %s", lock_path, strerror(e));
    }
    if (!(l->path = strdup(lock_path))) {
        close(fd);
        return cm_error(CM_ENOMEM, "out of memory");
    }
    l->fd = fd;
    return CM_OK;
}

void cm_lock_release(cm_lock *l)
{
    if (!l)
        return;
    if (l->fd >= 0) {
        unlink(l->path);
        close(l->fd);
    }
    free(l->path);
    l->fd = -1;
    l->path = NULL;
}

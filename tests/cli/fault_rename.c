/* fault_rename.c: an LD_PRELOAD shim for the crash-point harness of
 * tests/cli/repair.sh. Every file the trainer writes goes through a
 * temporary and rename(2) (cm_atomic), so "the k-th write of a save" is
 * "the k-th rename". The shim counts the renames whose target contains
 * FAULT_MATCH and, at the FAULT_AT-th (1-based), does FAULT_HOW:
 *   kill    SIGKILL before the rename (the temporary stays behind)
 *   after   SIGKILL after the rename (the file is in place)
 *   term    SIGTERM before the rename (the trainer's handler speaks)
 *   enospc  the rename fails with ENOSPC (a full disk)
 * FAULT_LOG=FILE appends the counted targets, one a line, to FILE (to list
 * the writes of an uninterrupted run). Test code only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int counted;

int rename(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT,
                                                          "rename");
    const char *match = getenv("FAULT_MATCH");
    if (!match || !strstr(to, match))
        return real(from, to);
    counted++;
    const char *log = getenv("FAULT_LOG");
    if (log) {
        int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
        if (fd >= 0) {
            dprintf(fd, "%s\n", to);
            close(fd);
        }
    }
    const char *at = getenv("FAULT_AT"), *how = getenv("FAULT_HOW");
    if (!at || atoi(at) != counted || !how)
        return real(from, to);
    if (strcmp(how, "kill") == 0)
        raise(SIGKILL);
    if (strcmp(how, "term") == 0) {
        raise(SIGTERM);
        pause(); /* the handler ends the process */
    }
    if (strcmp(how, "enospc") == 0) {
        errno = ENOSPC;
        return -1;
    }
    int r = real(from, to);
    if (strcmp(how, "after") == 0)
        raise(SIGKILL);
    return r;
}

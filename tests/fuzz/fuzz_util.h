/* fuzz_util.h: shared by the libFuzzer harnesses of tests/fuzz/. The
 * readers under test take paths, so each input is written to a file in a
 * private temporary directory made once per process (under /dev/shm when
 * it exists: no disk traffic at thousands of runs per second); and the
 * round trip of the topology harnesses. */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_topo.h"

static char fuzz_dir[256];

/* The process's scratch directory, made on first use; abort() if it
 * cannot be (a harness fault, not a finding). */
static const char *fuzz_scratch(void)
{
    if (fuzz_dir[0])
        return fuzz_dir;
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)
                           ? "/dev/shm" : "/tmp";
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/dpsgd-fuzz.XXXXXX", base);
    if (!mkdtemp(fuzz_dir))
        abort();
    return fuzz_dir;
}

/* Writes n bytes to DIR/name (DIR = fuzz_scratch()); path receives the
 * full path. */
static void fuzz_put(const char *name, const uint8_t *d, size_t n,
                     char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", fuzz_scratch(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(d, 1, n, f) != n) || fclose(f) != 0)
        abort();
}

/* Writes t with cm_topo_write to DIR/back.txt ("n=" in its note keeps the
 * numbering 0-based and n exact) and reads it back with cm_topo_read:
 * abort() (a finding) unless it gives the same n, m, edges and weights. */
static inline void fuzz_topo_round_trip(const cm_topo *t)
{
    char back[512], note[64];
    cm_topo u;
    cm_topo_init(&u);
    snprintf(back, sizeof back, "%s/back.txt", fuzz_scratch());
    snprintf(note, sizeof note, "fuzz round-trip n=%zu", t->n);
    FILE *f = fopen(back, "w");
    if (!f || cm_topo_write(t, f, note) != CM_OK || fclose(f))
        abort();
    if (cm_topo_read(&u, back) != CM_OK || u.n != t->n ||
        u.m != t->m || (t->ew == NULL) != (u.ew == NULL))
        abort();
    for (size_t k = 0; k < t->m; k++)
        if (u.ei[k] != t->ei[k] || u.ej[k] != t->ej[k] ||
            (t->ew && u.ew[k] != t->ew[k]))
            abort();
    cm_topo_destroy(&u);
}

#endif

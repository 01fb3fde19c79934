/* fuzz_util.h: shared by the libFuzzer harnesses of tests/fuzz/. The
 * readers under test take paths, so each input is written to a file in a
 * private temporary directory made once per process (under /dev/shm when
 * it exists: no disk traffic at thousands of runs per second). */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

#endif

/* bench-memcpy.c: the memory-bandwidth reference of scripts/benches/bench-gossip.sh.
 * Streams BYTES bytes through memory with memcpy (half read, half
 * written) between two buffers of min(BYTES/2, 256 MiB) each, far bigger
 * than the caches (32 MiB of L3 here), so every byte comes from and goes
 * to DRAM; a copy larger than the buffers is repeated over them. The
 * buffers are written once before timing, so page faults are not
 * counted. Best of REPEATS (default 3) timings, since on a shared machine
 * the slower ones include waiting for a core. The in-memory gossip
 * streams 4 len (2 nsend + terms + count) bytes per round
 * (dt_gossip_plan_mem_bytes), mostly reads, so a copy of the same bytes
 * is the bound it is held against. Built by `make bench-build`
 * (bin/bench/bench-memcpy), run by scripts/benches/bench-gossip.sh; runs as one process per MPI rank there, at
 * the same time, since the ranks share the memory bus.
 *   bench-memcpy BYTES [REPEATS]
 * prints: memcpy BYTES bytes in S s (CPU C s): G GB/s */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench-memcpy BYTES [REPEATS]\n");
        return 2;
    }
    char *end;
    unsigned long long bytes = strtoull(argv[1], &end, 10);
    long reps = argc > 2 ? strtol(argv[2], NULL, 10) : 3;
    if (*end || bytes < 2 || reps < 1) {
        fprintf(stderr, "bench-memcpy: BYTES >= 2 and REPEATS >= 1\n");
        return 2;
    }
    const size_t cap = (size_t)256 << 20;
    size_t half = (size_t)(bytes / 2), buf = half < cap ? half : cap;
    char *a = malloc(buf), *b = malloc(buf);
    if (!a || !b) {
        fprintf(stderr, "bench-memcpy: out of memory for 2 x %zu bytes\n",
                buf);
        return 1;
    }
    memset(a, 1, buf);
    memset(b, 2, buf);
    double best = -1.0, best_cpu = 0.0;
    for (long r = 0; r < reps; r++) {
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        for (size_t done = 0; done < half;) {
            size_t m = half - done < buf ? half - done : buf;
            memcpy((r + done / buf) % 2 ? a : b, (r + done / buf) % 2 ? b : a,
                   m);
            done += m;
        }
        double t = now(CLOCK_MONOTONIC) - t0;
        double c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (best < 0.0 || t < best) {
            best = t;
            best_cpu = c;
        }
    }
    /* the last byte copied, so the copies cannot be left out */
    volatile char sink = a[buf - 1] + b[buf - 1];
    (void)sink;
    printf("memcpy %llu bytes in %.4f s (CPU %.4f s): %.2f GB/s\n",
           2ULL * half, best, best_cpu, 2.0 * (double)half / best / 1e9);
    free(a);
    free(b);
    return 0;
}

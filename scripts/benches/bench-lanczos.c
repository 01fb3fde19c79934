/* bench_lanczos.c: the ends lambda_2, lambda_n of a topology file's
 * Laplacian by cm_shiftinv_ends (the Lanczos engine, shift-and-invert
 * where Lanczos is slow), timed in CPU seconds per solve over REPS solves,
 * and, when DENSE is 1, by dense LAPACK (cm_eigen: dsyev on the n x n
 * Laplacian, O(n^3)) as the reference. One line on stdout:
 *
 *   n products solves factored cpu_s lambda2 lambdan [dense_l2 dense_ln]
 *
 * Usage: bench_lanczos FILE REPS DENSE. Built by scripts/benches/bench-lanczos.sh
 * against the libtopogen.a of two builds (before and after a change to
 * the engine), so it uses only what both have. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cm_eigen.h"
#include "cm_shiftinv.h"
#include "cm_topo.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_lanczos FILE REPS DENSE(0|1)\n");
        return 2;
    }
    int reps = atoi(argv[2]), dense = atoi(argv[3]);
    if (reps < 1) {
        fprintf(stderr, "bench_lanczos: REPS must be at least 1\n");
        return 2;
    }
    cm_topo t;
    cm_topo_init(&t);
    if (cm_topo_read(&t, argv[1]) != CM_OK) {
        fprintf(stderr, "bench_lanczos: %s\n", cm_last_error());
        return 1;
    }
    double l2 = 0.0, ln = 0.0;
    cm_shiftinv_stats s = {0};
    double t0 = cpu_now();
    for (int r = 0; r < reps; r++)
        if (cm_shiftinv_ends(&t, 0, &l2, &ln, &s) != CM_OK) {
            fprintf(stderr, "bench_lanczos: %s\n", cm_last_error());
            return 1;
        }
    double cpu = (cpu_now() - t0) / reps;
    printf("%zu %zu %zu %d %.6f %.17g %.17g", t.n, s.products, s.solves,
           s.factored, cpu, l2, ln);
    if (dense) {
        size_t n = t.n;
        double *a = malloc(n * n * sizeof *a), *w = malloc(n * sizeof *w);
        if (!a || !w) {
            fprintf(stderr, "bench_lanczos: out of memory for dense\n");
            return 1;
        }
        cm_topo_csr_laplacian(n, t.off, t.adj, a);
        if (cm_eigen_sym(CM_EIGEN_VALUES, n, a, w) != CM_OK) {
            fprintf(stderr, "bench_lanczos: %s\n", cm_last_error());
            return 1;
        }
        printf(" %.17g %.17g", w[1], w[n - 1]);
        free(a);
        free(w);
    }
    printf("\n");
    cm_topo_destroy(&t);
    return 0;
}

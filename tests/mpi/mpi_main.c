/* mpi_main.c: the MPI test runner, started as `mpirun -np 4 check_mpi`
 * with CK_FORK=no. Every rank runs every suite of mpi_suites.inc (one per
 * tests/mpi/mpi_check_*.c) in lock step; rank 0 prints Check's summary; the
 * exit status is non-zero on every rank when any rank saw a failure. */
#include <stdio.h>
#include <stdlib.h>

#include <cblas.h>
#include <check.h>

#include "check_env.h"
#include <mpi.h>

#define SUITE(f) Suite *f(void);
#include "mpi_suites.inc"
#undef SUITE

int check_allow_own = 1;

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_allow_own = check_env_allow_own();
    openblas_set_num_threads(1);
    SRunner *sr = srunner_create(NULL);
#define SUITE(f) srunner_add_suite(sr, f());
#include "mpi_suites.inc"
#undef SUITE
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr), total = 0;
    /* Rank 0's summary is printed by Check; other ranks report their own
     * failures here, so a failure on one rank only is never hidden. */
    if (rank != 0 && failed > 0) {
        TestResult **tr = srunner_failures(sr);
        for (int i = 0; i < failed; i++)
            fprintf(stderr, "rank %d: %s:%d: %s: %s\n", rank,
                    tr_lfile(tr[i]), tr_lno(tr[i]), tr_tcname(tr[i]),
                    tr_msg(tr[i]));
        free(tr);
    }
    MPI_Allreduce(&failed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    srunner_free(sr);
    MPI_Finalize();
    return total == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

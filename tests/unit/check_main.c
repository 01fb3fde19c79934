/* check_main.c: the unit-test runner. Runs every suite listed in the
 * generated unit_suites.inc (one per tests/unit/check_*.c); Check prints the
 * summary line; the exit status is non-zero when any test failed.
 * CK_RUN_SUITE / CK_RUN_CASE select a subset (Check's own variables). */
#include <stdlib.h>

#include <cblas.h>
#include <check.h>

#include "check_env.h"

#define SUITE(f) Suite *f(void);
#include "unit_suites.inc"
#undef SUITE

int check_allow_own = 1;

int main(void)
{
    /* The environment and the BLAS threads are the runner's to set, as
     * they are dpsgd-train's main's: one thread, so results repeat. */
    check_allow_own = check_env_allow_own();
    openblas_set_num_threads(1);
    SRunner *sr = srunner_create(NULL);
#define SUITE(f) srunner_add_suite(sr, f());
#include "unit_suites.inc"
#undef SUITE
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* cm_time.c: clock_gettime(CLOCK_MONOTONIC), CLOCK_PROCESS_CPUTIME_ID. */
#define _POSIX_C_SOURCE 200809L
#include "cm_time.h"

#include <time.h>

double cm_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double cm_time_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

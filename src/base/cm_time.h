/* cm_time: a monotonic wall clock for timers and progress lines. */
#ifndef CM_TIME_H
#define CM_TIME_H

/* Seconds from an arbitrary fixed origin (CLOCK_MONOTONIC). */
double cm_time_now(void);

/* CPU seconds used by the whole process so far (CLOCK_PROCESS_CPUTIME_ID):
 * on a shared machine, what a computation cost without the time it
 * waited for a core. */
double cm_time_cpu(void);

#endif

/* cm_time: a monotonic wall clock for timers and progress lines. */
#ifndef CM_TIME_H
#define CM_TIME_H

/* Seconds from an arbitrary fixed origin (CLOCK_MONOTONIC). */
double cm_time_now(void);

#endif

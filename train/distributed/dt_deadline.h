/* dt_deadline: the watchdog's adaptive deadline (issue 44), a pure
 * function of the recent round times, so that the rule the watchdog
 * applies (dt_watchdog_mpi.c) is tested without MPI (check_deadline.c).
 *
 * From the intervals between the last completions of the gossip exchange
 * (median m, median absolute deviation MAD), the time to naming a silent
 * rank is T = max(floor, min(5 m, max(3 m, m + 8 MAD))): a robust upper
 * bound of a round, capped at five rounds, never below the floor
 * (--timeout-floor) that covers evaluation and checkpoint pauses. So a
 * stopped rank is named within max(5 m, floor), and the message says
 * which term decided.
 */
#ifndef DT_DEADLINE_H
#define DT_DEADLINE_H

#include <stddef.h>

#define DT_DEADLINE_HIST 64 /* most intervals looked at */

/* T (above) of the n intervals hist[0..n) in seconds (any order; n in
 * 1..DT_DEADLINE_HIST, only the first DT_DEADLINE_HIST are used), with
 * the floor floor_s; rule[cap] receives which term decided: "the floor 4
 * s (--timeout-floor), above 3 median rounds (0.109 s; median round
 * 0.0363 s)", or "5 median rounds: median round 2 s, MAD 1 s, over the
 * last 8 rounds" ("3 median rounds", "median + 8 MAD"). 0 for n = 0.
 * O(n log n). */
double dt_deadline(const double *hist, size_t n, double floor_s, char *rule,
                   size_t cap);

#endif

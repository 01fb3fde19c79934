/* dt_local: communicating less (issue 31): the schedule of communications
 * of --average-every H, --local-after S and --global-every K, and the
 * outer optimizer of --outer (DiLoCo), in plain C on flat arrays so they
 * are unit-tested without MPI.
 *
 * Schedule. Step t (0-based, counted from the start of the run, across
 * resumes) ends with a communication when
 *     t < S            (post-local SGD's warm-up: every step), or
 *     (t - S + 1) % H == 0              (then every H-th step),
 * so H = 1 (the default) communicates after every step, as before, and
 * between two communications a worker takes H local optimizer steps.
 * The communications are numbered c = 0, 1, ... in order; with K > 0 the
 * communication c is an exact average of all workers (Gossip-PGA) when
 * (c + 1) % K == 0, else a gossip round. Everything here is a function of
 * (H, S, K, t), so a checkpoint needs only the step to know the phase of
 * H and K, and a resumed run continues the schedule bit for bit.
 *
 * Outer optimizer (DiLoCo: Douillard et al. 2023; torch SGD's Nesterov
 * convention). At each communication, with a = the parameters after the
 * previous communication (the anchor) and x = the parameters the
 * communication produced (the average, or the worker's mixed model), the
 * pseudo-gradient is d = a - x and
 *     sgd:LR            x <- a - LR d
 *     nesterov:LR,MOM   b <- MOM b + d;  x <- a - LR (d + MOM b)
 * then a <- x. sgd:1 leaves x as the communication made it (the step is
 * skipped, so it equals plain local steps bit for bit).
 */
#ifndef DT_LOCAL_H
#define DT_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"

typedef enum {
    DT_OUTER_NONE,     /* no outer step (the default) */
    DT_OUTER_SGD,      /* sgd:LR */
    DT_OUTER_NESTEROV  /* nesterov:LR,MOM */
} dt_outer_kind;

typedef struct {
    dt_outer_kind kind;
    double lr;         /* outer learning rate, > 0 */
    double mom;        /* nesterov: momentum in [0, 1) */
} dt_outer;

/* Parses "none", "sgd:LR" (LR in (0, 10]) or "nesterov:LR,MOM" (MOM in
 * [0, 1)). CM_EINVAL naming the value and the forms. */
cm_status dt_outer_parse(const char *s, dt_outer *o);

/* "none", "sgd:LR" or "nesterov:LR,MOM" with the shortest exact numbers,
 * into buf (cap bytes); returns buf. */
char *dt_outer_str(const dt_outer *o, char *buf, size_t cap);

/* 1 when the outer step changes anything (not none, not sgd:1). */
int dt_outer_active(const dt_outer *o);

/* Per-worker arrays the outer optimizer keeps besides x: 0 (none), 1
 * (sgd: the anchor a) or 2 (nesterov: a and b). */
size_t dt_outer_arrays(const dt_outer *o);

/* 1 when step t ends with a communication (H >= 1). O(1). */
int dt_local_comm(size_t H, size_t S, uint64_t t);

/* Communications in steps 0 .. t-1. O(1). */
uint64_t dt_local_comms(size_t H, size_t S, uint64_t t);

/* 1 when the communication of step t (dt_local_comm must hold) is an
 * exact average: K > 0 and (c + 1) % K == 0, c = dt_local_comms(t). */
int dt_local_global(size_t H, size_t S, size_t K, uint64_t t);

/* Local steps in the round that step t belongs to: 1 during the warm-up
 * (t < S), else H. */
size_t dt_local_round_len(size_t H, size_t S, uint64_t t);

/* --staleness S (issue 41): gossip with S rounds in flight. Communication
 * c mixes with the models the neighbours sent at communication c - S
 * (x_j^{c-S}; x_0 before the start) in the mean-preserving form
 *     x_i <- x_i + gamma (sum_j W_ij x_j^{c-S} - x_i^{c-S})
 * (the stale disagreement, not x_i itself, so sum_i x_i moves only by the
 * local steps: D-PSGD's mean). On a mode of W with eigenvalue lambda the
 * disagreement follows e_{c+1} = e_c - gamma (1 - lambda) e_{c-S}, stable
 * iff gamma (1 - lambda) < 2 sin(pi / (4S + 2)) (Levin and May 1976), so
 * the correction is the damped step gamma = sin(pi / (4S + 2)), stable for
 * every symmetric doubly stochastic W (lambda > -1): 1 at S = 0, 0.5 at
 * S = 1, 0.309 at S = 2. gamma = 1 at S = 2 diverges on a ring
 * (tests/unit/check_local.c). */
double dt_stale_gamma(size_t S);

/* x += gamma (mixed - old) on n floats: mixed = sum_j W_ij old_j. O(n). */
void dt_stale_mix(float *x, const float *mixed, const float *old, size_t n,
                  float gamma);

/* The outer step of one worker (formulas above) on n floats: x holds the
 * communicated parameters and gets the outer result, a the anchor (set to
 * the new x), b the Nesterov buffer (NULL unless nesterov). A no-op but
 * a <- x for sgd:1. O(n). */
void dt_outer_step(const dt_outer *o, float *x, float *a, float *b,
                   size_t n);

#endif

/* dt_algo: the decentralized update rules, over flat float arrays and a
 * gossip callback, so they run (and are unit-tested) without MPI.
 *
 * A dt_algo holds the state of `count` workers with n parameters each and
 * runs one synchronous step of all of them in three calls:
 *     dt_algo_begin(a)            starts the gossip that overlaps the
 *                                 gradients (dpsgd), else nothing
 *     dt_algo_grad(a, i, g, lr)   worker i's gradient g = grad f_i(x_i),
 *                                 x_i = dt_algo_x(a, i), for i < count
 *     dt_algo_end(a, lr)          finishes (or runs) the gossip, updates x
 * The gossip is the caller's mixer: out_i = sum_j W_ij in_j over all
 * workers (in-process in tests, dt_gossip over MPI in the trainer), on
 * arrays of dt_algo_gossip_len floats. With gradient g_i (weight decay
 * wd x_i added in here), momentum mu and step lr = eta:
 *
 *   dpsgd  D-PSGD with local momentum (Lian et al. 2017), the trainer's
 *          original update, bit for bit:
 *              v_i <- mu v_i + g_i + wd x_i;  x_i <- sum_j W_ij x_j - eta v_i
 *   d2     D^2 / exact diffusion (Tang et al. 2018; Yuan et al. 2019) with
 *          the same local momentum as the update direction:
 *              psi_i = x_i - eta v_i
 *              x_i  <- sum_j M_ij (psi_j + x_j - psi_prev_j);  psi_prev <- psi
 *          psi_prev starts at x_0. M = (1 - c) I + c W with c = mix_w
 *          (c = 1: W itself; c = 1/2: (I + W)/2, exact diffusion's
 *          choice), since D^2 needs lambda_min(M) > -1/3 and
 *          lambda(M) = 1 - c (1 - lambda(W)). The mean follows SGD on the mean
 *          direction exactly, and a consensual fixed point needs only
 *          sum_i v_i = 0, not v_i = 0: no heterogeneity bias.
 *   gt     gradient tracking (Pu and Nedic 2021) in the adapt-then-combine
 *          form of K-GT (Liu, Lin, Koloskova, Stich 2023) with heavy-ball
 *          momentum on the corrected direction; c_i (gradient units,
 *          starting at 0) is the tracker minus the local gradient:
 *              h_i = g_i + wd x_i;  v_i <- mu v_i + h_i + c_i
 *              x_i <- x_i - eta v_i      (every step)
 *          and at a communication, hbar_i the mean h_i of the round (the
 *          L steps since the last one; L = 1 every step), x and c + hbar
 *          gossiped together after the step:
 *              x_i <- sum_j W_ij x_j;  c_i <- sum_j W_ij (c_j + hbar_j) - hbar_i
 *          sum_i c_i stays 0, so at a fixed point (h_i + c_i = 0, no
 *          movement) sum_i h_i = 0. At L = 1 the tracker y = h + c obeys
 *          DSGT's y <- W y_prev + h - h_prev. The combine-then-adapt
 *          form of before (x <- W x - eta v, gossip overlapped) diverged
 *          or stayed at chance with momentum 0.9 from lr 0.05 on a random
 *          4-regular graph of 16 LeNet workers (0.01 on a ring), and its
 *          local steps, c updated from the round's last gradient, from
 *          H = 4 at lr 0.01: the correction then answers the drift it
 *          caused, a loop gain about (1 - lambda) a eta H / (1 - mu).
 *   qgm    quasi-global momentum (Lin et al. 2021, QG-DSGDm), adapt then
 *          combine:
 *              m_i = mu mhat_i + g_i + wd x_i;  x_i' = sum_j W_ij (x_j - eta m_j)
 *              mhat_i <- mu mhat_i + (1 - mu) (x_i - x_i') / eta
 *          The momentum buffer follows the model's movement after gossip
 *          (close to the global movement), not the local gradient.
 *
 * The mixer may use another W_t at every step (a time-varying topology):
 * dpsgd, gt and qgm are defined for that (gt's mean-of-y invariant needs
 * only doubly stochastic W_t); d2 is not, and the trainer refuses it on a
 * sequence (dt_d2_mix.h). Directed W (cm_topo.h): dpsgd runs on any; gt
 * and qgm need W doubly stochastic (every directed file, EL-Oracle; not
 * EL-Local); d2 needs W symmetric. The trainer refuses the rest
 * (check_directed in dt_dpsgd.c).
 *
 * Bytes per step: one array of n floats per neighbour, twice that for gt.
 * dpsgd overlaps the gossip with the gradients; d2, gt and qgm gossip a
 * vector built from the gradient, so they cannot.
 * Cost per step: O(n) per worker besides the gossip.
 */
#ifndef DT_ALGO_H
#define DT_ALGO_H

#include <stddef.h>

#include "cm_status.h"

typedef enum {
    DT_ALGO_DPSGD, /* D-PSGD, local momentum (the default) */
    DT_ALGO_D2,    /* D^2 / exact diffusion */
    DT_ALGO_GT,    /* gradient tracking */
    DT_ALGO_QGM    /* quasi-global momentum */
} dt_algo_kind;

#define DT_ALGO_MAX_STATE 4 /* per-worker state arrays at most (see below) */

/* The caller's gossip: out[i][k] = sum_j W_ij in[j][k] for every local
 * worker i, on arrays of dt_algo_gossip_len floats. start may keep in (it
 * is not changed until finish returns); out never overlaps in. */
typedef struct {
    void *ctx;                                            /* for both */
    cm_status (*start)(void *ctx, float *const *in);      /* begin a round */
    cm_status (*finish)(void *ctx, float *const *out);    /* complete it */
} dt_algo_mixer;

typedef struct {
    dt_algo_kind kind;  /* the update rule */
    size_t n;           /* parameters per worker, > 0 */
    size_t count;       /* workers held here, > 0 */
    float mu;           /* momentum in [0, 1) */
    float wd;           /* weight decay >= 0 */
    float mix_w;        /* d2 only: c in (0, 1], M = (1 - c) I + c W */
    int local;          /* 1: steps may skip the gossip (--average-every
                           H > 1, dt_algo_set_step); d2 then runs as
                           Local Exact-Diffusion (below) */
} dt_algo_spec;

typedef struct dt_algo dt_algo; /* opaque */

/* Parses "dpsgd", "d2", "gt" or "qgm". CM_EINVAL naming the choices. */
cm_status dt_algo_parse(const char *s, dt_algo_kind *kind);

/* The name dt_algo_parse accepts for kind. */
const char *dt_algo_name(dt_algo_kind kind);

/* Floats per gossiped worker array: n, or 2n for gt (x and y together). */
size_t dt_algo_gossip_len(dt_algo_kind kind, size_t n);

/* Gossip arrays per step relative to D-PSGD's n floats (1, or 2 for gt). */
size_t dt_algo_gossip_factor(dt_algo_kind kind);

/* Sets up spec->count workers on the caller's arrays x[i] and xn[i] (i <
 * count, dt_algo_gossip_len floats each; x[i] holds worker i's initial
 * parameters in its first n floats, the rest is zeroed here; xn[i] is
 * scratch). Both pointer arrays stay the caller's and must outlive a;
 * dt_algo_end swaps x[i] and xn[i] (the entries, not the data), so x[i]
 * is always worker i's current parameters. The rest of the state is
 * allocated here and zeroed (d2: psi_prev = x). The mixer is copied.
 * CM_EINVAL on a bad spec, CM_ENOMEM. Free with dt_algo_free.
 * O(count n). */
cm_status dt_algo_new(const dt_algo_spec *spec, float **x, float **xn,
                      const dt_algo_mixer *mixer, dt_algo **out);

/* Frees a. Accepts NULL. */
void dt_algo_free(dt_algo *a);

/* Worker i's parameters: x[i] of dt_algo_new (its first n floats; the
 * entry changes at every dt_algo_end). The gradient is taken here. */
float *dt_algo_x(const dt_algo *a, size_t i);

/* How the next step communicates (issue 31; until the first call: comm
 * 1, exact 0, round_len 1, i.e. every step gossips). comm 0: a local step,
 * no gossip (the mixer is not called): W = I for that step, so dpsgd
 * takes x_i <- x_i - eta v_i, gt its step with c held (K-GT, above),
 * qgm x_i <- x_i - eta m_i. exact 1: the mixer of this
 * step is an exact average (the caller's; --global-every), so d2 mixes
 * with it directly (c = 1). round_len: local steps in the current round
 * (d2 with spec.local, and gt: the mean of h). With spec.local, d2 is Local
 * Exact-Diffusion (Alghunaim 2023) with a correction y_i in gradient
 * units (starting at 0), as in the paper's local steps x <- x - alpha
 * (grad + y): each step of a round of L steps
 *     v_i <- mu v_i + g_i + wd x_i;  x_i <- x_i - eta (v_i + y_i)
 * and at its communication (x_i then being phi_i; eta that step's rate)
 *     x_i <- sum_j M_ij phi_j;  y_i <- y_i - (x_i - phi_i) / (eta L)
 * At L = 1 and a constant eta this is D^2 (eta y_i = psi_prev_i - x_i),
 * up to rounding; in gradient units the correction follows a change of
 * the learning rate (a parameter-space one, D^2's psi_prev held over a
 * round of 16 steps, overshot after a 10x decay and diverged). */
void dt_algo_set_step(dt_algo *a, int comm, int exact, size_t round_len);

/* Starts the step: dpsgd and gt start the gossip of x (and y) now, so it
 * overlaps the gradient computation. CM_EINVAL when a step is already
 * begun; the mixer's status otherwise. */
cm_status dt_algo_begin(dt_algo *a);

/* Worker i's gradient g (n floats, borrowed for the call) at dt_algo_x(a,
 * i), for a step begun by dt_algo_begin; lr is the step's learning rate
 * (the same for every worker and for dt_algo_end). Call once per worker
 * per step, any order. O(n). */
void dt_algo_grad(dt_algo *a, size_t i, const float *g, float lr);

/* Completes the step (gossip, combination, update) after every worker's
 * dt_algo_grad. CM_EINVAL when no step is begun; the mixer's status
 * otherwise (the state is then unspecified). */
cm_status dt_algo_end(dt_algo *a, float lr);

/* --staleness S (issue 41; dt_local.h): worker i's delayed mix, after a
 * local step (dt_algo_set_step comm 0): with old = the models sent S
 * communications back and mixed = sum_j W_ij old_j (n floats each),
 *     dx = gamma (mixed - old_i),  x_i <- x_i + dx
 * which for dpsgd is dt_stale_mix, bit for bit. d2 (spec.local: Local
 * Exact-Diffusion) mixes with M = (1 - c) I + c W, dx = gamma c (mixed -
 * old_i), and feeds the same stale disagreement into its correction at
 * half the model's step,
 *     y_i <- y_i - beta dx / (eta L),  beta = gamma / 2
 * (L the round's local steps, eta the step's rate; nothing at eta 0), as
 * its communication does with the fresh one (beta 1, gamma 1): every dx
 * is a row of (W - I) applied to one array, so sum_i y_i stays 0 and a
 * fixed point (no dx, no local movement) has sum_i grad f_i = 0: the
 * optimum, whatever S. The delayed primal-dual and tracking methods of
 * the literature (ASY-SONATA: Tian, Sun, Scutari 2020; DCDM: Even,
 * Hendrikx, Massoulie 2021) keep the same sum invariant and converge for
 * a small enough step; none gives LED's delayed bound. Ours, from the
 * gradient-free recursion on a mode of M (a = gamma c (1 - lambda_W) <=
 * 1.25 gamma since lambda_min(M) >= -1/4, docs/train/staleness.md): with
 * the old phi = x after the local step, z = eta L y,
 *     phi' = phi - a phi_{-S} - z - beta a phi_{-S},  z' = z + beta a phi_{-S}
 * has spectral radius < 1 at beta = gamma / 2 for S = 1..8; at beta = 1
 * it is 1.19 (S = 1) to 1.21 (S = 2), and S = 1 at momentum 0.9
 * diverged on the quadratic (measured). Other algorithms: not defined
 * (the caller refuses them). O(n). */
void dt_algo_stale_mix(dt_algo *a, size_t i, const float *mixed,
                       const float *old, float gamma, float lr);

/* The per-worker arrays that, with x, make up the algorithm's state (what
 * a checkpoint must hold): dpsgd {v}, d2 {v, psi_prev}, gt {c, v, the
 * sum of h over the round so far}, qgm {mhat}; d2 with spec.local {v, y} (the correction in
 * place of psi_prev). Returns their number k <= DT_ALGO_MAX_STATE and
 * sets arr[0..k) to worker i's arrays (n floats each, writable so a
 * checkpoint can be restored into them; valid until the next dt_algo_end;
 * gt's c is x[i] + n). */
size_t dt_algo_state(const dt_algo *a, size_t i,
                     float *arr[DT_ALGO_MAX_STATE]);

#endif

/* check_algo.c: the decentralized update rules of dt_algo on a quadratic
 * problem with heterogeneous local optima, f_i(x) = a_i/2 ||x - b_i||^2,
 * whose global optimum is x* = sum a_i b_i / sum a_i. Exact gradients and
 * a constant step: D^2 and gradient tracking reach x* (to float
 * precision), D-PSGD stalls at a biased point, and quasi-global momentum
 * drifts far less than local momentum. Plus the defining invariants, the
 * dpsgd path against the trainer's original formulas bit for bit, and
 * the errors. The gossip is an in-process dense W.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "dt_algo.h"
#include "dt_optim.h"

#define NW 8   /* workers */
#define NP 3   /* parameters */

/* Dense in-process mixer: out_i = sum_j W_ij in_j, double accumulator. */
typedef struct {
    double w[NW][NW];
    double seq[3][NW][NW]; /* a time-varying W_t when period > 0 */
    int period;            /* round t mixes with seq[t mod period] */
    float *const *in;
    size_t len;
    int rounds;
} mixer_ctx;

static cm_status mix_start(void *ctx, float *const *in)
{
    mixer_ctx *m = ctx;
    m->in = in;
    return CM_OK;
}

static cm_status mix_finish(void *ctx, float *const *out)
{
    mixer_ctx *m = ctx;
    double(*w)[NW] = m->period ? m->seq[m->rounds % m->period] : m->w;
    for (size_t i = 0; i < NW; i++)
        for (size_t k = 0; k < m->len; k++) {
            double s = 0.0;
            for (size_t j = 0; j < NW; j++)
                s += w[i][j] * (double)m->in[j][k];
            out[i][k] = (float)s;
        }
    m->rounds++;
    return CM_OK;
}

/* Ring: self weight c, each neighbour (1 - c)/2. lambda_min = 2c - 1. */
static void ring(mixer_ctx *m, double c, size_t len)
{
    memset(m, 0, sizeof *m);
    m->len = len;
    for (size_t i = 0; i < NW; i++) {
        m->w[i][i] = c;
        m->w[i][(i + 1) % NW] += (1.0 - c) / 2.0;
        m->w[i][(i + NW - 1) % NW] += (1.0 - c) / 2.0;
    }
}

/* Time-varying sequences (symmetric, doubly stochastic rounds, each a
 * matching, so no round alone connects the workers):
 *   SEQ_ONE_PEER  one-peer exponential, i ~ i XOR 2^t, t = 0, 1, 2, weight
 *                 1/2 (exact: the period's product is 11^T/n)
 *   SEQ_RING      the ring's even and odd edges alternately, weight 1/3
 *                 (not exact: the product only contracts) */
enum { SEQ_ONE_PEER = 1, SEQ_RING = 2 };

static void sequence(mixer_ctx *m, int kind, size_t len)
{
    memset(m, 0, sizeof *m);
    m->len = len;
    m->period = kind == SEQ_ONE_PEER ? 3 : 2;
    const double wt = kind == SEQ_ONE_PEER ? 0.5 : 1.0 / 3.0;
    for (int t = 0; t < m->period; t++)
        for (size_t i = 0; i < NW; i++) {
            size_t j = kind == SEQ_ONE_PEER ? i ^ ((size_t)1 << t)
                       : (i % 2 == (size_t)t) ? (i + 1) % NW
                                              : (i + NW - 1) % NW;
            m->seq[t][i][i] = 1.0 - wt;
            m->seq[t][i][j] = wt;
        }
}

static const double qa[NW] = {0.5, 2.0, 1.0, 1.5, 0.7, 1.2, 2.0, 0.6};

static double qb(size_t i, size_t k)
{
    return (double)((int)((i * 7 + k * 3) % 11) - 5) / 2.0;
}

static void optimum(double xs[NP])
{
    double sa = 0.0;
    for (size_t i = 0; i < NW; i++)
        sa += qa[i];
    for (size_t k = 0; k < NP; k++) {
        double s = 0.0;
        for (size_t i = 0; i < NW; i++)
            s += qa[i] * qb(i, k);
        xs[k] = s / sa;
    }
}

static void grad(size_t i, const float *x, float *g)
{
    for (size_t k = 0; k < NP; k++)
        g[k] = (float)(qa[i] * ((double)x[k] - qb(i, k)));
}

/* The caller's x and xn arrays of NW workers (room for gt's y). */
typedef struct {
    float buf[2][NW][2 * NP];
    float *x[NW], *xn[NW];
} arrays;

/* dt_algo_new on fresh arrays, every worker starting at x0. */
static cm_status new_algo(const dt_algo_spec *sp, const float *x0,
                          const dt_algo_mixer *mx, arrays *ar, dt_algo **a)
{
    memset(ar, 0x7f, sizeof ar->buf); /* garbage beyond x must not matter */
    for (size_t i = 0; i < NW; i++) {
        ar->x[i] = ar->buf[0][i];
        ar->xn[i] = ar->buf[1][i];
        memcpy(ar->x[i], x0, NP * sizeof *x0);
    }
    return dt_algo_new(sp, ar->x, ar->xn, mx, a);
}

typedef struct {
    double dist;       /* max_i ||x_i - x*|| */
    double consensus;  /* mean_i ||x_i - xbar||^2 */
} outcome;

static outcome measure(const dt_algo *a)
{
    double xs[NP], xbar[NP] = {0};
    optimum(xs);
    outcome o = {0, 0};
    for (size_t i = 0; i < NW; i++)
        for (size_t k = 0; k < NP; k++)
            xbar[k] += dt_algo_x(a, i)[k] / (double)NW;
    for (size_t i = 0; i < NW; i++) {
        double d = 0.0, c = 0.0;
        for (size_t k = 0; k < NP; k++) {
            double e = dt_algo_x(a, i)[k] - xs[k];
            double f = dt_algo_x(a, i)[k] - xbar[k];
            d += e * e;
            c += f * f;
        }
        o.dist = fmax(o.dist, sqrt(d));
        o.consensus += c / NW;
    }
    return o;
}

/* Runs `steps` steps of kind from x0 = 0 on the ring with self weight c
 * (seq 0) or on the sequence seq. */
static outcome run_on(int seq, dt_algo_kind kind, float mu, float lr,
                      double c, float mixw, size_t steps)
{
    mixer_ctx m;
    if (seq)
        sequence(&m, seq, dt_algo_gossip_len(kind, NP));
    else
        ring(&m, c, dt_algo_gossip_len(kind, NP));
    dt_algo_mixer mx = {&m, mix_start, mix_finish};
    dt_algo_spec sp = {.kind = kind, .n = NP, .count = NW, .mu = mu,
                       .wd = 0.0f, .mix_w = mixw};
    float x0[NP] = {0}, g[NP];
    arrays ar;
    dt_algo *a;
    ck_assert_int_eq(new_algo(&sp, x0, &mx, &ar, &a), CM_OK);
    for (size_t t = 0; t < steps; t++) {
        ck_assert_int_eq(dt_algo_begin(a), CM_OK);
        for (size_t i = 0; i < NW; i++) {
            grad(i, dt_algo_x(a, i), g);
            dt_algo_grad(a, i, g, lr);
        }
        ck_assert_int_eq(dt_algo_end(a, lr), CM_OK);
    }
    ck_assert_int_eq(m.rounds, (int)steps);
    outcome o = measure(a);
    dt_algo_free(a);
    return o;
}

static outcome run(dt_algo_kind kind, float mu, float lr, double c,
                   float mixw, size_t steps)
{
    return run_on(0, kind, mu, lr, c, mixw, steps);
}

/* D^2 (with (I+W)/2 and (I+3W)/4 on a ring whose lambda_min = -1/3, and
 * with W itself where lambda_min = 0) and GT reach x* with a constant step; D-PSGD with
 * the same step stalls at a biased point. Tolerance: float rounding. */
START_TEST(test_exact_methods_reach_optimum)
{
    const float lr = 0.05f;
    outcome dp = run(DT_ALGO_DPSGD, 0.0f, lr, 1.0 / 3.0, 1.0f, 3000);
    outcome d2h = run(DT_ALGO_D2, 0.0f, lr, 1.0 / 3.0, 0.5f, 3000);
    outcome d2w = run(DT_ALGO_D2, 0.0f, lr, 0.5, 1.0f, 3000);
    outcome gt = run(DT_ALGO_GT, 0.0f, lr, 1.0 / 3.0, 1.0f, 3000);
    ck_assert_msg(dp.dist > 0.05, "dpsgd dist %g", dp.dist);
    ck_assert_msg(d2h.dist < 1e-4, "d2 (I+W)/2 dist %g", d2h.dist);
    ck_assert_msg(d2w.dist < 1e-4, "d2 W dist %g", d2w.dist);
    outcome d2c = run(DT_ALGO_D2, 0.0f, lr, 1.0 / 3.0, 0.75f, 3000);
    ck_assert_msg(d2c.dist < 1e-4, "d2 (I+3W)/4 dist %g", d2c.dist);
    ck_assert_msg(gt.dist < 1e-4, "gt dist %g", gt.dist);
    /* with heavy-ball momentum too */
    outcome d2m = run(DT_ALGO_D2, 0.5f, lr / 2, 1.0 / 3.0, 0.5f, 3000);
    outcome gtm = run(DT_ALGO_GT, 0.5f, lr / 2, 1.0 / 3.0, 1.0f, 3000);
    outcome dpm = run(DT_ALGO_DPSGD, 0.5f, lr / 2, 1.0 / 3.0, 1.0f, 3000);
    ck_assert_msg(dpm.dist > 0.05, "dpsgd momentum dist %g", dpm.dist);
    ck_assert_msg(d2m.dist < 1e-4, "d2 momentum dist %g", d2m.dist);
    ck_assert_msg(gtm.dist < 1e-4, "gt momentum dist %g", gtm.dist);
}
END_TEST

/* Local momentum amplifies the drift: D-PSGD's fixed point moves with the
 * effective step lr/(1-mu); QG-DSGDm's momentum vanishes at a fixed point,
 * so its drift is that of plain SGD steps of lr. */
START_TEST(test_qgm_reduces_drift)
{
    const float lr = 0.01f, mu = 0.9f;
    outcome dp = run(DT_ALGO_DPSGD, mu, lr, 1.0 / 3.0, 1.0f, 4000);
    outcome qg = run(DT_ALGO_QGM, mu, lr, 1.0 / 3.0, 1.0f, 4000);
    ck_assert_msg(qg.consensus < 0.2 * dp.consensus,
                  "qgm consensus %g vs local momentum %g", qg.consensus,
                  dp.consensus);
    ck_assert_msg(qg.dist < 0.5 * dp.dist, "qgm dist %g vs %g", qg.dist,
                  dp.dist);
    /* and it converges: a finite, smaller drift, not a blow-up */
    ck_assert(isfinite(qg.dist));
}
END_TEST

/* Time-varying W_t. Gradient tracking is defined for them (Pu and Nedic
 * 2021; the tracker's mean stays the mean gradient for any doubly
 * stochastic W_t): it reaches x*, with and without momentum. D-PSGD
 * stalls at a biased point, and quasi-global momentum drifts far less
 * than local momentum, as on a static W. */
START_TEST(test_sequences)
{
    const int seqs[] = {SEQ_ONE_PEER, SEQ_RING};
    for (size_t q = 0; q < 2; q++) {
        const int sq = seqs[q];
        const float lr = 0.05f;
        outcome dp = run_on(sq, DT_ALGO_DPSGD, 0.0f, lr, 0, 1.0f, 4000);
        outcome gt = run_on(sq, DT_ALGO_GT, 0.0f, lr, 0, 1.0f, 4000);
        outcome gtm = run_on(sq, DT_ALGO_GT, 0.5f, lr / 2, 0, 1.0f, 4000);
        ck_assert_msg(dp.dist > 0.05, "seq %d dpsgd dist %g", sq, dp.dist);
        ck_assert_msg(gt.dist < 1e-4, "seq %d gt dist %g", sq, gt.dist);
        ck_assert_msg(gtm.dist < 1e-4, "seq %d gt momentum dist %g", sq,
                      gtm.dist);
        outcome dpm = run_on(sq, DT_ALGO_DPSGD, 0.9f, 0.01f, 0, 1.0f, 4000);
        outcome qg = run_on(sq, DT_ALGO_QGM, 0.9f, 0.01f, 0, 1.0f, 4000);
        ck_assert_msg(qg.consensus < 0.2 * dpm.consensus,
                      "seq %d qgm consensus %g vs local momentum %g", sq,
                      qg.consensus, dpm.consensus);
        ck_assert_msg(qg.dist < 0.5 * dpm.dist, "seq %d qgm dist %g vs %g",
                      sq, qg.dist, dpm.dist);
    }
}
END_TEST

/* Consensus distance after `steps` gradient-free D^2 steps (g = 0, mu =
 * 0, M = W) from x_i = i, on the ring with self weight 1/2 (seq 0) or the
 * sequence seq, over the initial one. */
static double d2_free_growth(int seq, size_t steps)
{
    mixer_ctx m;
    if (seq)
        sequence(&m, seq, NP);
    else
        ring(&m, 0.5, NP);
    dt_algo_mixer mx = {&m, mix_start, mix_finish};
    dt_algo_spec sp = {.kind = DT_ALGO_D2, .n = NP, .count = NW,
                       .mix_w = 1.0f};
    float x0[NP] = {0}, g[NP] = {0};
    arrays ar;
    dt_algo *a;
    ck_assert_int_eq(new_algo(&sp, x0, &mx, &ar, &a), CM_OK);
    dt_algo_free(a);
    for (size_t i = 0; i < NW; i++)
        for (size_t k = 0; k < NP; k++)
            ar.x[i][k] = (float)i; /* before dt_algo_new: psi_prev = x */
    ck_assert_int_eq(dt_algo_new(&sp, ar.x, ar.xn, &mx, &a), CM_OK);
    double c0 = measure(a).consensus;
    for (size_t t = 0; t < steps; t++) {
        ck_assert_int_eq(dt_algo_begin(a), CM_OK);
        for (size_t i = 0; i < NW; i++)
            dt_algo_grad(a, i, g, 0.1f);
        ck_assert_int_eq(dt_algo_end(a, 0.1f), CM_OK);
    }
    double c1 = measure(a).consensus;
    dt_algo_free(a);
    return c1 / c0;
}

/* Why d2 refuses a time-varying topology (dt_d2_mix.h): D^2's recursion
 * x_{t+1} = M_t (2 x_t - x_{t-1}) damps disagreement for a fixed M with
 * lambda_min > -1/3 but amplifies it when the rounds change, here on
 * matchings whose lambda_min is 0 (the one-peer period's transfer matrix
 * has spectral radius 2: growth 2^(steps/3); measured 1e11 in squared
 * distance after 60 steps, against 5e-15 on the fixed ring). Not every
 * sequence does this (the ring's alternating matchings with weight 1/3
 * damp it), but topogen's one-peer and Base-(k+1) sequences do. */
START_TEST(test_d2_needs_fixed_w)
{
    double fixed = d2_free_growth(0, 60);
    double onepeer = d2_free_growth(SEQ_ONE_PEER, 60);
    ck_assert_msg(fixed < 1e-3, "d2 on a fixed W: consensus x %g", fixed);
    ck_assert_msg(onepeer > 1e3, "d2 on one-peer rounds: consensus x %g",
                  onepeer);
}
END_TEST

/* The dpsgd path equals the trainer's original formulas bit for bit:
 * v <- mu v + g + wd x; x <- W x - lr v, with dt_sgd_velocity/apply. */
START_TEST(test_dpsgd_bits)
{
    mixer_ctx m;
    ring(&m, 1.0 / 3.0, NP);
    dt_algo_mixer mx = {&m, mix_start, mix_finish};
    dt_algo_spec sp = {.kind = DT_ALGO_DPSGD, .n = NP, .count = NW,
                       .mu = 0.9f, .wd = 5e-4f};
    float x0[NP] = {0.3f, -0.2f, 0.1f}, g[NP];
    arrays ar;
    float xr[NW][NP], vr[NW][NP], xo[NW][NP];
    float *xp[NW], *xop[NW];
    for (size_t i = 0; i < NW; i++) {
        memcpy(xr[i], x0, sizeof x0);
        memset(vr[i], 0, sizeof vr[i]);
        xp[i] = xr[i];
        xop[i] = xo[i];
    }
    dt_algo *a;
    ck_assert_int_eq(new_algo(&sp, x0, &mx, &ar, &a), CM_OK);
    for (int t = 0; t < 50; t++) {
        float lr = 0.1f / (float)(1 + t);
        ck_assert_int_eq(dt_algo_begin(a), CM_OK);
        for (size_t i = 0; i < NW; i++) {
            grad(i, dt_algo_x(a, i), g);
            dt_algo_grad(a, i, g, lr);
        }
        ck_assert_int_eq(dt_algo_end(a, lr), CM_OK);
        /* reference */
        mix_start(&m, xp);
        for (size_t i = 0; i < NW; i++) {
            grad(i, xr[i], g);
            dt_sgd_velocity(vr[i], g, xr[i], NP, 0.9f, 5e-4f);
        }
        mix_finish(&m, xop);
        for (size_t i = 0; i < NW; i++) {
            dt_sgd_apply(xo[i], vr[i], NP, lr);
            memcpy(xr[i], xo[i], sizeof xr[i]);
        }
        for (size_t i = 0; i < NW; i++) {
            ck_assert_mem_eq(dt_algo_x(a, i), xr[i], sizeof xr[i]);
            ck_assert_ptr_eq(dt_algo_x(a, i), ar.x[i]); /* caller's entry */
        }
    }
    float *st[DT_ALGO_MAX_STATE];
    ck_assert_uint_eq(dt_algo_state(a, 3, st), 1);
    ck_assert_mem_eq(st[0], vr[3], sizeof vr[3]);
    dt_algo_free(a);
}
END_TEST

/* Invariants: gt's correction keeps sum_i c_i = 0 (so its tracker h_i +
 * c_i has the mean gradient as its mean: what makes its fixed point the
 * optimum); d2's
 * mean moves by exactly -lr mean_i v_i (SGD on the mean); both up to float
 * rounding (1e-5 relative), on a static W and on a time-varying W_t. */
START_TEST(test_invariants)
{
    for (int kq = 0; kq < 4; kq++) { /* ring, then the sequence */
        const int kind = DT_ALGO_D2 + kq % 2;
        mixer_ctx m;
        if (kq < 2)
            ring(&m, 1.0 / 3.0, dt_algo_gossip_len((dt_algo_kind)kind, NP));
        else
            sequence(&m, SEQ_RING, dt_algo_gossip_len((dt_algo_kind)kind,
                                                      NP));
        dt_algo_mixer mx = {&m, mix_start, mix_finish};
        dt_algo_spec sp = {.kind = (dt_algo_kind)kind, .n = NP,
                           .count = NW, .mu = 0.5f, .wd = 1e-2f,
                           .mix_w = 0.5f};
        float x0[NP] = {1.0f, -1.0f, 0.5f}, g[NP];
        arrays ar;
        dt_algo *a;
        ck_assert_int_eq(new_algo(&sp, x0, &mx, &ar, &a), CM_OK);
        double vmean[NP], xmean[NP], hmean[NP], cmax = 0.0;
        for (int t = 0; t < 40; t++) {
            const float lr = 0.05f;
            memset(xmean, 0, sizeof xmean);
            memset(hmean, 0, sizeof hmean);
            ck_assert_int_eq(dt_algo_begin(a), CM_OK);
            for (size_t i = 0; i < NW; i++) {
                const float *x = dt_algo_x(a, i);
                grad(i, x, g);
                for (size_t k = 0; k < NP; k++) {
                    xmean[k] += x[k] / (double)NW;
                    hmean[k] += (g[k] + 1e-2 * x[k]) / (double)NW;
                }
                dt_algo_grad(a, i, g, lr);
            }
            memset(vmean, 0, sizeof vmean);
            for (size_t i = 0; kind == DT_ALGO_D2 && i < NW; i++) {
                float *st[DT_ALGO_MAX_STATE];
                dt_algo_state(a, i, st);
                for (size_t k = 0; k < NP; k++)
                    vmean[k] += st[0][k] / (double)NW;
            }
            ck_assert_int_eq(dt_algo_end(a, lr), CM_OK);
            double ymean[NP] = {0}, xnew[NP] = {0};
            for (size_t i = 0; i < NW; i++) {
                float *st[DT_ALGO_MAX_STATE];
                size_t ns = dt_algo_state(a, i, st);
                ck_assert_uint_eq(ns, kind == DT_ALGO_D2 ? 2 : 3);
                for (size_t k = 0; k < NP; k++) {
                    cmax = fmax(cmax, fabs(st[0][k]));
                    ymean[k] += st[0][k] / (double)NW;
                    xnew[k] += dt_algo_x(a, i)[k] / (double)NW;
                }
            }
            for (size_t k = 0; k < NP; k++) {
                if (kind == DT_ALGO_GT) /* c ~ hmean - h_i: O(1) */
                    ck_assert_double_eq_tol(ymean[k], 0.0,
                                            1e-5 * (1.0 + fabs(hmean[k])));
                else
                    ck_assert_double_eq_tol(xnew[k], xmean[k] - lr * vmean[k],
                                            1e-5);
            }
        }
        if (kind == DT_ALGO_GT) /* the corrections are not all 0 */
            ck_assert_double_gt(cmax, 0.1);
        dt_algo_free(a);
    }
}
END_TEST

/* Names, gossip sizes, bad specs, out-of-order calls. */
START_TEST(test_api_and_errors)
{
    dt_algo_kind k;
    const char *nm[] = {"dpsgd", "d2", "gt", "qgm"};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(dt_algo_parse(nm[i], &k), CM_OK);
        ck_assert_str_eq(dt_algo_name(k), nm[i]);
        ck_assert_uint_eq(dt_algo_gossip_len(k, 10), k == DT_ALGO_GT ? 20
                                                                     : 10);
    }
    ck_assert_int_eq(dt_algo_parse("adam", &k), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "'adam'"));
    mixer_ctx m;
    ring(&m, 0.5, NP);
    dt_algo_mixer mx = {&m, mix_start, mix_finish}, bad = {&m, NULL, NULL};
    float x0[NP] = {0};
    arrays ar;
    dt_algo *a = NULL;
    dt_algo_spec sp = {.kind = DT_ALGO_QGM, .n = 0, .count = NW, .mu = 0.9f};
    ck_assert_int_eq(new_algo(&sp, x0, &mx, &ar, &a), CM_EINVAL);
    ck_assert_ptr_null(a);
    sp.n = NP;
    sp.mu = 1.0f;
    ck_assert_int_eq(new_algo(&sp, x0, &mx, &ar, &a), CM_EINVAL);
    sp.mu = 0.9f;
    ck_assert_int_eq(new_algo(&sp, x0, &bad, &ar, &a), CM_EINVAL);
    sp.count = 0;
    ck_assert_int_eq(new_algo(&sp, x0, &mx, &ar, &a), CM_EINVAL);
    sp.count = NW;
    sp.kind = DT_ALGO_D2; /* M = (1 - c) I + c W needs c in (0, 1] */
    sp.mix_w = 0.0f;
    ck_assert_int_eq(new_algo(&sp, x0, &mx, &ar, &a), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "(0, 1]"));
    sp.mix_w = 1.5f;
    ck_assert_int_eq(new_algo(&sp, x0, &mx, &ar, &a), CM_EINVAL);
    sp.mix_w = 1.0f;
    ck_assert_int_eq(new_algo(&sp, x0, &mx, &ar, &a), CM_OK);
    ck_assert_int_eq(dt_algo_end(a, 0.1f), CM_EINVAL);
    ck_assert_int_eq(dt_algo_begin(a), CM_OK);
    ck_assert_int_eq(dt_algo_begin(a), CM_EINVAL);
    dt_algo_free(a);
    dt_algo_free(NULL);
}
END_TEST

Suite *algo_suite(void)
{
    Suite *s = suite_create("algo");
    TCase *tc = tcase_create("quadratic");
    tcase_add_test(tc, test_exact_methods_reach_optimum);
    tcase_add_test(tc, test_qgm_reduces_drift);
    tcase_add_test(tc, test_sequences);
    tcase_add_test(tc, test_d2_needs_fixed_w);
    tcase_add_test(tc, test_dpsgd_bits);
    tcase_add_test(tc, test_invariants);
    tcase_add_test(tc, test_api_and_errors);
    suite_add_tcase(s, tc);
    return s;
}

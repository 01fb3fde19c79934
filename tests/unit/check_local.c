/* check_local.c: communicating less (issue 31) without MPI: the schedule
 * of --average-every / --local-after / --global-every (dt_local), the
 * outer optimizer (sgd:1 the identity bit for bit, Nesterov against a hand
 * computation), the update rules with local steps on the quadratic of
 * check_algo.c (local SGD = H independent SGD steps then an exact
 * average; Local Exact-Diffusion and K-GT reduce to D^2 and GT at H = 1
 * and reach the optimum (to 1e-8 at the papers' step-size scaling) with
 * H > 1 where D-PSGD stalls), and the
 * whole run on one rank through dt_comm_single.c (sgd:1 = no outer step
 * bit for bit, in gossip and all-reduce mode; a run stopped in the middle
 * of a period and resumed equals the uninterrupted one, for every
 * algorithm, all-reduce and the outer step, gt's with it in 5 state
 * arrays; H = 1 given explicitly is the
 * default run; the refusals).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "check_blas.h"

#include "dt_algo.h"
#include "dt_local.h"
#include "dt_optim.h"
#include "mpi_run.h"

/* ---- schedule ----------------------------------------------------------- */

START_TEST(schedule)
{
    /* H = 1: every step; the communication count is the step */
    for (uint64_t t = 0; t < 20; t++) {
        ck_assert(dt_local_comm(1, 0, t));
        ck_assert_uint_eq(dt_local_comms(1, 0, t), t);
        ck_assert_uint_eq(dt_local_round_len(1, 0, t), 1);
    }
    /* H = 4, S = 3: steps 0, 1, 2 (warm-up), then 6, 10, 14 ... */
    const int want[16] = {1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint64_t n = 0;
    for (uint64_t t = 0; t < 16; t++) {
        ck_assert_uint_eq(dt_local_comms(4, 3, t), n);
        ck_assert_int_eq(dt_local_comm(4, 3, t), want[t]);
        ck_assert_uint_eq(dt_local_round_len(4, 3, t), t < 3 ? 1 : 4);
        n += (uint64_t)want[t];
    }
    /* K = 3: communications 2, 5, 8 ... are exact averages */
    int globals = 0;
    for (uint64_t t = 0; t < 24; t++)
        if (dt_local_comm(2, 0, t)) {
            uint64_t c = dt_local_comms(2, 0, t);
            ck_assert_int_eq(dt_local_global(2, 0, 3, t), (c + 1) % 3 == 0);
            globals += dt_local_global(2, 0, 3, t);
        }
    ck_assert_int_eq(globals, 4); /* 12 communications */
    ck_assert(!dt_local_global(2, 0, 0, 1));
}
END_TEST

START_TEST(outer_parse)
{
    dt_outer o;
    char buf[64];
    ck_assert_int_eq(dt_outer_parse("none", &o), CM_OK);
    ck_assert_int_eq(o.kind, DT_OUTER_NONE);
    ck_assert_int_eq(dt_outer_parse("sgd:0.5", &o), CM_OK);
    ck_assert_str_eq(dt_outer_str(&o, buf, sizeof buf), "sgd:0.5");
    ck_assert_int_eq(dt_outer_parse("nesterov:0.7,0.9", &o), CM_OK);
    ck_assert_str_eq(dt_outer_str(&o, buf, sizeof buf), "nesterov:0.7,0.9");
    ck_assert_uint_eq(dt_outer_arrays(&o), 2);
    ck_assert_int_eq(dt_outer_parse("sgd:1", &o), CM_OK);
    ck_assert(!dt_outer_active(&o));
    ck_assert_uint_eq(dt_outer_arrays(&o), 0);
    const char *bad[] = {"sgd", "sgd:", "sgd:0", "sgd:-1", "sgd:11",
                         "nesterov:0.7", "nesterov:0.7,1", "nesterov:x,0.9",
                         "adam:1", "sgd:1x", "nesterov:0.7,0.9,1"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        ck_assert_int_eq(dt_outer_parse(bad[k], &o), CM_EINVAL);
        ck_assert_ptr_nonnull(strstr(cm_last_error(), "--outer"));
    }
}
END_TEST

/* Nesterov by hand (a = 1, MOM 0.9, LR 0.7): x = 0.5 gives d = 0.5,
 * b = 0.5, x = 1 - 0.7 (0.5 + 0.45) = 0.335; then x = 0.2 gives
 * d = 0.135, b = 0.585, x = 0.335 - 0.7 (0.135 + 0.5265) = -0.12805. And
 * DiLoCo on the quadratic f(x) = x^2 / 2 from x = 1, H = 2 inner steps of
 * lr 0.1 (x <- 0.9 x each, so x = 0.81 a), against a double recursion.
 * sgd:1 leaves x bit for bit and moves the anchor. */
START_TEST(outer_step_by_hand)
{
    dt_outer o;
    ck_assert_int_eq(dt_outer_parse("nesterov:0.7,0.9", &o), CM_OK);
    float x = 0.5f, a = 1.0f, b = 0.0f;
    dt_outer_step(&o, &x, &a, &b, 1);
    ck_assert_float_eq_tol(x, 0.335f, 1e-6f);
    ck_assert_float_eq_tol(b, 0.5f, 1e-6f);
    ck_assert_float_eq(a, x);
    x = 0.2f;
    dt_outer_step(&o, &x, &a, &b, 1);
    ck_assert_float_eq_tol(x, -0.12805f, 1e-6f);
    ck_assert_float_eq_tol(b, 0.585f, 1e-6f);
    /* the quadratic */
    double ad = 1.0, bd = 0.0;
    x = 1.0f, a = 1.0f, b = 0.0f;
    for (int r = 0; r < 10; r++) {
        for (int k = 0; k < 2; k++)
            x -= 0.1f * x;
        dt_outer_step(&o, &x, &a, &b, 1);
        double xd = 0.81 * ad, d = ad - xd;
        bd = 0.9 * bd + d;
        ad = ad - 0.7 * (d + 0.9 * bd);
        ck_assert_msg(fabs((double)x - ad) < 1e-5, "round %d: %g vs %g", r,
                      (double)x, ad);
    }
    ck_assert_int_eq(dt_outer_parse("sgd:1", &o), CM_OK);
    float xs[3] = {0.1f, -0.0f, 3e-30f}, as[3] = {9, 9, 9}, keep[3];
    memcpy(keep, xs, sizeof xs);
    dt_outer_step(&o, xs, as, NULL, 3);
    ck_assert_mem_eq(xs, keep, sizeof xs);
    ck_assert_mem_eq(as, keep, sizeof xs);
    ck_assert_int_eq(dt_outer_parse("sgd:0.5", &o), CM_OK);
    x = 0.5f, a = 1.0f;
    dt_outer_step(&o, &x, &a, NULL, 1);
    ck_assert_float_eq(x, 0.75f);
}
END_TEST

/* ---- update rules with local steps (the quadratic of check_algo.c) ------ */

#define NW 8
#define NP 3

static const double qa[NW] = {0.5, 2.0, 1.0, 1.5, 0.7, 1.2, 2.0, 0.6};

/* the size of the local optima b_i (1 unless a test shrinks it) */
static double qscale = 1.0;

static double qb(size_t i, size_t k)
{
    return qscale * (double)((int)((i * 7 + k * 3) % 11) - 5) / 2.0;
}

static void grad(size_t i, const float *x, float *g)
{
    for (size_t k = 0; k < NP; k++)
        g[k] = (float)(qa[i] * ((double)x[k] - qb(i, k)));
}

static double optimum(size_t k)
{
    double s = 0.0, sa = 0.0;
    for (size_t i = 0; i < NW; i++) {
        s += qa[i] * qb(i, k);
        sa += qa[i];
    }
    return s / sa;
}

/* In-process mixer: the ring with self weight 1/3, or the exact average
 * when exact is set; counts its rounds. */
typedef struct {
    int exact;
    float *const *in;
    size_t len;
    int rounds;
} mix;

static cm_status m_start(void *ctx, float *const *in)
{
    ((mix *)ctx)->in = in;
    return CM_OK;
}

static cm_status m_finish(void *ctx, float *const *out)
{
    mix *m = ctx;
    for (size_t i = 0; i < NW; i++)
        for (size_t k = 0; k < m->len; k++) {
            double s = 0.0;
            for (size_t j = 0; j < NW; j++) {
                double w = m->exact ? 1.0 / NW
                           : j == i ? 1.0 / 3.0
                           : (j + 1) % NW == i || (i + 1) % NW == j
                               ? 1.0 / 3.0 : 0.0;
                s += w * (double)m->in[j][k];
            }
            out[i][k] = (float)s;
        }
    m->rounds++;
    return CM_OK;
}

typedef struct {
    float buf[2][NW][2 * NP];
    float *x[NW], *xn[NW];
    mix m;
    dt_algo *a;
} run;

static void start(run *r, dt_algo_kind kind, float mu, int local, int exact)
{
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < NW; i++) {
        r->x[i] = r->buf[0][i];
        r->xn[i] = r->buf[1][i];
    }
    r->m.exact = exact;
    r->m.len = dt_algo_gossip_len(kind, NP);
    dt_algo_spec sp = {.kind = kind, .n = NP, .count = NW, .mu = mu,
                       .wd = 0.0f, .mix_w = 0.5f, .local = local};
    dt_algo_mixer mx = {&r->m, m_start, m_finish};
    ck_assert_int_eq(dt_algo_new(&sp, r->x, r->xn, &mx, &r->a), CM_OK);
}

/* steps of the schedule (H, S) at step size lr; set_step only when
 * asked (so a run without it is the code path of before) */
static void steps(run *r, size_t n, size_t H, size_t S, float lr,
                  int set_step)
{
    float g[NP];
    for (size_t t = 0; t < n; t++) {
        if (set_step)
            dt_algo_set_step(r->a, dt_local_comm(H, S, t), r->m.exact,
                             dt_local_round_len(H, S, t));
        ck_assert_int_eq(dt_algo_begin(r->a), CM_OK);
        for (size_t i = 0; i < NW; i++) {
            grad(i, dt_algo_x(r->a, i), g);
            dt_algo_grad(r->a, i, g, lr);
        }
        ck_assert_int_eq(dt_algo_end(r->a, lr), CM_OK);
    }
}

static double dist(const run *r)
{
    double d = 0.0;
    for (size_t i = 0; i < NW; i++)
        for (size_t k = 0; k < NP; k++) {
            double e = fabs(dt_algo_x(r->a, i)[k] - optimum(k));
            d = isnan(e) ? INFINITY : fmax(d, e); /* NaN fails a < test */
        }
    return d;
}

/* Local SGD: dpsgd's rule with every step local and an exact average
 * after each H-th (the trainer's all-reduce path) equals H plain SGD
 * steps of every worker on its own, then the average, bit for bit. */
START_TEST(local_sgd_is_h_steps_then_average)
{
    const size_t H = 4;
    run r;
    start(&r, DT_ALGO_DPSGD, 0.9f, 1, 1);
    float xr[NW][NP], vr[NW][NP], g[NP];
    memset(xr, 0, sizeof xr);
    memset(vr, 0, sizeof vr);
    for (size_t t = 0; t < 3 * H; t++) {
        dt_algo_set_step(r.a, 0, 0, 1);
        ck_assert_int_eq(dt_algo_begin(r.a), CM_OK);
        for (size_t i = 0; i < NW; i++) {
            grad(i, dt_algo_x(r.a, i), g);
            dt_algo_grad(r.a, i, g, 0.05f);
        }
        ck_assert_int_eq(dt_algo_end(r.a, 0.05f), CM_OK);
        for (size_t i = 0; i < NW; i++) { /* the reference: plain SGD */
            grad(i, xr[i], g);
            dt_sgd_velocity(vr[i], g, xr[i], NP, 0.9f, 0.0f);
            dt_sgd_apply(xr[i], vr[i], NP, 0.05f);
        }
        if ((t + 1) % H == 0) {
            m_start(&r.m, r.x);
            m_finish(&r.m, r.xn);
            for (size_t i = 0; i < NW; i++) { /* as the trainer swaps */
                float *p = r.x[i];
                r.x[i] = r.xn[i];
                r.xn[i] = p;
            }
            for (size_t k = 0; k < NP; k++) { /* the exact average */
                double s = 0.0;
                for (size_t j = 0; j < NW; j++)
                    s += (1.0 / NW) * (double)xr[j][k];
                for (size_t i = 0; i < NW; i++)
                    xr[i][k] = (float)s;
            }
        }
        for (size_t i = 0; i < NW; i++)
            ck_assert_mem_eq(dt_algo_x(r.a, i), xr[i], sizeof xr[i]);
    }
    ck_assert_int_eq(r.m.rounds, 3); /* only the averages */
    dt_algo_free(r.a);
}
END_TEST

/* LED at H = 1 is D^2 (another order of additions: 1e-5); the K-GT form
 * at H = 1 is GT bit for bit, and so are dpsgd and qgm with spec.local
 * and set_step every step. */
START_TEST(led_and_kgt_reduce_at_h1)
{
    const dt_algo_kind kinds[] = {DT_ALGO_D2, DT_ALGO_GT, DT_ALGO_DPSGD,
                                  DT_ALGO_QGM};
    for (size_t q = 0; q < 4; q++) {
        run a, b;
        start(&a, kinds[q], 0.5f, 0, 0);
        start(&b, kinds[q], 0.5f, 1, 0);
        steps(&a, 300, 1, 0, 0.03f, 0);
        steps(&b, 300, 1, 0, 0.03f, 1);
        ck_assert_int_eq(a.m.rounds, 300);
        ck_assert_int_eq(b.m.rounds, 300);
        for (size_t i = 0; i < NW; i++)
            for (size_t k = 0; k < NP; k++) {
                float u = dt_algo_x(a.a, i)[k], v = dt_algo_x(b.a, i)[k];
                if (kinds[q] == DT_ALGO_D2)
                    ck_assert_msg(fabsf(u - v) <= 1e-5f * (1.0f + fabsf(u)),
                                  "d2 %g vs LED %g", (double)u, (double)v);
                else
                    ck_assert_msg(memcmp(&u, &v, sizeof u) == 0, "%s: %a vs "
                                  "%a", dt_algo_name(kinds[q]), (double)u,
                                  (double)v);
            }
        dt_algo_free(a.a);
        dt_algo_free(b.a);
    }
}
END_TEST

/* With H = 4 local steps (and a warm-up of 6 steps), LED and the K-GT form
 * reach the optimum of the heterogeneous quadratic (constant step, exact
 * gradients, with and without momentum), D-PSGD's local steps stall
 * away from it; the gossip runs once per communication only. Also with an
 * exact average every 3rd communication (--global-every 3). */
START_TEST(led_and_kgt_are_exact_with_local_steps)
{
    const float mus[2] = {0.0f, 0.5f};
    for (int e = 0; e < 2; e++)
        for (int q = 0; q < 2; q++) {
            const float lr = mus[q] ? 0.01f : 0.02f;
            run d2, gt, dp;
            start(&d2, DT_ALGO_D2, mus[q], 1, 0);
            start(&gt, DT_ALGO_GT, mus[q], 1, 0);
            start(&dp, DT_ALGO_DPSGD, mus[q], 1, 0);
            const size_t T = 8006;
            run *rs[3] = {&d2, &gt, &dp};
            for (int k = 0; k < 3; k++) {
                float g[NP];
                for (size_t t = 0; t < T; t++) {
                    int c = dt_local_comm(4, 6, t);
                    rs[k]->m.exact = e && c && dt_local_global(4, 6, 3, t);
                    dt_algo_set_step(rs[k]->a, c, rs[k]->m.exact,
                                     dt_local_round_len(4, 6, t));
                    ck_assert_int_eq(dt_algo_begin(rs[k]->a), CM_OK);
                    for (size_t i = 0; i < NW; i++) {
                        grad(i, dt_algo_x(rs[k]->a, i), g);
                        dt_algo_grad(rs[k]->a, i, g, lr);
                    }
                    ck_assert_int_eq(dt_algo_end(rs[k]->a, lr), CM_OK);
                }
                ck_assert_int_eq(rs[k]->m.rounds,
                                 (int)dt_local_comms(4, 6, T));
            }
            ck_assert_msg(dist(&d2) < 1e-4, "LED mu %g exact %d: %g",
                          (double)mus[q], e, dist(&d2));
            ck_assert_msg(dist(&gt) < 1e-4, "K-GT mu %g exact %d: %g",
                          (double)mus[q], e, dist(&gt));
            ck_assert_msg(dist(&dp) > 0.05, "dpsgd mu %g: %g",
                          (double)mus[q], dist(&dp));
            for (int k = 0; k < 3; k++)
                dt_algo_free(rs[k]->a);
        }
}
END_TEST

/* The quadratic with its optima b_i shrunk to 1e-3 (so float rounding,
 * about 6e-8 of the largest gradient, sits below 1e-8), from x = 0, at
 * the papers' step-size scaling (a local step shrinking as 1/H: LED's
 * alpha = O(1/(tau L)), K-GT's eta_c = O(1/(K L))): lr = 0.08/H with
 * momentum 0.9, lr = 0.4/H without (lr a_max / (1 - mu) = 1.6/H and
 * 0.8/H). LED and
 * K-GT reach the optimum to 1e-8 in 3000 steps at H = 1, 2, 4; local
 * D-PSGD keeps its heterogeneity bias (about 1e-3, over 1e-4 at every H).
 * And at a rate the K-GT form of before could not take (lr 0.1, momentum
 * 0.9, H = 4: lr a / (1 - mu) = 2; the correction from the round's last
 * gradient diverged to NaN, measured), K-GT stays bounded. */
START_TEST(led_and_kgt_reach_the_optimum_to_1e8)
{
    const size_t Hs[3] = {1, 2, 4};
    const float mus[2] = {0.9f, 0.0f};
    qscale = 1e-3;
    for (size_t q = 0; q < 2; q++)
        for (size_t h = 0; h < 3; h++) {
            const size_t H = Hs[h];
            const float lr = (mus[q] ? 0.08f : 0.4f) / (float)H;
            run d2, gt, dp;
            start(&d2, DT_ALGO_D2, mus[q], 1, 0);
            start(&gt, DT_ALGO_GT, mus[q], 1, 0);
            start(&dp, DT_ALGO_DPSGD, mus[q], 1, 0);
            steps(&d2, 3000, H, 0, lr, 1);
            steps(&gt, 3000, H, 0, lr, 1);
            steps(&dp, 3000, H, 0, lr, 1);
            ck_assert_int_eq(gt.m.rounds, (int)(3000 / H));
            ck_assert_msg(dist(&d2) < 1e-8, "LED H %zu mu %g: %g", H,
                          (double)mus[q], dist(&d2));
            ck_assert_msg(dist(&gt) < 1e-8, "K-GT H %zu mu %g: %g", H,
                          (double)mus[q], dist(&gt));
            ck_assert_msg(isfinite(dist(&dp)) && dist(&dp) > 1e-4, "dpsgd H %zu mu %g: %g", H,
                          (double)mus[q], dist(&dp));
            dt_algo_free(d2.a);
            dt_algo_free(gt.a);
            dt_algo_free(dp.a);
        }
    qscale = 1.0;
    run gt;
    start(&gt, DT_ALGO_GT, 0.9f, 1, 0);
    steps(&gt, 3000, 4, 0, 0.1f, 1);
    ck_assert_msg(dist(&gt) < 1e-2, "K-GT at lr 0.1, H 4: %g", dist(&gt));
    dt_algo_free(gt.a);
}
END_TEST

/* --staleness S on the quadratic (8 workers on the ring of self weight
 * 1/3, dpsgd's local step then the stale mix of dt_stale_mix with the
 * models sent S communications back): with the damped step
 * dt_stale_gamma(S) it converges for S = 1, 2, 4, to the point of D-PSGD
 * with consensus step gamma (its heterogeneity bias grows as 1/gamma), and
 * the mean of the workers moves only by the local steps; with
 * the undamped step 1 at S = 2 the ring's lambda = -1/3 mode grows
 * (gamma (1 - lambda) = 4/3 > 2 sin(pi/10) = 0.618) and the run blows up. */
START_TEST(staleness_damped_step)
{
    ck_assert_double_eq_tol(dt_stale_gamma(0), 1.0, 1e-15);
    ck_assert_double_eq_tol(dt_stale_gamma(1), 0.5, 1e-15);
    ck_assert_double_eq_tol(dt_stale_gamma(2), 0.30901699437494745, 1e-15);
    const size_t Ss[4] = {0, 1, 2, 4};
    double ref = 0.0;
    for (size_t q = 0; q < 5; q++) {
        const size_t S = q < 4 ? Ss[q] : 2;
        const float gamma = q < 4 ? (float)dt_stale_gamma(S) : 1.0f;
        run r;
        start(&r, DT_ALGO_DPSGD, 0.0f, 1, 0);
        static float ring[5][NW][NP], mixed[NW][NP];
        memset(ring, 0, sizeof ring); /* x_0 = 0 */
        float g[NP];
        for (size_t t = 0; t < 4000; t++) {
            dt_algo_set_step(r.a, 0, 0, 1);
            ck_assert_int_eq(dt_algo_begin(r.a), CM_OK);
            for (size_t i = 0; i < NW; i++) {
                grad(i, dt_algo_x(r.a, i), g);
                dt_algo_grad(r.a, i, g, 0.05f);
            }
            ck_assert_int_eq(dt_algo_end(r.a, 0.05f), CM_OK);
            double before = 0.0, after = 0.0;
            float *old[NW], *out[NW];
            for (size_t i = 0; i < NW; i++) {
                memcpy(ring[t % (S + 1)][i], dt_algo_x(r.a, i),
                       sizeof ring[0][i]);
                old[i] = ring[(t + 1) % (S + 1)][i];
                out[i] = mixed[i];
                before += dt_algo_x(r.a, i)[0];
            }
            m_start(&r.m, old);
            m_finish(&r.m, out);
            for (size_t i = 0; i < NW; i++) {
                dt_stale_mix(dt_algo_x(r.a, i), mixed[i], old[i], NP, gamma);
                after += dt_algo_x(r.a, i)[0];
            }
            if (q < 4)
                ck_assert_double_eq_tol(after, before,
                                        1e-4 * (1.0 + fabs(before)));
        }
        if (q == 0)
            ref = dist(&r);
        if (q < 4) /* the fixed point of D-PSGD with consensus step
                      gamma: gamma (I - W) x = -lr g, a bias ~ 1/gamma */
            ck_assert_msg(isfinite(dist(&r)) && dist(&r) > 0.5 * ref /
                          gamma && dist(&r) < 1.5 * ref / gamma,
                          "S %zu: %g vs %g / %g", S, dist(&r), ref,
                          (double)gamma);
        else
            ck_assert_msg(!(dist(&r) < 1e3), "undamped S 2: %g", dist(&r));
        dt_algo_free(r.a);
    }
}
END_TEST

/* n steps of kind with --staleness S on the ring of m_finish (self weight
 * 1/3) at H local steps a round: the algorithm's step with comm 0, then
 * at each communication c the delayed mix of dt_algo_stale_mix with the
 * models sent at c - S (x_0 before) and gamma = dt_stale_gamma(S), as the
 * trainer's stale_exchange. Returns dist(). */
static double stale_run(dt_algo_kind kind, float mu, size_t H, size_t S,
                        float lr, size_t n)
{
    run r;
    start(&r, kind, mu, 1, 0);
    static float ring[5][NW][NP], mixed[NW][NP];
    memset(ring, 0, sizeof ring); /* x_0 = 0 */
    const float gamma = (float)dt_stale_gamma(S);
    float g[NP];
    uint64_t c = 0;
    for (size_t t = 0; t < n; t++) {
        dt_algo_set_step(r.a, 0, 0, dt_local_round_len(H, 0, t));
        ck_assert_int_eq(dt_algo_begin(r.a), CM_OK);
        for (size_t i = 0; i < NW; i++) {
            grad(i, dt_algo_x(r.a, i), g);
            dt_algo_grad(r.a, i, g, lr);
        }
        ck_assert_int_eq(dt_algo_end(r.a, lr), CM_OK);
        if (!dt_local_comm(H, 0, t))
            continue;
        float *old[NW], *out[NW];
        for (size_t i = 0; i < NW; i++) {
            memcpy(ring[c % (S + 1)][i], dt_algo_x(r.a, i), sizeof ring[0][i]);
            old[i] = ring[(c + 1) % (S + 1)][i];
            out[i] = mixed[i];
        }
        m_start(&r.m, old);
        m_finish(&r.m, out);
        for (size_t i = 0; i < NW; i++)
            dt_algo_stale_mix(r.a, i, mixed[i], old[i], gamma, lr);
        c++;
    }
    if (kind == DT_ALGO_D2) /* sum_i y_i stays 0: the fixed point is exact */
        for (size_t k = 0; k < NP; k++) {
            double sy = 0.0;
            for (size_t i = 0; i < NW; i++) {
                float *st[DT_ALGO_MAX_STATE];
                dt_algo_state(r.a, i, st); /* d2: {v, y} */
                sy += st[1][k];
            }
            ck_assert_msg(fabs(sy) < 1e-5, "d2 S %zu: sum y %g", S, sy);
        }
    double d = dist(&r);
    dt_algo_free(r.a);
    return d;
}

/* --staleness S for d2 (issue 41): LED with its correction fed by the
 * same stale disagreement as the model at half its step
 * (dt_algo_stale_mix) reaches the optimum of the heterogeneous quadratic
 * (optima shrunk to 1e-3, as led_and_kgt_reach_the_optimum_to_1e8) with
 * S = 1, 2, 4 rounds in flight, every step and with local steps (H = 2,
 * the papers' lr / H), with and without momentum, to 1e-7 (measured
 * 4e-9 to 6e-8 after 16,000 steps: float rounding, amplified as 1 /
 * gamma, the same from 6,000 to 24,000 steps, not a bias), sum_i y_i
 * staying 0; stale D-PSGD at the same settings keeps its heterogeneity
 * bias (1.5e-3 to 2.4e-3, growing as 1 / gamma). With the correction at
 * the model's full step (beta = 1) S = 1 at momentum 0.9 diverged
 * (measured; dt_algo.h). */
START_TEST(d2_staleness_reaches_the_optimum)
{
    const size_t Ss[3] = {1, 2, 4}, Hs[2] = {1, 2};
    const float mus[2] = {0.9f, 0.0f};
    qscale = 1e-3;
    for (size_t q = 0; q < 2; q++)
        for (size_t h = 0; h < 2; h++)
            for (size_t s = 0; s < 3; s++) {
                const size_t H = Hs[h], S = Ss[s];
                const float lr = (mus[q] ? 0.08f : 0.4f) / (float)H;
                double d2 = stale_run(DT_ALGO_D2, mus[q], H, S, lr, 16000);
                double dp = stale_run(DT_ALGO_DPSGD, mus[q], H, S, lr, 6000);
                ck_assert_msg(d2 < 1e-7, "d2 S %zu H %zu mu %g: %g", S, H,
                              (double)mus[q], d2);
                ck_assert_msg(isfinite(dp) && dp > 1e-3,
                              "dpsgd S %zu H %zu mu %g: %g", S, H,
                              (double)mus[q], dp);
            }
    qscale = 1.0;
}
END_TEST

/* D^2 (H = 1) restarts its memory at an exact average (--global-every):
 * psi_prev <- the average, so the next step is D^2's first. At lr 0 the
 * consensus the average reached then stays (with the memory of before,
 * x_i - psi_prev_i brought each worker's old disagreement back: at 256
 * workers that diverged). The price: the step after a restart is
 * D-PSGD's, with its heterogeneity bias, so D^2 + every 3rd round exact
 * ends near the optimum of the heterogeneous quadratic (1.6e-3 at
 * lr 0.01), not at it. */
START_TEST(d2_restarts_at_an_exact_average)
{
    run r;
    start(&r, DT_ALGO_D2, 0.0f, 0, 0);
    steps(&r, 20, 1, 0, 0.03f, 1); /* workers apart */
    r.m.exact = 1;
    steps(&r, 1, 1, 0, 0.0f, 1);
    r.m.exact = 0;
    steps(&r, 5, 1, 0, 0.0f, 1);
    for (size_t i = 1; i < NW; i++)
        ck_assert_mem_eq(dt_algo_x(r.a, i), dt_algo_x(r.a, 0),
                         NP * sizeof(float));
    dt_algo_free(r.a);
    const float mus[2] = {0.0f, 0.5f};
    for (int q = 0; q < 2; q++) {
        start(&r, DT_ALGO_D2, mus[q], 0, 0);
        float g[NP];
        for (size_t t = 0; t < 6000; t++) {
            r.m.exact = t % 3 == 2;
            dt_algo_set_step(r.a, 1, r.m.exact, 1);
            ck_assert_int_eq(dt_algo_begin(r.a), CM_OK);
            for (size_t i = 0; i < NW; i++) {
                grad(i, dt_algo_x(r.a, i), g);
                dt_algo_grad(r.a, i, g, 0.01f);
            }
            ck_assert_int_eq(dt_algo_end(r.a, 0.01f), CM_OK);
        }
        ck_assert_msg(dist(&r) < 5e-3, "d2 + exact every 3, mu %g: %g",
                      (double)mus[q], dist(&r));
        dt_algo_free(r.a);
    }
}
END_TEST

/* ---- the whole run on one rank ------------------------------------------ */

static void cfg_on(dt_config *cfg, const char *topo, dt_algo_kind a)
{
    mpi_small_config(cfg, topo);
    cfg->local_eval = 0;
    cfg->algorithm = a;
}

/* --outer sgd:1 equals no outer step bit for bit (gossip and all-reduce,
 * H = 3); H = 1 given explicitly is the default run; an outer Nesterov
 * step and H itself change the trajectory. */
START_TEST(run_outer_sgd1_is_plain)
{
    char path[64];
    dt_config cfg;
    mpi_cube_file(path, sizeof path, "/tmp/check_local_");
    for (int ar = 0; ar < 2; ar++) {
        cfg_on(&cfg, ar ? "" : path, DT_ALGO_DPSGD);
        if (ar) {
            cfg.mode = DT_MODE_ALLREDUCE;
            cfg.workers = 8;
        }
        mpi_outcome h1 = mpi_run_on(1, &cfg);
        cfg.average_every = 3;
        mpi_outcome plain = mpi_run_on(1, &cfg);
        ck_assert_int_eq(dt_outer_parse("sgd:1", &cfg.outer), CM_OK);
        mpi_outcome sgd1 = mpi_run_on(1, &cfg);
        ck_assert_int_eq(dt_outer_parse("nesterov:0.7,0.9", &cfg.outer),
                         CM_OK);
        mpi_outcome nest = mpi_run_on(1, &cfg);
        ck_assert_int_eq(plain.s, CM_OK);
        ck_assert_int_eq(sgd1.s, CM_OK);
        ck_assert_int_eq(nest.s, CM_OK);
        ck_assert_uint_eq(sgd1.hash, plain.hash);
        ck_assert_uint_ne(nest.hash, plain.hash);
        ck_assert_uint_ne(h1.hash, plain.hash);
        ck_assert_msg(nest.acc > 0.5 && plain.acc > 0.5, "%s: acc %g, %g",
                      ar ? "allreduce" : "gossip", nest.acc, plain.acc);
        cfg_on(&cfg, ar ? "" : path, DT_ALGO_DPSGD);
        if (ar) {
            cfg.mode = DT_MODE_ALLREDUCE;
            cfg.workers = 8;
        }
        cfg.average_every = 1;
        ck_assert_uint_eq(mpi_run_on(1, &cfg).hash, h1.hash);
    }
    unlink(path);
}
END_TEST

/* 16 steps per epoch, H = 3: the checkpoint after epoch 1 is in the
 * middle of a period (and of K = 2's); resumed, every algorithm, the
 * outer step and local all-reduce give the uninterrupted run's bits. */
START_TEST(run_resume_mid_period)
{
    char path[64], dir[80];
    dt_config cfg;
    mpi_cube_file(path, sizeof path, "/tmp/check_local_");
    const dt_algo_kind kinds[] = {DT_ALGO_DPSGD, DT_ALGO_D2, DT_ALGO_GT,
                                  DT_ALGO_QGM, DT_ALGO_DPSGD, DT_ALGO_DPSGD,
                                  DT_ALGO_GT};
    for (size_t k = 0; k < 7; k++) { /* 6: gt + nesterov, 5 state arrays */
        cfg_on(&cfg, k == 5 ? "" : path, kinds[k]);
        cfg.average_every = 3;
        cfg.local_after = k == 2 ? 2 : 0;
        cfg.global_every = k == 3 || k == 4 ? 2 : 0;
        if (k >= 4)
            ck_assert_int_eq(dt_outer_parse("nesterov:0.5,0.9", &cfg.outer),
                             CM_OK);
        if (k == 5) {
            cfg.mode = DT_MODE_ALLREDUCE;
            cfg.workers = 8;
        }
        mpi_outcome full = mpi_run_on(1, &cfg);
        ck_assert_msg(full.s == CM_OK, "%zu: %s", k, cm_last_error());
        snprintf(dir, sizeof dir, "/tmp/check_local_ck_%d_%zu",
                 (int)getpid(), k);
        mpi_resume_matches(&cfg, dir, 1, 1, full);
        cfg.average_every = 4; /* another period cannot resume it */
        ck_assert_int_eq(mpi_run_on(1, &cfg).s, CM_EINVAL);
        ck_assert_ptr_nonnull(strstr(cm_last_error(), "--average-every 3"));
        mpi_remove_dir(dir);
    }
    unlink(path);
}
END_TEST

/* DiLoCo's outer step does not run in the every-step warm-up of
 * --local-after S: a run that is all warm-up (S = its 32 steps) gives
 * the bits of the same run without --outer, in all-reduce (local SGD)
 * and gossip mode; with S = 16 the outer step runs after it (other
 * bits). The warm-up's momentum average is counted: an all-warm-up local
 * all-reduce sends two arrays a step (x and v). */
START_TEST(run_no_outer_step_in_warmup)
{
    char path[64];
    dt_config cfg;
    mpi_cube_file(path, sizeof path, "/tmp/check_local_");
    for (int ar = 0; ar < 2; ar++) {
        cfg_on(&cfg, ar ? "" : path, DT_ALGO_DPSGD);
        if (ar) {
            cfg.mode = DT_MODE_ALLREDUCE;
            cfg.workers = 8;
        }
        cfg.average_every = 4;
        cfg.local_after = 32; /* 4096 / (8 x 32) x 2 epochs: every step */
        mpi_outcome plain = mpi_run_on(1, &cfg);
        ck_assert_int_eq(dt_outer_parse("nesterov:0.7,0.9", &cfg.outer),
                         CM_OK);
        mpi_outcome warm = mpi_run_on(1, &cfg);
        cfg.local_after = 16;
        mpi_outcome half = mpi_run_on(1, &cfg);
        ck_assert_int_eq(plain.s, CM_OK);
        ck_assert_int_eq(warm.s, CM_OK);
        ck_assert_int_eq(half.s, CM_OK);
        ck_assert_uint_eq(warm.hash, plain.hash);
        ck_assert_uint_ne(half.hash, plain.hash);
        if (ar) /* x and v: 2 x 4 bytes x n_params per step on one rank */
            ck_assert_double_eq_tol(plain.bytes, 8.0 * plain.n_params, 1.0);
    }
    unlink(path);
}
END_TEST

START_TEST(run_refusals)
{
    char path[64];
    dt_config cfg;
    mpi_cube_file(path, sizeof path, "/tmp/check_local_");
    cfg_on(&cfg, path, DT_ALGO_DPSGD);
    cfg.local_after = 5; /* H = 1 */
    ck_assert_int_eq(mpi_run_on(1, &cfg).s, CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "--local-after 5"));
    cfg_on(&cfg, "", DT_ALGO_DPSGD);
    cfg.mode = DT_MODE_ALLREDUCE;
    cfg.global_every = 2;
    ck_assert_int_eq(mpi_run_on(1, &cfg).s, CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "--global-every"));
    unlink(path);
}
END_TEST

Suite *local_suite(void)
{
    Suite *s = suite_create("local");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, schedule);
    tcase_add_test(tc, outer_parse);
    tcase_add_test(tc, outer_step_by_hand);
    tcase_add_test(tc, local_sgd_is_h_steps_then_average);
    tcase_add_test(tc, led_and_kgt_reduce_at_h1);
    tcase_add_test(tc, led_and_kgt_are_exact_with_local_steps);
    tcase_add_test(tc, led_and_kgt_reach_the_optimum_to_1e8);
    tcase_add_test(tc, staleness_damped_step);
    tcase_add_test(tc, d2_staleness_reaches_the_optimum);
    tcase_add_test(tc, d2_restarts_at_an_exact_average);
    tcase_add_test(tc, run_outer_sgd1_is_plain);
    tcase_add_test(tc, run_resume_mid_period);
    tcase_add_test(tc, run_no_outer_step_in_warmup);
    tcase_add_test(tc, run_refusals);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    return s;
}

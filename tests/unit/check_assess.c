/* check_assess.c: topogen plan's room (topo/assess/): the communications a
 * schedule makes up to a step (against counts done by hand), the model's
 * features (closed forms of p = 1 - slem, 1/H, 1/(K H)), the GSL fit
 * recovering known parameters from runs made by the model itself, its
 * interval covering them, runs that never reached the target as lower
 * bounds, and the experiment reader on a scratch folder
 * (a run read, a corrupt CSV and a folder without runs refused with the
 * file named); the message bytes of --compress and --fragments and the
 * count of fragment all-reduces against the trainer's own functions
 * (train/core/dt_compress.c, dt_frag.c), and the trainer's refusals. */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "cm_status.h"
#include "dt_compress.h"
#include "dt_frag.h"
#include "ta_model.h"
#include "ta_plan.h"
#include "ta_runs.h"

static ta_sched sched(ta_alg alg, const char *graph, size_t H)
{
    ta_sched s;
    memset(&s, 0, sizeof s);
    s.alg = alg;
    snprintf(s.graph, sizeof s.graph, "%s", graph);
    snprintf(s.weights, sizeof s.weights, "laplacian");
    snprintf(s.partition, sizeof s.partition, "dirichlet:0.1");
    s.n = 64;
    s.batch = 16;
    s.lr = 0.05;
    s.H = H;
    s.compress = 1;
    s.epochs = 12;
    s.slem = strcmp(graph, "-") ? 0.8 : 0;
    return s;
}

START_TEST(test_comms)
{
    double g, e;
    /* local SGD H = 4 after 2 every-step averages, 10 steps: steps 0, 1
     * (warm-up: the parameters and the momentum, two all-reduces each),
     * then t with (t + 1 - 2) % 4 == 0: 5 and 9 */
    ta_sched s = sched(TA_ALG_LOCAL, "-", 4);
    s.local_after = 2;
    ta_plan_comms(&s, 10, &g, &e);
    ck_assert_double_eq(g, 6);
    ck_assert_double_eq(e, 0);
    s.alg = TA_ALG_DILOCO; /* DiLoCo: the same warm-up */
    ta_plan_comms(&s, 10, &g, &e);
    ck_assert_double_eq(g, 6);
    /* gossip with local steps after 2 every-step rounds: one round each */
    s = sched(TA_ALG_D2, "random", 4);
    s.local_after = 2;
    ta_plan_comms(&s, 10, &g, &e);
    ck_assert_double_eq(g, 4);
    /* gossip every step, an exact average every 2nd communication: of 6
     * communications 3 are exact */
    s = sched(TA_ALG_D2, "random", 1);
    s.global_every = 2;
    ta_plan_comms(&s, 6, &g, &e);
    ck_assert_double_eq(g, 3);
    ck_assert_double_eq(e, 3);
    /* all-reduce every step: one per step; 0 steps: none */
    s = sched(TA_ALG_ALLREDUCE, "-", 1);
    ta_plan_comms(&s, 117, &g, &e);
    ck_assert_double_eq(g, 117);
    ta_plan_comms(&s, 0, &g, &e);
    ck_assert_double_eq(g + e, 0);
}
END_TEST

/* the loop ta_plan_comms replaced (dpsgd-train's schedule, step by step):
 * the closed form must give its counts */
static void comms_loop(const ta_sched *s, double steps, double *comm,
                       double *exact)
{
    size_t H = s->H ? s->H : 1, L = H > 1 ? s->local_after : 0, c = 0;
    int warm_v = s->alg == TA_ALG_LOCAL || s->alg == TA_ALG_DILOCO;
    double g = 0, e = 0;
    for (size_t t = 0; (double)t < steps; t++) {
        if (!(t < L || (t + 1 - L) % H == 0))
            continue;
        if (t < L && warm_v)
            g++;
        if (s->global_every && (c + 1) % s->global_every == 0)
            e++;
        else
            g++;
        c++;
    }
    *comm = g;
    *exact = e;
}

START_TEST(test_comms_closed)
{
    static const ta_alg A[] = {TA_ALG_ALLREDUCE, TA_ALG_LOCAL,
                               TA_ALG_DILOCO, TA_ALG_D2};
    for (size_t a = 0; a < 4; a++)
        for (size_t H = 1; H <= 8; H += 3)
            for (size_t L = 0; L <= 20; L += 7)
                for (size_t K = 0; K <= 3; K++)
                    for (double T = 0; T <= 130; T += 6.5) {
                        ta_sched s = sched(A[a], a == 3 ? "random" : "-", H);
                        s.local_after = L;
                        s.global_every = a == 3 ? K : 0;
                        double g, e, g2, e2;
                        ta_plan_comms(&s, T, &g, &e);
                        comms_loop(&s, T, &g2, &e2);
                        ck_assert_msg(g == g2 && e == e2, "alg %zu H %zu L "
                                      "%zu K %zu T %g: %g %g, loop %g %g",
                                      a, H, L, K, T, g, e, g2, e2);
                    }
    /* an interval's end can be infinite (a poorly determined fit): the
     * count is infinite, at once (the loop never ended) */
    ta_sched s = sched(TA_ALG_DILOCO, "-", 8);
    s.local_after = 14;
    double g, e;
    ta_plan_comms(&s, INFINITY, &g, &e);
    ck_assert(isinf(g));
    ck_assert_double_eq(e, 0);
    ck_assert(isinf(ta_plan_agreements(&s, INFINITY, 14, 58)));
}
END_TEST

/* the trainer's failure agreements (train/distributed/dt_dpsgd.c), counted
 * by hand as smpi-retime.py counts them from a run's CSV */
START_TEST(test_agreements)
{
    ck_assert_int_eq(TA_AGREE_EVERY, 16);
    /* all-reduce every step to step 117, evaluated every 14 steps and
     * at each epoch's end (58): 7 after every 16th step; evaluations at
     * 0, 14, 28, 42, 56, 58, 70, 84, 98, 112, 116 (11, all <= 117 and
     * < 117): one before and one after each */
    ta_sched s = sched(TA_ALG_ALLREDUCE, "-", 1);
    ck_assert_double_eq(ta_plan_agreements(&s, 117, 14, 58), 7 + 11 + 11);
    /* at an evaluation's step: the agreement before it counts, the one
     * after it does not (the target is reached there) */
    ck_assert_double_eq(ta_plan_agreements(&s, 112, 14, 58), 7 + 10 + 9);
    /* the trainer's default (epoch ends only): 0 and 58 */
    ck_assert_double_eq(ta_plan_agreements(&s, 117, 0, 58), 7 + 3 + 3);
    ck_assert_double_eq(ta_plan_agreements(&s, 0, 0, 58), 1);
    /* 14 and 58 share 406: one evaluation there, not two */
    ck_assert_double_eq(ta_plan_agreements(&s, 406, 14, 58),
                        25 + (1 + 29 + 7 - 1) + (1 + 28 + 6));
    /* DiLoCo H = 8 after a 14-step warm-up: one more per warm-up step
     * (between the parameters' and the momentum's average); gossip
     * with local steps has no momentum average */
    s = sched(TA_ALG_DILOCO, "-", 8);
    s.local_after = 14;
    ck_assert_double_eq(ta_plan_agreements(&s, 20, 0, 58), 1 + 1 + 1 + 14);
    ck_assert_double_eq(ta_plan_agreements(&s, 10, 0, 58), 0 + 1 + 1 + 10);
    s = sched(TA_ALG_D2, "random", 2);
    s.local_after = 14;
    ck_assert_double_eq(ta_plan_agreements(&s, 20, 0, 58), 1 + 1 + 1);
}
END_TEST

/* a setting's name (the experiment scripts' grammar): -SS is the
 * warm-up's length, -int8 the compression; without them DiLoCo's
 * default warm-up of 58 and no compression */
START_TEST(test_name)
{
    ta_sched s;
    int known = 0;
    memset(&s, 0, sizeof s);
    s.compress = 1;
    ta_sched_from_name("diloco-H8-lr0.01-S14-int8", &s, &known);
    ck_assert_int_eq(known, 1);
    ck_assert_int_eq(s.alg, TA_ALG_DILOCO);
    ck_assert_uint_eq(s.H, 8);
    ck_assert_uint_eq(s.local_after, 14);
    ck_assert_double_eq(s.compress, TA_COMPRESS_INT8);
    ck_assert_double_eq_tol(s.lr, 0.01, 1e-12);
    memset(&s, 0, sizeof s);
    s.compress = 1;
    ta_sched_from_name("diloco-H8-lr0.01", &s, &known);
    ck_assert_uint_eq(s.local_after, 58);
    ck_assert_double_eq(s.compress, 1);
}
END_TEST

START_TEST(test_features)
{
    double c, u, z;
    ta_sched s = sched(TA_ALG_ALLREDUCE, "-", 1);
    ck_assert_int_eq(ta_model_features(&s, &c, &u, &z), CM_OK);
    ck_assert_double_eq_tol(c, 0, 1e-12); /* exact average: p = 1 */
    ck_assert_double_eq_tol(z, 1 / 1.1, 1e-12);
    s = sched(TA_ALG_LOCAL, "-", 4); /* p = 1/4: c = 3 */
    ck_assert_int_eq(ta_model_features(&s, &c, &u, &z), CM_OK);
    ck_assert_double_eq_tol(c, 3, 1e-12);
    ck_assert_double_eq(u, 1);
    s = sched(TA_ALG_D2, "random", 1); /* p = 1 - 0.8: c = 4; D^2: u = 0 */
    ck_assert_int_eq(ta_model_features(&s, &c, &u, &z), CM_OK);
    ck_assert_double_eq_tol(c, 4, 1e-9);
    ck_assert_double_eq(u, 0);
    s.H = 2; /* p = 0.1: c = 9 */
    ck_assert_int_eq(ta_model_features(&s, &c, &u, &z), CM_OK);
    ck_assert_double_eq_tol(c, 9, 1e-9);
    s = sched(TA_ALG_DPSGD, "random", 1);
    s.slem = 0.99;
    s.global_every = 2; /* an exact average every 2: p = max(0.01, 1/2) */
    ck_assert_int_eq(ta_model_features(&s, &c, &u, &z), CM_OK);
    ck_assert_double_eq_tol(c, 1, 1e-9);
    s = sched(TA_ALG_DPSGD, "opexp", 1); /* 1 / log2 64 */
    ck_assert_int_eq(ta_model_features(&s, &c, &u, &z), CM_OK);
    ck_assert_double_eq_tol(c, 5, 1e-9);
    snprintf(s.partition, sizeof s.partition, "iid");
    ck_assert_int_eq(ta_model_features(&s, &c, &u, &z), CM_OK);
    ck_assert_double_eq(z, 0);
    s = sched(TA_ALG_D2, "random", 1);
    s.slem = NAN; /* the spectrum unknown: no features */
    ck_assert_int_eq(ta_model_features(&s, &c, &u, &z), CM_EINVAL);
    snprintf(s.partition, sizeof s.partition, "zipf");
    ck_assert_double_eq(ta_partition_zeta(s.partition), -1);
}
END_TEST

/* runs made by the model with phi = TRUE (and a wobble of -2..+2%), over
 * algorithms, graphs, partitions and batches */
static const double TRUE_PHI[TA_NPAR] = {1.0, -3.0, 1.5, 0.5, 0.3, -1.0,
                                         0.4};

static double model_epochs(const ta_sched *s)
{
    double c, u, z;
    ta_model_features(s, &c, &u, &z);
    double x = log((double)s->n * (double)s->batch / 1024.0);
    return exp(TRUE_PHI[0] + log1p(exp(TRUE_PHI[1]) * c *
                                   (1 + exp(TRUE_PHI[2]) * u * z)) +
               TRUE_PHI[3] * x + TRUE_PHI[4] * ta_model_gossip(s->alg) +
               TRUE_PHI[5] * log(s->lr / 0.05) +
               TRUE_PHI[6] * ta_model_gossip(s->alg) * u * z);
}

static void synthetic(ta_runs *r)
{
    static const ta_alg A[] = {TA_ALG_ALLREDUCE, TA_ALG_DPSGD, TA_ALG_D2};
    static const double SLEM[] = {0.5, 0.7, 0.8, 0.9, 0.95};
    static const char *PART[] = {"iid", "dirichlet:0.1", "dirichlet:1"};
    static const size_t BATCH[] = {8, 16, 32};
    static const double LR[] = {0.02, 0.05, 0.1};
    size_t k = 0;
    r->cap = 3 * 5 * 3 * 3;
    r->v = calloc(r->cap, sizeof *r->v);
    ck_assert_ptr_nonnull(r->v);
    for (size_t a = 0; a < 3; a++)
        for (size_t g = 0; g < 5; g++)
            for (size_t p = 0; p < 3; p++)
                for (size_t b = 0; b < 3; b++) {
                    ta_run *x = &r->v[r->n++];
                    x->s = sched(A[a], a ? "random" : "-", 1);
                    x->s.slem = a ? SLEM[g] : 0;
                    x->s.batch = BATCH[b];
                    x->s.lr = LR[(g + p + b) % 3];
                    snprintf(x->s.partition, sizeof x->s.partition, "%s",
                             PART[p]);
                    x->steps_per_epoch = 60000.0 / (64.0 * BATCH[b]);
                    double wobble = 1 + 0.01 * ((double)(k++ % 5) - 2.0);
                    x->steps = model_epochs(&x->s) * wobble *
                               x->steps_per_epoch;
                    x->steps_fit = x->steps;
                    x->steps_run = 12 * x->steps_per_epoch;
                    x->final_acc = 0.9;
                    x->complete = 1;
                }
    /* one run that never reached the target in a tenth of its steps: a
     * lower bound the truth satisfies */
    r->v[0].steps_run = r->v[0].steps / 10;
    r->v[0].steps = r->v[0].steps_fit = -1;
}

START_TEST(test_fit_recovers)
{
    gsl_set_error_handler_off();
    ta_runs r;
    ta_runs_init(&r);
    synthetic(&r);
    ta_model m;
    ck_assert_int_eq(ta_model_fit(&m, &r), CM_OK);
    ck_assert_int_eq(m.fitted, 1);
    ck_assert_uint_eq(m.runs, r.n - 1);
    ck_assert_uint_eq(m.censored, 1);
    /* a 2% wobble moves the parameters by a few hundredths at most */
    for (size_t k = 0; k < TA_NPAR; k++)
        ck_assert_msg(fabs(m.phi[k] - TRUE_PHI[k]) < 0.1,
                      "phi[%zu] = %g, made with %g", k, m.phi[k],
                      TRUE_PHI[k]);
    ck_assert_msg(m.rmse > 0.005 && m.rmse < 0.03, "rmse %g", m.rmse);
    ck_assert_double_eq(ta_model_gossip(TA_ALG_D2), 1);
    ck_assert_double_eq(ta_model_gossip(TA_ALG_LOCAL), 0);
    /* inside the data: the interval holds the model's value */
    ta_sched s = sched(TA_ALG_D2, "random", 1);
    s.slem = 0.85;
    double e, lo, hi;
    int inside;
    ck_assert_int_eq(ta_model_predict(&m, &s, &e, &lo, &hi, &inside),
                     CM_OK);
    ck_assert_int_eq(inside, 1);
    double truth = model_epochs(&s);
    ck_assert(lo < truth && truth < hi && lo < e && e < hi);
    ck_assert(fabs(e - truth) < 0.05 * truth);
    /* a spectral gap beyond the data (slem 0.999): an extrapolation; an
     * algorithm the fit never saw (GT) too */
    s.slem = 0.999;
    ck_assert_int_eq(ta_model_predict(&m, &s, &e, &lo, &hi, &inside),
                     CM_OK);
    ck_assert_int_eq(inside, 0);
    s = sched(TA_ALG_GT, "random", 1);
    ck_assert_int_eq(ta_model_predict(&m, &s, &e, &lo, &hi, &inside),
                     CM_OK);
    ck_assert_int_eq(inside, 0);
    /* too few runs: no model, and predict says so */
    r.n = 5;
    ck_assert_int_eq(ta_model_fit(&m, &r), CM_OK);
    ck_assert_int_eq(m.fitted, 0);
    ck_assert_int_eq(ta_model_predict(&m, &s, &e, &lo, &hi, &inside),
                     CM_EINVAL);
    ta_runs_destroy(&r);
}
END_TEST

/* Runs that never reached the target are lower bounds: bounds the truth
 * satisfies leave the fit where it was; bounds above the truth (the
 * slowest schedule never reached it in twice its steps) lift its
 * prediction towards them, and a diverged run is left out. */
START_TEST(test_fit_censored)
{
    gsl_set_error_handler_off();
    ta_runs r;
    ta_runs_init(&r);
    synthetic(&r);
    ta_model m0, m;
    ck_assert_int_eq(ta_model_fit(&m0, &r), CM_OK);
    ta_sched slow = sched(TA_ALG_DPSGD, "random", 1);
    slow.slem = 0.95;
    double e0, e, lo, hi;
    int inside;
    ck_assert_int_eq(ta_model_predict(&m0, &slow, &e0, &lo, &hi, &inside),
                     CM_OK);
    size_t bounds = 0;
    for (size_t k = 1; k < r.n; k++) {
        ta_run *x = &r.v[k];
        if (x->s.alg == TA_ALG_DPSGD && x->s.slem == 0.95 &&
            !strcmp(x->s.partition, "dirichlet:0.1")) {
            x->steps_run = 2 * model_epochs(&x->s) * x->steps_per_epoch;
            x->steps = x->steps_fit = -1;
            bounds++;
        }
    }
    ck_assert_uint_eq(bounds, 3);
    r.v[1].diverged = 1;
    ck_assert_int_eq(ta_model_fit(&m, &r), CM_OK);
    ck_assert_int_eq(m.fitted, 1);
    ck_assert_uint_eq(m.censored, 1 + bounds);
    ck_assert_uint_eq(m.diverged, 1);
    ck_assert_uint_eq(m.runs, r.n - 2 - bounds);
    ck_assert_int_eq(ta_model_predict(&m, &slow, &e, &lo, &hi, &inside),
                     CM_OK);
    /* pulled up towards the bound of twice the truth (not to it: the
     * model's form ties this schedule to the other runs) */
    ck_assert_msg(e > 1.1 * e0 && e < 2.0 * e0, "e %g, without bounds %g",
                  e, e0);
    ta_runs_destroy(&r);
}
END_TEST

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_reader)
{
    char dir[] = "/tmp/check_assess.XXXXXX", p[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/runs", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/runs/d2-random-s2.csv", dir);
    write_file(p, "epoch,step,wall_s,train_loss,test_acc\n"
                  "0,0,0,,0.1\n0.5,29,1,1.0,0.84\n1,58,2,0.5,0.86\n"
                  "1.5,87,3,0.4,0.84\n2,116,4,0.3,0.87\n");
    snprintf(p, sizeof p, "%s/runs/d2-random-s2.json", dir);
    write_file(p, "{\"settings\": {\"mode\": \"gossip\", \"algorithm\": "
                  "\"d2\", \"partition\": \"iid\", \"batch\": 16, \"lr\": "
                  "0.05, \"epochs\": 2, \"seed\": 2, \"average_every\": 1, "
                  "\"topology\": \"g.txt\"}, \"result\": {\"workers\": "
                  "64}}\n");
    snprintf(p, sizeof p, "%s/g.txt", dir);
    write_file(p, "# topogen 2 n=64 d=4 kind=random weights=laplacian\n"
                  "# lambda2=1 lambdan=7 slem=0.8125\n0 1 0.25\n");
    ta_runs r;
    ta_runs_init(&r);
    ck_assert_int_eq(ta_runs_read(&r, dir, 0.85), CM_OK);
    ck_assert_uint_eq(r.n, 1);
    const ta_run *x = &r.v[0];
    /* the first evaluation at or above 0.85, not a later one */
    ck_assert_double_eq(x->steps, 58);
    /* the fit's step: 0.85 between 0.84 at 29 and 0.86 at 58 */
    ck_assert_double_eq_tol(x->steps_fit, 43.5, 1e-9);
    ck_assert_double_eq(x->steps_run, 116);
    ck_assert_double_eq_tol(x->final_acc, 0.87, 1e-12);
    ck_assert_double_eq_tol(x->steps_per_epoch, 58, 1e-12);
    ck_assert_int_eq(x->s.alg, TA_ALG_D2);
    ck_assert_str_eq(x->s.graph, "random");
    ck_assert_uint_eq(x->s.n, 64);
    ck_assert_uint_eq(x->seed, 2);
    ck_assert_double_eq_tol(x->s.slem, 0.8125, 1e-12);
    ck_assert_str_eq(x->setting, "d2-random");
    /* a target no evaluation reached: never (-1) */
    ta_runs_destroy(&r);
    ta_runs_init(&r);
    ck_assert_int_eq(ta_runs_read(&r, dir, 0.9), CM_OK);
    ck_assert_double_eq(r.v[0].steps, -1);
    ck_assert_double_eq(r.v[0].steps_fit, -1);
    /* reached at the first evaluation: nothing to interpolate from */
    ta_runs_destroy(&r);
    ta_runs_init(&r);
    ck_assert_int_eq(ta_runs_read(&r, dir, 0.05), CM_OK);
    ck_assert_double_eq(r.v[0].steps_fit, 0);
    /* a corrupt row: refused with the file and line */
    snprintf(p, sizeof p, "%s/runs/d2-random-s3.csv", dir);
    write_file(p, "epoch,step,wall_s,train_loss,test_acc\n"
                  "0,0,0,,0.1\n1,58,2,0.5,x86\n");
    ta_runs_destroy(&r);
    ta_runs_init(&r);
    ck_assert_int_eq(ta_runs_read(&r, dir, 0.85), CM_EFORMAT);
    ck_assert_msg(strstr(cm_last_error(), "d2-random-s3.csv:3: field 5"),
                  "%s", cm_last_error());
    unlink(p);
    /* a header without test_acc: not a log */
    write_file(p, "epoch,step,loss\n0,0,1\n");
    ck_assert_int_eq(ta_runs_read(&r, dir, 0.85), CM_EFORMAT);
    ck_assert_msg(strstr(cm_last_error(), "d2-random-s3.csv:1: not a "
                                          "dpsgd-train log"),
                  "%s", cm_last_error());
    unlink(p);
    /* a folder without runs */
    snprintf(p, sizeof p, "%s/empty", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    ck_assert_int_eq(ta_runs_read(&r, p, 0.85), CM_EIO);
    ck_assert_msg(strstr(cm_last_error(), "empty: no runs"), "%s",
                  cm_last_error());
    rmdir(p);
    ta_runs_destroy(&r);
    snprintf(p, sizeof p, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(p), 0);
}
END_TEST

/* --compress: the bytes of one message are the trainer's count
 * (dt_compress_bytes), codes and scales; --fragments: the longest
 * fragment (dt_frag_range) */
START_TEST(test_msg_bytes)
{
    static const char *const C[] = {"none", "int8", "int4", "topk:0.01",
                                    "topk:0.5"};
    static const size_t N[] = {1, 255, 256, 257, 61706, 329962, 329963};
    for (size_t c = 0; c < 5; c++)
        for (size_t k = 0; k < 7; k++) {
            dt_compress dc;
            ck_assert_int_eq(dt_compress_parse(C[c], &dc), CM_OK);
            ta_sched s = sched(TA_ALG_DILOCO, "-", 8);
            ck_assert_int_eq(ta_sched_parse_compress(C[c], &s.compress),
                             CM_OK);
            ck_assert_msg(ta_sched_msg_bytes(&s, (double)N[k]) ==
                              dt_compress_bytes(&dc, N[k]),
                          "%s n %zu: %g, the trainer %g", C[c], N[k],
                          ta_sched_msg_bytes(&s, (double)N[k]),
                          dt_compress_bytes(&dc, N[k]));
            for (size_t P = 1; P <= 9; P++) {
                size_t lo, hi, most = 0;
                for (size_t p = 0; p < P; p++) {
                    dt_frag_range(N[k], P, p, &lo, &hi);
                    most = hi - lo > most ? hi - lo : most;
                }
                s.frag_p = P;
                ck_assert_double_eq(ta_sched_frag_floats(&s, (double)N[k]),
                                    (double)most);
            }
        }
    /* the CNN (329,962 floats), as data/bandwidth-bound/n256 prices it */
    ta_sched s = sched(TA_ALG_DILOCO, "-", 8);
    ck_assert_double_eq(ta_sched_msg_bytes(&s, 329962), 1319848);
    s.compress = TA_COMPRESS_INT8;
    ck_assert_double_eq(ta_sched_msg_bytes(&s, 329962), 335118);
    s.compress = TA_COMPRESS_INT4;
    ck_assert_double_eq(ta_sched_msg_bytes(&s, 329962), 170137);
    s.frag_p = 4;
    ck_assert_double_eq(ta_sched_msg_bytes(&s, ta_sched_frag_floats(&s,
                                                                    329962)),
                        42538);
    double v;
    ck_assert_int_eq(ta_sched_parse_compress("int3", &v), CM_EINVAL);
    ck_assert_str_eq(cm_last_error(), "--compress: 'int3' is not none, int8, "
                     "int4 or topk:F (F in (0, 1], e.g. topk:0.01)");
    size_t P, T;
    ck_assert_int_eq(ta_sched_parse_frags("4:1", &P, &T), CM_OK);
    ck_assert(P == 4 && T == 1);
    ck_assert_int_eq(ta_sched_parse_frags("0", &P, &T), CM_EINVAL);
    ck_assert_int_eq(ta_sched_parse_frags("4:x", &P, &T), CM_EINVAL);
    ck_assert_msg(strstr(cm_last_error(), "--fragments: '4:x' is not P or "
                         "P:T"), "%s", cm_last_error());
    cm_error_clear();
}
END_TEST

/* fragment all-reduces up to a step: the trainer's count (dt_frag_syncs),
 * the warm-up's whole-array averages (parameters, compressed; momentum,
 * not) apart */
START_TEST(test_frag_counts)
{
    for (size_t H = 1; H <= 16; H++)
        for (size_t P = 1; P <= H; P++)
            for (size_t L = 0; L <= 9; L += 9)
                for (size_t N = 0; N <= 70; N += 3) {
                    ta_sched s = sched(TA_ALG_DILOCO, "-", H);
                    s.local_after = L;
                    s.frag_p = P;
                    s.frag_t = P == 1 ? 1 : 0; /* 1:1 is fragments too */
                    ta_comms c;
                    ta_plan_comm_counts(&s, (double)N, &c);
                    size_t warm = H > 1 ? (L < N ? L : N) : 0;
                    double want = (double)dt_frag_syncs(H, H > 1 ? L : 0,
                                                        P, N);
                    ck_assert_msg(c.frag == want && c.msg == (double)warm &&
                                      c.full == (double)warm && c.exact == 0,
                                  "H %zu P %zu L %zu N %zu: frag %g (the "
                                  "trainer %g), msg %g, full %g", H, P, L, N,
                                  c.frag, want, c.msg, c.full);
                }
    /* without fragments the parameters' averages are the messages and the
     * momentum's the full arrays: local SGD H = 4 after 2 warm-up steps,
     * 10 steps: 2 + 2 averages, 2 momentum averages */
    ta_sched s = sched(TA_ALG_LOCAL, "-", 4);
    s.local_after = 2;
    s.compress = TA_COMPRESS_INT4;
    ta_comms c;
    ta_plan_comm_counts(&s, 10, &c);
    ck_assert(c.msg == 4 && c.full == 2 && c.frag == 0 && c.exact == 0);
}
END_TEST

/* the combinations dpsgd-train refuses, in its words */
START_TEST(test_refused)
{
    char why[400];
    ta_sched s = sched(TA_ALG_D2, "random", 1);
    s.compress = TA_COMPRESS_INT4;
    ck_assert(ta_sched_refused(&s, why, sizeof why));
    ck_assert_str_eq(why, "--compress int4 is for --algorithm dpsgd "
                     "(CHOCO-SGD) and for local SGD / DiLoCo (--mode "
                     "allreduce); not for --algorithm d2");
    s.alg = TA_ALG_DPSGD; /* CHOCO-SGD */
    ck_assert(!ta_sched_refused(&s, why, sizeof why));
    snprintf(s.graph, sizeof s.graph, "opexp");
    ck_assert(ta_sched_refused(&s, why, sizeof why));
    ck_assert_msg(strstr(why, "time-varying"), "%s", why);
    s = sched(TA_ALG_DPSGD, "random", 1);
    s.compress = TA_COMPRESS_INT8;
    s.global_every = 4;
    ck_assert(ta_sched_refused(&s, why, sizeof why));
    ck_assert_msg(strstr(why, "--compress int8 with --global-every"), "%s",
                  why);
    s = sched(TA_ALG_ALLREDUCE, "-", 1);
    s.compress = TA_COMPRESS_INT8;
    ck_assert(ta_sched_refused(&s, why, sizeof why));
    ck_assert_msg(strstr(why, "(the gradient all-reduce of H = 1 is not "
                         "compressed)"), "%s", why);
    s = sched(TA_ALG_LOCAL, "-", 8);
    s.compress = TA_COMPRESS_INT4;
    ck_assert(!ta_sched_refused(&s, why, sizeof why));
    s.frag_p = 4;
    ck_assert(ta_sched_refused(&s, why, sizeof why));
    ck_assert_str_eq(why, "--fragments 4 is Streaming DiLoCo's: it needs "
                     "--mode allreduce and --outer sgd:LR or "
                     "nesterov:LR,MOM (DiLoCo)");
    s.alg = TA_ALG_DILOCO;
    s.frag_t = 2;
    ck_assert(!ta_sched_refused(&s, why, sizeof why)); /* T P = H */
    s.frag_t = 3;
    ck_assert(ta_sched_refused(&s, why, sizeof why));
    ck_assert_str_eq(why, "--fragments 4:3: the overlap T = 3 must be at "
                     "most H / P = 8 / 4 (one fragment in flight at a "
                     "time)");
    s.frag_p = 16;
    s.frag_t = 0;
    ck_assert(ta_sched_refused(&s, why, sizeof why));
    ck_assert_str_eq(why, "--fragments 16: at most H = --average-every = 8 "
                     "fragments (each starts at its own step of the H-step "
                     "period)");
}
END_TEST

Suite *assess_suite(void)
{
    Suite *s = suite_create("assess");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_comms);
    tcase_add_test(tc, test_comms_closed);
    tcase_add_test(tc, test_agreements);
    tcase_add_test(tc, test_name);
    tcase_add_test(tc, test_features);
    tcase_add_test(tc, test_fit_recovers);
    tcase_add_test(tc, test_fit_censored);
    tcase_add_test(tc, test_reader);
    tcase_add_test(tc, test_msg_bytes);
    tcase_add_test(tc, test_frag_counts);
    tcase_add_test(tc, test_refused);
    suite_add_tcase(s, tc);
    return s;
}

/* ta_plan.c: `topogen plan` computed (see ta_plan.h). Three steps: price
 * the communication patterns (graphs built with the seed of the row's
 * topogen command and placed as dpsgd-train places them; all-reduce by
 * its cheapest algorithm), list the schedules (a candidate grid plus
 * every schedule the committed runs hold at this cell), then give each
 * its steps to the target (measured, or the fitted model) and rank.
 * Trade-off: the grid is small (the algorithms and graphs the trainer
 * runs, H = 1 for gossip, H = 2, 4, 8 for local SGD, H = 4, 16 for
 * DiLoCo); anything else is ranked only when runs of it exist.
 */
#include "ta_plan.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ta_price.h"
#include "topogen_config.h"

#define DATASET_IMAGES 60000.0 /* Fashion-MNIST's training set */

const char *ta_basis_name(ta_basis b)
{
    static const char *N[] = {"measured", "predicted", "extrapolated",
                              "failed", "none"};
    return b <= TA_BASIS_NONE ? N[b] : "?";
}

void ta_plan_init(ta_plan *p)
{
    memset(p, 0, sizeof *p);
    ta_runs_init(&p->runs);
}

void ta_plan_destroy(ta_plan *p)
{
    if (!p)
        return;
    free(p->rows);
    ta_runs_destroy(&p->runs);
    memset(p, 0, sizeof *p);
}

/* the steps done when `steps` is reached: ceil (the loop of the trainer
 * runs t = 0, 1, ... while t < steps) */
static double steps_done(double steps)
{
    return steps > 0 ? ceil(steps) : 0;
}

void ta_plan_comm_counts(const ta_sched *s, double steps, ta_comms *c)
{
    double H = s->H ? (double)s->H : 1, L = H > 1 ? (double)s->local_after
                                                  : 0;
    /* local SGD and DiLoCo average the momentum too in the warm-up: a
     * second all-reduce each warm-up step, of the whole array (dpsgd-train
     * counts it uncompressed) */
    int warm_v = s->alg == TA_ALG_LOCAL || s->alg == TA_ALG_DILOCO;
    int frags = ta_sched_has_frags(s) && s->alg == TA_ALG_DILOCO;
    double N = steps_done(steps);
    memset(c, 0, sizeof *c);
    if (!isfinite(N)) {
        c->msg = frags ? fmin(L, N) : INFINITY;
        c->full = warm_v ? fmin(L, N) : 0;
        c->exact = s->global_every ? INFINITY : 0;
        c->frag = frags ? INFINITY : 0;
        return;
    }
    double warm = fmin(L, N);
    c->full = warm_v ? warm : 0;
    if (frags) {
        /* the warm-up averages the whole model; then fragment p at the
         * steps u = t - L with (u + 1) % H == ((p + 1) H / P) % H
         * (dt_frag_syncs): m = u + 1 in [1, M] */
        size_t P = s->frag_p > 1 ? s->frag_p : 1, Hz = s->H ? s->H : 1;
        double M = N > L ? N - L : 0;
        c->msg = warm;
        for (size_t p = 0; p < P; p++) {
            double o = (double)(((p + 1) * Hz / P) % Hz);
            c->frag += o == 0 ? floor(M / H)
                       : M >= o ? floor((M - o) / H) + 1 : 0;
        }
        return;
    }
    /* steps t < L communicate, then t with (t + 1 - L) % H == 0 */
    double n = warm + (N > L ? floor((N - L) / H) : 0);
    c->exact = s->global_every ? floor(n / (double)s->global_every) : 0;
    c->msg = n - c->exact;
}

void ta_plan_comms(const ta_sched *s, double steps, double *comm,
                   double *exact)
{
    ta_comms c;
    ta_plan_comm_counts(s, steps, &c);
    *comm = c.msg + c.full + c.frag;
    *exact = c.exact;
}

/* evaluations at steps <= N: the initial one (step 0, a fresh run),
 * every S-th and every E-th step */
static double evals_upto(double N, double S, double E)
{
    if (N < 0)
        return 0;
    double k = 1 + floor(N / S);
    if (E > 0) {
        double a = S, b = E; /* lcm(S, E) by gcd */
        while (b > 0) {
            double r = fmod(a, b);
            a = b;
            b = r;
        }
        k += floor(N / E) - floor(N / (S / a * E));
    }
    return k;
}

double ta_plan_agreements(const ta_sched *s, double steps, size_t eval_every,
                          size_t S)
{
    double N = steps_done(steps);
    if (!isfinite(N))
        return INFINITY;
    double Sd = S ? (double)S : 1, E = (double)eval_every;
    /* one after every 16th step; before each evaluation at a step <= N
     * and after each at a step < N */
    double k = floor(N / TA_AGREE_EVERY) + evals_upto(N, Sd, E) +
               evals_upto(N - 1, Sd, E);
    /* a warm-up step of local SGD / DiLoCo: the parameters' average, an
     * agreement, the momentum's average (average_momentum) */
    if ((s->alg == TA_ALG_LOCAL || s->alg == TA_ALG_DILOCO) && s->H > 1)
        k += fmin((double)s->local_after, N);
    return k;
}

/* ---- rows ---- */

static ta_sched cell_sched(const ta_ctx *x, ta_alg alg, const char *graph,
                           size_t H)
{
    ta_sched s;
    memset(&s, 0, sizeof s);
    s.alg = alg;
    ta_fmt(s.graph, sizeof s.graph, "%s", graph);
    ta_fmt(s.weights, sizeof s.weights, "%s",
             !strcmp(graph, "-") ? "-" : !strcmp(graph, "opexp") ||
             !strcmp(graph, "dcliques") ? "own" : "laplacian");
    s.n = x->n;
    s.batch = x->p->batch;
    ta_fmt(s.partition, sizeof s.partition, "%s", x->p->partition);
    s.lr = 0.05;
    s.H = H;
    s.local_after = H > 1 && (alg == TA_ALG_LOCAL || alg == TA_ALG_DILOCO)
                        ? (size_t)floor(DATASET_IMAGES / (double)(x->n *
                                                                  s.batch))
                        : 0;
    s.compress = 1;
    s.epochs = x->p->epochs;
    s.warmup = 1; /* the experiments' learning rate (the run line's) */
    ta_fmt(s.sched, sizeof s.sched, "step");
    s.step_epochs = 3.5;
    s.slem = !strcmp(graph, "-") ? 0 : NAN;
    return s;
}

static int add_row(ta_plan *p, const ta_sched *s, size_t *cap)
{
    for (size_t k = 0; k < p->nrows; k++)
        if (ta_sched_same(&p->rows[k].s, s))
            return 0;
    if (p->nrows == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        ta_row *v = realloc(p->rows, c * sizeof *v);
        if (!v)
            return -1;
        p->rows = v;
        *cap = c;
    }
    ta_row *r = &p->rows[p->nrows++];
    memset(r, 0, sizeof *r);
    r->s = *s;
    r->final_acc = NAN;
    r->agreements = NAN;
    r->steps = r->steps_lo = r->steps_hi = NAN;
    r->seconds = r->lo = r->hi = NAN;
    return 0;
}

/* appends to the row's name (cut at its size, never past it) */
static void name_add(ta_row *r, const char *f, ...)
    __attribute__((format(printf, 2, 3)));
static void name_add(ta_row *r, const char *f, ...)
{
    size_t len = strlen(r->name);
    va_list ap;
    va_start(ap, f);
    vsnprintf(r->name + len, sizeof r->name - len, f, ap);
    va_end(ap);
}

static void row_name(ta_row *r)
{
    const ta_sched *s = &r->s;
    int cust = strcmp(s->weights, "laplacian") && strcmp(s->weights, "own");
    r->name[0] = '\0';
    if (s->alg == TA_ALG_ALLREDUCE)
        name_add(r, "all-reduce every step");
    else if (s->alg == TA_ALG_LOCAL || s->alg == TA_ALG_DILOCO)
        name_add(r, "%s H=%zu", ta_alg_name(s->alg), s->H);
    else
        name_add(r, "%s, %s graph%s%s", ta_alg_name(s->alg), s->graph,
                 cust ? " " : "", cust ? s->weights : "");
    if (s->alg >= TA_ALG_DPSGD && s->H > 1)
        name_add(r, " H=%zu", s->H);
    if (s->global_every)
        name_add(r, ", exact average every %zu", s->global_every);
    /* the compression and the staleness are part of the schedule: two
     * rows that differ only by them must not read the same */
    if (s->compress == TA_COMPRESS_INT8 || s->compress == TA_COMPRESS_INT4)
        name_add(r, ", int%d", s->compress == TA_COMPRESS_INT8 ? 8 : 4);
    else if (s->compress > 0 && s->compress < 1)
        name_add(r, ", top-k %g", s->compress);
    if (ta_sched_has_frags(s) && s->frag_t)
        name_add(r, ", fragments %zu:%zu", s->frag_p > 1 ? s->frag_p : 1,
                 s->frag_t);
    else if (ta_sched_has_frags(s))
        name_add(r, ", fragments %zu", s->frag_p);
    if (s->staleness > 0)
        name_add(r, ", staleness %g", s->staleness);
    if (fabs(s->lr - 0.05) > 1e-12)
        name_add(r, ", lr %g", s->lr);
    /* the learning rate's schedule where it is not the grid's (--warmup
     * 1 --schedule step --step-epochs 3.5) */
    if (!isnan(s->warmup) && fabs(s->warmup - 1.0) > 1e-9)
        name_add(r, ", warm-up %g", s->warmup);
    if (s->sched[0] && strcmp(s->sched, "step"))
        name_add(r, ", %s", s->sched);
    else if (s->sched[0] && fabs(s->step_epochs - 3.5) > 1e-9)
        name_add(r, ", decay every %g epochs", s->step_epochs);
}

/* the dpsgd-train command that runs row r */
static void row_commands(const ta_ctx *x, ta_row *r, const price *g)
{
    const ta_sched *s = &r->s;
    char opt[400] = "";
    size_t len = 0;
#define OPT(...) \
    len += (size_t)ta_fmt(opt + len, len < sizeof opt ? sizeof opt - len : 0, \
                            __VA_ARGS__)
    if (s->alg >= TA_ALG_DPSGD)
        OPT(" --algorithm %s", s->alg == TA_ALG_OTHER ? "dpsgd"
                                                      : ta_alg_flag(s->alg));
    if (s->H > 1)
        OPT(" --average-every %zu", s->H);
    if (s->H > 1 && s->local_after)
        OPT(" --local-after %zu", s->local_after);
    if (s->alg == TA_ALG_DILOCO)
        OPT(" --outer nesterov:0.7,0.9");
    if (s->global_every)
        OPT(" --global-every %zu", s->global_every);
    if (s->staleness > 0)
        OPT(" --staleness %g", s->staleness);
    if (s->compress == TA_COMPRESS_INT8 || s->compress == TA_COMPRESS_INT4)
        OPT(" --compress int%d", s->compress == TA_COMPRESS_INT8 ? 8 : 4);
    else if (s->compress > 0 && s->compress < 1)
        OPT(" --compress topk:%g", s->compress);
    if (ta_sched_has_frags(s) && s->frag_t)
        OPT(" --fragments %zu:%zu", s->frag_p > 1 ? s->frag_p : 1, s->frag_t);
    else if (ta_sched_has_frags(s))
        OPT(" --fragments %zu", s->frag_p);
    if (x->o->eval_every)
        OPT(" --eval-every %zu", x->o->eval_every);
    /* the model, where it is not the trainer's default (LeNet) */
    const char *model = ta_model_name((size_t)(x->bytes / 4.0));
    if (model && strcmp(model, "lenet"))
        OPT(" --model %s", model);
#undef OPT
    int ar_mode = s->alg <= TA_ALG_DILOCO;
    const char *mca = ar_mode || s->global_every ? x->mca : "";
    char lrs[40] = ""; /* the step schedule's epochs per decay */
    if (!s->sched[0] || !strcmp(s->sched, "step"))
        ta_fmt(lrs, sizeof lrs, " --step-epochs %g",
               s->sched[0] ? s->step_epochs : 3.5);
    char what[200];
    if (ar_mode)
        ta_fmt(what, sizeof what, "--mode allreduce --workers %zu", x->n);
    else
        ta_fmt(what, sizeof what, "--topology %s%s", g ? g->file : "?",
                 g && g->block && strcmp(s->graph, "opexp")
                     ? " --placement block" : "");
    ta_fmt(r->train, sizeof r->train,
             "mpirun %s-np RANKS dpsgd-train %s --partition %s --batch %zu "
             "--epochs %g --lr %g --momentum 0.9 --warmup %g --schedule %s"
             "%s%s --seed %llu %s %s --net-hosts %zu%s",
             mca, what, s->partition, s->batch, s->epochs, s->lr,
             isnan(s->warmup) ? 1.0 : s->warmup,
             s->sched[0] ? s->sched : "step", lrs, opt,
             x->o->seed, x->o->net_platform ? "--platform" : "--net",
             x->netarg, x->S,
             ar_mode || s->global_every ? (x->ar.alg == CM_AR_HIER
                                               ? " --allreduce hierarchical"
                                           : x->ar.alg == CM_AR_HIER_SITE
                                               ? " --allreduce "
                                                 "hierarchical-site"
                                           : x->ar.alg == CM_AR_DIRECT
                                               ? " --allreduce direct"
                                               : " --allreduce best")
                                        : "");
    if (g) {
        /* the graph's weights: the price's command has laplacian */
        const char *w = strstr(g->topogen, "--weights laplacian");
        if (w && strcmp(s->weights, "laplacian") && strcmp(s->weights, "own"))
            ta_fmt(r->topogen, sizeof r->topogen, "%.*s--weights %s%s",
                     (int)(w - g->topogen), g->topogen, s->weights,
                     w + strlen("--weights laplacian"));
        else
            ta_fmt(r->topogen, sizeof r->topogen, "%s", g->topogen);
    }
}

/* seconds to reach `steps` steps of row r: compute, communications (each
 * at its message's price; a fragment's all-reduce less the T inner steps
 * it overlaps, as Streaming DiLoCo runs it) and the trainer's failure
 * agreements */
static double seconds(const ta_plan *p, const ta_row *r, double steps,
                      double t_exact)
{
    ta_comms c;
    ta_plan_comm_counts(&r->s, steps, &c);
    double frag = fmax(0.0, r->t_frag - (double)r->s.frag_t * r->t_compute);
    return steps * r->t_compute + c.msg * r->t_comm + c.full * r->t_full +
           (c.frag > 0 ? c.frag * frag : 0) + c.exact * t_exact +
           ta_plan_agreements(&r->s, steps, p->eval_every,
                              p->steps_per_epoch) * p->t_agree;
}

/* measured: the runs at r's settings */
static void measure(const ta_plan *p, ta_row *r, double t_exact)
{
    double sum = 0, acc = 0, tsum = 0, tmin = INFINITY, tmax = -INFINITY;
    double smin = INFINITY, smax = -INFINITY, asum = 0;
    size_t nacc = 0;
    for (size_t k = 0; k < p->runs.n; k++) {
        const ta_run *x = &p->runs.v[k];
        if (!ta_sched_same(&x->s, &r->s))
            continue;
        if (!r->seeds++) {
            ta_fmt(r->setting, sizeof r->setting, "%s", x->setting);
            ta_fmt(r->exp, sizeof r->exp, "%s", x->exp);
        }
        if (isfinite(x->final_acc)) {
            acc += x->final_acc;
            nacc++;
        }
        if (x->steps < 0 || x->diverged)
            continue;
        r->reached++;
        double t = seconds(p, r, x->steps, t_exact);
        asum += ta_plan_agreements(&r->s, x->steps, p->eval_every,
                                   p->steps_per_epoch);
        sum += x->steps;
        tsum += t;
        tmin = fmin(tmin, t);
        tmax = fmax(tmax, t);
        smin = fmin(smin, x->steps);
        smax = fmax(smax, x->steps);
    }
    if (!r->seeds)
        return;
    r->final_acc = nacc ? acc / (double)nacc : NAN;
    if (r->reached)
        r->agreements = asum / (double)r->reached;
    if (r->reached == r->seeds) {
        r->basis = TA_BASIS_MEASURED;
        r->steps = sum / (double)r->reached;
        r->steps_lo = smin;
        r->steps_hi = smax;
        r->seconds = tsum / (double)r->reached;
        r->lo = tmin;
        r->hi = tmax;
    } else {
        r->basis = TA_BASIS_FAILED;
        if (r->reached) { /* the seeds that reached it */
            r->steps = sum / (double)r->reached;
            r->steps_lo = smin;
            r->steps_hi = smax;
            r->seconds = tsum / (double)r->reached;
            r->lo = tmin;
            r->hi = tmax;
        }
        ta_fmt(r->note, sizeof r->note, "%zu of %zu runs at these "
                 "settings did not reach %g%s", r->seeds - r->reached,
                 r->seeds, p->target, r->reached ? "" : " (steps: none)");
    }
}

static double slem_of(const ta_plan *p, const ta_ctx *x, const char *graph,
                      const char *weights)
{
    double sum = 0;
    size_t k2 = 0;
    for (size_t k = 0; k < p->runs.n; k++) {
        const ta_run *r = &p->runs.v[k];
        if (r->s.n == x->n && !strcmp(r->s.graph, graph) &&
            !strcmp(r->s.weights, weights) && isfinite(r->s.slem)) {
            sum += r->s.slem;
            k2++;
        }
    }
    if (k2)
        return sum / (double)k2;
    for (size_t k = 0; k < x->ng; k++)
        if (!strcmp(x->g[k].graph, graph))
            return x->g[k].slem;
    return NAN;
}

static void predict(const ta_plan *p, const ta_ctx *x, ta_row *r,
                    double t_exact, double spe)
{
    double e, lo, hi;
    int inside;
    if (r->s.alg >= TA_ALG_DPSGD && isnan(r->s.slem))
        r->s.slem = slem_of(p, x, r->s.graph, r->s.weights);
    if (ta_model_predict(&p->model, &r->s, &e, &lo, &hi, &inside) != CM_OK) {
        r->basis = TA_BASIS_NONE;
        ta_fmt(r->note, sizeof r->note, "no runs and no prediction: %s",
                 cm_last_error());
        cm_error_clear();
        return;
    }
    r->steps = e * spe;
    r->steps_lo = lo * spe;
    r->steps_hi = hi * spe;
    r->seconds = seconds(p, r, r->steps, t_exact);
    r->lo = seconds(p, r, r->steps_lo, t_exact);
    r->hi = seconds(p, r, r->steps_hi, t_exact);
    r->agreements = ta_plan_agreements(&r->s, r->steps, p->eval_every,
                                       p->steps_per_epoch);
    double budget = r->s.epochs * spe;
    r->basis = inside && r->steps <= budget ? TA_BASIS_PREDICTED
                                            : TA_BASIS_EXTRAPOLATED;
    if (!inside)
        ta_fmt(r->note, sizeof r->note, "outside the fitted runs' range "
                 "of %s (consensus c, partition, n or lr)",
                 ta_alg_name(r->s.alg));
    else if (r->steps > budget)
        ta_fmt(r->note, sizeof r->note, "predicted beyond the %g-epoch "
                 "budget (%.0f steps)", r->s.epochs, budget);
}

static int by_seconds(const void *a, const void *b)
{
    const ta_row *x = a, *y = b;
    double u = isnan(x->seconds) ? INFINITY : x->seconds;
    double v = isnan(y->seconds) ? INFINITY : y->seconds;
    if (u != v)
        return u < v ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* tier of a row: 0 measured / predicted, 1 extrapolated, 2 failed, 3 none */
static int tier(const ta_row *r, int extrapolate)
{
    switch (r->basis) {
    case TA_BASIS_MEASURED:
    case TA_BASIS_PREDICTED:
        return 0;
    case TA_BASIS_EXTRAPOLATED:
        return extrapolate ? 0 : 1;
    case TA_BASIS_FAILED:
        return 2;
    default:
        return 3;
    }
}

/* 1 for a row measured on one seed only (a pilot), when the cell holds
 * rows measured on more: ranked after them (ta_plan.h) */
static int pilot(const ta_row *r)
{
    return r->basis == TA_BASIS_MEASURED && r->seeds < 2;
}

static int by_tier_seconds(const void *a, const void *b, int extrapolate)
{
    int u = tier(a, extrapolate), v = tier(b, extrapolate);
    if (u != v)
        return u - v;
    if (pilot(a) != pilot(b))
        return pilot(a) - pilot(b);
    return by_seconds(a, b);
}
static int by_tier0(const void *a, const void *b)
{
    return by_tier_seconds(a, b, 0);
}
static int by_tier1(const void *a, const void *b)
{
    return by_tier_seconds(a, b, 1);
}

/* Tier 0 merged: a predicted row before a measured one only when its
 * interval's upper end is below the measured time. */
static cm_status rank(ta_plan *p, int extrapolate)
{
    qsort(p->rows, p->nrows, sizeof *p->rows, extrapolate ? by_tier1
                                                          : by_tier0);
    size_t n0 = 0;
    while (n0 < p->nrows && tier(&p->rows[n0], extrapolate) == 0)
        n0++;
    ta_row *m = malloc((n0 + 1) * sizeof *m), *q = malloc((n0 + 1) * sizeof *q);
    if (!m || !q) {
        free(m);
        free(q);
        return cm_error(CM_ENOMEM, "out of memory");
    }
    size_t nm = 0, nq = 0;
    for (size_t k = 0; k < n0; k++) {
        if (p->rows[k].basis == TA_BASIS_MEASURED)
            m[nm++] = p->rows[k];
        else
            q[nq++] = p->rows[k];
    }
    size_t i = 0, j = 0, o = 0;
    while (i < nm || j < nq) {
        if (j < nq && (i == nm || q[j].hi < m[i].seconds))
            p->rows[o++] = q[j++];
        else
            p->rows[o++] = m[i++];
    }
    free(m);
    free(q);
    return CM_OK;
}

/* the default experiments: ROOT/data/results* */
static cm_status read_defaults(ta_plan *p, const char *root)
{
    char dir[4096], real[PATH_MAX];
    ta_fmt(dir, sizeof dir, "%s/data", root ? root : ".");
    char cwd[PATH_MAX];
    if (realpath(dir, real)) {
        /* relative to the working directory when under it */
        size_t cl = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
        ta_fmt(dir, sizeof dir, "%s", cl && !strncmp(real, cwd, cl) &&
                                        real[cl] == '/' ? real + cl + 1
                                                        : real);
    }
    /* the CNN's experiments too: a plan reads only its model's runs */
    static const char *const NAMES[] = {"results", "results-slow-network",
                                        "bandwidth-bound"};
    size_t got = 0;
    for (size_t k = 0; k < 3; k++) {
        char d[4200];
        ta_fmt(d, sizeof d, "%s/%s", dir, NAMES[k]);
        cm_status st = ta_runs_read(&p->runs, d, p->target);
        if (st == CM_EIO && !got && k == 0) {
            cm_error_clear();
            continue;
        }
        if (st == CM_EIO && got) { /* not installed, or no runs: skipped */
            cm_error_clear();
            continue;
        }
        if (st != CM_OK)
            return st;
        cm_error_clear();
        size_t len = strlen(p->results);
        ta_fmt(p->results + len, sizeof p->results - len, "%s%s",
                 len ? "," : "", d);
        got++;
    }
    if (!got)
        return cm_error(CM_EIO, "no committed experiments under %s (no "
                        "data/results*): give --results DIR", dir);
    return CM_OK;
}

static cm_status read_results(ta_plan *p, const ta_plan_opts *o)
{
    if (!o->results || !strcmp(o->results, "default"))
        return read_defaults(p, o->default_root);
    char buf[4096];
    ta_fmt(buf, sizeof buf, "%s", o->results);
    char *save = NULL;
    for (char *d = strtok_r(buf, ",", &save); d;
         d = strtok_r(NULL, ",", &save)) {
        cm_status st = !strcmp(d, "default")
                           ? read_defaults(p, o->default_root)
                           : ta_runs_read(&p->runs, d, p->target);
        if (st != CM_OK)
            return st;
        if (strcmp(d, "default")) {
            size_t len = strlen(p->results);
            ta_fmt(p->results + len, sizeof p->results - len, "%s%s",
                     len ? "," : "", d);
        }
    }
    return CM_OK;
}

cm_status ta_plan_make(ta_plan *p, const ta_plan_opts *o)
{
    ta_ctx x;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.p = p;
    x.n = o->n;
    x.d = o->d;
    x.S = o->hosts ? o->hosts : o->n;
    x.bytes = 4.0 * (double)(o->params ? o->params : TOPOGEN_DEFAULT_PARAMS);
    ta_shell_word(o->net_arg, x.netarg, sizeof x.netarg);
    if (x.S > x.n)
        return cm_error(CM_EINVAL, "--hosts %zu: more hosts than the %zu "
                        "workers", x.S, x.n);
    if (cm_net_check_hosts(o->net, x.S) != CM_OK) /* per-host links */
        return cm_error_prefix(CM_EINVAL, "--hosts %zu", x.S);
    if (o->labels && o->labels->n != o->n)
        return cm_error(CM_EINVAL, "--labels %s: %zu workers, not -n %zu",
                        o->labels_path, o->labels->n, o->n);
    /* --compress C and --fragments P[:T]: the trainer's forms */
    double comp = 1;
    size_t fp = 1, ft = 0;
    if (o->compress && ta_sched_parse_compress(o->compress, &comp) != CM_OK)
        return CM_EINVAL;
    if (o->fragments &&
        ta_sched_parse_frags(o->fragments, &fp, &ft) != CM_OK)
        return CM_EINVAL;
    static const size_t LOCAL_H[] = {2, 4, 8}, DILOCO_H[] = {4, 16};
    /* --fragments that no DiLoCo of the grid takes: refused at once, in
     * the trainer's words (for the largest H) */
    char why[400] = "";
    int frag_ok = !o->fragments;
    for (size_t k = 0; k < 2 && !frag_ok; k++) {
        ta_sched d = {.alg = TA_ALG_DILOCO, .H = DILOCO_H[k],
                      .compress = comp, .frag_p = fp, .frag_t = ft};
        frag_ok = !ta_sched_refused(&d, why, sizeof why);
    }
    if (!frag_ok)
        return cm_error(CM_EINVAL, "%s", why);
    p->n = x.n;
    p->S = x.S;
    p->bytes = x.bytes;
    p->target = o->target;
    p->epochs = o->epochs > 0 ? o->epochs : 12;
    p->batch = o->batch ? o->batch
                        : (size_t)fmax(1.0, floor(1024.0 / (double)o->n));
    ta_fmt(p->partition, sizeof p->partition, "%s",
             o->partition ? o->partition : "dirichlet:0.1");
    cm_status st = read_results(p, o);
    /* the runs of this model only, when it has any: another model's
     * steps and accuracy are not this one's; a model without runs (one
     * the trainer does not have) takes every run's steps as a proxy */
    const size_t params = (size_t)(x.bytes / 4.0);
    size_t own = 0;
    for (size_t k = 0; st == CM_OK && k < p->runs.n; k++)
        own += ta_sched_params(&p->runs.v[k].s) == params;
    if (st == CM_OK && own)
        ta_runs_keep_model(&p->runs, params);
    if (st == CM_OK && p->runs.n && !own) {
        char why[200];
        ta_fmt(why, sizeof why, "this model's own steps (no run of a "
               "%zu-parameter model: other models' steps stand in)", params);
        ta_plan_skip(p, why);
    }
    if (st == CM_OK)
        st = ta_model_fit(&p->model, &p->runs);
    /* the message sizes the rows send: every compressed array and
     * fragment of the runs at this cell and of --compress / --fragments,
     * priced with the whole array */
    ta_sched flag = {.compress = comp, .frag_p = fp, .frag_t = ft};
    double fl0 = x.bytes / 4.0;
    if (st == CM_OK &&
        (ta_price_size(&x, ta_sched_msg_bytes(&flag, fl0)) ||
         ta_price_size(&x, ta_sched_msg_bytes(&flag,
                                              ta_sched_frag_floats(&flag,
                                                                   fl0)))))
        st = cm_error(CM_ENOMEM, "message sizes");
    for (size_t k = 0; st == CM_OK && k < p->runs.n; k++) {
        const ta_sched *r = &p->runs.v[k].s;
        if (r->n != x.n)
            continue;
        double fl = x.bytes / 4.0;
        if (ta_price_size(&x, ta_sched_msg_bytes(r, fl)) ||
            ta_price_size(&x, ta_sched_msg_bytes(r, ta_sched_frag_floats(r,
                                                                      fl))))
            st = cm_error(CM_ENOMEM, "more than %d message sizes at %zu "
                          "workers", TA_NSIZES, x.n);
    }
    if (st == CM_OK)
        st = ta_prices(&x);
    if (st != CM_OK)
        return st;
    const char *model = ta_model_name(params);
    p->rate = ta_runs_rate(&p->runs, model, p->batch);
    if (!(p->rate > 0)) {
        /* --results without a bench: the committed experiments' (the
         * same model and code), said so; else unknown, never 0 */
        ta_runs b;
        ta_runs_init(&b);
        for (size_t k = 0; k < 2; k++) {
            char d[4200];
            ta_fmt(d, sizeof d, "%s/data/%s", o->default_root ?
                   o->default_root : ".", k ? "results-slow-network"
                                            : "results");
            ta_runs_read_benches(&b, d);
        }
        p->rate = ta_runs_rate(&b, model, p->batch);
        p->rate_committed = p->rate > 0;
        ta_runs_destroy(&b);
    }
    double t_compute = p->rate > 0 ? (double)p->batch / p->rate : 0;
    if (!(p->rate > 0))
        ta_plan_skip(p, "compute (no bench of the model in the experiments: the "
                "time per step is the communication's only)");
    /* the schedules: the grid, then every one the runs hold here */
    size_t cap = 0;
    ta_sched s;
    s = cell_sched(&x, TA_ALG_ALLREDUCE, "-", 1);
    int bad = add_row(p, &s, &cap);
    for (size_t k = 0; k < 3 && !bad; k++) {
        s = cell_sched(&x, TA_ALG_LOCAL, "-", LOCAL_H[k]);
        bad = add_row(p, &s, &cap);
    }
    for (size_t k = 0; k < 2 && !bad; k++) {
        s = cell_sched(&x, TA_ALG_DILOCO, "-", DILOCO_H[k]);
        bad = add_row(p, &s, &cap);
    }
    for (size_t k = 0; k < x.ng && !bad; k++) {
        if (!x.g[k].ok)
            continue;
        static const ta_alg A[] = {TA_ALG_D2, TA_ALG_DPSGD, TA_ALG_GT};
        size_t na = !strcmp(x.g[k].graph, "opexp") ? 1 : 3;
        for (size_t a = 0; a < na && !bad; a++) {
            s = cell_sched(&x, !strcmp(x.g[k].graph, "opexp") ? TA_ALG_DPSGD
                                                              : A[a],
                           x.g[k].graph, 1);
            bad = add_row(p, &s, &cap);
        }
    }
    /* --compress, --fragments: the grid's forms the trainer accepts; the
     * others named with its refusal */
    size_t ngrid = p->nrows;
    for (size_t k = 0; k < ngrid && !bad && (comp != 1 || o->fragments);
         k++) {
        ta_sched base = p->rows[k].s;
        for (int f = 0; f < 2 && !bad; f++) {
            if (f ? !o->fragments : comp == 1)
                continue;
            if (f && base.alg != TA_ALG_DILOCO)
                continue; /* Streaming DiLoCo is DiLoCo's */
            s = base;
            s.compress = comp;
            if (f) {
                s.frag_p = fp;
                s.frag_t = ft;
            }
            if (ta_sched_refused(&s, why, sizeof why)) {
                ta_plan_skip(p, why);
                continue;
            }
            bad = add_row(p, &s, &cap);
        }
    }
    double spe_sum = 0;
    size_t spe_n = 0;
    for (size_t k = 0; k < p->runs.n && !bad; k++) {
        const ta_run *r = &p->runs.v[k];
        if (r->s.n != x.n || r->s.batch != p->batch ||
            strcmp(r->s.partition, p->partition) ||
            fabs(r->s.epochs - p->epochs) > 1e-6)
            continue;
        p->cell_runs++;
        if (r->steps_per_epoch > 0) {
            spe_sum += r->steps_per_epoch;
            spe_n++;
        }
        if (strcmp(r->s.graph, "-") && !ta_price_of(&x, r->s.graph)) {
            char why[160];
            ta_fmt(why, sizeof why, "the runs' %s (graph '%s' is not "
                     "built by plan)", r->setting, r->s.graph);
            ta_plan_skip(p, why);
            continue;
        }
        ta_sched t = r->s;
        t.slem = NAN;
        if (!strcmp(t.graph, "-"))
            t.slem = 0;
        bad = add_row(p, &t, &cap);
    }
    if (bad)
        return cm_error(CM_ENOMEM, "out of memory");
    double spe = spe_n ? spe_sum / (double)spe_n
                       : floor(DATASET_IMAGES / (double)(x.n * p->batch));
    /* the failure agreement: dpsgd-train's MPI_Iallreduce of one int
     * (dt_comm_agree), priced as the all-reduce Open MPI runs for it */
    p->eval_every = o->eval_every;
    p->steps_per_epoch = (size_t)fmax(1.0, round(spe));
    p->agree_alg = cm_net_allreduce_openmpi(x.n, 4.0, 0, 0);
    cm_net_ar ag;
    cm_status sa = cm_net_allreduce_model(o->net, p->agree_alg, x.n, x.S,
                                          4.0, &ag, NULL, NULL);
    if (sa != CM_OK)
        return sa;
    p->t_agree = ag.time_s;
    for (size_t k = 0; k < p->nrows; k++) {
        ta_row *r = &p->rows[k];
        const price *g = strcmp(r->s.graph, "-") ? ta_price_of(&x, r->s.graph)
                                                 : NULL;
        r->t_compute = t_compute;
        r->ar = x.ar.alg;
        /* each message at its size as the trainer counts it: compressed
         * codes and their scales, a fragment's share of the array */
        double fl = x.bytes / 4.0;
        r->msg_bytes = ta_sched_msg_bytes(&r->s, fl);
        r->t_full = x.ar.time_s;
        r->t_comm = !strcmp(r->s.graph, "-")
                        ? ta_price_at(&x, NULL, r->msg_bytes)
                    : r->s.alg == TA_ALG_GT ? g->round2_s
                                            : ta_price_at(&x, g, r->msg_bytes);
        if (ta_sched_has_frags(&r->s)) {
            r->frag_bytes = ta_sched_msg_bytes(&r->s,
                                               ta_sched_frag_floats(&r->s, fl));
            r->t_frag = ta_price_at(&x, NULL, r->frag_bytes);
        }
        row_name(r);
        row_commands(&x, r, g);
        measure(p, r, x.ar.time_s);
        if (!r->seeds)
            predict(p, &x, r, x.ar.time_s, spe);
        if (r->basis == TA_BASIS_MEASURED && g && g->note[0])
            ta_fmt(r->note, sizeof r->note, "%s", g->note);
        if (!r->note[0] && r->s.alg >= TA_ALG_DPSGD && r->s.compress > 0 &&
            r->s.compress < 1 && r->s.compress != TA_COMPRESS_INT8 &&
            r->s.compress != TA_COMPRESS_INT4)
            ta_fmt(r->note, sizeof r->note, "CHOCO-SGD with top-k needs "
                   "--consensus-step below 1 (topk:0.1 diverged at 1, "
                   "trained at 0.3: docs/train/compression.md)");
        if ((!strcmp(r->s.graph, "-") || r->s.global_every) &&
            x.ar.alg == CM_AR_HIER_SITE && !r->note[0])
            ta_fmt(r->note, sizeof r->note, "hierarchical all-reduce by "
                "site (%s among sites, %.4g ms), as dpsgd-train "
                "--allreduce hierarchical-site runs it; the cheapest flat "
                "one: %s (%.4g ms)", cm_net_ar_name(x.ar.inter),
                x.ar.time_s * 1e3, cm_net_ar_name(x.flat.alg),
                x.flat.time_s * 1e3);
        if ((!strcmp(r->s.graph, "-") || r->s.global_every) &&
            x.ar.alg == CM_AR_HIER && !r->note[0])
            ta_fmt(r->note, sizeof r->note, "hierarchical all-reduce (%s "
                "among hosts, %.4g ms) priced; Open MPI 4.1's libnbc has "
                "none: the run line selects the cheapest flat one, %s "
                "(%.4g ms)", cm_net_ar_name(x.ar.inter), x.ar.time_s * 1e3,
                cm_net_ar_name(x.flat.alg), x.flat.time_s * 1e3);
    }
    return rank(p, o->extrapolate);
}

/* topogen_plan.c: `topogen plan` printed (see topogen_plan.h). The plan
 * is computed in topo/assess/ (ta_plan_make: the experiments read, the
 * convergence model fitted, every schedule priced and ranked); this file
 * fills its options from the config, says on stderr what was read, and
 * prints the ranked rows as a table or one JSON object.
 */
#include "topogen_plan.h"

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm_labels.h"
#include "ta_plan.h"
#include "topogen_json.h"

/* The tree whose data/results* are the defaults: the checkout of a
 * bin/topogen (ROOT/bin/topogen -> ROOT), or PREFIX/share/topogen of an
 * installed one; "." when neither has data/. */
static void default_root(char *buf, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ta_fmt(buf, cap, ".");
    if (len <= 0)
        return;
    exe[len] = '\0';
    char *bin = dirname(exe), path[PATH_MAX + 64];
    struct stat s;
    ta_fmt(path, sizeof path, "%s/../data", bin);
    if (stat(path, &s) == 0 && S_ISDIR(s.st_mode)) {
        ta_fmt(buf, cap, "%s/..", bin);
        return;
    }
    ta_fmt(path, sizeof path, "%s/../share/topogen/data", bin);
    if (stat(path, &s) == 0 && S_ISDIR(s.st_mode))
        ta_fmt(buf, cap, "%s/../share/topogen", bin);
}

static void say_read(const ta_plan *p)
{
    const ta_read_stats *s = &p->runs.st;
    fprintf(stderr, "topogen: plan: read %zu runs (%zu run CSVs, %zu "
            "per-run.tsv rows) in %zu experiment directories under %s; "
            "left out: %zu stopped early, %zu with a schedule not "
            "recognised, %zu read twice, %zu of another model; %zu at this "
            "cell (n %zu, batch %zu, %s, %g epochs)\n", p->runs.n, s->csv,
            s->per_run, s->dirs, p->results, s->incomplete, s->unknown,
            s->duplicates, s->other_model, p->cell_runs, p->n, p->batch, p->partition, p->epochs);
    if (p->model.fitted)
        fprintf(stderr, "topogen: plan: convergence model fitted to %zu "
                "runs that reached %g and %zu that did not (lower "
                "bounds); %zu diverged and %zu without a graph spectrum "
                "left out: residual sd %.3f of log epochs (a factor "
                "%.2f)\n", p->model.runs, p->target, p->model.censored,
                p->model.diverged, p->model.no_slem, p->model.rmse,
                exp(p->model.rmse));
    else
        fprintf(stderr, "topogen: plan: no convergence model (%zu runs "
                "reached %g): rows without runs are not ranked\n",
                p->model.runs, p->target);
}

/* a number, or null for NAN (jansson refuses NAN) */
static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static const char *RESTS_ON =
    "time to the target = steps to the target x (compute per step + the "
    "communications of those steps, priced by src/place/cm_net.h) + the "
    "trainer's failure agreements up to the target (every 16 steps, two "
    "per evaluation, one per local-SGD/DiLoCo warm-up step; each the "
    "all-reduce of one int Open MPI runs, priced by the same model); "
    "steps: "
    "measured (the runs at these settings, mean over seeds) or predicted "
    "by the convergence model fitted to every run read "
    "(docs/topo/plan-model.md), with a 95% interval; a predicted row is "
    "ranked above a measured one only when its interval's upper end is "
    "faster; extrapolated rows come after, schedules that failed in runs "
    "at their settings last";

static int print_json(const ta_plan *p, const cm_net *net)
{
    int bad = 0;
    char d[200];
    cm_net_describe(net, d, sizeof d);
    json_t *o = json_object(), *rows = json_array(), *m = json_object();
    topogen_json_int(o, "n", p->n, &bad);
    topogen_json_str(o, "net", d, &bad);
    topogen_json_int(o, "hosts", p->S, &bad);
    topogen_json_num(o, "array_bytes", p->bytes, &bad);
    topogen_json_str(o, "partition", p->partition, &bad);
    topogen_json_int(o, "batch", p->batch, &bad);
    topogen_json_num(o, "epochs", p->epochs, &bad);
    topogen_json_num(o, "target", p->target, &bad);
    topogen_json_int(o, "eval_every", p->eval_every, &bad);
    topogen_json_int(o, "steps_per_epoch", p->steps_per_epoch, &bad);
    topogen_json_num(o, "ms_per_agreement", p->t_agree * 1e3, &bad);
    topogen_json_str(o, "agreement_allreduce", cm_net_ar_name(p->agree_alg),
                     &bad);
    if (p->rate > 0)
        topogen_json_num(o, "compute_images_per_s", p->rate, &bad);
    else /* unknown, never 0 */
        bad |= json_object_set_new(o, "compute_images_per_s", json_null());
    topogen_json_str(o, "compute_bench", !(p->rate > 0) ? "unknown"
                     : p->rate_committed ? "committed" : "results", &bad);
    topogen_json_str(o, "results_dirs", p->results, &bad);
    topogen_json_int(o, "runs_read", p->runs.n, &bad);
    topogen_json_int(o, "runs_at_cell", p->cell_runs, &bad);
    topogen_json_int(o, "runs_other_model", p->runs.st.other_model, &bad);
    topogen_json_str(o, "ranking_rests_on", RESTS_ON, &bad);
    topogen_json_str(o, "not_ranked", p->skipped, &bad);
    topogen_json_int(m, "fitted", (size_t)p->model.fitted, &bad);
    topogen_json_int(m, "runs", p->model.runs, &bad);
    topogen_json_int(m, "censored", p->model.censored, &bad);
    topogen_json_num(m, "residual_sd", p->model.rmse, &bad);
    json_t *phi = json_array();
    for (size_t k = 0; k < TA_NPAR; k++)
        if (json_array_append_new(phi, json_real(p->model.phi[k])))
            bad = 1;
    topogen_json_set(m, "phi", phi, &bad);
    topogen_json_set(o, "model", m, &bad);
    for (size_t k = 0; k < p->nrows; k++) {
        const ta_row *r = &p->rows[k];
        json_t *j = json_object(), *iv = json_array(), *sv = json_array();
        topogen_json_int(j, "rank", k + 1, &bad);
        topogen_json_str(j, "schedule", r->name, &bad);
        topogen_json_str(j, "algorithm", ta_alg_name(r->s.alg), &bad);
        topogen_json_str(j, "graph", r->s.graph, &bad);
        topogen_json_int(j, "H", r->s.H, &bad);
        topogen_json_num(j, "lr", r->s.lr, &bad);
        topogen_json_int(j, "global_every", r->s.global_every, &bad);
        char comp[32], frag[32] = "";
        ta_sched_compress_str(&r->s, comp, sizeof comp);
        topogen_json_str(j, "compress", comp, &bad); /* --compress */
        if (ta_sched_has_frags(&r->s))
            ta_fmt(frag, sizeof frag, r->s.frag_t ? "%zu:%zu" : "%zu",
                   r->s.frag_p > 1 ? r->s.frag_p : 1, r->s.frag_t);
        topogen_json_str(j, "fragments", frag[0] ? frag : "none", &bad);
        topogen_json_num(j, "message_bytes", r->msg_bytes, &bad);
        topogen_json_num(j, "fragment_bytes", r->frag_bytes, &bad);
        topogen_json_num(j, "ms_per_fragment", r->t_frag * 1e3, &bad);
        topogen_json_str(j, "basis", ta_basis_name(r->basis), &bad);
        topogen_json_int(j, "seeds", r->seeds, &bad);
        topogen_json_int(j, "reached", r->reached, &bad);
        topogen_json_num(j, "steps_to_target", r->steps, &bad);
        json_array_append_new(sv, num_or_null(r->steps_lo));
        json_array_append_new(sv, num_or_null(r->steps_hi));
        topogen_json_set(j, "steps_interval", sv, &bad);
        topogen_json_num(j, "seconds_to_target", r->seconds, &bad);
        json_array_append_new(iv, num_or_null(r->lo));
        json_array_append_new(iv, num_or_null(r->hi));
        topogen_json_set(j, "interval", iv, &bad);
        topogen_json_num(j, "compute_s_per_step", r->t_compute, &bad);
        topogen_json_num(j, "ms_per_communication", r->t_comm * 1e3, &bad);
        topogen_json_num(j, "agreements_to_target", r->agreements, &bad);
        topogen_json_num(j, "final_acc", r->final_acc, &bad);
        topogen_json_str(j, "setting", r->setting, &bad);
        topogen_json_str(j, "experiment", r->exp, &bad);
        topogen_json_str(j, "dpsgd_train", r->train, &bad);
        topogen_json_str(j, "topogen", r->topogen, &bad);
        topogen_json_str(j, "note", r->note, &bad);
        if (json_array_append_new(rows, j))
            bad = 1;
    }
    topogen_json_set(o, "rows", rows, &bad);
    return topogen_json_print(o, bad) ? EXIT_FAILURE : EXIT_SUCCESS;
}

static void fmt_s(char *b, size_t cap, double s)
{
    if (isnan(s))
        ta_fmt(b, cap, "-");
    else if (s >= 100)
        ta_fmt(b, cap, "%.0f", s);
    else
        ta_fmt(b, cap, "%.3g", s);
}

static int print_text(const ta_plan *p, const cm_net *net)
{
    char d[200];
    cm_net_describe(net, d, sizeof d);
    char comp[160];
    if (p->rate > 0)
        snprintf(comp, sizeof comp, "compute %.0f images/s (%s)", p->rate,
                 p->rate_committed ? "the committed experiments' bench: "
                                     "none under --results"
                                   : "the experiments' bench");
    else
        snprintf(comp, sizeof comp, "compute unknown (no bench.txt: the "
                 "times are the communications' only)");
    printf("# topogen plan: %zu workers, one per rank, on %zu host%s (ranks "
           "in blocks); net %s; arrays of %.0f bytes\n# partition %s, batch "
           "%zu per worker, %g epochs; target test accuracy %g; %s\n", p->n,
           p->S, p->S == 1 ? "" : "s", d, p->bytes, p->partition, p->batch,
           p->epochs, p->target, comp);
    char ev[64];
    if (p->eval_every)
        ta_fmt(ev, sizeof ev, "every %zu steps and at", p->eval_every);
    else
        ta_fmt(ev, sizeof ev, "at");
    printf("# failure agreements: %.4g ms each (%s all-reduce of one int), "
           "every %d steps, before and after each evaluation (%s each "
           "epoch's end, %zu steps), one per local-SGD/DiLoCo warm-up step\n",
           p->t_agree * 1e3, cm_net_ar_name(p->agree_alg), TA_AGREE_EVERY, ev,
           p->steps_per_epoch);
    printf("%-4s %-44s %-12s %5s %15s %20s %8s\n", "rank", "schedule",
           "basis", "seeds", "steps [range]", "s to target [range]",
           "final");
    for (size_t k = 0; k < p->nrows; k++) {
        const ta_row *r = &p->rows[k];
        char steps[48] = "-", secs[64] = "-", acc[16] = "-", seeds[16] = "-";
        char a[24], b[24], c[24];
        if (!isnan(r->steps))
            ta_fmt(steps, sizeof steps, "%.0f [%.0f-%.0f]", r->steps,
                     r->steps_lo, r->steps_hi);
        if (!isnan(r->seconds)) {
            fmt_s(a, sizeof a, r->seconds);
            fmt_s(b, sizeof b, r->lo);
            fmt_s(c, sizeof c, r->hi);
            ta_fmt(secs, sizeof secs, "%s [%s-%s]", a, b, c);
        }
        if (r->basis == TA_BASIS_FAILED && r->reached == 0)
            ta_fmt(secs, sizeof secs, "never");
        if (!isnan(r->final_acc))
            ta_fmt(acc, sizeof acc, "%.2f%%", 100 * r->final_acc);
        if (r->seeds)
            ta_fmt(seeds, sizeof seeds, "%zu/%zu", r->reached, r->seeds);
        printf("%-4zu %-44s %-12s %5s %15s %20s %8s\n", k + 1, r->name,
               ta_basis_name(r->basis), seeds, steps, secs, acc);
        printf("       run: %s\n", r->train);
        if (r->topogen[0])
            printf("       graph: %s\n", r->topogen);
        if (r->setting[0])
            printf("       runs: %s [%s]\n", r->setting, r->exp);
        if (r->note[0])
            printf("       note: %s\n", r->note);
    }
    if (p->skipped[0])
        printf("# not ranked: %s\n", p->skipped);
    printf("# %s\n", RESTS_ON);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "topogen: write error on standard output\n");
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

int topogen_plan(topogen_config *c)
{
    cm_labels labels;
    cm_labels_init(&labels);
    ta_plan p;
    ta_plan_init(&p);
    char root[PATH_MAX];
    default_root(root, sizeof root);
    ta_plan_opts o = {
        .n = c->search.n, .d = c->search.d, .hosts = c->hosts,
        .params = c->params, .batch = c->batch, .epochs = c->epochs,
        .target = c->target, .partition = c->partition, .net = &c->netm,
        .net_arg = c->net, .net_platform = c->platform,
        .seed = c->search.seed, .labels_path = c->labels,
        .results = c->results, .default_root = root,
        .eval_every = c->eval_every, .compress = c->compress,
        .fragments = c->fragments, .extrapolate = c->extrapolate};
    cm_status st = CM_OK;
    if (c->labels && (st = cm_labels_read(&labels, c->labels)) == CM_OK)
        o.labels = &labels;
    if (st == CM_OK)
        st = ta_plan_make(&p, &o);
    int rc;
    if (st != CM_OK) {
        fprintf(stderr, "topogen: plan: %s\n", cm_last_error());
        rc = st == CM_EINVAL ? EXIT_USAGE : EXIT_FAILURE;
    } else {
        if (!c->quiet)
            say_read(&p);
        rc = c->json ? print_json(&p, &c->netm) : print_text(&p, &c->netm);
    }
    ta_plan_destroy(&p);
    cm_labels_destroy(&labels);
    return rc;
}

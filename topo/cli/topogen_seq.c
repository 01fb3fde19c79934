/* topogen_seq.c: topogen's reports for time-varying topologies (see
 * topogen_seq.h; generation is topogen_make.c): evaluation prints the
 * period, per-round degrees, messages per period, the product norm and
 * the rounds to 1e-3 (tg_seq_evaluate), or simulates gossip through the
 * rounds (tg_simulate_seq); with --net, the modelled time of
 * each round (cm_net) next to the all-reduce algorithms of the same
 * workers (the report shared with topogen_eval.c).
 */
#include "topogen_seq.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cm_place.h"
#include "cm_status.h"
#include "tg_eval.h"
#include "topogen_json.h"
#include "topogen_neff_print.h"

cm_status topogen_allreduce_eval(const cm_net *net, size_t P, size_t H,
                                 double bytes, cm_net_ar_alg pick,
                                 topogen_ar *a)
{
    a->pick = pick;
    a->P = P;
    a->H = H;
    a->G = net->hosts ? 0 : cm_net_sites_used(net, H);
    cm_status st = CM_OK;
    for (int k = 0; k < CM_AR_COUNT && st == CM_OK; k++)
        st = cm_net_allreduce_model(net, (cm_net_ar_alg)k, P, H, bytes,
                                    &a->alg[k], NULL, NULL);
    return st;
}

/* hierarchical is listed when some host holds several ranks and there
 * are several hosts (else it is one of the flat ones) */
static int hier_listed(const topogen_ar *a)
{
    return a->H > 1 && a->H < a->P;
}

/* hierarchical-site: three levels, several sites, one holding several
 * ranks */
static int site_listed(const topogen_ar *a)
{
    return a->G > 1 && a->G < a->P;
}

/* the algorithms listed one per line: ring .. hierarchical, then
 * hierarchical-site */
static int listed(const topogen_ar *a, int k)
{
    if (k == CM_AR_HIER)
        return hier_listed(a);
    if (k == CM_AR_HIER_SITE)
        return site_listed(a);
    return k <= CM_AR_HIER;
}

void topogen_allreduce_print(const topogen_ar *a)
{
    for (int k = CM_AR_RING; k < CM_AR_COUNT; k++) {
        const cm_net_ar *r = &a->alg[k];
        if (!listed(a, k))
            continue;
        char among[64] = "";
        if (k == CM_AR_HIER || k == CM_AR_HIER_SITE)
            snprintf(among, sizeof among, "; %s among %s",
                     cm_net_ar_name(r->inter),
                     k == CM_AR_HIER ? "hosts" : "sites");
        printf("  allreduce   %-19s modelled %.4g ms (%zu steps; %.3g "
               "messages, %.3g MB sent per rank%s)\n", cm_net_ar_name(
               (cm_net_ar_alg)k), r->time_s * 1e3, r->steps, r->msgs_max,
               r->bytes_max / 1e6, among);
    }
    const cm_net_ar *d = &a->alg[CM_AR_DIRECT];
    printf("  allreduce   %-19s modelled %.4g ms (%zu steps; %.3g "
           "messages, %.3g MB sent per rank; dpsgd-train --allreduce "
           "direct)\n", "direct", d->time_s * 1e3, d->steps, d->msgs_max,
           d->bytes_max / 1e6);
    const cm_net_ar *p = &a->alg[a->pick];
    printf("  allreduce   priced as %s: %s, modelled %.4g ms%s; best %s "
           "%.4g ms\n", cm_net_ar_name(a->pick), cm_net_ar_name(p->alg),
           p->time_s * 1e3, a->pick == CM_AR_AUTO
                               ? " (what Open MPI 4.1 runs for dpsgd-train's "
                                 "in-place MPI_Iallreduce)" : "",
           cm_net_ar_name(a->alg[CM_AR_BEST].alg),
           a->alg[CM_AR_BEST].time_s * 1e3);
}

void topogen_allreduce_json(const topogen_ar *a, json_t *o, int *bad)
{
    topogen_json_num(o, "allreduce_ring_s", a->alg[CM_AR_RING].time_s, bad);
    topogen_json_str(o, "allreduce_priced_by", cm_net_ar_name(a->pick), bad);
    topogen_json_str(o, "allreduce_alg",
                     cm_net_ar_name(a->alg[a->pick].alg), bad);
    topogen_json_num(o, "allreduce_s", a->alg[a->pick].time_s, bad);
    topogen_json_str(o, "allreduce_best",
                     cm_net_ar_name(a->alg[CM_AR_BEST].alg), bad);
    topogen_json_num(o, "allreduce_best_s", a->alg[CM_AR_BEST].time_s, bad);
    json_t *by = json_object();
    for (int k = CM_AR_RING; k < CM_AR_COUNT; k++)
        if (listed(a, k))
            topogen_json_num(by, cm_net_ar_name((cm_net_ar_alg)k),
                             a->alg[k].time_s, bad);
    topogen_json_set(o, "allreduce_by_alg", by, bad);
    /* messages and bytes sent per rank (the busiest, and all ranks) */
    json_t *tr = json_object();
    for (int k = CM_AR_RING; k < CM_AR_COUNT; k++) {
        if (!listed(a, k))
            continue;
        const cm_net_ar *r = &a->alg[k];
        json_t *j = json_object();
        topogen_json_num(j, "msgs_max", r->msgs_max, bad);
        topogen_json_num(j, "msgs_total",
                         round(r->msgs_mean * (double)a->P), bad);
        topogen_json_num(j, "bytes_max", r->bytes_max, bad);
        topogen_json_num(j, "bytes_total",
                         round(r->bytes_mean * (double)a->P), bad);
        topogen_json_set(tr, cm_net_ar_name((cm_net_ar_alg)k), j, bad);
    }
    topogen_json_set(o, "allreduce_traffic", tr, bad);
    /* dpsgd-train --allreduce direct (not an Open MPI algorithm) */
    topogen_json_num(o, "allreduce_direct_s", a->alg[CM_AR_DIRECT].time_s,
                     bad);
}

/* --net on a sequence: T_round of every round under block placement
 * into round_s[period] and their mean into *mean. */
static cm_status seq_net_eval(const topogen_seq_eval_job *job,
                              const cm_topo_seq *s, const cm_net *net,
                              size_t P, size_t H, double *round_s,
                              double *mean)
{
    cm_status st = CM_OK;
    double sum = 0;
    for (size_t t = 0; t < s->period && st == CM_OK; t++) {
        cm_net_eval ev;
        st = cm_net_eval_placement(net, &s->round[t], P, H, CM_PLACE_BLOCK,
                                   job->array_bytes, &ev);
        round_s[t] = ev.round_s;
        sum += ev.round_s;
    }
    if (st != CM_OK) /* the flag that named the network, and its value */
        cm_error_prefix(st, "%s %s", job->platform ? "--platform" : "--net",
                        job->net);
    *mean = sum / (double)s->period;
    return st;
}

int topogen_seq_evaluate(const topogen_seq_eval_job *job,
                         const cm_topo_seq *s)
{
    const char *file = job->file;
    const int json = job->json;
    const size_t simulate = job->simulate;
    const uint64_t seed = job->seed;
    size_t *deg = NULL;
    double *rel = NULL, *round_s = NULL, mean_s = 0;
    topogen_ar ar;
    int rc = EXIT_FAILURE;
    tg_seq_eval e;
    cm_net net;
    cm_status st = CM_OK;
    const size_t P = job->ranks ? job->ranks : s->n;
    const size_t H = job->hosts ? job->hosts : P;
    int usage = job->out_given || job->weights_given; /* flag conflicts:
                                                         exit 2 */
    if (job->out_given)
        st = cm_error(CM_EINVAL, "-o: %s is time-varying (period %zu); -o "
                      "rewrites one-round files with new weights", file,
                      s->period);
    else if (job->weights_given)
        st = cm_error(CM_EINVAL, "--weights: %s is time-varying (period %zu) "
                      "and carries its own weights", file, s->period);
    if (st == CM_OK)
        st = cm_topo_seq_validate(s, file, NULL);
    if (st == CM_OK && !(deg = malloc(s->period * sizeof *deg)))
        st = cm_error(CM_ENOMEM, "out of memory");
    if (st == CM_OK)
        st = tg_seq_evaluate(s, deg, &e);
    topogen_neff nv = {0};
    if (st == CM_OK)
        st = topogen_neff_gammas(job->gamma, &nv);
    if (st == CM_OK && s->n > TG_NEFF_DENSE_MAX)
        nv.k = 0;
    else if (st == CM_OK && !simulate)
        st = topogen_neff_seq(s, &nv);
    if (st == CM_OK && job->net) {
        usage = P > s->n || H > P;
        if (P > s->n)
            st = cm_error(CM_EINVAL, "--ranks %zu: %s has only %zu nodes "
                          "(workers)", P, file, s->n);
        else if (H > P)
            st = cm_error(CM_EINVAL, "--hosts %zu: more hosts than the %zu "
                          "ranks", H, P);
        else if (job->netm)
            net = *job->netm; /* parsed once, with the flags */
        else
            st = cm_net_parse(job->net, &net);
        if (st == CM_OK && cm_net_check_hosts(&net, H) != CM_OK) {
            usage = 1; /* as for one round: more hosts than the platform */
            st = cm_error_prefix(CM_EINVAL, "--hosts %zu", H);
        }
        if (st == CM_OK && !round_s &&
            !(round_s = malloc(s->period * sizeof *round_s)))
            st = cm_error(CM_ENOMEM, "out of memory");
        if (st == CM_OK)
            st = seq_net_eval(job, s, &net, P, H, round_s, &mean_s);
        if (st == CM_OK)
            st = topogen_allreduce_eval(&net, P, H, job->array_bytes,
                                        job->allreduce, &ar);
    }
    if (st == CM_OK && simulate) {
        rel = malloc((simulate + 1) * sizeof *rel);
        st = rel ? tg_simulate_seq(s->round, s->period, simulate,
                                   seed, rel)
                 : cm_error(CM_ENOMEM, "out of memory for %zu rounds",
                            simulate);
    }
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        if (usage)
            rc = 2;
        goto cleanup;
    }
    if (simulate) {
        printf("# round disagreement bound\n");
        printf("# file=%s n=%zu period=%zu product_norm=%.6g seed=%llu "
               "dim=%d (bound: product_norm^floor(round/period))\n",
               file, e.n, e.period, e.norm,
               (unsigned long long)seed, TG_SIM_DIM);
        for (size_t r = 0; r <= simulate; r++)
            printf("%zu %.6g %.6g\n", r, rel[r],
                   pow(e.norm, (double)(r / e.period)));
    } else if (json) {
        int bad = 0;
        json_t *o = json_object();
        topogen_json_str(o, "file", file, &bad);
        topogen_json_int(o, "n", e.n, &bad);
        topogen_json_int(o, "period", e.period, &bad);
        topogen_json_ints(o, "degree_per_round", deg, e.period, &bad);
        topogen_json_int(o, "max_degree", e.dmax, &bad);
        topogen_json_num(o, "messages_per_period", e.messages, &bad);
        topogen_json_num(o, "product_norm", e.norm, &bad);
        topogen_json_set(o, "exact", json_boolean(e.exact), &bad);
        topogen_json_num(o, "rounds_1e-3", e.rounds ? (double)e.rounds
                                                     : e.rounds_est, &bad);
        topogen_neff_json(&nv, o, &bad);
        if (job->net) {
            char d[160];
            json_t *blk = json_object();
            topogen_json_str(o, "net", cm_net_describe(&net, d, sizeof d),
                             &bad);
            topogen_json_int(o, "ranks", P, &bad);
            topogen_json_int(o, "hosts", H, &bad);
            topogen_json_num(o, "array_bytes", job->array_bytes, &bad);
            topogen_json_nums(blk, "round_s", round_s, e.period, &bad);
            topogen_json_num(blk, "mean_round_s", mean_s, &bad);
            topogen_json_set(o, "block", blk, &bad);
            topogen_allreduce_json(&ar, o, &bad);
        }
        if (job->extra)
            topogen_json_members(o, job->extra, &bad);
        topogen_json_str(o, "weights", "file", &bad);
        if (topogen_json_print(o, bad))
            goto cleanup;
    } else {
        printf("file          %s\n", file);
        printf("n             %zu\n", e.n);
        printf("period        %zu\n", e.period);
        printf("degree        ");
        for (size_t t = 0; t < e.period; t++)
            printf("%s%zu", t ? " " : "", deg[t]);
        printf("  (largest per round)\n");
        printf("messages      %.4g  (per node per period)\n", e.messages);
        printf("product_norm  %.3g  (||W_%zu ... W_0 - 11^T/n||_2%s)\n",
               e.norm, e.period - 1, e.exact ? "; exact averaging" : "");
        if (e.rounds)
            printf("rounds_1e-3   %zu\n", e.rounds);
        else
            printf("rounds_1e-3   %.1f  (estimated from the period)\n",
                   e.rounds_est);
        printf("weights       file\n%s", job->extra ? job->extra : "");
        topogen_neff_print(&nv);
        if (job->net) {
            char d[160];
            printf("net           %s\nplacement     %zu workers on %zu "
                   "ranks on %zu hosts, arrays of %.0f bytes\n",
                   cm_net_describe(&net, d, sizeof d), s->n, P, H,
                   job->array_bytes);
            printf("  block       modelled %.4g ms per round on average "
                   "over the period (rounds:", mean_s * 1e3);
            for (size_t t = 0; t < e.period; t++)
                printf(" %.4g", round_s[t] * 1e3);
            printf(" ms)\n");
            topogen_allreduce_print(&ar);
        }
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "topogen: write error on standard output\n");
        goto cleanup;
    }
    rc = EXIT_SUCCESS;
cleanup:
    free(round_s);
    free(rel);
    free(deg);
    return rc;
}

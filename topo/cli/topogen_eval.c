/* topogen_eval.c: `topogen eval FILE` (see topogen_eval.h). Reads one
 * topology file in any format (cm_topo_seq_read_ex: a sequence goes on
 * to topogen_seq.c), validates it, sets the --weights (a cm_ rule, or
 * FDLA with its certified lower bound), evaluates it with tg_eval_topo
 * (spectrum, SLEM, diameter, rounds to 1e-3) and prints the report: text
 * lines, one JSON object, or the gossip disagreement per round next to
 * SLEM^t. --net models one gossip round under block and graph placement
 * (cm_net), --groups prints the cut (topogen_groups.c), -o writes the
 * weighted graph atomically. Printing lives here, computing in the tg_
 * and cm_ libraries.
 */
#include "topogen_eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_net.h"
#include "cm_place.h"
#include "cm_topo_header.h"
#include "cm_topo_seq.h"
#include "tg_eval.h"
#include "topogen_groups.h"
#include "topogen_directed.h"
#include "topogen_neff_print.h"
#include "topogen_weights.h"
#include "topogen_data.h"
#include "topogen_seq.h"

/* A SLEM with enough digits to tell it from 1: six decimals, plus one
 * for each decade 1 - slem goes below 1e-4 (at most 16). */
static void print_slem(const char *label, double slem, const char *note)
{
    int digits = 6;
    if (slem < 1.0 && slem > 0.9999)
        digits = 2 + (int)ceil(-log10(1.0 - slem));
    if (digits > 16)
        digits = 16;
    printf("%-13s %.*f  (%s)\n", label, digits, slem, note);
}

/* --net: a round under block ([0]) and graph ([1]) placement, modelled
 * (cm_net_eval_placement), then printed as text lines or JSON members. */
static cm_status net_eval(const topogen_eval_job *c, const cm_topo *t,
                          cm_net *net, cm_net_eval ev[2], topogen_ar *ar)
{
    size_t P = c->ranks ? c->ranks : t->n, H = c->hosts ? c->hosts : P;
    double bytes = 4.0 * (double)(c->params ? c->params : TOPOGEN_DEFAULT_PARAMS);
    cm_status s = CM_OK;
    if (c->netm)
        *net = *c->netm; /* parsed once, with the flags */
    else if ((s = cm_net_parse(c->net, net)) != CM_OK)
        return s; /* its message names --net */
    if (P > t->n)
        return cm_error(CM_EINVAL, "--ranks %zu: %s has only %zu nodes "
                        "(workers)", P, c->file, t->n);
    if (H > P)
        return cm_error(CM_EINVAL, "--hosts %zu: more hosts than the %zu "
                        "ranks", H, P);
    if (s == CM_OK && cm_net_check_hosts(net, H) != CM_OK)
        return cm_error_prefix(CM_EINVAL, "--hosts %zu", H);
    for (int k = 0; k < 2 && s == CM_OK; k++)
        s = cm_net_eval_placement(net, t, P, H, (cm_place_kind)k, bytes,
                                  &ev[k]);
    if (s == CM_OK)
        s = topogen_allreduce_eval(net, P, H, bytes, c->allreduce, ar);
    if (s != CM_OK) /* the flag that named the network, and its value */
        cm_error_prefix(s, "%s %s", c->platform ? "--platform" : "--net",
                        c->net);
    return s;
}

/* The same as members of the --json object o. */
static void net_json(const topogen_eval_job *c, const cm_topo *t,
                     const cm_net *net, const cm_net_eval ev[2],
                     const topogen_ar *ar, json_t *o, int *bad)
{
    size_t P = c->ranks ? c->ranks : t->n, H = c->hosts ? c->hosts : P;
    double bytes = 4.0 * (double)(c->params ? c->params : TOPOGEN_DEFAULT_PARAMS);
    char d[160];
    cm_net_describe(net, d, sizeof d);
    topogen_json_str(o, "net", d, bad);
    topogen_json_int(o, "ranks", P, bad);
    topogen_json_int(o, "hosts", H, bad);
    if (net->sites) /* three levels: the sites that hold hosts */
        topogen_json_int(o, "sites", cm_net_sites_used(net, H), bad);
    topogen_json_num(o, "array_bytes", bytes, bad);
    for (int k = 0; k < 2; k++) {
        const cm_place_stats *ps = &ev[k].st;
        json_t *p = json_object();
        topogen_json_int(p, "cut_edges", ps->cut_edges, bad);
        topogen_json_int(p, "cut_edges_host", ps->cut_edges_host, bad);
        topogen_json_int(p, "arrays", ps->volume, bad);
        topogen_json_int(p, "arrays_host", ps->volume_host, bad);
        topogen_json_num(p, "round_s", ev[k].round_s, bad);
        if (k == CM_PLACE_GRAPH) {
            char by[128];
            topogen_json_str(p, "placed_by",
                             cm_place_how_describe(&ev[k].how, by, sizeof by),
                             bad);
        }
        topogen_json_set(o, cm_place_name((cm_place_kind)k), p, bad);
    }
    topogen_allreduce_json(ar, o, bad);
}

static void net_print(const topogen_eval_job *c, const cm_topo *t,
                      const cm_net *net, const cm_net_eval ev[2],
                      const topogen_ar *ar)
{
    size_t P = c->ranks ? c->ranks : t->n, H = c->hosts ? c->hosts : P;
    double bytes = 4.0 * (double)(c->params ? c->params : TOPOGEN_DEFAULT_PARAMS);
    char d[160];
    cm_net_describe(net, d, sizeof d);
    char on[48] = "";
    if (net->sites)
        snprintf(on, sizeof on, " on %zu site%s", cm_net_sites_used(net, H),
                 cm_net_sites_used(net, H) == 1 ? "" : "s");
    printf("net           %s\nplacement     %zu workers on %zu ranks on "
               "%zu hosts%s, arrays of %.0f bytes\n", d, t->n, P, H, on,
               bytes);
    for (int k = 0; k < 2; k++) {
        const cm_place_stats *ps = &ev[k].st;
        const char *name = cm_place_name((cm_place_kind)k);
        char by[160] = "", how[120];
        if (k == CM_PLACE_GRAPH &&
            cm_place_how_describe(&ev[k].how, how, sizeof how)[0])
            snprintf(by, sizeof by, "; placed by %s", how);
        printf("  %-11s cut %zu edges (%zu across hosts), %zu arrays per "
                   "round (%zu across hosts, %.3g MB), modelled %.4g ms per "
                   "round (rank %zu decides)%s\n", name, ps->cut_edges,
                   ps->cut_edges_host, ps->volume, ps->volume_host,
                   (double)ps->volume * bytes / 1e6, ev[k].round_s * 1e3,
                   ev[k].worst, by);
    }
    topogen_allreduce_print(ar);
}

/* The first flag of c that an epidemic file has no use for (it has no
 * graph to weight, write, simulate, cut, place or label: each round is
 * drawn as the run goes), or NULL; such a flag is refused, not ignored. */
static const char *epidemic_unused(const topogen_eval_job *c)
{
    return c->weights_given ? "--weights"
         : c->out_given     ? "-o"
         : c->simulate      ? "--simulate"
         : c->groups        ? "--groups"
         : c->labels        ? "--labels"
         : c->net           ? (c->platform ? "--platform" : "--net")
                            : NULL;
}

int topogen_evaluate(const topogen_eval_job *c)
{
    cm_topo t;
    cm_topo_init(&t);
    int rc = EXIT_FAILURE;
    double *rel = NULL;
    cm_topo_header hdr; /* read with the graph: the file is opened once */
    cm_topo_header_init(&hdr);
    cm_topo_read_opts ro = {.format = c->format,
                            .base = c->one_based ? CM_BASE_1 : CM_BASE_AUTO,
                            .header = &hdr};
    cm_topo_seq seq;
    cm_topo_seq_init(&seq);
    cm_status st = cm_topo_seq_read_ex(&seq, c->file, &ro);
    int epidemic = st == CM_OK && hdr.epidemic && seq.period == 1 &&
                   cm_topo_is_epidemic(&seq.round[0]);
    cm_topo_header_destroy(&hdr);
    if (epidemic) { /* no edges: the rounds are drawn (topogen_directed.c) */
        const cm_topo *e = &seq.round[0];
        size_t n = e->n, s = e->epi_s;
        int local = e->epi_local;
        cm_topo_seq_destroy(&seq);
        const char *unused = epidemic_unused(c);
        if (unused) {
            fprintf(stderr, "topogen: %s: %s is an epidemic file (a fresh "
                    "graph each round, drawn as the run goes): eval reports "
                    "its n_eff (--gamma, --seed, --json) and takes no %s\n",
                    unused, c->file, unused);
            return 2;
        }
        return topogen_epidemic_eval(c->file, n, s, local, c->gamma, c->seed,
                                     c->json);
    }
    if (st == CM_OK && seq.period > 1 && c->groups) {
        fprintf(stderr, "topogen: --groups: %s is time-varying (%zu rounds); "
                "the cut is reported for one-round files\n", c->file,
                seq.period);
        cm_topo_seq_destroy(&seq);
        return 2; /* a flag conflict */
    }
    char hetero[1024] = "";
    if (st == CM_OK && seq.period > 1 && c->labels &&
        topogen_data_eval(c->labels, seq.round, seq.period, c->json, hetero,
                          sizeof hetero) != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        cm_topo_seq_destroy(&seq);
        return EXIT_FAILURE;
    }
    if (st == CM_OK && seq.period > 1) { /* time-varying: topogen_seq.c */
        const topogen_seq_eval_job job = {
            c->file, c->json, c->simulate, c->seed, c->weights_given,
            c->out_given, c->net, c->netm, c->platform, c->ranks, c->hosts,
            4.0 * (double)(c->params ? c->params : TOPOGEN_DEFAULT_PARAMS),
            c->allreduce,
            c->gamma, hetero};
        rc = topogen_seq_evaluate(&job, &seq);
        cm_topo_seq_destroy(&seq);
        return rc;
    }
    if (st == CM_OK) { /* one round: today's evaluation */
        t = seq.round[0];
        cm_topo_init(&seq.round[0]);
    }
    cm_topo_seq_destroy(&seq);
    if (st == CM_OK && ro.one_based && !c->one_based && !c->quiet)
        fprintf(stderr, "topogen: notice: %s has no node 0 and no n=: read "
                "as 1-based (ids shifted down by one; --one-based says so)\n",
                c->file);
    if (st == CM_OK)
        st = cm_topo_check_stochastic(&t, c->file);
    if (st == CM_OK && t.directed && c->weights_given) {
        /* refused as dpsgd-train refuses it (a rule was never applied) */
        fprintf(stderr, "topogen: --weights %s does not apply to %s (a "
                "directed topology): its weights are in the file\n",
                topogen_weights_name(c->fdla, c->weights), c->file);
        cm_topo_destroy(&t);
        return 2;
    }
    /* an unwritable -o fails now, not after the weights are computed */
    if (st == CM_OK && c->out_given && strcmp(c->out, "-") != 0 &&
        (st = cm_atomic_probe(c->out)) != CM_OK)
        cm_error_prefix(st, "-o");
    const char *wname = "file";
    tg_fdla_result fr = {0};
    tg_neff_weights_result nr = {0};
    topogen_neff nv = {0};
    if (st == CM_OK)
        st = topogen_neff_gammas(c->gamma, &nv);
    if (st == CM_OK && t.self && c->weights_given && !c->quiet)
        fprintf(stderr, "topogen: notice: --weights %s replaces the weights "
                "written in %s\n",
                topogen_weights_name(c->fdla, c->weights), c->file);
    if (st == CM_OK && (!t.self || c->weights_given)) {
        st = topogen_weights_set(c->fdla, c->weights, nv.gamma[0], &t, &fr,
                                 &nr);
        wname = topogen_weights_name(c->fdla, c->weights);
        if (st != CM_OK)
            cm_error_prefix(st, "%s", c->file);
    }
    tg_eval e;
    cm_net net;
    cm_net_eval nev[2];
    topogen_ar nar;
    topogen_cut cut = {0};
    if (st == CM_OK && (st = tg_eval_topo(&t, &e)) != CM_OK)
        cm_error_prefix(st, "%s", c->file);
    /* a directed W has no Laplacian spectrum (its out-arcs are not a
     * symmetric L): no lambda2, lambdan or best Laplacian weights, as
     * the library's topogen_measure says (null in --json); its slem is
     * ||W - 11^T/n||_2 */
    if (st == CM_OK && t.directed)
        e.l2 = e.ln = e.slem_best = NAN;
    int usage = 0; /* a flag that does not fit the file: exit 2 */
    if (st == CM_OK && t.n > TG_NEFF_DENSE_MAX)
        nv.k = 0; /* beyond the dense eigensolve: not reported */
    else if (st == CM_OK && (st = topogen_neff_topo(&t, &nv)) != CM_OK)
        cm_error_prefix(st, "%s", c->file);
    if (st == CM_OK && c->net)
        usage = (st = net_eval(c, &t, &net, nev, &nar)) == CM_EINVAL;
    if (st == CM_OK && c->groups)
        usage = (st = topogen_cut_eval(&t, c->groups, c->file, &cut)) ==
                CM_EINVAL;
    if (st == CM_OK && c->labels)
        st = topogen_data_eval(c->labels, &t, 1, c->json, hetero,
                               sizeof hetero);
    if (st == CM_OK && c->out_given) { /* the weighted graph, atomically */
        char fl[256], tokens[160], notes[1280];
        topogen_fdla_line(c->fdla, &fr, fl, sizeof fl);
        if (!fl[0])
            topogen_neff_line(c->fdla, &nr, fl, sizeof fl);
        snprintf(tokens, sizeof tokens, "weights=%s version=%s", wname,
                 c->version);
        snprintf(notes, sizeof notes, "source: %s\n"
                 "lambda2=%.4f lambdan=%.4f slem=%.4f%s\n"
                 "one `i j W_ij` line per edge; W_ii = 1 - sum_j W_ij",
                 c->file, e.l2, e.ln, e.slem, fl);
        cm_topo_header h;
        cm_topo_header_init(&h);
        h.generator = "topogen 2";
        h.n = e.n;
        h.d = e.dmax;
        snprintf(h.kind, sizeof h.kind, "file");
        h.tokens = tokens;
        h.notes = notes;
        char *comment = cm_topo_header_format(&h);
        st = comment ? cm_topo_save(&t, c->out, comment) : CM_ENOMEM;
        if (st != CM_OK)
            cm_error_prefix(st, "-o");
        free(comment);
    }
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        if (usage)
            rc = 2;
        goto cleanup;
    }
    if (c->simulate) {
        rel = malloc((c->simulate + 1) * sizeof *rel);
        if (!rel) {
            fprintf(stderr, "topogen: out of memory for %zu rounds\n",
                    c->simulate);
            goto cleanup;
        }
        st = tg_simulate(&t, c->simulate, c->seed, rel);
        if (st != CM_OK) {
            fprintf(stderr, "topogen: %s\n", cm_last_error());
            goto cleanup;
        }
        printf("# round disagreement slem_bound\n");
        printf("# file=%s n=%zu slem=%.17g weights=%s seed=%llu dim=%d\n",
               c->file, e.n, e.slem, wname,
               (unsigned long long)c->seed, TG_SIM_DIM);
        for (size_t r = 0; r <= c->simulate; r++)
            printf("%zu %.6g %.6g\n", r, rel[r], pow(e.slem, (double)r));
    } else if (c->json) {
        int bad = 0;
        json_t *o = json_object();
        topogen_json_str(o, "file", c->file, &bad);
        topogen_json_str(o, "format", cm_topo_format_name(ro.found), &bad);
        topogen_json_int(o, "n", e.n, &bad);
        topogen_json_int(o, "edges", e.m, &bad);
        topogen_json_int(o, "min_degree", e.dmin, &bad);
        topogen_json_int(o, "max_degree", e.dmax, &bad);
        topogen_json_int(o, "components", e.components, &bad);
        topogen_json_num(o, "diameter", e.diameter, &bad);
        if (!e.diameter_exact) {
            topogen_json_set(o, "diameter_exact", json_false(), &bad);
            topogen_json_num(o, "diameter_upper", e.diameter_upper, &bad);
        }
        topogen_json_num(o, "lambda2", e.l2, &bad);
        topogen_json_num(o, "lambdan", e.ln, &bad);
        topogen_json_num(o, "slem", e.slem, &bad);
        topogen_json_num(o, "slem_best_laplacian", e.slem_best, &bad);
        topogen_json_num(o, "rounds_1e-3", e.rounds, &bad);
        if (c->fdla && fr.newton)
            topogen_json_num(o, "fdla_lower_bound", fr.lower, &bad);
        topogen_neff_json(&nv, o, &bad);
        if (c->fdla == TOPOGEN_W_NEFF && nr.newton)
            topogen_json_num(o, "neff_upper_bound", nr.neff_upper, &bad);
        if (c->net)
            net_json(c, &t, &net, nev, &nar, o, &bad);
        if (c->groups)
            topogen_cut_json(&cut, o, &bad);
        if (hetero[0])
            topogen_json_members(o, hetero, &bad);
        topogen_json_str(o, "weights", wname, &bad);
        if (topogen_json_print(o, bad))
            goto cleanup;
    } else {
        printf("file          %s (%s%s)\n", c->file,
               cm_topo_format_name(ro.found), ro.one_based ? ", 1-based" : "");
        printf("n             %zu\n", e.n);
        printf("edges         %zu\n", e.m);
        printf("degree        min %zu max %zu\n", e.dmin, e.dmax);
        printf("components    %zu%s\n", e.components,
               e.components > 1 ? "  (disconnected: lambda2 = 0, SLEM 1)" : "");
        if (!e.diameter_exact)
            printf("diameter      >= %.0f  (double sweep, at most %.0f; the "
                   "exact one, O(n m), only up to n (n + 2m) = %.0g)\n",
                   e.diameter, e.diameter_upper, TG_EVAL_DIAMETER_WORK);
        else if (isfinite(e.diameter))
            printf("diameter      %.0f\n", e.diameter);
        else
            printf("diameter      inf\n");
        if (t.directed) {
            printf("lambda2       -  (a directed topology has no Laplacian "
                   "spectrum; lambdan and slem_best likewise)\n");
            print_slem("slem", e.slem, "||W - 11^T/n||_2 of the directed W "
                                       "as written");
        } else {
            /* small lambda_2 (long rings: ~4e-9 at 10^5 nodes) in %e */
            printf(e.l2 == 0.0 || e.l2 >= 1e-3 ? "lambda2       %.6f\n"
                                               : "lambda2       %.6e\n",
                   e.l2);
            printf("lambdan       %.6f\n", e.ln);
            print_slem("slem", e.slem, strcmp(wname, "file") == 0
                                           ? "W as written in the file"
                                           : "W from --weights");
            print_slem("slem_best", e.slem_best, "optimal Laplacian weights");
        }
        if (isfinite(e.rounds))
            printf("rounds_1e-3   %.0f  (least t with slem^t <= 1e-3)\n",
                   e.rounds);
        else
            printf("rounds_1e-3   inf  (slem 1: never)\n");
        if (c->fdla && fr.newton)
            printf("fdla_bound    %.6f  (no W on this graph has a smaller "
                   "slem; gap %.1e)\n", fr.lower, fr.slem - fr.lower);
        printf("weights       %s\n", wname);
        topogen_neff_print(&nv);
        if (c->fdla == TOPOGEN_W_NEFF && nr.newton)
            printf("neff_bound    %.4f  (no W on this graph has a larger "
                   "n_eff at gamma %g; gap %.1e)\n", nr.neff_upper,
                   nr.gamma, nr.neff_upper - nr.neff);
        if (c->net)
            net_print(c, &t, &net, nev, &nar);
        if (c->groups)
            topogen_cut_print(&cut, 0);
        fputs(hetero, stdout);
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "topogen: write error on standard output\n");
        goto cleanup;
    }
    if (!t.directed && e.n > 1 && e.components == 1 &&
        !(e.slem < 1.0 - 1e-12)) {
        /* a connected undirected graph whose W does not mix (weights
         * from the file, e.g. rows with a negative self weight):
         * reported, then refused as dpsgd-train refuses it */
        fprintf(stderr, "topogen: %s: W does not mix: its second-largest "
                "eigenvalue modulus ||W - 11^T/n||_2 is %.6g (must be below "
                "1); dpsgd-train refuses this file\n", c->file, e.slem);
        goto cleanup;
    }
    rc = EXIT_SUCCESS;
cleanup:
    topogen_cut_destroy(&cut);
    free(rel);
    cm_topo_destroy(&t);
    return rc;
}

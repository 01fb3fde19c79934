/* topogen_data.c: --labels, --kind stl-fw and --kind dcliques on
 * topogen's command line. STL-FW runs on a dense W (tg_stlfw); the
 * undirected result (--symmetric) and D-Cliques are written as ordinary
 * weighted edge lists; the directed STL-FW W is written in the directed
 * edge-list format (header token directed=1, a line `i j w` per arc i ->
 * j, i.e. W_ji = w, self weights implied).
 */
#include "topogen_data.h"

#include <jansson.h>
#include <math.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_mixing.h"
#include "tg_dcliques.h"
#include "tg_digraph.h"
#include "tg_hetero.h"
#include "tg_stlfw.h"
#include "tg_wdense.h"

static int usage(const char *msg)
{
    fprintf(stderr, "topogen: %s\nTry 'topogen --help'.\n", msg);
    return EXIT_USAGE;
}

int topogen_data_check_args(const topogen_config *c)
{
    if (c->eval)
        return -1;
    if (c->datakind && !c->labels)
        return usage(c->datakind == TOPOGEN_DK_STLFW
                         ? "--kind stl-fw: needs --labels COUNTS (dpsgd-train "
                           "--write-partition FILE writes it)"
                         : "--kind dcliques: needs --labels COUNTS "
                           "(dpsgd-train --write-partition FILE writes it)");
    if (c->labels && !c->datakind && (c->seq || c->kind != TG_KIND_LEARNED))
        return usage("--labels: only --kind learned, stl-fw and dcliques "
                     "use it ('topogen eval FILE --labels COUNTS' measures "
                     "any graph)");
    if (c->datakind && c->weights_given)
        return usage("--weights: --kind stl-fw and dcliques carry their "
                     "own weights (dcliques: --clique-weights)");
    if (c->datakind && c->format != CM_FORMAT_EDGELIST)
        return usage("--format: --kind stl-fw and dcliques write edge "
                     "lists");
    if (c->symmetric && c->datakind != TOPOGEN_DK_STLFW)
        return usage("--symmetric: only for --kind stl-fw");
    return -1;
}

int topogen_data_in_header(const char *name, const topogen_config *c)
{
    if (strcmp(name, "--labels") == 0)
        return c->labels != NULL;
    if (strcmp(name, "--hetero-weight") == 0)
        return c->labels && !c->datakind && !c->seq &&
               c->kind == TG_KIND_LEARNED;
    if (strcmp(name, "--lambda") == 0)
        return c->datakind == TOPOGEN_DK_STLFW;
    if (strcmp(name, "--symmetric") == 0)
        return c->datakind == TOPOGEN_DK_STLFW && c->symmetric;
    return c->datakind == TOPOGEN_DK_DCLIQUES; /* --inter, --clique-weights */
}

const char *topogen_data_kind_name(int dkind)
{
    return dkind == TOPOGEN_DK_STLFW ? "stl-fw" : "dcliques";
}

const char *topogen_data_inter_name(int inter)
{
    return inter == 1 ? "ring" : inter == 2 ? "fractal" : "small-world";
}

void topogen_data_header_line(const cm_labels *l, const char *path,
                              char *buf, size_t cap)
{
    if (!l || !path)
        buf[0] = '\0';
    else
        snprintf(buf, cap, "\n# labels: %s file=%s",
                 l->identity[0] ? l->identity : "unnamed", path);
}

static int fail(void)
{
    fprintf(stderr, "topogen: %s\n", cm_last_error());
    return EXIT_FAILURE;
}

int topogen_data_search_labels(topogen_config *c, cm_labels *l, double **pi,
                               double **pibar)
{
    if (cm_labels_read(l, c->labels) != CM_OK)
        return fail();
    if (l->n != c->search.n) {
        fprintf(stderr, "topogen: --labels: %s has %zu workers, but -n is "
                "%zu\n", c->labels, l->n, c->search.n);
        return EXIT_USAGE;
    }
    if (tg_hetero_pi(l, pi, pibar) != CM_OK)
        return fail();
    c->search.pi = *pi;
    c->search.pibar = *pibar;
    c->search.k = l->k;
    return -1;
}

/* The directed W (dense) written by tg_digraph_save, the directed
 * format's one writer: an arc j -> i (j sends) for each W_ij > 0, i != j,
 * in (sender, receiver) order. */
static cm_status write_directed(const char *path, size_t n, const double *W,
                                const char *comment)
{
    size_t m = 0;
    for (size_t e = 0; e < n * n; e++)
        m += e / n != e % n && W[e] > 0.0;
    tg_digraph g = {n, 0, malloc((m + 1) * sizeof(size_t)),
                    malloc((m + 1) * sizeof(size_t)),
                    malloc((m + 1) * sizeof(double)),
                    malloc((n + 1) * sizeof(double))};
    cm_status st = CM_OK;
    if (!g.src || !g.dst || !g.w || !g.self) {
        st = cm_error(CM_ENOMEM, "out of memory for the directed graph");
        goto done;
    }
    for (size_t j = 0; j < n; j++)       /* sender */
        for (size_t i = 0; i < n; i++)   /* receiver */
            if (i != j && W[i * n + j] > 0.0) {
                g.src[g.m] = j;
                g.dst[g.m] = i;
                g.w[g.m++] = W[i * n + j];
            }
    for (size_t i = 0; i < n; i++)
        g.self[i] = W[i * n + i];
    st = tg_digraph_save(&g, path, comment);
done:
    tg_digraph_destroy(&g);
    return st;
}

int topogen_data_generate(topogen_config *c)
{
    cm_labels l;
    cm_labels_init(&l);
    cm_topo t;
    cm_topo_init(&t);
    double *pi = NULL, *pibar = NULL, *W = NULL;
    int rc = EXIT_FAILURE;
    if (strcmp(c->out, "-") != 0 && cm_atomic_probe(c->out) != CM_OK) {
        fprintf(stderr, "topogen: -o: %s\n", cm_last_error());
        return EXIT_FAILURE;
    }
    if (cm_labels_read(&l, c->labels) != CM_OK ||
        tg_hetero_pi(&l, &pi, &pibar) != CM_OK) {
        rc = fail();
        goto done;
    }
    size_t n = l.n;
    c->search.n = n;
    char settings[1024], lab[512], comment[2560];
    topogen_settings_line(c, settings, sizeof settings);
    topogen_data_header_line(&l, c->labels, lab, sizeof lab);
    tg_hetero h0, h;
    if (c->datakind == TOPOGEN_DK_STLFW) {
        if (n > 4096) {
            fprintf(stderr, "topogen: --kind stl-fw: at most 4096 workers "
                    "(dense W; %s has %zu)\n", c->labels, n);
            goto done;
        }
        W = malloc(n * n * sizeof *W);
        if (!W) {
            fprintf(stderr, "topogen: out of memory for W (n = %zu)\n", n);
            goto done;
        }
        tg_stlfw_opts o = {c->search.d, c->lambda, c->symmetric};
        tg_stlfw_result res;
        if (tg_stlfw_learn(n, l.k, pi, pibar, &o, W, &res) != CM_OK) {
            rc = fail();
            goto done;
        }
        double norm = NAN, neff = NAN;
        if (n <= 512 && (tg_wdense_norm(n, W, &norm) != CM_OK ||
                         tg_wdense_neff(n, W, 0.951, &neff) != CM_OK)) {
            rc = fail();
            goto done;
        }
        double *I = calloc(n * n, sizeof *I);
        if (!I)
            goto done;
        for (size_t i = 0; i < n; i++)
            I[i * n + i] = 1.0;
        tg_hetero_dense(n, l.k, I, pi, pibar, &h0);
        free(I);
        tg_hetero_dense(n, l.k, W, pi, pibar, &h);
        snprintf(comment, sizeof comment,
                 "# topogen 2 n=%zu d=%zu kind=stl-fw%s budget=%zu "
                 "lambda=%.17g seed=%llu version=%s\n"
                 "# settings: %s%s\n"
                 "# heterogeneity=%.6f (alone %.6f) norm=%.4f iterations=%zu "
                 "max_out=%zu max_in=%zu\n"
                 "# %s",
                 n, c->search.d, c->symmetric ? "" : " directed=1",
                 c->search.d, c->lambda,
                 (unsigned long long)c->search.seed, TOPOGEN_VERSION,
                 settings, lab, h.h, h0.h, norm, res.iters, res.max_out,
                 res.max_in,
                 c->symmetric ? "one `i j W_ij` line per edge; W_ii = 1 - "
                                "sum_j W_ij"
                              : "one `i j w` line per arc i -> j (j averages "
                                "in i's model with weight W_ji = w); "
                                "W_jj = 1 - sum_i W_ji");
        cm_status st;
        if (c->symmetric) {
            double slem = NAN;
            st = tg_wdense_to_topo(n, W, &t);
            if (st == CM_OK && (st = cm_topo_slem(&t, &slem)) == CM_OK) {
                size_t len = strlen(comment);
                char *nl = strrchr(comment, '\n'); /* before the last line */
                char tail[256];
                snprintf(tail, sizeof tail, "%s", nl);
                snprintf(nl, sizeof comment - (size_t)(nl - comment),
                         " slem=%.4f%s", slem, tail);
                (void)len;
                st = cm_topo_save(&t, c->out, comment);
            }
        } else {
            st = write_directed(c->out, n, W, comment);
        }
        if (st != CM_OK) {
            rc = fail();
            goto done;
        }
        if (!c->quiet)
            fprintf(stderr, "topogen: stl-fw n=%zu budget=%zu lambda=%g%s: "
                    "H %.5f (alone %.5f), worst node %.5f, ||W - J||_2 "
                    "%.4f, n_eff(0.951) %.2f, degrees out %zu in %zu, %zu "
                    "iterations (objective %.5f -> %.5f), %.2f s "
                    "(assignments %.2f s)\n", n, c->search.d, c->lambda,
                    c->symmetric ? " symmetric" : " directed", h.h, h0.h,
                    h.worst, norm, neff, res.max_out, res.max_in, res.iters,
                    res.obj[0], res.obj[res.iters], res.seconds,
                    res.lap_seconds);
    } else {
        tg_dcliques_result res;
        tg_inter in = c->inter == 1 ? TG_INTER_RING
                      : c->inter == 2 ? TG_INTER_FRACTAL
                                      : TG_INTER_SMALL_WORLD;
        size_t steps = 1000 + 20 * n;
        if (tg_dcliques_build(&l, in, c->clique_equal, c->search.seed, steps,
                              &t, &res) != CM_OK) {
            rc = fail();
            goto done;
        }
        if (tg_hetero_topo(&t, &l, &h) != CM_OK) {
            free(res.clique);
            rc = fail();
            goto done;
        }
        double slem = NAN;
        if (n <= 4096 && cm_topo_slem(&t, &slem) != CM_OK)
            slem = NAN;
        size_t dmin, dmax;
        cm_topo_degree_range(&t, &dmin, &dmax);
        /* the clique of each node, for dpsgd-train --algorithm clique-avg
         * (dt_clique.c reads it), after the labels line */
        size_t ccap = 32 + 8 * n;
        char *cl = malloc(ccap), *big = malloc(ccap + 4096);
        if (!cl || !big) {
            free(cl), free(big), free(res.clique);
            fprintf(stderr, "topogen: out of memory\n");
            goto done;
        }
        size_t len = (size_t)snprintf(cl, ccap, "# cliques:");
        for (size_t i = 0; i < n; i++)
            len += (size_t)snprintf(cl + len, ccap - len, " %zu",
                                    res.clique[i]);
        snprintf(cl + len, ccap - len, "\n# cliques=%zu", res.q);
        snprintf(big, ccap + 4096,
                 "# topogen 2 n=%zu d=%zu kind=dcliques inter=%s weights=%s "
                 "seed=%llu version=%s\n"
                 "# settings: %s%s\n"
                 "%s inter_edges=%zu skew=%.6f (start %.6f) "
                 "heterogeneity=%.6f slem=%.4f\n"
                 "# one `i j W_ij` line per edge; W_ii = 1 - sum_j W_ij",
                 n, dmax, topogen_data_inter_name(c->inter),
                 c->clique_equal ? "equal-clique" : "mh",
                 (unsigned long long)c->search.seed, TOPOGEN_VERSION,
                 settings, lab, cl, res.inter_edges, res.skew,
                 res.skew_start, h.h, slem);
        free(res.clique);
        cm_status sst = cm_topo_save(&t, c->out, big);
        free(cl);
        free(big);
        if (sst != CM_OK) {
            rc = fail();
            goto done;
        }
        if (!c->quiet)
            fprintf(stderr, "topogen: dcliques n=%zu: %zu cliques, mean "
                    "skew %.4f (random start %.4f, %zu swaps), %zu "
                    "inter-clique edges (%s), degree %zu..%zu, H %.5f, "
                    "slem %.4f\n", n, res.q, res.skew, res.skew_start,
                    res.swaps, res.inter_edges,
                    topogen_data_inter_name(c->inter), dmin, dmax, h.h, slem);
    }
    rc = EXIT_SUCCESS;
done:
    free(W);
    free(pi);
    free(pibar);
    cm_topo_destroy(&t);
    cm_labels_destroy(&l);
    return rc;
}

cm_status topogen_data_eval(const char *labels, const cm_topo *rounds,
                            size_t period, int json, char *buf, size_t cap)
{
    cm_labels l;
    cm_labels_init(&l);
    cm_status s = cm_labels_read(&l, labels);
    int unread = s != CM_OK; /* the reader's message names file and line */
    double hsum = 0.0, neff = NAN;
    tg_hetero worst = {0}, h;
    for (size_t r = 0; r < period && s == CM_OK; r++) {
        if ((s = tg_hetero_topo(&rounds[r], &l, &h)) != CM_OK)
            break;
        hsum += h.h;
        if (r == 0 || h.worst > worst.worst) {
            worst.worst = h.worst;
            worst.worst_node = h.worst_node;
        }
        if (h.worst_tv > worst.worst_tv)
            worst.worst_tv = h.worst_tv;
    }
    if (s == CM_OK && period == 1 && rounds[0].n <= 1024) {
        double *W;
        if ((s = tg_wdense_from_topo(&rounds[0], &W)) == CM_OK) {
            s = tg_wdense_neff(rounds[0].n, W, 0.951, &neff);
            free(W);
        }
    }
    if (s == CM_OK) {
        double H = hsum / (double)period;
        if (json) { /* the path JSON-escaped by jansson */
            json_t *js = json_string(labels);
            char *q = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
            char nb[32] = "null";
            json_decref(js);
            if (isfinite(neff))
                snprintf(nb, sizeof nb, "%.9g", neff);
            snprintf(buf, cap, "\"heterogeneity\":{\"labels\":%s,"
                     "\"h\":%.9g,\"worst\":%.9g,\"worst_node\":%zu,"
                     "\"worst_tv\":%.9g,\"rounds\":%zu,\"neff_0.951\":%s},",
                     q ? q : "null", H, worst.worst, worst.worst_node,
                     worst.worst_tv, period, nb);
            free(q);
        }
        else
            snprintf(buf, cap, "heterogeneity H %.6f  ((1/n)||(W - J) Pi||_F^2"
                     "%s; %s)\n  worst node  %zu: %.6f  (||(W Pi)_i - "
                     "pibar||^2; total variation %.4f)\n"
                     "neff_0.951    %.2f\n", H,
                     period > 1 ? ", mean over the rounds" : "", labels,
                     worst.worst_node, worst.worst, worst.worst_tv, neff);
    }
    if (s != CM_OK && unread)
        cm_error_prefix(s, "--labels");
    else if (s != CM_OK)
        cm_error_prefix(s, "--labels %s", labels);
    cm_labels_destroy(&l);
    return s;
}

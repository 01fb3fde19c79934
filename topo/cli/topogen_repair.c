/* topogen_repair.c: `topogen repair FILE --remove LIST -o NEW`.
 *
 * Reads FILE (undirected, one round), removes the nodes of LIST
 * (cm_idlist: "48-63", "3,7,10-12"), reconnects their former neighbours
 * (tg_repair: the freed edge ends matched, then the search's
 * degree-preserving swaps for what the matching leaves), renumbers the
 * survivors in order, weights the result by the rule FILE's header names
 * (`weights=RULE`: laplacian, mh, maxdeg, fdla, neff with its gamma;
 * --weights RULE overrides; an unweighted file stays unweighted) and
 * writes NEW atomically with a header that records what was removed. A
 * disconnected result is refused (exit 1) and nothing is written.
 */
#include "topogen_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cm_idlist.h"
#include "cm_mixing.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_header.h"
#include "cm_topo_seq.h"
#include "tg_graph.h"
#include "tg_grow.h"
#include "tg_repair.h"

/* Largest result that gets the search's swaps without --iters. */
#define REPAIR_AUTO_MAX 1024
#include "topogen_cli.h"
#include "topogen_eval.h"
#include "topogen_weights.h"

static void usage(FILE *fp)
{
    fputs("usage: topogen repair FILE --remove LIST -o NEW [--weights RULE] "
          "[--quiet]\n"
          "       topogen repair FILE --add K -o NEW [--weights RULE] "
          "[--quiet]\n\n"
          "The topology FILE without the nodes of LIST (lost workers), their "
          "former\n"
          "neighbours reconnected so that every survivor keeps its degree "
          "where the\n"
          "graph allows (the freed edge ends are matched, a removed node's "
          "neighbours\n"
          "first; degree-preserving double-edge swaps place the rest), the "
          "survivors\n"
          "renumbered in order (old id i becomes its rank among them), "
          "weighted by\n"
          "FILE's rule. A result that is not connected is refused.\n\n"
          "  --remove LIST        ids to remove, 0-based: 48-63, 3,7,10-12\n"
          "  --add K              K new nodes (workers that join), ids n.."
          "n+K-1: each\n"
          "                       splits D/2 random edges (a-b becomes "
          "a-new-b), D the\n"
          "                       largest degree, so every old node keeps "
          "its edges'\n"
          "                       count and most edges\n"
          "  -o, --output NEW     the repaired topology (- for stdout)\n"
          "  --weights RULE       weights of NEW (default: the weights= rule "
          "of FILE's\n"
          "                       header): laplacian, mh, maxdeg, fdla, neff\n"
          "  --iters K            then K of the search's degree-preserving "
          "swaps, each\n"
          "                       kept if it lowers the ratio energy "
          "(default: 100 per\n"
          "                       node, at most 20000, for learned and "
          "random graphs of\n"
          "                       at most 1024 nodes; else 0)\n"
          "  -q, --quiet          no report on stderr\n"
          "  -h, --help           print this help\n\n"
          "Then continue the training on the survivors:\n"
          "  dpsgd-train ... --resume --drop-workers LIST --topology NEW\n"
          "or with the new workers:\n"
          "  dpsgd-train ... --resume --add-workers K --topology NEW\n"
          "Exit status: 0 success, 1 a bad file or a disconnected result, 2 "
          "a usage error.\n", fp);
}

/* The value of token key ("weights=") in line into out (cap bytes), if
 * there and out is still empty. */
static void token(const char *line, const char *key, char *out, size_t cap)
{
    const char *w = strstr(line, key);
    if (!w || out[0])
        return;
    w += strlen(key);
    size_t k = strcspn(w, " \t\r\n");
    if (k < cap) {
        memcpy(out, w, k);
        out[k] = '\0';
    }
}

/* The rule in FILE's header ("weights=NAME" on the "# topogen" comment
 * line) into name (cap bytes; "" when none), its kind (kind=, or from=
 * of a repaired file) into kind, and n_eff's gamma ("# neff: gamma=G")
 * into *gamma (0 when none). */
static void header_rule(const char *path, char *name, size_t cap,
                        char *kind, size_t kcap, double *gamma)
{
    name[0] = '\0';
    kind[0] = '\0';
    *gamma = 0.0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    char line[4096];
    while (fgets(line, sizeof line, fp) && line[0] == '#') {
        if (strncmp(line, "# topogen ", 10) == 0) {
            token(line, " weights=", name, cap);
            token(line, " from=", kind, kcap);
            token(line, " kind=", kind, kcap);
        }
        const char *g = strstr(line, "# neff: gamma=");
        if (g)
            *gamma = strtod(g + 14, NULL);
    }
    fclose(fp);
}

/* The `# cliques:` line of FILE's header (D-Cliques, for --algorithm
 * clique-avg) into *cl (malloc'd, n ids; NULL when FILE has none or it is
 * not n non-negative ids: the reader refuses those). */
static size_t *header_cliques(const char *path, size_t n)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return NULL;
    char *line = NULL;
    size_t cap = 0, *cl = NULL;
    while (getline(&line, &cap, fp) > 0 && line[0] == '#') {
        if (strncmp(line, "# cliques:", 10) != 0)
            continue;
        cl = malloc((n + 1) * sizeof *cl);
        const char *p = line + 10;
        size_t k = 0;
        for (char *end; cl && k <= n; p = end) {
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p < '0' || *p > '9')
                break;
            cl[k++] = (size_t)strtoull(p, &end, 10);
        }
        if (cl && k != n) {
            free(cl);
            cl = NULL;
        }
        break;
    }
    free(line);
    fclose(fp);
    return cl;
}

/* The survivors' cliques after a repair: old clique ids of the survivors
 * (ids[0..k) removed from t's n nodes), renumbered 0.. in order of their
 * old ids, into out[r->n]. 0 when every clique is still a clique of r
 * (its members pairwise joined), else 1 with *a, *b the first pair of a
 * clique that the repair left unjoined. O(n^2 / cliques + edges). */
static int repaired_cliques(const size_t *cl, size_t n, const size_t *ids,
                            size_t k, const cm_topo *r, size_t *out,
                            size_t *a, size_t *b)
{
    size_t *map = malloc((n + 1) * sizeof *map), j = 0, q = 0;
    if (!map)
        return 1;
    for (size_t c = 0; c <= n; c++)
        map[c] = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        if (q < k && ids[q] == i) {
            q++;
            continue;
        }
        out[j++] = cl[i];
    }
    for (size_t i = 0; i < j; i++) /* the used ids, in ascending order */
        if (out[i] <= n)
            map[out[i]] = 0;
    size_t next = 0;
    for (size_t c = 0; c <= n; c++)
        if (map[c] == 0)
            map[c] = next++;
    for (size_t i = 0; i < j; i++)
        out[i] = out[i] <= n ? map[out[i]] : out[i];
    free(map);
    for (size_t u = 0; u < j; u++)
        for (size_t v = u + 1; v < j; v++) {
            if (out[u] != out[v])
                continue;
            int joined = 0;
            for (size_t e = r->off[u]; e < r->off[u + 1] && !joined; e++)
                joined = r->adj[e] == v;
            if (!joined) {
                *a = u;
                *b = v;
                return 1;
            }
        }
    return 0;
}

/* Parses a weights name as topogen --weights does: *fdla, *rule. */
static int weights_parse(const char *v, int *fdla, cm_weight_rule *rule)
{
    *fdla = strcmp(v, "fdla") == 0         ? TOPOGEN_W_FDLA
            : strcmp(v, "neff") == 0       ? TOPOGEN_W_NEFF
            : strcmp(v, "neff-alpha") == 0 ? TOPOGEN_W_NEFF_ALPHA
                                           : TOPOGEN_W_RULE;
    *rule = CM_WEIGHTS_LAPLACIAN;
    if (*fdla != TOPOGEN_W_RULE)
        return 1;
    return cm_weight_rule_parse(v, rule) == CM_OK;
}

/* A flag of one value given twice: refused (exit 2), never the last
 * silently winning. */
static int twice(const char *flag, const char *a, const char *b)
{
    fprintf(stderr, "topogen: repair: %s given twice ('%s' and '%s'): give "
            "it once\n", flag, a, b);
    return 2;
}

/* Whether path b names the same file as a (both exist: same device and
 * inode). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int topogen_repair_main(int argc, char **argv)
{
    const char *file = NULL, *list = NULL, *out = NULL, *wflag = NULL;
    const char *iflag = NULL, *addflag = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = 1;
        } else if ((v = topogen_flag_value(argc, argv, &i, "--remove", NULL))) {
            if (list)
                return twice("--remove", list, v);
            list = v;
        } else if ((v = topogen_flag_value(argc, argv, &i, "--add", NULL))) {
            if (addflag)
                return twice("--add", addflag, v);
            addflag = v;
        } else if ((v = topogen_flag_value(argc, argv, &i, "--output", "-o"))) {
            if (out)
                return twice("-o/--output", out, v);
            out = v;
        } else if ((v = topogen_flag_value(argc, argv, &i, "--weights",
                                           NULL))) {
            if (wflag)
                return twice("--weights", wflag, v);
            wflag = v;
        } else if ((v = topogen_flag_value(argc, argv, &i, "--iters", NULL))) {
            if (iflag)
                return twice("--iters", iflag, v);
            iflag = v;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "topogen: repair: unknown flag %s (topogen "
                    "repair --help lists the flags)\n", a);
            return 2;
        } else if (file) {
            fprintf(stderr, "topogen: repair: one FILE only ('%s' and '%s')"
                    "\n", file, a);
            return 2;
        } else {
            file = a;
        }
    }
    if (list && addflag) {
        fprintf(stderr, "topogen: repair: --remove and --add: give one of "
                "them (a loss, or workers that join)\n");
        return 2;
    }
    size_t add = 0;
    if (addflag) {
        char *end;
        unsigned long long x = strtoull(addflag, &end, 10);
        if (!*addflag || *end || addflag[0] == '-' || x < 1 ||
            x > 1000000ULL) {
            fprintf(stderr, "topogen: repair: --add '%s': expected a count "
                    "of new nodes, 1 to 10^6\n", addflag);
            return 2;
        }
        add = (size_t)x;
        list = "";
    }
    if (!file || !list || !out || !*out) {
        fprintf(stderr, "topogen: repair: %s (usage: topogen repair FILE "
                "--remove LIST -o NEW)\n", !file ? "give the topology FILE"
                : !list ? "give --remove LIST (the nodes to remove) or --add K"
                        : "give -o NEW (the repaired topology)");
        return 2;
    }
    if (same_file(file, out)) {
        fprintf(stderr, "topogen: repair: -o %s is the input FILE: write the "
                "repaired topology to another file (the input stays the "
                "topology of the run before the loss)\n", out);
        return 2;
    }
    if (strcmp(file, "-") == 0) {
        fprintf(stderr, "topogen: repair: FILE must be a file, not stdin "
                "(its header names the weights)\n");
        return 2;
    }
    int fdla = TOPOGEN_W_RULE;
    cm_weight_rule rule = CM_WEIGHTS_LAPLACIAN;
    if (wflag && !weights_parse(wflag, &fdla, &rule)) {
        fprintf(stderr, "topogen: repair: --weights '%s': expected %s, fdla, "
                "neff, neff-alpha\n", wflag, cm_weight_rule_list());
        return 2;
    }
    size_t iters = 0;
    if (iflag) {
        char *end;
        unsigned long long x = strtoull(iflag, &end, 10);
        if (!*iflag || *end || iflag[0] == '-' || x > 100000000ULL) {
            fprintf(stderr, "topogen: repair: --iters '%s': expected a count "
                    "of swaps, 0 to 10^8\n", iflag);
            return 2;
        }
        iters = (size_t)x;
    }
    cm_topo_seq seq;
    cm_topo t, r;
    cm_topo_seq_init(&seq);
    cm_topo_init(&t);
    cm_topo_init(&r);
    size_t *ids = NULL, k = 0;
    char *removed = NULL, *notes = NULL; /* the header's list, any length */
    size_t *cliques = NULL; /* the survivors' `# cliques:` ids, or NULL */
    int rc = 1;
    cm_status s = cm_topo_seq_read(&seq, file);
    if (s == CM_OK && seq.period > 1)
        s = cm_error(CM_EFORMAT, "%s is time-varying (%zu rounds): repair "
                     "takes a static topology", file, seq.period);
    if (s == CM_OK && seq.round[0].directed)
        s = cm_error(CM_EFORMAT, "%s is %s: repair takes an undirected "
                     "topology", file, cm_topo_is_epidemic(&seq.round[0])
                                       ? "epidemic (a new graph each round)"
                                       : "directed");
    if (s != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        goto done;
    }
    t = seq.round[0];
    cm_topo_init(&seq.round[0]);
    if (!add)
        s = cm_idlist_parse(list, 0, "--remove", &ids, &k);
    if (s == CM_OK && !add && ids[k - 1] >= t.n)
        s = cm_error(CM_EINVAL, "--remove '%s': node %zu is not in %s (its "
                     "nodes are 0..%zu)", list, ids[k - 1], file, t.n - 1);
    if (s == CM_OK && !add && k + 2 > t.n)
        s = cm_error(CM_EINVAL, "--remove '%s': removes %zu of the %zu nodes "
                     "of %s, leaving %s: a topology needs at least 2", list,
                     k, t.n, file, k == t.n ? "none" : "1");
    if (s != CM_OK) {
        fprintf(stderr, "topogen: repair: %s\n", cm_last_error());
        rc = 2;
        goto done;
    }
    /* the weights: --weights, else the header's rule, else as the file */
    char hname[64], kind[64];
    double gamma = 0.0;
    header_rule(file, hname, sizeof hname, kind, sizeof kind, &gamma);
    int weighted = t.self != NULL || wflag;
    if (!wflag && t.self && !weights_parse(hname, &fdla, &rule)) {
        fprintf(stderr, "topogen: %s has weights but %s: give --weights RULE "
                "for the repaired graph\n", file,
                hname[0] ? "an unknown weights= rule in its header"
                         : "no weights= rule in its header");
        goto done;
    }
    tg_repair_info info;
    tg_grow_info gi;
    memset(&info, 0, sizeof info);
    s = add ? tg_grow(&t, add, 1, &r, &gi) : tg_repair(&t, ids, k, &r, &info);
    if (s != CM_OK) {
        fprintf(stderr, "topogen: repair: %s: %s; nothing written\n", file,
                cm_last_error());
        goto done;
    }
    /* learned and random graphs: the search's swaps, from the repair */
    int searched = strcmp(kind, "learned") == 0 || strcmp(kind, "random") == 0;
    if (!iflag && searched && r.n <= REPAIR_AUTO_MAX)
        iters = 100 * r.n < 20000 ? 100 * r.n : 20000;
    if (iflag && iters && r.n > TG_GRAPH_DENSE_MAX) {
        fprintf(stderr, "topogen: repair: --iters: the swaps use the dense "
                "spectrum, at most %d nodes (the result has %zu): give "
                "--iters 0\n", TG_GRAPH_DENSE_MAX, r.n);
        rc = 2;
        goto done;
    }
    double e0 = 0.0, e1 = 0.0;
    size_t kept = 0;
    if (iters && (s = tg_repair_polish(&r, iters, 1, &e0, &e1, &kept)) !=
                     CM_OK) {
        fprintf(stderr, "topogen: repair: %s\n", cm_last_error());
        goto done;
    }
    tg_fdla_result fr = {0};
    tg_neff_weights_result nr = {0};
    if (weighted &&
        (s = topogen_weights_set(fdla, rule, gamma > 0 && gamma < 1 ? gamma
                                                                    : 0.951,
                                 &r, &fr, &nr)) != CM_OK) {
        fprintf(stderr, "topogen: repair: %s\n", cm_last_error());
        goto done;
    }
    double l2 = 0.0, ln = 0.0, sl = 1.0;
    size_t dmin, dmax;
    cm_topo_degree_range(&r, &dmin, &dmax);
    if ((s = cm_topo_laplacian_extremes(&r, &l2, &ln)) != CM_OK ||
        (weighted && (s = cm_topo_slem(&r, &sl)) != CM_OK)) {
        fprintf(stderr, "topogen: repair: %s\n", cm_last_error());
        goto done;
    }
    char fl[256] = "";
    size_t rcap = 24 * k + 64; /* "a-b," per id at most */
    removed = malloc(rcap);
    size_t ncap = rcap + strlen(file) + 1536;
    notes = malloc(ncap);
    if (!removed || !notes) {
        fprintf(stderr, "topogen: repair: out of memory\n");
        goto done;
    }
    if (add)
        snprintf(removed, rcap, "%zu-%zu", t.n, t.n + add - 1);
    else
        cm_idlist_format(ids, k, removed, rcap);
    const char *wname = weighted ? topogen_weights_name(fdla, rule) : "none";
    topogen_fdla_line(fdla, &fr, fl, sizeof fl);
    if (!fl[0])
        topogen_neff_line(fdla, &nr, fl, sizeof fl);
    char slem[64] = "";
    if (weighted)
        snprintf(slem, sizeof slem, " slem=%.4f", sl);
    char from[80] = "";
    if (kind[0] && strspn(kind, "abcdefghijklmnopqrstuvwxyz-") ==
                       strlen(kind))
        snprintf(from, sizeof from, " from=%s", kind);
    char then[128] = "";
    if (iters)
        snprintf(then, sizeof then, "; then %zu of %zu search swaps kept "
                 "(ratio energy %.4f -> %.4f)", kept, iters, e0, e1);
    char tokens[192];
    snprintf(tokens, sizeof tokens, "%s%sweights=%s version=%s",
             from[0] ? from + 1 : "",
             from[0] ? " " : "", wname, TOPOGEN_VERSION);
    if (add)
        snprintf(notes, ncap,
                 "grown: %s with nodes %s added (of %zu): old ids kept; %zu "
                 "of its %zu edges split, each new node of degree %zu%s\n"
                 "lambda2=%.4f lambdan=%.4f%s%s\n"
                 "one `i j%s` line per edge%s", file, removed, r.n,
                 gi.splits, t.m, gi.new_deg, then, l2, ln, slem, fl,
                 weighted ? " W_ij" : "",
                 weighted ? "; W_ii = 1 - sum_j W_ij" : "");
    else
    snprintf(notes, ncap,
             "repaired: %s without nodes %s (of %zu): old id i -> its rank "
             "among the survivors; %zu edges added, %zu swaps, %zu nodes "
             "below their degree%s\n"
             "lambda2=%.4f lambdan=%.4f%s%s\n"
             "one `i j%s` line per edge%s", file, removed, t.n, info.added,
             info.swaps, info.short_nodes, then, l2, ln, slem, fl,
             weighted ? " W_ij" : "", weighted ? "; W_ii = 1 - sum_j W_ij" : "");
    /* a D-Cliques file keeps its `# cliques:` line (the survivors in
     * their cliques), which --algorithm clique-avg needs after a drop */
    size_t *cl = add ? NULL : header_cliques(file, t.n), ca = 0, cb = 0;
    if (cl && (cliques = malloc((r.n + 1) * sizeof *cliques)) &&
        repaired_cliques(cl, t.n, ids, k, &r, cliques, &ca, &cb)) {
        fprintf(stderr, "topogen: repair: %s: the repair leaves nodes %zu "
                "and %zu (new ids) of one clique unjoined; nothing written "
                "(--algorithm clique-avg needs its cliques whole: try "
                "--iters 0)\n", file, ca, cb);
        free(cl);
        goto done;
    }
    free(cl);
    cm_topo_header h;
    cm_topo_header_init(&h);
    if (cliques) {
        h.cliques = cliques;
        h.n_cliques = r.n;
    }
    h.generator = "topogen 2";
    h.n = r.n;
    h.d = dmax;
    snprintf(h.kind, sizeof h.kind, add ? "grown" : "repaired");
    h.tokens = tokens;
    h.notes = notes;
    char *comment = cm_topo_header_format(&h);
    if (!comment) {
        fprintf(stderr, "topogen: repair: %s\n", cm_last_error());
        goto done;
    }
    s = cm_topo_save(&r, out, comment);
    free(comment);
    if (s != CM_OK) {
        fprintf(stderr, "topogen: -o: %s\n", cm_last_error());
        goto done;
    }
    rc = 0;
    if (!quiet && add) {
        fprintf(stderr, "topogen: repair: %zu -> %zu nodes (added %s), %zu "
                "of %zu edges split, new nodes of degree %zu%s\n", t.n, r.n,
                removed, gi.splits, t.m, gi.new_deg,
                weighted ? "" : " (unweighted)");
    } else if (!quiet) {
        fprintf(stderr, "topogen: repair: %zu -> %zu nodes (removed %s), "
                "%zu edges added (%zu by swaps), ", t.n, r.n, removed,
                info.added, info.swaps);
        if (info.short_nodes)
            fprintf(stderr, "%zu node%s below %s degree (first: new id %zu)",
                    info.short_nodes, info.short_nodes == 1 ? "" : "s",
                    info.short_nodes == 1 ? "its" : "their",
                    info.short_first);
        else
            fprintf(stderr, "every degree kept");
        if (iters)
            fprintf(stderr, "; %zu of %zu search swaps kept (energy %.4f -> "
                    "%.4f)", kept, iters, e0, e1);
        if (weighted)
            fprintf(stderr, "; %s weights, slem %.4f", wname, sl);
        fprintf(stderr, "\n");
    }
done:
    free(cliques);
    free(removed);
    free(notes);
    free(ids);
    cm_topo_destroy(&r);
    cm_topo_destroy(&t);
    cm_topo_seq_destroy(&seq);
    return rc;
}

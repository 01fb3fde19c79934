/* topogen_api.c: libtopogen's public API (topogen.h) over the project's
 * internals: learning goes through topogen_make.c, the code topogen's
 * main runs, so the same settings give the same file; reading through
 * cm_topo_seq (every format and sequences); measures through tg_eval and
 * tg_seq. Options arrive as strings and are parsed by the parsers the
 * command line uses, so a kind or objective added there needs nothing
 * here. Each entry point turns the aborting defaults of GSL and igraph
 * off while it runs (and restores the caller's handlers), and pins
 * OpenBLAS to one thread, as topogen's main does, so that eigensolves
 * give the same bits as the program's.
 */
#include "topogen.h"

#include <gsl/gsl_errno.h>
#include <igraph.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_atomic.h"
#include "cm_mixing.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "tg_eval.h"
#include "tg_graph.h"
#include "tg_groups.h"
#include "tg_igraph.h"
#include "tg_search.h"
#include "tg_seq.h"
#include "topogen_cli.h"
#include "topogen_eval.h"
#include "topogen_directed.h"
#include "topogen_make.h"
#include "topogen_neff.h"
#include "tg_neff.h"

extern void openblas_set_num_threads(int num_threads);
extern int openblas_get_num_threads(void);

struct topogen_topology {
    topogen_config cfg; /* learned: the settings (made = 1) */
    int made;           /* 1: m holds a learned or built topology */
    topogen_made m;     /* learned/built: graph (or rounds) and header */
    cm_topo_seq seq;    /* read from a file (made = 0) */
    char *header;       /* read: the file's leading comment lines */
    char *raw;          /* directed kinds: the file topogen wrote */
    size_t raw_len;
    char **words;       /* learned: the option words cfg points into */
};

/* The state an entry point changes while it runs. */
typedef struct {
    gsl_error_handler_t *gsl;
    igraph_error_handler_t *ig;
    igraph_warning_handler_t *igw;
    int blas;
} guard;

static void enter(guard *g)
{
    g->gsl = gsl_set_error_handler_off();
    g->ig = igraph_set_error_handler(igraph_error_handler_ignore);
    g->igw = igraph_set_warning_handler(igraph_warning_handler_ignore);
    g->blas = openblas_get_num_threads();
    openblas_set_num_threads(1);
}

static topogen_status leave(const guard *g, cm_status st)
{
    gsl_set_error_handler(g->gsl);
    igraph_set_error_handler(g->ig);
    igraph_set_warning_handler(g->igw);
    openblas_set_num_threads(g->blas);
    return (topogen_status)st;
}

const char *topogen_last_error(void)
{
    return cm_last_error();
}

const char *topogen_version(void)
{
    return TOPOGEN_VERSION;
}

static topogen_topology *handle_new(void)
{
    topogen_topology *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    topogen_made_init(&t->m);
    cm_topo_seq_init(&t->seq);
    return t;
}

void topogen_free(topogen_topology *t)
{
    if (!t)
        return;
    topogen_made_destroy(&t->m);
    cm_topo_seq_destroy(&t->seq);
    free(t->header);
    free(t->raw);
    if (t->words)
        for (char **w = t->words; *w; w++)
            free(*w);
    free(t->words);
    free(t);
}

/* ---- learning --------------------------------------------------------- */

void topogen_learn_opts_init(topogen_learn_opts *o)
{
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    tg_search_opts s;
    tg_search_opts_default(&s);
    o->n = s.n;
    o->d = s.d;
    o->seed = s.seed;
}

/* Appends "flag" (and a value, unless NULL) to the word list. */
static cm_status push(char ***w, size_t *n, const char *flag,
                      const char *value)
{
    char **p = realloc(*w, (*n + 3) * sizeof *p);
    if (!p)
        return cm_error(CM_ENOMEM, "out of memory");
    *w = p;
    p[*n] = strdup(flag);
    p[*n + 1] = value ? strdup(value) : NULL;
    p[*n + 2] = NULL;
    if (!p[*n] || (value && !p[*n + 1]))
        return cm_error(CM_ENOMEM, "out of memory");
    *n += value ? 2 : 1;
    return CM_OK;
}

/* The settings of o as command-line words, parsed into c by the command
 * line's own table (topogen_config_words): every flag, kind, objective
 * and weight rule topogen knows, with its checks and messages. The words
 * go to *words (kept by the handle: c's strings point into them). */
static cm_status opts_to_config(const topogen_learn_opts *o,
                                topogen_config *c, char ***words)
{
    if (!o || o->size < offsetof(topogen_learn_opts, no_screen) + sizeof(int))
        return cm_error(CM_EINVAL, "topogen_learn: options not initialized "
                        "(call topogen_learn_opts_init first)");
    topogen_config_default(c);
    c->quiet = 1;
    char v[64];
    size_t n = 0;
    cm_status st = CM_OK;
#define SIZE(flag, x)                                                        \
    if (st == CM_OK && (x)) {                                                \
        snprintf(v, sizeof v, "%zu", (size_t)(x));                           \
        st = push(words, &n, flag, v);                                       \
    }
#define REAL(flag, x)                                                        \
    if (st == CM_OK && (x) != 0.0) {                                         \
        snprintf(v, sizeof v, "%.17g", (double)(x));                         \
        st = push(words, &n, flag, v);                                       \
    }
#define WORD(flag, x)                                                        \
    if (st == CM_OK && (x))                                                  \
        st = push(words, &n, flag, x);
    SIZE("-n", o->n)
    SIZE("-d", o->d)
    WORD("--kind", o->kind)
    WORD("--weights", o->weights)
    WORD("--objective", o->objective)
    WORD("--init", o->init)
    WORD("--eigensolver", o->eigensolver)
    if (st == CM_OK) {
        snprintf(v, sizeof v, "%llu", (unsigned long long)o->seed);
        st = push(words, &n, "--seed", v);
    }
    SIZE("--iters", o->iters)
    SIZE("--restarts", o->restarts)
    SIZE("--candidates", o->candidates)
    SIZE("--threads", o->threads)
    SIZE("--groups", o->groups)
    SIZE("--max-cross", o->max_cross)
    REAL("--t0", o->t0)
    REAL("--t1", o->t1)
    REAL("--time-limit", o->time_limit)
    if (st == CM_OK && o->no_screen)
        st = push(words, &n, "--no-screen", NULL);
    if (o->size >= offsetof(topogen_learn_opts, flags) + sizeof o->flags &&
        o->flags)
        for (const char *const *f = o->flags; *f && st == CM_OK; f++)
            st = push(words, &n, *f, NULL);
#undef SIZE
#undef REAL
#undef WORD
    if (st != CM_OK)
        return st;
    return topogen_config_words(c, n, (const char *const *)*words);
}

/* Reads path into a new buffer (*buf, *len). */
static cm_status slurp(const char *path, char **buf, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return cm_error(CM_EIO, "cannot open %s", path);
    size_t cap = 1 << 16, k = 0;
    char *b = malloc(cap);
    size_t got;
    while (b && (got = fread(b + k, 1, cap - k, fp)) > 0) {
        k += got;
        if (k == cap) {
            char *p = realloc(b, cap *= 2);
            if (!p) {
                free(b);
                b = NULL;
            }
            b = p;
        }
    }
    int bad = ferror(fp);
    fclose(fp);
    if (!b || bad) {
        free(b);
        return cm_error(bad ? CM_EIO : CM_ENOMEM, "cannot read %s", path);
    }
    *buf = b;
    *len = k;
    return CM_OK;
}

static cm_status read_into(topogen_topology *t, const char *path,
                           const char *format);

/* The directed kinds (perm, exp-directed, learned --directed, epidemic):
 * topogen's own generation writes a scratch file, which becomes t (read
 * back) and its bytes (written again by topogen_write). The search's
 * signal handlers are the caller's again afterwards. */
static cm_status learn_directed(topogen_topology *t)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/topogen.XXXXXX",
             dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return cm_error(CM_EIO, "cannot create a scratch file in %s",
                        dir && *dir ? dir : "/tmp");
    close(fd);
    struct sigaction old_int, old_term;
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    topogen_config c = t->cfg;
    c.out = path;
    c.quiet = 1;
    int interrupted = 0;
    cm_status st = topogen_directed_make(&c, &interrupted);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (st == CM_OK)
        st = slurp(path, &t->raw, &t->raw_len);
    if (st == CM_OK)
        st = read_into(t, path, "edgelist");
    unlink(path);
    return st;
}

topogen_status topogen_learn(const topogen_learn_opts *o,
                             topogen_topology **out)
{
    if (!out)
        return (topogen_status)cm_error(CM_EINVAL, "topogen_learn: out is "
                                        "NULL");
    *out = NULL;
    topogen_topology *t = handle_new();
    if (!t)
        return (topogen_status)cm_error(CM_ENOMEM, "out of memory");
    guard g;
    enter(&g);
    cm_status st = opts_to_config(o, &t->cfg, &t->words);
    if (st == CM_OK && t->cfg.dkind == TOPOGEN_D_EPIDEMIC)
        st = cm_error(CM_EINVAL, "--kind epidemic: every round draws a new "
                      "graph from the run's seed, so there is no W to hand "
                      "back (write the file with `topogen --kind epidemic`)");
    if (st == CM_OK && t->cfg.datakind)
        st = cm_error(CM_EINVAL, "--kind %s: built from a data set's labels "
                      "by the topogen program (not in libtopogen yet)",
                      topogen_kind_name(&t->cfg));
    if (st == CM_OK && t->cfg.dkind) {
        st = learn_directed(t);
    } else if (st == CM_OK) {
        st = topogen_make(&t->cfg, &t->m);
        t->made = st == CM_OK;
    }
    if (st != CM_OK) {
        topogen_free(t);
        return leave(&g, st);
    }
    *out = t;
    return leave(&g, CM_OK);
}

/* ---- files ------------------------------------------------------------ */

/* The leading `#` lines of path (not `# round` headers), joined by
 * newlines, into *hdr (malloc'ed; "" for stdin or none). */
static cm_status read_header(const char *path, char **hdr)
{
    *hdr = calloc(1, 1);
    if (!*hdr)
        return cm_error(CM_ENOMEM, "out of memory");
    if (strcmp(path, "-") == 0)
        return CM_OK;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return CM_OK; /* the reader has already reported a missing file */
    char line[4096];
    size_t len = 0;
    while (fgets(line, sizeof line, fp) && line[0] == '#' &&
           strncmp(line, "# round ", 8) != 0) {
        size_t l = strcspn(line, "\n");
        char *p = realloc(*hdr, len + l + 2);
        if (!p) {
            fclose(fp);
            return cm_error(CM_ENOMEM, "out of memory");
        }
        *hdr = p;
        if (len)
            p[len++] = '\n';
        memcpy(p + len, line, l);
        len += l;
        p[len] = '\0';
    }
    fclose(fp);
    return CM_OK;
}

/* Reads path into the empty handle t, with the checks of topogen_read. */
static cm_status read_into(topogen_topology *t, const char *path,
                           const char *format)
{
    cm_topo_read_opts ro = {0};
    cm_status st = cm_topo_format_parse(format ? format : "auto", 1,
                                        "format", &ro.format);
    if (st == CM_OK)
        st = cm_topo_seq_read_ex(&t->seq, path, &ro);
    for (size_t r = 0; st == CM_OK && r < t->seq.period; r++) {
        const cm_topo *x = &t->seq.round[r];
        if (cm_topo_is_epidemic(x))
            continue;
        st = x->directed ? cm_topo_check_doubly(x, path)
                         : cm_topo_check_stochastic(x, path);
    }
    if (st == CM_OK && ro.found != CM_FORMAT_GRAPHML &&
        ro.found != CM_FORMAT_GML)
        st = read_header(path, &t->header);
    return st;
}

topogen_status topogen_read(const char *path, const char *format,
                            topogen_topology **out)
{
    if (!out || !path)
        return (topogen_status)cm_error(CM_EINVAL, "topogen_read: path or "
                                        "out is NULL");
    *out = NULL;
    topogen_topology *t = handle_new();
    if (!t)
        return (topogen_status)cm_error(CM_ENOMEM, "out of memory");
    guard g;
    enter(&g);
    cm_status st = read_into(t, path, format);
    if (st != CM_OK) {
        topogen_free(t);
        return leave(&g, st);
    }
    *out = t;
    return leave(&g, CM_OK);
}

/* Round r (mod P) of t. */
static const cm_topo *round_of(const topogen_topology *t, size_t r)
{
    if (t->made && !t->cfg.seq)
        return &t->m.t;
    const cm_topo_seq *s = t->made ? &t->m.seq : &t->seq;
    return &s->round[r % s->period];
}

/* The writer's keys for a read topology in GraphML/GML. */
static cm_status write_plain_xml(const cm_topo *r, const char *path,
                                 cm_topo_format f)
{
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "%zu", r->n);
    const char *keys[] = {"topogen", "n", "self_weights"};
    const char *vals[] = {TOPOGEN_VERSION, nbuf,
                          "implied: W_ii = 1 - sum_j W_ij"};
    FILE *fp = stdout;
    cm_afile af = {0};
    if (strcmp(path, "-") != 0) {
        cm_status st = cm_atomic_open(&af, path);
        if (st != CM_OK)
            return st;
        fp = af.fp;
    }
    cm_status st = tg_igraph_write(r, fp, f, keys, vals, 3);
    if (fp == stdout)
        return st == CM_OK && fflush(stdout) != 0
                   ? cm_error(CM_EIO, "write error on standard output") : st;
    if (st != CM_OK) {
        cm_atomic_abort(&af);
        return cm_error_prefix(st, "%s", path);
    }
    return cm_atomic_commit(&af);
}

topogen_status topogen_write(const topogen_topology *t, const char *path,
                             const char *format)
{
    if (!t || !path)
        return (topogen_status)cm_error(CM_EINVAL, "topogen_write: t or "
                                        "path is NULL");
    guard g;
    enter(&g);
    cm_topo_format f;
    cm_status st = cm_topo_format_parse(format ? format : "edgelist", 0,
                                        "format", &f);
    if (st != CM_OK)
        return leave(&g, st);
    if (t->made) {
        /* the settings attribute of GraphML/GML names the format, as
         * `topogen --format F` writes it */
        topogen_config c = t->cfg;
        c.format = f;
        topogen_made m = t->m; /* shares t's arrays: not destroyed */
        if (f != CM_FORMAT_EDGELIST && f != CM_FORMAT_NCOL)
            topogen_settings_line(&c, m.settings, sizeof m.settings);
        st = topogen_made_write(&c, &m, path, f);
        return leave(&g, st);
    }
    if (t->raw && f == CM_FORMAT_EDGELIST) { /* a directed kind's file */
        cm_afile af = {0};
        FILE *fp = stdout;
        if (strcmp(path, "-") != 0 && (st = cm_atomic_open(&af, path)))
            return leave(&g, st);
        if (strcmp(path, "-") != 0)
            fp = af.fp;
        int bad = fwrite(t->raw, 1, t->raw_len, fp) != t->raw_len;
        if (fp == stdout)
            st = bad || fflush(stdout) ? cm_error(CM_EIO, "write error on "
                                                  "standard output") : CM_OK;
        else if (bad) {
            cm_atomic_abort(&af);
            st = cm_error(CM_EIO, "%s: write error", path);
        } else
            st = cm_atomic_commit(&af);
        return leave(&g, st);
    }
    const char *hdr = t->header && *t->header ? t->header : NULL;
    if (f == CM_FORMAT_EDGELIST)
        st = cm_topo_seq_save(&t->seq, path, hdr);
    else if (t->seq.period > 1)
        st = cm_error(CM_EINVAL, "format: a time-varying topology is written "
                      "as an edge list (one section per round)");
    else if (f == CM_FORMAT_NCOL)
        st = cm_topo_save(&t->seq.round[0], path, NULL);
    else
        st = write_plain_xml(&t->seq.round[0], path, f);
    return leave(&g, st);
}

/* ---- the graph and its mixing matrix ----------------------------------- */

size_t topogen_nodes(const topogen_topology *t)
{
    return round_of(t, 0)->n;
}

size_t topogen_rounds(const topogen_topology *t)
{
    if (t->made)
        return t->cfg.seq ? t->m.seq.period : 1;
    return t->seq.period;
}

int topogen_is_directed(const topogen_topology *t)
{
    const cm_topo *r = round_of(t, 0);
    return r->directed || cm_topo_is_epidemic(r);
}

int topogen_is_weighted(const topogen_topology *t)
{
    for (size_t r = 0; r < topogen_rounds(t); r++)
        if (!round_of(t, r)->adj_w)
            return 0;
    return 1;
}

size_t topogen_edges(const topogen_topology *t, size_t round)
{
    return round_of(t, round)->m;
}

const char *topogen_header(const topogen_topology *t)
{
    if (t->made)
        return t->m.comment;
    return t->header ? t->header : "";
}

topogen_status topogen_set_weights(topogen_topology *t, const char *rule)
{
    if (!t || !rule)
        return (topogen_status)cm_error(CM_EINVAL, "topogen_set_weights: t "
                                        "or rule is NULL");
    if (topogen_rounds(t) > 1)
        return (topogen_status)cm_error(CM_EINVAL, "--weights: a "
                                        "time-varying topology carries its "
                                        "own weights");
    if (topogen_is_directed(t))
        return (topogen_status)cm_error(CM_EINVAL, "--weights: a directed "
                                        "topology carries its own weights");
    int fdla = strcmp(rule, "fdla") == 0 ? TOPOGEN_W_FDLA
               : strcmp(rule, "neff") == 0 ? TOPOGEN_W_NEFF
               : strcmp(rule, "neff-alpha") == 0 ? TOPOGEN_W_NEFF_ALPHA
                                                 : TOPOGEN_W_RULE;
    cm_weight_rule wr = CM_WEIGHTS_LAPLACIAN;
    if (!fdla && cm_weight_rule_parse(rule, &wr) != CM_OK)
        return (topogen_status)cm_error(CM_EINVAL, "--weights: unknown "
                                        "weight rule '%s' (expected %s, "
                                        "fdla, neff, neff-alpha)", rule,
                                        cm_weight_rule_list());
    guard g;
    enter(&g);
    cm_topo *r = t->made ? &t->m.t : &t->seq.round[0];
    tg_fdla_result fr;
    tg_neff_weights_result nr; /* neff rules: gamma = TG_NEFF_GAMMA */
    cm_status st = topogen_weights_set(fdla, wr, TG_NEFF_GAMMA, r, &fr, &nr);
    if (st == CM_OK && t->made) { /* now a plain topology: move it over */
        cm_status s2 = cm_topo_seq_from_topo(&t->seq, &t->m.t);
        if (s2 != CM_OK)
            return leave(&g, s2);
        topogen_made_destroy(&t->m);
        topogen_made_init(&t->m);
        t->made = 0;
    }
    if (st == CM_OK) {
        char buf[128];
        snprintf(buf, sizeof buf, "# n=%zu weights=%s (libtopogen %s)", r->n,
                 rule, TOPOGEN_VERSION);
        char *h = strdup(buf);
        if (!h)
            return leave(&g, cm_error(CM_ENOMEM, "out of memory"));
        free(t->header);
        t->header = h;
    }
    return leave(&g, st);
}

topogen_status topogen_neighbours(const topogen_topology *t, size_t round,
                                  size_t i, size_t *ids, double *w,
                                  size_t cap, size_t *count)
{
    const cm_topo *r = round_of(t, round);
    if (cm_topo_is_epidemic(r))
        return (topogen_status)cm_error(CM_EINVAL, "an epidemic topology "
                                        "draws its arcs every round from the "
                                        "run's seed");
    if (i >= r->n)
        return (topogen_status)cm_error(CM_EINVAL, "node %zu: the topology "
                                        "has %zu nodes", i, r->n);
    if (w && !r->adj_w)
        return (topogen_status)cm_error(CM_EINVAL, "the topology is "
                                        "unweighted (topogen_set_weights)");
    size_t deg = r->off[i + 1] - r->off[i];
    for (size_t k = 0; k < deg && k < cap; k++) {
        if (ids)
            ids[k] = r->adj[r->off[i] + k];
        if (w)
            w[k] = r->adj_w[r->off[i] + k];
    }
    if (count)
        *count = deg;
    return TOPOGEN_OK;
}

topogen_status topogen_mixing_matrix(const topogen_topology *t,
                                     size_t round, double *w)
{
    const cm_topo *r = round_of(t, round);
    if (cm_topo_is_epidemic(r))
        return (topogen_status)cm_error(CM_EINVAL, "an epidemic topology "
                                        "draws a new graph every round from "
                                        "the run's seed: it has no fixed W");
    if (!r->adj_w || !r->self)
        return (topogen_status)cm_error(CM_EINVAL, "the topology is "
                                        "unweighted (topogen_set_weights)");
    size_t n = r->n;
    memset(w, 0, n * n * sizeof *w);
    for (size_t i = 0; i < n; i++) {
        w[i * n + i] = r->self[i];
        for (size_t k = r->off[i]; k < r->off[i + 1]; k++)
            w[i * n + r->adj[k]] = r->adj_w[k];
    }
    return TOPOGEN_OK;
}

void topogen_measures_init(topogen_measures *m)
{
    memset(m, 0, sizeof *m);
    m->size = sizeof *m;
}

/* The measures of a directed round: sizes, ||W - J||_2 and n_eff. */
static cm_status measure_directed(const cm_topo *r, double gamma,
                                  topogen_measures *m)
{
    size_t n = r->n;
    m->n = n;
    m->m = r->m;
    cm_topo_degree_range(r, &m->dmin, &m->dmax);
    m->components = 1; /* the reader checks strong connectivity */
    m->diameter = m->lambda2_l = m->lambdan_l = m->slem_best = NAN;
    m->lambda2 = m->lambdan = NAN; /* W's eigenvalues may be complex */
    double *w = malloc(n * n * sizeof *w);
    if (!w)
        return cm_error(CM_ENOMEM, "out of memory");
    tg_neff_fill_dense(r, w);
    cm_status st = topogen_norm_wj(w, n, &m->slem);
    const double *ws[1] = {w};
    if (st == CM_OK)
        st = tg_neff_dense(ws, 1, n, gamma, &m->neff);
    free(w);
    m->rounds = tg_eval_rounds(m->slem);
    m->messages = (double)r->m / (double)n;
    return st;
}

topogen_status topogen_measure(const topogen_topology *t, size_t round,
                               topogen_measures *m)
{
    if (!t || !m || m->size < sizeof *m)
        return (topogen_status)cm_error(CM_EINVAL, "topogen_measure: "
                                        "measures not initialized "
                                        "(topogen_measures_init)");
    const cm_topo *r = round_of(t, round);
    if (cm_topo_is_epidemic(r))
        return (topogen_status)cm_error(CM_EINVAL, "an epidemic topology "
                                        "draws a new graph every round: "
                                        "`topogen eval` estimates its n_eff "
                                        "by simulation");
    if (!r->adj_w)
        return (topogen_status)cm_error(CM_EINVAL, "the topology is "
                                        "unweighted (topogen_set_weights)");
    if (!(m->gamma >= 0.0 && m->gamma < 1.0))
        return (topogen_status)cm_error(CM_EINVAL, "gamma %g: n_eff needs "
                                        "0 < gamma < 1 (0 for %g)", m->gamma,
                                        TG_NEFF_GAMMA);
    double gamma = m->gamma > 0.0 ? m->gamma : TG_NEFF_GAMMA;
    m->gamma = gamma;
    guard g;
    enter(&g);
    m->period = topogen_rounds(t);
    cm_status st;
    if (r->directed) {
        st = measure_directed(r, gamma, m);
        m->period_norm = m->slem;
        m->period_rounds = m->rounds;
        if (st == CM_OK && m->period > 1)
            st = cm_error(CM_EINVAL, "a directed sequence: only its rounds "
                          "are measured here");
        return leave(&g, st);
    }
    tg_eval e;
    st = tg_eval_topo(r, &e);
    double l2w = 1, lnw = 1;
    if (st == CM_OK)
        st = cm_topo_w_extremes(r, &l2w, &lnw);
    topogen_neff v = {0};
    v.k = 1;
    v.gamma[0] = gamma;
    const cm_topo_seq *seq = t->made ? &t->m.seq : &t->seq;
    if (st == CM_OK)
        st = m->period > 1 ? topogen_neff_seq(seq, &v)
                           : topogen_neff_topo(r, &v);
    if (st != CM_OK)
        return leave(&g, st);
    m->n = e.n;
    m->m = e.m;
    m->dmin = e.dmin;
    m->dmax = e.dmax;
    m->components = e.components;
    m->diameter = e.diameter;
    m->lambda2_l = e.l2;
    m->lambdan_l = e.ln;
    m->slem = e.slem;
    m->lambda2 = l2w;
    m->lambdan = lnw;
    m->slem_best = e.slem_best;
    m->rounds = e.rounds;
    m->period_norm = e.slem;
    m->period_rounds = e.rounds;
    m->neff = v.neff[0];
    m->messages = v.msgs;
    if (m->period > 1) {
        tg_seq_eval se;
        st = tg_seq_evaluate(seq, NULL, &se);
        if (st != CM_OK)
            return leave(&g, st);
        m->period_norm = se.norm;
        m->period_rounds = se.rounds ? (double)se.rounds : se.rounds_est;
    }
    return leave(&g, CM_OK);
}

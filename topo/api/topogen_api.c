/* topogen_api.c: libtopogen's public API (topogen.h) over the project's
 * internals: learning goes through topogen_make.c, the code topogen's
 * main runs, so the same settings give the same file; reading through
 * cm_topo_seq (every format and sequences); measures through tg_eval and
 * tg_seq. Options arrive as strings and are parsed by the parsers the
 * command line uses, so a kind or objective added there needs nothing
 * here. Each entry point turns the aborting defaults of GSL and igraph
 * off while it runs (and restores the caller's handlers), and pins
 * OpenBLAS to one thread, as topogen's main does, so that eigensolves
 * give the same bits as the program's. One recursive mutex serialises
 * the entry points (topogen.h, "Threads and signals"); no signal handler
 * is installed: a search stops through the caller's o->stop.
 */
#include "topogen.h"

#include <gsl/gsl_errno.h>
#include <igraph.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_atomic.h"
#include "cm_labels.h"
#include "cm_mixing.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "tg_eval.h"
#include "tg_graph.h"
#include "tg_hetero.h"
#include "tg_groups.h"
#include "tg_igraph.h"
#include "tg_search.h"
#include "tg_seq.h"
#include "topogen_cli.h"
#include "topogen_data.h"
#include "topogen_eval.h"
#include "topogen_directed.h"
#include "topogen_handle.h"
#include "topogen_make.h"
#include "topogen_neff.h"
#include "tg_neff.h"

static pthread_mutex_t api_lock;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void api_lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&api_lock, &a);
    pthread_mutexattr_destroy(&a);
}

void topogen_lock(void)
{
    pthread_once(&api_once, api_lock_init);
    pthread_mutex_lock(&api_lock);
}

void topogen_unlock(void)
{
    pthread_mutex_unlock(&api_lock);
}

/* the search polls a const volatile sig_atomic_t: the API's flag is an
 * int */
_Static_assert(sizeof(sig_atomic_t) == sizeof(int),
               "topogen_learn_opts.stop is read as a sig_atomic_t");

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

/* The error of a search stopped through o->stop. */
static cm_status interrupted_error(void)
{
    cm_error(CM_EINVAL, "topogen_learn: interrupted (the stop flag was "
             "set): no topology");
    return (cm_status)TOPOGEN_EINTR;
}

/* The directed kinds (perm, exp-directed, learned --directed, epidemic):
 * topogen's own generation writes a scratch file, which becomes t (read
 * back) and its bytes (written again by topogen_write). The search polls
 * t->cfg.search.stop (the caller's flag); an interrupted search is
 * CM_EINTR-like: TOPOGEN_EINTR. */
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
    topogen_config c = t->cfg;
    c.out = path;
    c.quiet = 1;
    int interrupted = 0;
    cm_status st = topogen_directed_make(&c, &interrupted);
    if (st == CM_OK && interrupted)
        st = interrupted_error();
    if (st == CM_OK)
        st = slurp(path, &t->raw, &t->raw_len);
    if (st == CM_OK)
        st = read_into(t, path, "edgelist");
    unlink(path);
    return st;
}

/* The undirected kinds through topogen_make, as topogen's generate()
 * runs them: --labels (the learned kind) reads the counts and adds the
 * data term and the header's labels line; a search stopped by the flag
 * is TOPOGEN_EINTR. */
static cm_status learn_made(topogen_topology *t)
{
    topogen_config *c = &t->cfg;
    cm_labels lab;
    cm_labels_init(&lab);
    double *pi = NULL, *pibar = NULL;
    cm_status st = CM_OK;
    if (c->labels && !c->seq) {
        st = cm_labels_read(&lab, c->labels);
        if (st == CM_OK && lab.n != c->search.n)
            st = cm_error(CM_EINVAL, "--labels: %s has %zu workers, but -n "
                          "is %zu", c->labels, lab.n, c->search.n);
        if (st == CM_OK)
            st = tg_hetero_pi(&lab, &pi, &pibar);
        if (st == CM_OK) {
            c->search.pi = pi;
            c->search.pibar = pibar;
            c->search.k = lab.k;
            topogen_data_header_line(&lab, c->labels, t->m.labline,
                                     sizeof t->m.labline);
        }
    } else if (c->labels) {
        st = cm_error(CM_EINVAL, "--labels: the time-varying kind %s does not "
                      "use the labels", topogen_kind_name(c));
    }
    if (st == CM_OK)
        st = topogen_make(c, &t->m);
    if (st == CM_OK && t->m.res.interrupted)
        st = interrupted_error();
    c->search.pi = c->search.pibar = NULL;
    c->search.stop = NULL;
    free(pi);
    free(pibar);
    cm_labels_destroy(&lab);
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
    topogen_enter(&g);
    cm_status st = opts_to_config(o, &t->cfg, &t->words);
    if (st == CM_OK && t->cfg.datakind)
        st = cm_error(CM_EINVAL, "--kind %s: built from a data set's labels "
                      "by the topogen program (not in libtopogen yet)",
                      topogen_kind_name(&t->cfg));
    if (st == CM_OK &&
        o->size >= offsetof(topogen_learn_opts, stop) + sizeof o->stop)
        t->cfg.search.stop = (const volatile sig_atomic_t *)o->stop;
    if (st == CM_OK && t->cfg.dkind) {
        st = learn_directed(t);
    } else if (st == CM_OK) {
        st = learn_made(t);
        t->made = st == CM_OK;
    }
    t->cfg.search.stop = NULL; /* the caller's flag: not kept */
    if (st != CM_OK) {
        topogen_free(t);
        return topogen_leave(&g, st);
    }
    *out = t;
    return topogen_leave(&g, CM_OK);
}

/* ---- files ------------------------------------------------------------ */

/* Reads path into the empty handle t, with the checks of topogen_read. */
static cm_status read_into(topogen_topology *t, const char *path,
                           const char *format)
{
    cm_topo_header hdr; /* read with the graph: one open of the file */
    cm_topo_header_init(&hdr);
    cm_topo_read_opts ro = {.header = &hdr};
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
    if (st == CM_OK) { /* the header comment: edge lists only carry one */
        t->header = hdr.text && ro.found != CM_FORMAT_GRAPHML &&
                            ro.found != CM_FORMAT_GML ? hdr.text
                                                      : calloc(1, 1);
        if (t->header == hdr.text)
            hdr.text = NULL; /* moved */
        if (!t->header)
            st = cm_error(CM_ENOMEM, "out of memory");
    }
    cm_topo_header_destroy(&hdr);
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
    topogen_enter(&g);
    cm_status st = read_into(t, path, format);
    if (st != CM_OK) {
        topogen_free(t);
        return topogen_leave(&g, st);
    }
    *out = t;
    return topogen_leave(&g, CM_OK);
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
    topogen_enter(&g);
    cm_topo_format f;
    cm_status st = cm_topo_format_parse(format ? format : "edgelist", 0,
                                        "format", &f);
    if (st != CM_OK)
        return topogen_leave(&g, st);
    if ((f == CM_FORMAT_GRAPHML || f == CM_FORMAT_GML) &&
        topogen_is_directed(t))
        return topogen_leave(&g, cm_error(CM_EINVAL, "format %s: a directed "
                                          "topology is written as an edge "
                                          "list (GraphML and GML would read "
                                          "back as another W)",
                                          f == CM_FORMAT_GML ? "gml"
                                                             : "graphml"));
    if (t->made) {
        /* the settings attribute of GraphML/GML names the format, as
         * `topogen --format F` writes it */
        topogen_config c = t->cfg;
        c.format = f;
        topogen_made m = t->m; /* shares t's arrays: not destroyed */
        if (f != CM_FORMAT_EDGELIST && f != CM_FORMAT_NCOL)
            topogen_settings_line(&c, m.settings, sizeof m.settings);
        st = topogen_made_write(&c, &m, path, f);
        return topogen_leave(&g, st);
    }
    if (t->raw && f == CM_FORMAT_EDGELIST) { /* a directed kind's file */
        cm_afile af = {0};
        FILE *fp = stdout;
        if (strcmp(path, "-") != 0 && (st = cm_atomic_open(&af, path)))
            return topogen_leave(&g, st);
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
        return topogen_leave(&g, st);
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
    return topogen_leave(&g, st);
}

topogen_status topogen_validate(const topogen_topology *t)
{
    if (!t)
        return (topogen_status)cm_error(CM_EINVAL, "topogen_validate: t is "
                                        "NULL");
    if (cm_topo_is_epidemic(topogen_round_of(t, 0)))
        return TOPOGEN_OK; /* drawn per round: nothing fixed to check */
    if (!topogen_is_weighted(t))
        return (topogen_status)cm_error(CM_EINVAL, "topogen_validate: the "
                                        "topology is unweighted "
                                        "(topogen_set_weights)");
    guard g;
    topogen_enter(&g);
    cm_status st;
    if (t->made && !t->cfg.seq) {
        st = cm_topo_validate_slem(&t->m.t, "topology", NULL);
    } else {
        st = cm_topo_seq_validate(t->made ? &t->m.seq : &t->seq, "topology",
                                  NULL);
    }
    return topogen_leave(&g, st);
}

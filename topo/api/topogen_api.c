/* topogen_api.c: libtopogen's public API (topogen.h) over the project's
 * internals: learning goes through topogen_make.c, the code topogen's main
 * runs, so the same settings give the same file; reading through cm_topo_seq
 * (every format and sequences); measures through tg_eval and tg_seq. The
 * options fill a topogen_config directly through the settings schema of
 * topo/make/ (its typed setters and value parsers, the same bounds, checks and
 * messages as the command line), so a kind or objective added there needs
 * nothing here; nothing here prints. Each entry point turns the aborting
 * defaults of GSL and igraph off while it runs (and restores the caller's
 * handlers), and pins OpenBLAS to one thread, as topogen's main does, so that
 * eigensolves give the same bits as the program's. One recursive mutex
 * serialises the entry points (topogen.h, "Threads and signals"); no signal
 * handler is installed: a search stops through the caller's o->stop.
 */
#include "topogen.h"

#include <gsl/gsl_errno.h>
#include <igraph.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_atomic.h"
#include "cm_flags.h"
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
#include "tg_neff.h"
#include "topogen_config.h"
#include "topogen_handle.h"
#include "topogen_make.h"
#include "topogen_settings.h"

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
    for (size_t k = 0; t->words && k < t->n_words; k++)
        free(t->words[k]);
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

/* The words of o->flags (more of topogen's flags, NULL-terminated) walked
 * over the settings schema into c, each value parsed as the command line
 * parses it. The flags that steer the program rather than the graph
 * (eval, compare, plan, -o, --format, --quiet, --help, --version) are
 * refused. */
static cm_status flag_words(const char *const *flags, topogen_config *c)
{
    static const char *const refused[] = {
        "eval", "compare", "plan", "-o", "--output", "--format", "--quiet",
        "-q", "--help", "-h", "--version"};
    size_t count = 0;
    while (flags[count])
        count++;
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
            size_t len = strlen(refused[k]);
            if (strncmp(flags[i], refused[k], len) == 0 &&
                (flags[i][len] == '\0' || flags[i][len] == '='))
                return cm_error(CM_EINVAL, "%s: not an option of the library "
                                "(it writes files through topogen_write)",
                                flags[i]);
        }
    if (count + 1 > (size_t)INT_MAX)
        return cm_error(CM_EINVAL, "too many options");
    /* cm_flags reads an argv: the words from index 1 on */
    char **argv = malloc((count + 2) * sizeof *argv);
    if (!argv)
        return cm_error(CM_ENOMEM, "out of memory");
    argv[0] = (char *)"topogen";
    for (size_t i = 0; i < count; i++)
        argv[i + 1] = (char *)flags[i];
    argv[count + 1] = NULL;
    cm_flag_iter it = {1, NULL, NULL, NULL, NULL};
    cm_status st = CM_OK;
    for (;;) {
        int done = 0;
        st = cm_flags_next(topogen_flag_table(), (int)(count + 1), argv, 0,
                           &it, &done);
        if (st != CM_OK || done)
            break;
        if ((st = topogen_flag_mode_check(it.row, TOPOGEN_GENERATE)) !=
                CM_OK ||
            (st = topogen_setting_parse(c, it.row, it.value)) != CM_OK)
            break;
    }
    free(argv);
    return st;
}

/* The settings of o filled into c: the typed fields through the schema's
 * setters (bounds and messages of the command line), the names (kind,
 * weights, objective, ...) through its value parsers, o->flags word by
 * word; then the checks of the whole config. The strings in c point into
 * o's (copied by the caller into t->words first). */
static cm_status opts_to_config(const topogen_learn_opts *o,
                                topogen_config *c)
{
    if (!o || o->size < offsetof(topogen_learn_opts, no_screen) + sizeof(int))
        return cm_error(CM_EINVAL, "topogen_learn: options not initialized "
                        "(call topogen_learn_opts_init first)");
    topogen_config_default(c);
    c->quiet = 1;
    cm_status st = CM_OK;
    cm_error_clear();
#define SIZE(flag, x)                                                        \
    if (st == CM_OK && (x))                                                  \
        st = topogen_setting_size(c, flag, (size_t)(x));
#define REAL(flag, x)                                                        \
    if (st == CM_OK && (x) != 0.0)                                           \
        st = topogen_setting_real(c, flag, (double)(x));
#define WORD(flag, x)                                                        \
    if (st == CM_OK && (x))                                                  \
        st = topogen_setting_parse(c, topogen_flag_find(flag), x);
    SIZE("-n", o->n)
    SIZE("-d", o->d)
    WORD("--kind", o->kind)
    WORD("--weights", o->weights)
    WORD("--objective", o->objective)
    WORD("--init", o->init)
    WORD("--eigensolver", o->eigensolver)
    if (st == CM_OK)
        c->search.seed = o->seed;
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
        c->search.no_screen = 1;
    if (st == CM_OK &&
        o->size >= offsetof(topogen_learn_opts, flags) + sizeof o->flags &&
        o->flags)
        st = flag_words(o->flags, c);
#undef SIZE
#undef REAL
#undef WORD
    c->n_given = c->d_given = 0; /* typed, not given as on a command line */
    return st == CM_OK ? topogen_config_finish(c) : st;
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
 * made by topo/make/ and written to a scratch file, which becomes t (read
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
    topogen_made m;
    topogen_made_init(&m);
    cm_status st = topogen_make(&c, &m);
    if (st == CM_OK)
        st = topogen_made_write(&c, &m, path, CM_FORMAT_EDGELIST);
    if (st == CM_OK && m.dres.interrupted)
        st = interrupted_error();
    topogen_made_destroy(&m);
    if (st == CM_OK)
        st = slurp(path, &t->raw, &t->raw_len);
    if (st == CM_OK)
        st = read_into(t, path, "edgelist");
    unlink(path);
    return st;
}

/* The undirected kinds through topogen_make, as topogen's generation runs
 * them (--labels of the learned kind: the data term and the header's
 * labels line); a search stopped by the flag is TOPOGEN_EINTR. */
static cm_status learn_made(topogen_topology *t)
{
    topogen_config *c = &t->cfg;
    cm_status st = topogen_make(c, &t->m);
    if (st == CM_OK && t->m.res.interrupted)
        st = interrupted_error();
    c->search.stop = NULL;
    return st;
}

/* A copy of o (*copy) whose strings are t's own (t->words), so that the
 * config made from it outlives the caller's strings. */
static cm_status copy_opts(const topogen_learn_opts *o,
                           topogen_learn_opts *copy, topogen_topology *t)
{
    memset(copy, 0, sizeof *copy);
    if (!o || o->size < offsetof(topogen_learn_opts, no_screen) + sizeof(int))
        return cm_error(CM_EINVAL, "topogen_learn: options not initialized "
                        "(call topogen_learn_opts_init first)");
    memcpy(copy, o, o->size < sizeof *copy ? o->size : sizeof *copy);
    size_t k = 0;
    while (copy->flags && copy->flags[k])
        k++;
    /* words: the flags, NULL, then the five names */
    t->n_words = k + 6;
    t->words = calloc(t->n_words, sizeof *t->words);
    if (!t->words)
        return cm_error(CM_ENOMEM, "out of memory");
    const char **names[] = {&copy->kind, &copy->weights, &copy->objective,
                            &copy->init, &copy->eigensolver};
    for (size_t i = 0; i < k; i++)
        if (!(t->words[i] = strdup(copy->flags[i])))
            return cm_error(CM_ENOMEM, "out of memory");
    for (size_t i = 0; i < 5; i++)
        if (*names[i]) {
            if (!(t->words[k + 1 + i] = strdup(*names[i])))
                return cm_error(CM_ENOMEM, "out of memory");
            *names[i] = t->words[k + 1 + i];
        }
    if (copy->flags)
        copy->flags = (const char *const *)t->words;
    return CM_OK;
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
    topogen_learn_opts copy;
    cm_status st = copy_opts(o, &copy, t);
    if (st == CM_OK)
        st = opts_to_config(&copy, &t->cfg);
    if (st == CM_OK && t->cfg.kind->family == TOPOGEN_FAM_DATA)
        st = cm_error(CM_EINVAL, "--kind %s: built from a data set's labels "
                      "by the topogen program (not in libtopogen yet)",
                      topogen_kind_name(&t->cfg));
    if (st == CM_OK &&
        o->size >= offsetof(topogen_learn_opts, stop) + sizeof o->stop)
        t->cfg.search.stop = (const volatile sig_atomic_t *)o->stop;
    if (st == CM_OK && t->cfg.kind->family == TOPOGEN_FAM_DIRECTED) {
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
    if (t->made && t->cfg.kind->family != TOPOGEN_FAM_SEQ) {
        st = cm_topo_validate_slem(&t->m.t, "topology", NULL);
    } else {
        st = cm_topo_seq_validate(t->made ? &t->m.seq : &t->seq, "topology",
                                  NULL);
    }
    return topogen_leave(&g, st);
}

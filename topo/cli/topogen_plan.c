/* topogen_plan.c: `topogen plan` (see topogen_plan.h). The rows are
 * priced with the library's network model (cm_net: all-reduce schedules
 * as Open MPI 4.1 runs them, a gossip round as the engine posts it) on
 * graphs built here with the same code and seed as the topogen command
 * each row prints; the --results part reads the experiment's CSV logs
 * (steps to the target, final accuracy) and its modelled.tsv (measured
 * compute per step, communication modelled by scripts/reports/modelled.sh).
 */
#include "topogen_plan.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_labels.h"
#include "cm_net.h"
#include "cm_place.h"
#include "cm_rng.h"
#include "tg_dcliques.h"
#include "tg_graph.h"
#include "tg_groups.h"
#include "tg_seq.h"
#include "topogen_json.h"
#include "topogen_make.h"

#define MAX_ROWS 16

typedef struct {
    char name[64];      /* "all-reduce rabenseifner", "gossip learned" */
    char weights[24];   /* the gossip weights ("-" for all-reduce) */
    int allreduce;      /* 1: an all-reduce row */
    double msgs;        /* messages sent per worker per communication */
    double bytes;       /* bytes sent per worker per communication */
    double comm_s;      /* modelled seconds of one communication */
    char train[512];    /* the dpsgd-train command line that runs it */
    char topogen[320];  /* the topogen command of its graph, or "" */
    char note[200];     /* how it was priced, or "" */
} row;

typedef struct {
    const topogen_config *c;
    cm_net net;
    size_t n, d, S;
    double bytes;
    char netarg[200];   /* --net as a shell word */
    row rows[MAX_ROWS];
    size_t nrows;
    char skipped[512];  /* the schedules not defined here, and why */
} plan;

static void skip(plan *p, const char *what)
{
    size_t len = strlen(p->skipped);
    snprintf(p->skipped + len, sizeof p->skipped - len, "%s%s",
             len ? "; " : "", what);
}

/* --net NET as one shell word (quoted when it holds ';') */
static void shell_word(const char *v, char *buf, size_t cap)
{
    if (strpbrk(v, ";& ()|<>$'\""))
        snprintf(buf, cap, "'%s'", v);
    else
        snprintf(buf, cap, "%s", v);
}

static row *add(plan *p, const char *name, const char *weights)
{
    row *r = &p->rows[p->nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->weights, sizeof r->weights, "%s", weights);
    return r;
}

/* libnbc's number of each flat algorithm (coll_libnbc_iallreduce_algorithm) */
static int libnbc_number(cm_net_ar_alg a)
{
    return a == CM_AR_RING ? 1 : a == CM_AR_BINOMIAL ? 2
           : a == CM_AR_RABENSEIFNER ? 3 : a == CM_AR_RDOUBLING ? 4 : 0;
}

static cm_status allreduce_rows(plan *p)
{
    cm_net_ar_alg auto_alg = cm_net_allreduce_openmpi(p->n, p->bytes, 0, 1);
    for (int k = CM_AR_RING; k <= CM_AR_HIER; k++) {
        cm_net_ar_alg a = (cm_net_ar_alg)k;
        if (a == CM_AR_HIER && !(p->S > 1 && p->S < p->n))
            continue;
        cm_net_ar m;
        cm_status st = cm_net_allreduce_model(&p->net, a, p->n, p->S,
                                              p->bytes, &m, NULL, NULL);
        if (st != CM_OK)
            return st;
        char name[64];
        snprintf(name, sizeof name, "all-reduce %s", cm_net_ar_name(a));
        row *r = add(p, name, "-");
        r->allreduce = 1;
        r->msgs = m.msgs_mean;
        r->bytes = m.bytes_mean;
        r->comm_s = m.time_s;
        char mca[96] = "";
        if (libnbc_number(a) && a != auto_alg)
            snprintf(mca, sizeof mca, "mpirun --mca "
                     "coll_libnbc_iallreduce_algorithm %d ... ",
                     libnbc_number(a));
        else if (libnbc_number(a))
            snprintf(mca, sizeof mca, "mpirun ... ");
        snprintf(r->train, sizeof r->train, "%sdpsgd-train --mode allreduce "
                 "--workers %zu --net %s --net-hosts %zu --allreduce %s",
                 mca, p->n, p->netarg, p->S, cm_net_ar_name(a));
        if (a == auto_alg)
            snprintf(r->note, sizeof r->note, "what Open MPI 4.1 runs for "
                     "dpsgd-train's in-place MPI_Iallreduce (auto)");
        else if (a == CM_AR_HIER)
            snprintf(r->note, sizeof r->note, "%s among hosts; priced only: "
                     "Open MPI 4.1's libnbc has no hierarchical "
                     "MPI_Iallreduce", cm_net_ar_name(m.inter));
    }
    return CM_OK;
}

/* A gossip row for the static graph t, placed by `kind` */
static cm_status gossip_row(plan *p, const char *name, const char *weights,
                            const cm_topo *t, cm_place_kind kind,
                            const char *cmd, const char *file,
                            const char *note)
{
    cm_net_eval ev;
    cm_status st = cm_net_eval_placement(&p->net, t, p->n, p->S, kind,
                                         p->bytes, &ev);
    if (st != CM_OK)
        return st;
    row *r = add(p, name, weights);
    r->msgs = 2.0 * (double)t->m / (double)t->n;
    r->bytes = r->msgs * p->bytes;
    r->comm_s = ev.round_s;
    snprintf(r->topogen, sizeof r->topogen, "%s -o %s", cmd, file);
    snprintf(r->train, sizeof r->train, "dpsgd-train --topology %s%s --net "
             "%s --net-hosts %zu", file,
             kind == CM_PLACE_BLOCK ? " --placement block" : "", p->netarg,
             p->S);
    snprintf(r->note, sizeof r->note, "%s", note ? note : "");
    return CM_OK;
}

/* learned (or host-aware with groups) as `topogen` builds it */
static cm_status learned(plan *p, size_t groups, cm_topo *out)
{
    topogen_config c;
    topogen_config_default(&c);
    c.search.n = p->n;
    c.search.d = p->d;
    c.search.seed = p->c->search.seed;
    c.search.groups = groups;
    c.quiet = 1;
    topogen_made m;
    topogen_made_init(&m);
    cm_status st = topogen_make(&c, &m);
    if (st == CM_OK) {
        *out = m.t;
        cm_topo_init(&m.t);
    }
    topogen_made_destroy(&m);
    return st;
}

static cm_status gossip_rows(plan *p, const cm_labels *labels)
{
    char base[160], cmd[320];
    snprintf(base, sizeof base, "topogen -n %zu -d %zu --seed %llu", p->n,
             p->d, (unsigned long long)p->c->search.seed);
    cm_topo t;
    cm_topo_init(&t);
    cm_rng rng;
    cm_status st = CM_OK;
    int one_each = p->S == p->n; /* every worker its own host */
    /* random regular first: with one worker per host every D-regular
     * graph costs the same round, so the learned graphs are priced by it
     * instead of searched */
    cm_topo rr;
    cm_topo_init(&rr);
    cm_rng_seed(&rng, p->c->search.seed, 0);
    st = tg_kind_build(&rr, TG_KIND_RANDOM, p->n, p->d, &rng);
    if (st == CM_OK) {
        if (one_each)
            st = gossip_row(p, "gossip learned", "laplacian", &rr,
                            CM_PLACE_GRAPH, base, "learned.txt",
                            "one worker per host: priced as any D-regular "
                            "graph (not searched here)");
        else if ((st = learned(p, 0, &t)) == CM_OK)
            st = gossip_row(p, "gossip learned", "laplacian", &t,
                            CM_PLACE_GRAPH, base, "learned.txt", NULL);
    }
    if (st == CM_OK && labels) {
        snprintf(cmd, sizeof cmd, "%s --labels %s", base, p->c->labels);
        st = gossip_row(p, "gossip data-aware", "laplacian",
                        one_each ? &rr : &t, CM_PLACE_GRAPH, cmd, "aware.txt",
                        one_each ? "one worker per host: priced as any "
                                   "D-regular graph (not searched here)"
                                 : "priced as the learned graph (same "
                                   "degree; not searched here)");
    }
    if (st == CM_OK) {
        snprintf(cmd, sizeof cmd, "%s --kind random", base);
        st = gossip_row(p, "gossip random regular", "laplacian", &rr,
                        CM_PLACE_GRAPH, cmd, "random.txt", NULL);
    }
    if (st == CM_OK) {
        cm_rng_seed(&rng, p->c->search.seed, 0);
        cm_topo_destroy(&t);
        st = tg_kind_build(&t, TG_KIND_RRL, p->n, p->d, &rng);
        snprintf(cmd, sizeof cmd, "%s --kind rrl", base);
        if (st == CM_OK)
            st = gossip_row(p, "gossip ring lattice", "laplacian", &t,
                            CM_PLACE_GRAPH, cmd, "rrl.txt", NULL);
    }
    if (st == CM_OK && tg_seq_check(TG_SEQ_ONE_PEER_EXP, p->n, 1) != CM_OK)
        skip(p, "one-peer exponential (n not a power of two)");
    else if (st == CM_OK) {
        cm_topo_seq s;
        cm_topo_seq_init(&s);
        st = tg_seq_build(&s, TG_SEQ_ONE_PEER_EXP, p->n, 1);
        double sum = 0;
        for (size_t k = 0; st == CM_OK && k < s.period; k++) {
            cm_net_eval ev;
            st = cm_net_eval_placement(&p->net, &s.round[k], p->n, p->S,
                                       CM_PLACE_BLOCK, p->bytes, &ev);
            sum += ev.round_s;
        }
        if (st == CM_OK) {
            row *r = add(p, "gossip one-peer exponential", "file");
            r->msgs = 1;
            r->bytes = p->bytes;
            r->comm_s = sum / (double)s.period;
            snprintf(r->topogen, sizeof r->topogen, "topogen -n %zu --kind "
                     "one-peer-exp -o ope.txt", p->n);
            snprintf(r->train, sizeof r->train, "dpsgd-train --topology "
                     "ope.txt --net %s --net-hosts %zu", p->netarg, p->S);
            snprintf(r->note, sizeof r->note, "time-varying, %zu rounds: "
                     "the mean round, in blocks", s.period);
        }
        cm_topo_seq_destroy(&s);
    }
    int groups_ok = p->S > 1 && p->S < p->n &&
                    tg_groups_check(p->n, p->d, p->S,
                                    tg_groups_min_cross(p->S)) == CM_OK;
    if (st == CM_OK && p->S > 1 && p->S < p->n && !groups_ok) {
        char why[200];
        snprintf(why, sizeof why, "host-aware (%s)", cm_last_error());
        skip(p, why);
    }
    if (st == CM_OK && groups_ok) {
        cm_topo_destroy(&t);
        snprintf(cmd, sizeof cmd, "%s --groups %zu", base, p->S);
        if ((st = learned(p, p->S, &t)) == CM_OK)
            st = gossip_row(p, "gossip host-aware", "laplacian", &t,
                            CM_PLACE_BLOCK, cmd, "hosts.txt",
                            "learned with at most the fewest edges between "
                            "hosts (groups = hosts, placed in blocks)");
    }
    if (st == CM_OK && labels) {
        tg_dcliques_result res;
        cm_topo_destroy(&t);
        st = tg_dcliques_build(labels, TG_INTER_SMALL_WORLD, 0,
                               p->c->search.seed, 1000 + 20 * p->n, &t, &res);
        if (st == CM_OK) {
            free(res.clique);
            snprintf(cmd, sizeof cmd, "topogen -n %zu --kind dcliques "
                     "--labels %s --seed %llu", p->n, p->c->labels,
                     (unsigned long long)p->c->search.seed);
            st = gossip_row(p, "gossip D-Cliques", "mh", &t, CM_PLACE_GRAPH,
                            cmd, "dcliques.txt", NULL);
        }
    }
    cm_topo_destroy(&rr);
    cm_topo_destroy(&t);
    return st;
}

static int by_time(const void *a, const void *b)
{
    const row *x = a, *y = b;
    return x->comm_s < y->comm_s ? -1 : x->comm_s > y->comm_s;
}

/* ---- --results: the committed experiment, repriced ---- */

typedef struct {
    char dir[96];       /* the experiment directory's name and its
                           --algorithm (n256-d2, --algorithm d2) */
    char key[256];      /* n256-aware-laplacian */
    char part[64];      /* dirichlet-0.1 */
    size_t seeds, reached;
    double steps;       /* mean steps to the target over reached seeds */
    double acc_sum, acc_sq; /* final accuracy sums */
    double t_step;      /* modelled.tsv's seconds per step on --net */
    double t_comp;      /* its measured compute */
    char alg[32];       /* modelled.tsv's all-reduce algorithm, or "" */
} cell;

typedef struct {
    cell *v;
    size_t n, cap;
} cells;

static cell *cell_of(cells *cs, const char *dir, const char *key,
                     const char *part)
{
    for (size_t k = 0; k < cs->n; k++)
        if (!strcmp(cs->v[k].key, key) && !strcmp(cs->v[k].part, part) &&
            !strcmp(cs->v[k].dir, dir))
            return &cs->v[k];
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? 2 * cs->cap : 32;
        cell *v = realloc(cs->v, cap * sizeof *v);
        if (!v)
            return NULL;
        cs->v = v;
        cs->cap = cap;
    }
    cell *c = &cs->v[cs->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->key, sizeof c->key, "%s", key);
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    snprintf(c->part, sizeof c->part, "%s", part);
    c->t_step = NAN;
    return c;
}

/* VALUE of KEY="VALUE" in a grid.env into buf; 0 when absent */
static int env_value(const char *path, const char *key, char *buf,
                     size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[1024];
    size_t kl = strlen(key);
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == '=') {
            char *v = line + kl + 1;
            v[strcspn(v, "\r\n")] = '\0';
            if (*v == '"') {
                v++;
                char *q = strchr(v, '"');
                if (q)
                    *q = '\0';
            }
            snprintf(buf, cap, "%s", v);
            found = 1;
        }
    fclose(f);
    return found;
}

/* One run's CSV: the first step at test_acc >= target (-1: never), the
 * last row's accuracy and epoch. 0 when it cannot be read. */
static int read_run(const char *path, double target, double *step,
                    double *acc, double *epoch)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    int c_step = -1, c_acc = -1, c_epoch = -1, ok = 0;
    *step = -1;
    if (fgets(line, sizeof line, f)) {
        int k = 0;
        for (char *s = line, *e; s; s = e ? e + 1 : NULL, k++) {
            e = strchr(s, ',');
            size_t len = e ? (size_t)(e - s) : strcspn(s, "\r\n");
            if (len == 4 && !strncmp(s, "step", 4))
                c_step = k;
            else if (len == 8 && !strncmp(s, "test_acc", 8))
                c_acc = k;
            else if (len == 5 && !strncmp(s, "epoch", 5))
                c_epoch = k;
        }
    }
    while (c_step >= 0 && c_acc >= 0 && c_epoch >= 0 &&
           fgets(line, sizeof line, f)) {
        double v[3] = {NAN, NAN, NAN};
        int k = 0;
        for (char *s = line, *e; s; s = e ? e + 1 : NULL, k++) {
            e = strchr(s, ',');
            if (k == c_step)
                v[0] = strtod(s, NULL);
            else if (k == c_acc)
                v[1] = strtod(s, NULL);
            else if (k == c_epoch)
                v[2] = strtod(s, NULL);
        }
        if (isnan(v[0]) || isnan(v[1]))
            continue;
        ok = 1;
        if (*step < 0 && v[1] >= target)
            *step = v[0];
        *acc = v[1];
        *epoch = v[2];
    }
    fclose(f);
    return ok;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The experiment directories under dir (dir itself and its
 * subdirectories) whose grid.env says WORKERS=n, sorted; NULL-ended. */
static char **experiment_dirs(const char *dir, size_t n)
{
    size_t cap = 64, k = 0;
    char **v = calloc(cap + 1, sizeof *v);
    DIR *d = opendir(dir);
    if (!v || !d) {
        free(v);
        if (d)
            closedir(d);
        return NULL;
    }
    char want[32], got[64], path[4096];
    snprintf(want, sizeof want, "%zu", n);
    snprintf(path, sizeof path, "%s/grid.env", dir);
    if (env_value(path, "WORKERS", got, sizeof got) && !strcmp(got, want))
        v[k++] = strdup(dir);
    for (struct dirent *e; (e = readdir(d)) && k < cap;) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/grid.env", dir, e->d_name);
        if (env_value(path, "WORKERS", got, sizeof got) &&
            !strcmp(got, want)) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            v[k++] = strdup(path);
        }
    }
    closedir(d);
    qsort(v, k, sizeof *v, by_name);
    return v;
}

/* Reads one experiment directory's runs and modelled.tsv into cs. */
static void read_experiment(const plan *p, const char *dir, cells *cs,
                            int *old_model)
{
    char path[4096], epochs_s[32] = "0";
    snprintf(path, sizeof path, "%s/grid.env", dir);
    env_value(path, "EPOCHS", epochs_s, sizeof epochs_s);
    double epochs = strtod(epochs_s, NULL);
    snprintf(path, sizeof path, "%s/runs", dir);
    DIR *d = opendir(path);
    if (!d)
        return;
    const char *b = strrchr(dir, '/');
    b = b && b[1] ? b + 1 : dir;
    char base[96], args[512] = "";
    snprintf(path, sizeof path, "%s/grid.env", dir);
    env_value(path, "TRAIN_ARGS", args, sizeof args);
    const char *alg = strstr(args, "--algorithm ");
    if (alg)
        snprintf(base, sizeof base, "%.40s, --algorithm %.*s", b,
                 (int)strcspn(alg + 12, " "), alg + 12);
    else
        snprintf(base, sizeof base, "%.40s", b);
    size_t first = cs->n; /* this directory's cells start here */
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 8 || strcmp(e->d_name + len - 4, ".csv"))
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len - 4), e->d_name);
        char *seed = strrchr(name, '-'); /* -s<seed> */
        if (!seed || seed[1] != 's')
            continue;
        *seed = '\0';
        /* key: the first three '-' fields; the partition: the rest */
        char *q = name;
        for (int f = 0; f < 3 && q; f++)
            q = strchr(q + (f ? 1 : 0), '-');
        if (!q)
            continue;
        *q = '\0';
        double step, acc = NAN, epoch = 0;
        snprintf(path, sizeof path, "%s/runs/%s", dir, e->d_name);
        if (!read_run(path, p->c->target, &step, &acc, &epoch) ||
            epoch + 1e-9 < epochs)
            continue; /* unreadable or not complete */
        cell *c = cell_of(cs, base, name, q + 1);
        if (!c)
            continue;
        c->seeds++;
        c->acc_sum += acc;
        c->acc_sq += acc * acc;
        if (step >= 0) {
            c->steps += step;
            c->reached++;
        }
    }
    closedir(d);
    snprintf(path, sizeof path, "%s/modelled.tsv", dir);
    FILE *f = fopen(path, "r");
    char line[2048];
    double comp = NAN;
    int header = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *s = strstr(line, " s_per_step=");
        if (line[0] == '#') {
            if (s && !strncmp(line, "# compute ", 10))
                comp = strtod(s + 12, NULL);
            if (!strncmp(line, "# allreduce priced as ", 22))
                header = 1;
            continue;
        }
        char key[160], net[64], alg[32] = "";
        double tc, tm, ts;
        if (sscanf(line, "%159s %63s %lf %lf %lf %31s", key, net, &tc, &tm,
                   &ts, alg) < 5 || strcmp(net, p->net.name))
            continue;
        for (size_t k = first; k < cs->n; k++)
            if (!strcmp(cs->v[k].key, key)) {
                cs->v[k].t_step = ts;
                cs->v[k].t_comp = tc;
                snprintf(cs->v[k].alg, sizeof cs->v[k].alg, "%s", alg);
            }
    }
    if (f)
        fclose(f);
    (void)comp;
    if (f && !header)
        *old_model = 1;
}

typedef struct {
    const cell *c;
    char setting[256];  /* the key without n<N>- and the algorithm */
    double seconds;     /* modelled seconds to the target (NAN: not
                           reached by every seed or not modelled) */
} result_row;

static int by_result(const void *a, const void *b)
{
    const result_row *x = a, *y = b;
    int pc = strcmp(x->c->part, y->c->part);
    if (pc)
        return pc;
    double u = isnan(x->seconds) ? INFINITY : x->seconds;
    double v = isnan(y->seconds) ? INFINITY : y->seconds;
    return u < v ? -1 : u > v;
}

/* --results: the rows into *out (caller frees), *count; the directories
 * read into dirs_text. CM_EINVAL when no experiment of N workers. */
static cm_status results(const plan *p, cells *cs_out, result_row **out,
                         size_t *count, char *dirs_text, size_t cap,
                         int *old_model)
{
    *out = NULL;
    *count = 0;
    char **dirs = experiment_dirs(p->c->results, p->n);
    if (!dirs || !dirs[0]) {
        for (size_t k = 0; dirs && dirs[k]; k++)
            free(dirs[k]);
        free(dirs);
        return cm_error(CM_EINVAL, "--results %s: no experiment of %zu "
                        "workers (a directory with grid.env WORKERS=\"%zu\" "
                        "and runs/, itself or one level down)",
                        p->c->results, p->n, p->n);
    }
    cells cs = {0};
    dirs_text[0] = '\0';
    for (size_t k = 0; dirs[k]; k++) {
        size_t len = strlen(dirs_text);
        snprintf(dirs_text + len, cap - len, "%s%s", k ? ", " : "", dirs[k]);
        read_experiment(p, dirs[k], &cs, old_model);
        free(dirs[k]);
    }
    free(dirs);
    /* every cell; an all-reduce cell three times: as modelled.tsv priced
     * it (auto), the cheapest algorithm, and the ring of the old model */
    result_row *v = calloc(3 * cs.n + 1, sizeof *v);
    if (!v) {
        free(cs.v);
        return cm_error(CM_ENOMEM, "out of memory");
    }
    size_t m = 0;
    for (size_t k = 0; k < cs.n; k++) {
        cell *c = &cs.v[k];
        if (c->reached)
            c->steps /= (double)c->reached;
        const char *s = strchr(c->key, '-');
        s = s ? s + 1 : c->key;
        int ar = !strncmp(s, "allreduce-", 10);
        for (int a = 0; a < (ar ? 3 : 1); a++) {
            result_row *r = &v[m++];
            r->c = c;
            double t = c->t_step;
            if (ar) {
                cm_net_ar_alg alg = a == 0 ? CM_AR_AUTO
                                    : a == 1 ? CM_AR_BEST : CM_AR_RING;
                cm_net_ar am;
                cm_net_allreduce_model(&p->net, alg, p->n, p->n, p->bytes,
                                       &am, NULL, NULL);
                t = isnan(c->t_step) ? NAN : c->t_comp + am.time_s;
                snprintf(r->setting, sizeof r->setting, "all-reduce, %s "
                         "(%s)", cm_net_ar_name(am.alg),
                         a == 0 ? "auto" : a == 1 ? "best"
                                : "ring: the old model");
            } else {
                snprintf(r->setting, sizeof r->setting, "%s", s);
            }
            size_t len = strlen(r->setting);
            snprintf(r->setting + len, sizeof r->setting - len, " [%s]",
                     c->dir);
            r->seconds = c->reached ? c->steps * t : NAN;
        }
    }
    qsort(v, m, sizeof *v, by_result);
    *out = v;
    *count = m;
    *cs_out = cs; /* the rows point into it */
    return CM_OK;
}

static void acc_stats(const cell *c, double *mean, double *sd)
{
    double k = (double)c->seeds;
    *mean = c->acc_sum / k;
    double var = c->seeds > 1 ? (c->acc_sq - k * *mean * *mean) / (k - 1)
                              : 0.0;
    *sd = var > 0 ? sqrt(var) : 0.0;
}

static const char *RESTS_ON =
    "ranked by the modelled time of one communication (src/cm_net.h: "
    "alpha-beta links, all-reduce as Open MPI 4.1 runs it, a gossip round "
    "with its sends posted together); the model does not know how many "
    "steps a schedule needs to reach an accuracy: only the measured runs "
    "of --results say that, for the settings they ran";

int topogen_plan(topogen_config *c)
{
    plan p;
    memset(&p, 0, sizeof p);
    p.c = c;
    p.n = c->search.n;
    p.d = c->search.d;
    p.S = c->hosts ? c->hosts : p.n;
    p.bytes = 4.0 * (double)(c->params ? c->params : 61706);
    shell_word(c->net, p.netarg, sizeof p.netarg);
    cm_status st = cm_net_parse(c->net, &p.net);
    cm_labels labels;
    cm_labels_init(&labels);
    int usage = 0;
    if (st == CM_OK && c->labels) {
        st = cm_labels_read(&labels, c->labels);
        if (st == CM_OK && labels.n != p.n) {
            usage = 1;
            st = cm_error(CM_EINVAL, "--labels %s: %zu workers, not -n %zu",
                          c->labels, labels.n, p.n);
        }
    }
    if (st == CM_OK)
        st = allreduce_rows(&p);
    if (st == CM_OK)
        st = gossip_rows(&p, c->labels ? &labels : NULL);
    result_row *res = NULL;
    size_t nres = 0;
    char dirs[2048] = "";
    int old_model = 0;
    cells cs = {0};
    if (st == CM_OK && c->results) {
        st = results(&p, &cs, &res, &nres, dirs, sizeof dirs, &old_model);
        usage = st == CM_EINVAL;
    }
    cm_labels_destroy(&labels);
    if (st != CM_OK) {
        fprintf(stderr, "topogen: plan: %s\n", cm_last_error());
        free(res);
        free(cs.v);
        return usage ? EXIT_USAGE : EXIT_FAILURE;
    }
    qsort(p.rows, p.nrows, sizeof *p.rows, by_time);
    static const double HS[3] = {1, 4, 16};
    char d[160];
    cm_net_describe(&p.net, d, sizeof d);
    int rc = EXIT_SUCCESS;
    if (c->json) {
        int bad = 0;
        json_t *o = json_object(), *rows = json_array();
        topogen_json_int(o, "n", p.n, &bad);
        topogen_json_int(o, "degree", p.d, &bad);
        topogen_json_str(o, "net", d, &bad);
        topogen_json_int(o, "hosts", p.S, &bad);
        topogen_json_num(o, "array_bytes", p.bytes, &bad);
        topogen_json_str(o, "ranking_rests_on", RESTS_ON, &bad);
        topogen_json_str(o, "not_ranked", p.skipped, &bad);
        for (size_t k = 0; k < p.nrows; k++) {
            const row *r = &p.rows[k];
            json_t *j = json_object(), *h = json_object();
            topogen_json_int(j, "rank", k + 1, &bad);
            topogen_json_str(j, "schedule", r->name, &bad);
            topogen_json_str(j, "weights", r->weights, &bad);
            topogen_json_num(j, "messages_per_worker", r->msgs, &bad);
            topogen_json_num(j, "bytes_per_worker", r->bytes, &bad);
            topogen_json_num(j, "ms_per_communication", r->comm_s * 1e3,
                             &bad);
            for (int k2 = 0; k2 < 3; k2++) {
                char key[16];
                snprintf(key, sizeof key, "%d", (int)HS[k2]);
                topogen_json_num(h, key, r->comm_s * 1e3 / HS[k2], &bad);
            }
            topogen_json_set(j, "ms_per_step_by_local_steps", h, &bad);
            topogen_json_str(j, "dpsgd_train", r->train, &bad);
            topogen_json_str(j, "topogen", r->topogen, &bad);
            topogen_json_str(j, "note", r->note, &bad);
            if (json_array_append_new(rows, j))
                bad = 1;
        }
        topogen_json_set(o, "rows", rows, &bad);
        if (c->results) {
            json_t *ra = json_array();
            topogen_json_str(o, "results_dirs", dirs, &bad);
            topogen_json_num(o, "target", c->target, &bad);
            for (size_t k = 0; k < nres; k++) {
                const result_row *r = &res[k];
                double mean, sd;
                acc_stats(r->c, &mean, &sd);
                json_t *j = json_object();
                topogen_json_str(j, "setting", r->setting, &bad);
                topogen_json_str(j, "partition", r->c->part, &bad);
                topogen_json_int(j, "seeds", r->c->seeds, &bad);
                topogen_json_int(j, "reached", r->c->reached, &bad);
                topogen_json_num(j, "steps_to_target", r->c->reached
                                 ? r->c->steps : NAN, &bad);
                topogen_json_num(j, "modelled_s_to_target", r->seconds, &bad);
                topogen_json_num(j, "final_acc_mean", mean, &bad);
                topogen_json_num(j, "final_acc_std", sd, &bad);
                if (json_array_append_new(ra, j))
                    bad = 1;
            }
            topogen_json_set(o, "results", ra, &bad);
        }
        if (topogen_json_print(o, bad))
            rc = EXIT_FAILURE;
    } else {
        printf("# topogen plan: %zu workers, one per rank, on %zu host%s "
               "(ranks in blocks), arrays of %.0f bytes, degree %zu; net %s\n"
               "# per step: the communication's time / H for H local steps "
               "between communications (compute not included)\n",
               p.n, p.S, p.S == 1 ? "" : "s", p.bytes, p.d, d);
        printf("%-4s %-29s %-9s %9s %10s %11s %11s %11s %11s\n", "rank",
               "schedule", "weights", "msgs/wkr", "MB/wkr", "ms/comm",
               "ms/step H1", "H4", "H16");
        for (size_t k = 0; k < p.nrows; k++) {
            const row *r = &p.rows[k];
            printf("%-4zu %-29s %-9s %9.3g %10.4g %11.5g %11.5g %11.5g "
                   "%11.5g\n", k + 1, r->name, r->weights, r->msgs,
                   r->bytes / 1e6, r->comm_s * 1e3, r->comm_s * 1e3,
                   r->comm_s * 1e3 / 4, r->comm_s * 1e3 / 16);
            printf("       run: %s\n", r->train);
            if (r->topogen[0])
                printf("       graph: %s\n", r->topogen);
            if (r->note[0])
                printf("       note: %s\n", r->note);
        }
        if (p.skipped[0])
            printf("# not ranked: %s\n", p.skipped);
        printf("# %s\n", RESTS_ON);
        if (c->results) {
            printf("\n# --results %s: steps to test accuracy %g (mean over "
                   "the seeds that reached it) x (measured compute + "
                   "modelled communication per step on %s, every worker on "
                   "its own host; modelled.tsv)%s\n", dirs, c->target,
                   p.net.name, old_model
                       ? "; NOTE: a modelled.tsv there predates this model "
                         "(no '# allreduce priced as' line): its gossip "
                         "rows are the old model's; rerun scripts/reports/modelled.sh"
                       : "");
            printf("%-14s %-58s %7s %6s %10s %s\n", "partition", "setting",
                   "reached", "steps", "modelled s", "final acc (seeds)");
            for (size_t k = 0; k < nres; k++) {
                const result_row *r = &res[k];
                double mean, sd;
                acc_stats(r->c, &mean, &sd);
                char steps[32] = "-", secs[32] = "-";
                if (r->c->reached)
                    snprintf(steps, sizeof steps, "%.0f", r->c->steps);
                if (!isnan(r->seconds))
                    snprintf(secs, sizeof secs, "%.4g", r->seconds);
                printf("%-14s %-58s %3zu/%-3zu %6s %10s %.2f%% +- %.2f "
                       "(%zu)\n", r->c->part, r->setting, r->c->reached,
                       r->c->seeds, steps, secs, 100 * mean, 100 * sd,
                       r->c->seeds);
            }
            printf("# [DIR]: the experiment directory; steps: the mean over "
                   "the seeds that reached %g (reached/seeds); '-': none "
                   "did, or no modelled.tsv row for %s\n", c->target,
                   p.net.name);
        }
        if (fflush(stdout) != 0) {
            fprintf(stderr, "topogen: write error on standard output\n");
            rc = EXIT_FAILURE;
        }
    }
    free(res);
    free(cs.v);
    return rc;
}

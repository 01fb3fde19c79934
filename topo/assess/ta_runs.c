/* ta_runs.c: the experiment reader (see ta_runs.h). One walk over the
 * tree finds the experiments (a folder with runs/ of CSVs, a folder of
 * CSVs with their summary JSONs, or a per-run.tsv alone); each run's
 * schedule is read from the most explicit file there is (summary JSON,
 * NAME.settings, grid.env, the log's "final:" line, the name). The CSV is
 * checked field by field, so a corrupt log is refused with its file and
 * line rather than read as a run that never reached the target.
 */
#include "ta_runs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ta_sched.h"

#define MAX_DEPTH 4
#define PER_RUN_HEAD "setting\tseed\ttopology\tfinal_acc\tsteps_to_85\t"

void ta_runs_init(ta_runs *r)
{
    memset(r, 0, sizeof *r);
}

void ta_runs_destroy(ta_runs *r)
{
    if (!r)
        return;
    free(r->v);
    memset(r, 0, sizeof *r);
}

double ta_runs_rate(const ta_runs *r, const char *model, size_t b)
{
    double best = 0;
    size_t gap = (size_t)-1;
    for (size_t k = 0; model && k < r->nbench; k++) {
        if (strcmp(r->bench[k].model, model))
            continue;
        size_t g = r->bench[k].batch > b ? r->bench[k].batch - b
                                         : b - r->bench[k].batch;
        if (g < gap) {
            gap = g;
            best = r->bench[k].images_per_s;
        }
    }
    return best;
}

/* ---- the CSV log ---- */

/* a whole field as a number (nan allowed); 0 when it is not one */
static int field_num(const char *s, size_t len, double *v)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    *v = strtod(buf, &end);
    return *end == '\0';
}

/* Reads one run CSV into run (steps at target, final accuracy, steps per
 * epoch). CM_EFORMAT naming path:line. */
static cm_status read_csv(const char *path, double target, ta_run *run)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cm_error(CM_EIO, "%s: cannot open: %s", path, strerror(errno));
    char line[8192];
    int c_step = -1, c_acc = -1, c_epoch = -1, nf = 0;
    cm_status st = CM_OK;
    size_t lineno = 1, rows = 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return cm_error(CM_EFORMAT, "%s: empty (not a dpsgd-train log)",
                        path);
    }
    for (char *s = line, *e; s; s = e ? e + 1 : NULL, nf++) {
        e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strcspn(s, "\r\n");
        if (len == 4 && !strncmp(s, "step", 4))
            c_step = nf;
        else if (len == 8 && !strncmp(s, "test_acc", 8))
            c_acc = nf;
        else if (len == 5 && !strncmp(s, "epoch", 5))
            c_epoch = nf;
    }
    if (c_step < 0 || c_acc < 0 || c_epoch < 0) {
        fclose(f);
        return cm_error(CM_EFORMAT, "%s:1: not a dpsgd-train log (no epoch, "
                        "step and test_acc columns)", path);
    }
    run->steps = run->steps_fit = -1;
    run->final_acc = NAN;
    double last_step = 0, last_epoch = 0, prev_acc = NAN;
    while (st == CM_OK && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[strcspn(line, "\r\n")] == '\0' && !line[0])
            continue;
        if (line[0] == '\n' || line[0] == '\r')
            continue;
        if (!strchr(line, '\n') && !feof(f)) {
            st = cm_error(CM_EFORMAT, "%s:%zu: line too long", path, lineno);
            break;
        }
        double v[3] = {NAN, NAN, NAN};
        int k = 0, got = 0;
        for (char *s = line, *e; s; s = e ? e + 1 : NULL, k++) {
            e = strchr(s, ',');
            size_t len = e ? (size_t)(e - s) : strcspn(s, "\r\n");
            int which = k == c_step ? 0 : k == c_acc ? 1 : k == c_epoch ? 2
                                                                     : -1;
            if (which >= 0) {
                if (!field_num(s, len, &v[which])) {
                    st = cm_error(CM_EFORMAT, "%s:%zu: field %d ('%.*s') is "
                                  "not a number", path, lineno, k + 1,
                                  (int)(len > 20 ? 20 : len), s);
                    break;
                }
                got++;
            }
        }
        if (st != CM_OK)
            break;
        if (k != nf || got != 3) {
            st = cm_error(CM_EFORMAT, "%s:%zu: %d fields, the header has %d",
                          path, lineno, k, nf);
            break;
        }
        if (!isfinite(v[0]) || v[0] < 0 || !isfinite(v[2]) || v[2] < 0) {
            st = cm_error(CM_EFORMAT, "%s:%zu: step or epoch is not a "
                          "number >= 0", path, lineno);
            break;
        }
        rows++;
        if (run->steps < 0 && v[1] >= target) {
            run->steps = run->steps_fit = v[0];
            /* between the evaluation below the target and this one */
            if (rows > 1 && prev_acc < target && v[0] > last_step)
                run->steps_fit = last_step + (v[0] - last_step) *
                                                 (target - prev_acc) /
                                                 (v[1] - prev_acc);
        }
        prev_acc = v[1];
        run->final_acc = v[1];
        last_step = v[0];
        last_epoch = v[2];
    }
    fclose(f);
    if (st != CM_OK)
        return st;
    if (!rows)
        return cm_error(CM_EFORMAT, "%s: a header and no evaluation", path);
    if (isnan(run->final_acc))
        run->diverged = 1;
    run->steps_per_epoch = last_epoch > 0 ? last_step / last_epoch : 0;
    run->steps_run = last_step;
    if (run->s.epochs <= 0)
        run->s.epochs = last_epoch;
    run->complete = run->steps >= 0 || run->diverged ||
                    last_epoch + 1e-6 >= run->s.epochs;
    return CM_OK;
}

/* ---- modelled.tsv and the benches ---- */

void ta_runs_keep_model(ta_runs *r, size_t params)
{
    size_t kept = 0;
    for (size_t k = 0; k < r->n; k++)
        if (ta_sched_params(&r->v[k].s) == params)
            r->v[kept++] = r->v[k];
        else
            r->st.other_model++;
    r->n = kept;
}

/* A bench of a model at a batch: bench.txt (a dedicated measurement,
 * over) replaces a modelled.tsv compute line; among equals the later read
 * is kept. */
static void add_bench(ta_runs *r, const char *model, size_t batch,
                      double rate, int dedicated)
{
    if (!(rate > 0) || !batch)
        return;
    for (size_t k = 0; k < r->nbench; k++)
        if (r->bench[k].batch == batch && !strcmp(r->bench[k].model, model)) {
            if (dedicated || !r->bench[k].dedicated) {
                r->bench[k].images_per_s = rate;
                r->bench[k].dedicated = dedicated;
            }
            return;
        }
    if (r->nbench == sizeof r->bench / sizeof *r->bench)
        return;
    ta_fmt(r->bench[r->nbench].model, sizeof r->bench[r->nbench].model,
           "%s", model);
    r->bench[r->nbench].dedicated = dedicated;
    r->bench[r->nbench].batch = batch;
    r->bench[r->nbench++].images_per_s = rate;
}

static cm_status read_modelled(ta_runs *r, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return CM_OK;
    char line[2048];
    size_t lineno = 0;
    cm_status st = CM_OK;
    while (st == CM_OK && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#') {
            const char *b = strstr(line, " batch="), *c = strstr(line, "cpu ");
            size_t batch;
            char model[8];
            const char *bl = strstr(line, "bench ");
            if (bl && c &&
                sscanf(bl, "bench %7s batch %zu:", model, &batch) == 2)
                add_bench(r, model, batch, strtod(c + 4, NULL), 0);
            else if (!strncmp(line, "# compute ", 10) && b && c) {
                /* model=M (LeNet's before the key) */
                const char *m = strstr(line, " model=");
                if (!m || sscanf(m, " model=%7[a-z0-9]", model) != 1)
                    ta_fmt(model, sizeof model, "lenet");
                add_bench(r, model, strtoul(b + 7, NULL, 10),
                          strtod(c + 4, NULL), 0);
            }
            continue;
        }
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        char key[256], net[64], alg[64], extra[8];
        double t[3];
        int k = sscanf(line, "%255s %63s %lf %lf %lf %63s %7s", key, net,
                       &t[0], &t[1], &t[2], alg, extra);
        /* the pilots' form: one "KEY VALUE" per line */
        int kv = sscanf(line, "%255s %lf %7s", key, &t[0], extra) == 2 &&
                 t[0] >= 0;
        if (!kv && (k < 5 || k > 6 || !(t[0] >= 0) || !(t[1] >= 0) ||
                    !(t[2] >= 0)))
            st = cm_error(CM_EFORMAT, "%s:%zu: not 'SETTING NET T_COMPUTE "
                          "T_COMM T_STEP [ALG]' with times >= 0 (nor 'KEY "
                          "SECONDS')", path, lineno);
    }
    fclose(f);
    return st;
}

static void read_bench(ta_runs *r, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    size_t batch;
    char model[8];
    while (fgets(line, sizeof line, f)) {
        const char *c = strstr(line, "  cpu ");
        if (sscanf(line, "bench %7s batch %zu:", model, &batch) == 2 && c)
            add_bench(r, model, batch, strtod(c + 6, NULL), 1);
    }
    fclose(f);
}

/* ---- one experiment ---- */

static ta_run *push(ta_runs *r)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        ta_run *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return NULL;
        r->v = v;
        r->cap = cap;
    }
    ta_run *x = &r->v[r->n++];
    memset(x, 0, sizeof *x);
    x->s.alg = TA_ALG_DPSGD;
    ta_fmt(x->s.graph, sizeof x->s.graph, "?");
    ta_fmt(x->s.weights, sizeof x->s.weights, "laplacian");
    x->s.H = 1;
    x->s.compress = 1;
    x->s.warmup = NAN; /* unknown unless the summary JSON says */
    x->s.slem = NAN;
    x->s.lr = 0.05;
    return x;
}

/* keeps the later of two runs of one schedule and seed */
static void dedupe(ta_runs *r)
{
    ta_run *x = &r->v[r->n - 1];
    for (size_t k = 0; k + 1 < r->n; k++)
        if (r->v[k].seed == x->seed && ta_sched_same(&r->v[k].s, &x->s)) {
            r->v[k] = *x;
            r->n--;
            r->st.duplicates++;
            return;
        }
}

/* The summary JSON of another seed of setting in rdir (SETTING-sK.json,
 * K = 1..99), into path; 0 when none. */
static int sibling_json(const char *rdir, const char *setting, char *path,
                        size_t cap)
{
    for (unsigned k = 1; k < 100; k++) {
        ta_fmt(path, cap, "%s/%s-s%u.json", rdir, setting, k);
        if (ta_is_file(path))
            return 1;
    }
    return 0;
}

static cm_status read_run(ta_runs *r, const char *exp, const char *rdir,
                          const char *file, double target)
{
    char name[256], path[4096];
    ta_fmt(name, sizeof name, "%.*s", (int)(strlen(file) - 4), file);
    ta_run *x = push(r);
    if (!x)
        return cm_error(CM_ENOMEM, "out of memory");
    ta_fmt(x->exp, sizeof x->exp, "%s", exp);
    /* the setting: the name without -sSEED */
    char *sd = strrchr(name, '-');
    if (sd && sd[1] == 's' && isdigit((unsigned char)sd[2])) {
        x->seed = (unsigned)strtoul(sd + 2, NULL, 10);
        ta_fmt(x->setting, sizeof x->setting, "%.*s", (int)(sd - name),
                 name);
    } else
        ta_fmt(x->setting, sizeof x->setting, "%s", name);
    int known = 0;
    ta_fmt(path, sizeof path, "%s/grid.env", exp);
    ta_sched_from_env(path, exp, &x->s, &x->seed, &known);
    ta_fmt(path, sizeof path, "%s/grid.env", rdir);
    ta_sched_from_env(path, exp, &x->s, &x->seed, &known);
    ta_sched_from_name(x->setting, &x->s, &known);
    ta_fmt(path, sizeof path, "%s/%s.settings", rdir, name);
    if (ta_is_file(path)) {
        /* the grid's names: nN-SETTING-WEIGHTS-PARTITION */
        ta_sched_from_env(path, exp, &x->s, &x->seed, &known);
        char *p = strstr(x->setting, x->s.partition);
        char part[40];
        ta_fmt(part, sizeof part, "%s", x->s.partition);
        for (char *q = part; *q; q++)
            if (*q == ':')
                *q = '-';
        if (!p && (p = strstr(x->setting, part)) && p > x->setting)
            p[-1] = '\0';
    }
    ta_fmt(path, sizeof path, "%s/logs/%s.log", exp, name);
    ta_sched_from_log(path, &x->s, &known);
    if (!strcmp(x->s.graph, "?") && known) {
        /* one graph beside the runs (the algorithms experiments) */
        ta_fmt(path, sizeof path, "%s/learned-n%zu.txt", exp, x->s.n);
        if (ta_is_file(path))
            ta_sched_from_topology(path, &x->s);
    }
    ta_fmt(path, sizeof path, "%s/%s.json", rdir, name);
    if (ta_sched_from_json(path, exp, &x->s, &x->seed))
        known = 1;
    else if (sd && sd[1] == 's' && sibling_json(rdir, x->setting, path,
                                                sizeof path)) {
        /* a run that failed writes no summary: its setting's from another
         * seed's (the same flags but --seed), so a diverged seed counts
         * against its setting instead of being left out */
        unsigned own = x->seed;
        if (ta_sched_from_json(path, exp, &x->s, &x->seed))
            known = 1;
        x->seed = own;
    }
    ta_fmt(path, sizeof path, "%s/%s.failed", rdir, name);
    if (ta_is_file(path))
        x->diverged = 1;
    ta_fmt(path, sizeof path, "%s/%s", rdir, file);
    cm_status st = read_csv(path, target, x);
    if (st != CM_OK)
        return st;
    r->st.csv++;
    if (!x->s.batch && x->s.n && x->steps_per_epoch > 0)
        x->s.batch = (size_t)floor(60000.0 / ((double)x->s.n *
                                              x->steps_per_epoch) + 0.5);
    if (!strcmp(x->s.graph, "opexp")) {
        x->s.slem = 0; /* exact after log2 n rounds: its own feature */
        ta_fmt(x->s.weights, sizeof x->s.weights, "own");
    }
    if (!known || !x->s.n || !x->s.batch || !x->s.partition[0] ||
        !strcmp(x->s.graph, "?")) {
        r->st.unknown++;
        r->n--;
        return CM_OK;
    }
    if (!x->complete) {
        r->st.incomplete++;
        r->n--;
        return CM_OK;
    }
    dedupe(r);
    return CM_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the sorted names in dir ending in ext (NULL-ended; caller frees) */
static char **list(const char *dir, const char *ext, int dirs)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t n = 0, cap = 64;
    char **v = calloc(cap + 1, sizeof *v);
    char path[4096];
    for (struct dirent *e; v && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        ta_fmt(path, sizeof path, "%s/%s", dir, e->d_name);
        if (dirs ? !ta_is_dir(path)
                 : len <= strlen(ext) ||
                   strcmp(e->d_name + len - strlen(ext), ext) ||
                   !ta_is_file(path))
            continue;
        if (n == cap) {
            char **w = realloc(v, (2 * cap + 1) * sizeof *v);
            if (!w)
                break;
            v = w;
            cap *= 2;
        }
        v[n++] = strdup(e->d_name);
        v[n] = NULL;
    }
    closedir(d);
    if (v)
        qsort(v, n, sizeof *v, by_name);
    return v;
}

static void list_free(char **v)
{
    for (size_t k = 0; v && v[k]; k++)
        free(v[k]);
    free(v);
}

/* a CSV whose first line is a dpsgd-train log's header */
static int is_log(const char *dir, const char *file)
{
    char path[4096], line[64] = "";
    ta_fmt(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(line, sizeof line, f) && !strncmp(line, "epoch,step,", 11);
    fclose(f);
    return ok;
}

/* per-run.tsv alone (no run CSVs): the settings by name, n, batch and
 * partition from grid.env */
static cm_status read_per_run(ta_runs *r, const char *exp, double target)
{
    char path[4096], line[4096];
    ta_fmt(path, sizeof path, "%s/per-run.tsv", exp);
    if (fabs(target - 0.85) > 1e-9)
        return cm_error(CM_EINVAL, "%s: a per-run.tsv without its run CSVs "
                        "holds steps to 85%% only, not to --target %g",
                        path, target);
    FILE *f = fopen(path, "r");
    if (!f)
        return cm_error(CM_EIO, "%s: cannot open", path);
    cm_status st = CM_OK;
    if (!fgets(line, sizeof line, f) ||
        strncmp(line, PER_RUN_HEAD, strlen(PER_RUN_HEAD)))
        st = cm_error(CM_EFORMAT, "%s:1: not a per-run.tsv (setting, seed, "
                      "topology, final_acc, steps_to_85 columns)", path);
    size_t lineno = 1;
    while (st == CM_OK && fgets(line, sizeof line, f)) {
        lineno++;
        char set[96], topo[96], steps[32];
        unsigned seed;
        double acc;
        if (sscanf(line, "%95s %u %95s %lf %31s", set, &seed, topo, &acc,
                   steps) != 5) {
            st = cm_error(CM_EFORMAT, "%s:%zu: not SETTING SEED TOPOLOGY "
                          "FINAL_ACC STEPS", path, lineno);
            break;
        }
        ta_run *x = push(r);
        if (!x) {
            st = cm_error(CM_ENOMEM, "out of memory");
            break;
        }
        ta_fmt(x->exp, sizeof x->exp, "%s", exp);
        ta_fmt(x->setting, sizeof x->setting, "%s", set);
        x->seed = seed;
        int known = 0;
        ta_fmt(path, sizeof path, "%s/grid.env", exp);
        ta_sched_from_env(path, exp, &x->s, &x->seed, &known);
        x->seed = seed;
        known = 0;
        ta_sched_from_name(set, &x->s, &known);
        if (strcmp(topo, "-"))
            ta_sched_topology_of(exp, topo, &x->s);
        x->final_acc = acc;
        x->steps = strcmp(steps, "never") ? strtod(steps, NULL) : -1;
        x->steps_fit = x->steps; /* no evaluations: the table's step */
        x->steps_run = -1;       /* unknown: the epochs bound it */
        x->complete = 1;
        r->st.per_run++;
        if (!known || !x->s.n || !x->s.batch || !x->s.partition[0]) {
            r->st.unknown++;
            r->n--;
        }
    }
    fclose(f);
    return st;
}

/* A folder holding a file PLAN_SKIP is not an experiment, nor are its
 * subfolders: e.g. data/results-slow-network/smpi/, the same runs re-timed
 * by SMPI, whose probes are dpsgd-train logs of a few steps and whose
 * per-run.tsv has other columns. */
#define PLAN_SKIP ".plan-skip"

static cm_status walk(ta_runs *r, const char *dir, double target, int depth)
{
    char path[4096];
    cm_status st = CM_OK;
    ta_fmt(path, sizeof path, "%s/" PLAN_SKIP, dir);
    if (ta_is_file(path))
        return CM_OK;
    ta_fmt(path, sizeof path, "%s/bench.txt", dir); /* any folder's */
    read_bench(r, path);
    ta_fmt(path, sizeof path, "%s/runs", dir);
    const char *rdir = NULL;
    char **csv = NULL;
    if (ta_is_dir(path) && (csv = list(path, ".csv", 0)) && csv[0])
        rdir = path;
    else {
        list_free(csv);
        csv = list(dir, ".csv", 0);
        size_t logs = 0;
        for (size_t k = 0; csv && csv[k]; k++)
            logs += is_log(dir, csv[k]);
        if (logs)
            rdir = dir;
    }
    if (rdir) {
        char rd[4096];
        int in_runs = rdir == path;
        ta_fmt(rd, sizeof rd, "%s", rdir);
        r->st.dirs++;
        ta_fmt(path, sizeof path, "%s/modelled.tsv", dir);
        st = read_modelled(r, path);
        for (size_t k = 0; st == CM_OK && csv[k]; k++)
            if (in_runs || is_log(dir, csv[k]))
                st = read_run(r, dir, rd, csv[k], target);
    } else {
        ta_fmt(path, sizeof path, "%s/per-run.tsv", dir);
        if (ta_is_file(path)) {
            r->st.dirs++;
            st = read_per_run(r, dir, target);
        }
    }
    list_free(csv);
    if (st != CM_OK || depth >= MAX_DEPTH)
        return st;
    char **sub = list(dir, "", 1);
    for (size_t k = 0; st == CM_OK && sub && sub[k]; k++) {
        if (!strcmp(sub[k], "runs") || !strcmp(sub[k], "topo") ||
            !strcmp(sub[k], "logs"))
            continue;
        ta_fmt(path, sizeof path, "%s/%s", dir, sub[k]);
        st = walk(r, path, target, depth + 1);
    }
    list_free(sub);
    return st;
}

cm_status ta_runs_read(ta_runs *r, const char *dir, double target)
{
    if (!ta_is_dir(dir))
        return cm_error(CM_EIO, "--results %s: not a directory", dir);
    size_t before = r->n, csv = r->st.csv, rows = r->st.per_run;
    cm_status st = walk(r, dir, target, 0);
    if (st == CM_OK && r->st.csv == csv && r->st.per_run == rows)
        return cm_error(CM_EIO, "--results %s: no runs (no dpsgd-train CSV "
                        "log in it, its runs/ or a subfolder's, and no "
                        "per-run.tsv)", dir);
    (void)before;
    return st;
}

static void walk_benches(ta_runs *r, const char *dir, int depth)
{
    char path[4096];
    ta_fmt(path, sizeof path, "%s/bench.txt", dir);
    read_bench(r, path);
    if (depth >= MAX_DEPTH)
        return;
    char **sub = list(dir, "", 1);
    for (size_t k = 0; sub && sub[k]; k++) {
        ta_fmt(path, sizeof path, "%s/%s", dir, sub[k]);
        walk_benches(r, path, depth + 1);
    }
    list_free(sub);
}

void ta_runs_read_benches(ta_runs *r, const char *dir)
{
    if (ta_is_dir(dir))
        walk_benches(r, dir, 0);
}

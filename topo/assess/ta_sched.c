/* ta_sched.c: a run's schedule from the files an experiment leaves
 * (ta_sched.h): the summary JSON (jansson), KEY="VALUE" files
 * (NAME.settings, grid.env), the trainer's log and the run's name, and a
 * topology file's header (kind, --labels / --groups, slem). Each reader
 * fills what its file says and leaves the rest; ta_runs.c calls them
 * from the least to the most explicit.
 */
#include "ta_sched.h"
#include "topogen_config.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int ta_fmt(char *buf, size_t cap, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(buf, cap, f, ap);
    va_end(ap);
    return n;
}

const char *ta_alg_name(ta_alg a)
{
    static const char *N[TA_ALG_COUNT] = {"all-reduce", "local SGD", "DiLoCo",
                                          "D-PSGD", "D^2", "GT", "other"};
    return a < TA_ALG_COUNT ? N[a] : "?";
}

const char *ta_alg_flag(ta_alg a)
{
    return a == TA_ALG_D2 ? "d2" : a == TA_ALG_GT ? "gt" : "dpsgd";
}

double ta_partition_zeta(const char *p)
{
    if (!strcmp(p, "iid"))
        return 0.0;
    if (!strncmp(p, "dirichlet:", 10))
        return 1.0 / (1.0 + strtod(p + 10, NULL));
    if (!strncmp(p, "shards:", 7)) {
        double k = strtod(p + 7, NULL);
        return k >= 10 ? 0.0 : 1.0 - k / 10.0;
    }
    return -1.0;
}

size_t ta_sched_params(const ta_sched *s)
{
    return s->params ? s->params : TOPOGEN_DEFAULT_PARAMS;
}

const char *ta_model_name(size_t params)
{
    return params == TOPOGEN_DEFAULT_PARAMS ? "lenet"
           : params == TOPOGEN_CNN_PARAMS   ? "cnn"
                                            : NULL;
}

int ta_sched_same(const ta_sched *a, const ta_sched *b)
{
    return ta_sched_params(a) == ta_sched_params(b) && a->alg == b->alg && !strcmp(a->graph, b->graph) &&
           !strcmp(a->weights, b->weights) && a->n == b->n &&
           a->batch == b->batch && !strcmp(a->partition, b->partition) &&
           fabs(a->lr - b->lr) <= 1e-9 * fabs(a->lr) && a->H == b->H &&
           (a->H == 1 || a->local_after == b->local_after) &&
           a->global_every == b->global_every &&
           a->staleness == b->staleness && a->compress == b->compress &&
           (a->frag_p > 1 ? a->frag_p : 1) ==
               (b->frag_p > 1 ? b->frag_p : 1) &&
           a->frag_t == b->frag_t && fabs(a->epochs - b->epochs) < 1e-6 &&
           (isnan(a->warmup) || isnan(b->warmup) ||
            fabs(a->warmup - b->warmup) < 1e-9) &&
           (!a->sched[0] || !b->sched[0] ||
            (!strcmp(a->sched, b->sched) &&
             (strcmp(a->sched, "step") ||
              fabs(a->step_epochs - b->step_epochs) < 1e-9)));
}

/* ---- what a message costs, as the trainer counts it ---- */

#define TA_COMPRESS_BLOCK 256.0 /* DT_COMPRESS_BLOCK: values per scale */

double ta_sched_msg_bytes(const ta_sched *s, double n)
{
    double scales = 4.0 * ceil(n / TA_COMPRESS_BLOCK);
    if (s->compress == TA_COMPRESS_INT8)
        return n + scales;
    if (s->compress == TA_COMPRESS_INT4)
        return ceil(n / 2.0) + scales;
    if (s->compress > 0 && s->compress < 1) /* topk:F: value and index */
        return 8.0 * ceil(s->compress * n);
    return 4.0 * n;
}

int ta_sched_has_frags(const ta_sched *s)
{
    return s->frag_p > 1 || s->frag_t > 0;
}

double ta_sched_frag_floats(const ta_sched *s, double n)
{
    return ta_sched_has_frags(s) && s->frag_p > 1
               ? ceil(n / (double)s->frag_p) : n;
}

char *ta_sched_compress_str(const ta_sched *s, char *buf, size_t cap)
{
    if (s->compress == TA_COMPRESS_INT8 || s->compress == TA_COMPRESS_INT4)
        ta_fmt(buf, cap, "int%d", s->compress == TA_COMPRESS_INT8 ? 8 : 4);
    else if (s->compress > 0 && s->compress < 1)
        ta_fmt(buf, cap, "topk:%g", s->compress);
    else
        ta_fmt(buf, cap, "none");
    return buf;
}

cm_status ta_sched_parse_compress(const char *v, double *out)
{
    if (!strcmp(v, "none")) {
        *out = 1;
        return CM_OK;
    }
    if (!strcmp(v, "int8") || !strcmp(v, "int4")) {
        *out = v[3] == '8' ? TA_COMPRESS_INT8 : TA_COMPRESS_INT4;
        return CM_OK;
    }
    if (!strncmp(v, "topk:", 5)) {
        char *end = NULL;
        double f = strtod(v + 5, &end);
        /* F = 1 sends every value: the uncompressed array's count */
        if (end != v + 5 && !*end && f > 0.0 && f <= 1.0 &&
            f != TA_COMPRESS_INT8 && f != TA_COMPRESS_INT4) {
            *out = f;
            return CM_OK;
        }
    }
    return cm_error(CM_EINVAL, "--compress: '%s' is not none, int8, int4 or "
                    "topk:F (F in (0, 1], e.g. topk:0.01)", v);
}

/* a whole number in [lo, hi] of the len bytes at s */
static int whole(const char *s, size_t len, size_t lo, size_t hi, size_t *v)
{
    if (!len || len > 9)
        return 0;
    size_t x = 0;
    for (size_t k = 0; k < len; k++) {
        if (!isdigit((unsigned char)s[k]))
            return 0;
        x = 10 * x + (size_t)(s[k] - '0');
    }
    *v = x;
    return x >= lo && x <= hi;
}

cm_status ta_sched_parse_frags(const char *v, size_t *p, size_t *t)
{
    const char *colon = strchr(v, ':');
    size_t a = 0, b = 0;
    int ok = colon ? whole(v, (size_t)(colon - v), 1, 256, &a) &&
                         whole(colon + 1, strlen(colon + 1), 0, 1000000, &b)
                   : whole(v, strlen(v), 1, 256, &a);
    if (!ok)
        return cm_error(CM_EINVAL, "--fragments: '%s' is not P or P:T (P "
                        "fragments in [1, 256], each synchronisation in "
                        "flight for T inner steps; e.g. 4 or 4:1)", v);
    *p = a;
    *t = b;
    return CM_OK;
}

/* the refusal's words into why; 1 */
static int refuse(char *why, size_t cap, const char *f, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t cap, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(why, cap, f, ap);
    va_end(ap);
    return 1;
}

int ta_sched_refused(const ta_sched *s, char *why, size_t cap)
{
    char c[32], f[32];
    ta_sched_compress_str(s, c, sizeof c);
    size_t P = s->frag_p > 1 ? s->frag_p : 1, H = s->H ? s->H : 1;
    if (s->frag_t)
        ta_fmt(f, sizeof f, "%zu:%zu", P, s->frag_t);
    else
        ta_fmt(f, sizeof f, "%zu", P);
    int comp = strcmp(c, "none") != 0, gossip = s->alg >= TA_ALG_DPSGD;
    if (comp && gossip && s->alg != TA_ALG_DPSGD)
        return refuse(why, cap, "--compress %s is for --algorithm dpsgd "
                      "(CHOCO-SGD) and for local SGD / DiLoCo (--mode "
                      "allreduce); not for --algorithm %s", c,
                      s->alg == TA_ALG_D2 ? "d2" : s->alg == TA_ALG_GT ? "gt"
                                                                       : "qgm");
    if (comp && s->alg == TA_ALG_ALLREDUCE)
        return refuse(why, cap, "--compress %s compresses the "
                      "pseudo-gradients of local SGD / DiLoCo: give "
                      "--average-every H > 1 or --outer (the gradient "
                      "all-reduce of H = 1 is not compressed)", c);
    if (comp && s->global_every)
        return refuse(why, cap, "--compress %s with --global-every: "
                      "CHOCO-SGD keeps sum_j W_ij xh_j for one fixed W "
                      "(drop one of them)", c);
    if (comp && gossip && !strcmp(s->graph, "opexp"))
        return refuse(why, cap, "--compress with a time-varying topology: "
                      "CHOCO-SGD keeps sum_j W_ij xh_j for one fixed W; use "
                      "a static topology");
    if (comp && s->staleness > 0)
        return refuse(why, cap, "--staleness %g needs no --compress",
                      s->staleness);
    if (ta_sched_has_frags(s) && s->alg != TA_ALG_DILOCO)
        return refuse(why, cap, "--fragments %s is Streaming DiLoCo's: it "
                      "needs --mode allreduce and --outer sgd:LR or "
                      "nesterov:LR,MOM (DiLoCo)", f);
    if (ta_sched_has_frags(s) && P > H)
        return refuse(why, cap, "--fragments %s: at most H = "
                      "--average-every = %zu fragments (each starts at its "
                      "own step of the H-step period)", f, H);
    if (ta_sched_has_frags(s) && s->frag_t * P > H)
        return refuse(why, cap, "--fragments %s: the overlap T = %zu must "
                      "be at most H / P = %zu / %zu (one fragment in flight "
                      "at a time)", f, s->frag_t, H, P);
    return 0;
}

/* ---- small file helpers ---- */

int ta_is_dir(const char *p)
{
    struct stat s;
    return stat(p, &s) == 0 && S_ISDIR(s.st_mode);
}

int ta_is_file(const char *p)
{
    struct stat s;
    return stat(p, &s) == 0 && S_ISREG(s.st_mode);
}

/* VALUE of KEY="VALUE" (or KEY=VALUE) in a shell env file; 0 if absent */
int ta_env_value(const char *path, const char *key, char *buf,
                     size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[2048];
    size_t kl = strlen(key);
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl) && line[kl] == '=') {
            char *v = line + kl + 1;
            v[strcspn(v, "\r\n")] = '\0';
            if (*v == '"') {
                v++;
                char *q = strrchr(v, '"');
                if (q)
                    *q = '\0';
            }
            ta_fmt(buf, cap, "%s", v);
            found = 1;
        }
    fclose(f);
    return found;
}

/* the value after `flag ` in a command line; 0 if absent */
static int arg_value(const char *args, const char *flag, char *buf,
                     size_t cap)
{
    size_t fl = strlen(flag);
    for (const char *s = strstr(args, flag); s; s = strstr(s + 1, flag))
        if ((s == args || s[-1] == ' ') && s[fl] == ' ') {
            const char *v = s + fl + 1;
            ta_fmt(buf, cap, "%.*s", (int)strcspn(v, " \""), v);
            return 1;
        }
    return 0;
}

/* A topology file's header: kind, --labels / --groups, slem */
void ta_sched_from_topology(const char *path, ta_sched *s)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[4096];
    for (int k = 0; k < 8 && fgets(line, sizeof line, f) && line[0] == '#';
         k++) {
        const char *p;
        if ((p = strstr(line, " slem=")))
            s->slem = strtod(p + 6, NULL);
        if (!strcmp(s->graph, "?") && (p = strstr(line, " kind="))) {
            p += 6;
            size_t len = strcspn(p, " \r\n");
            ta_fmt(s->graph, sizeof s->graph, "%.*s", (int)len, p);
            if (!strcmp(s->graph, "one-peer-exp"))
                ta_fmt(s->graph, sizeof s->graph, "opexp");
        }
        if (!strncmp(line, "# settings:", 11) && !strcmp(s->graph, "learned")) {
            if (strstr(line, "--labels "))
                ta_fmt(s->graph, sizeof s->graph, "aware");
            else if (strstr(line, "--groups "))
                ta_fmt(s->graph, sizeof s->graph, "hosts");
        }
    }
    fclose(f);
}

/* The topology file a run names, found as named or by its basename in
 * the experiment's topo/ (experiments are moved after they run). */
void ta_sched_topology_of(const char *exp, const char *named, ta_sched *s)
{
    if (!named || !named[0])
        return;
    char path[4096];
    const char *b = strrchr(named, '/');
    b = b ? b + 1 : named;
    ta_fmt(path, sizeof path, "%s/topo/%s", exp, b);
    if (ta_is_file(path))
        ta_sched_from_topology(path, s);
    else if (ta_fmt(path, sizeof path, "%s/%s", exp, b) > 0 &&
             ta_is_file(path))
        ta_sched_from_topology(path, s);
    else if (ta_is_file(named))
        ta_sched_from_topology(named, s);
}

/* ---- a schedule from a name (the experiment scripts' grammar) ---- */

static const char *const GRAPHS[] = {"aware", "learned", "random", "rrl",
                                     "opexp", "hosts", "exponential", NULL};

void ta_sched_from_name(const char *name, ta_sched *s, int *known)
{
    char buf[128];
    ta_fmt(buf, sizeof buf, "%s", name);
    char *save = NULL, *t = strtok_r(buf, "-", &save);
    if (!t)
        return;
    int kind = !strcmp(t, "allreduce") ? 1 : !strcmp(t, "local") ? 2
             : !strcmp(t, "diloco") ? 3 : !strcmp(t, "d2") ? 4
             : !strcmp(t, "dpsgd") ? 5 : !strcmp(t, "gt") ? 6
             : !strcmp(t, "qgm") ? 7 : 0;
    if (!kind)
        return;
    *known = 1;
    static const ta_alg A[] = {0, TA_ALG_ALLREDUCE, TA_ALG_LOCAL,
                               TA_ALG_DILOCO, TA_ALG_D2, TA_ALG_DPSGD,
                               TA_ALG_GT, TA_ALG_OTHER};
    s->alg = A[kind];
    if (kind <= 3) {
        ta_fmt(s->graph, sizeof s->graph, "-");
        ta_fmt(s->weights, sizeof s->weights, "-");
        if (kind > 1)
            s->local_after = 58;
    }
    while ((t = strtok_r(NULL, "-", &save))) {
        if (t[0] == 'H' && isdigit((unsigned char)t[1]))
            s->H = strtoul(t + 1, NULL, 10);
        else if (!strncmp(t, "lr", 2) && isdigit((unsigned char)t[2]))
            s->lr = strtod(t + 2, NULL);
        else if (!strncmp(t, "pga", 3))
            s->global_every = strtoul(t + 3, NULL, 10);
        else if (t[0] == 'S' && isdigit((unsigned char)t[1]))
            s->local_after = strtoul(t + 1, NULL, 10); /* --local-after */
        else if (!strcmp(t, "int8") || !strcmp(t, "int4"))
            s->compress = t[3] == '8' ? TA_COMPRESS_INT8 : TA_COMPRESS_INT4;
        else if (!strcmp(t, "nesterov"))
            s->alg = TA_ALG_DILOCO;
        else if (kind >= 4)
            for (size_t g = 0; GRAPHS[g]; g++)
                if (!strcmp(t, GRAPHS[g]))
                    ta_fmt(s->graph, sizeof s->graph, "%s", t);
    }
    if (s->alg == TA_ALG_ALLREDUCE && s->H > 1)
        s->alg = TA_ALG_LOCAL;
}

/* ---- a schedule from the summary JSON ---- */

int ta_sched_from_json(const char *path, const char *exp, ta_sched *s,
                     unsigned *seed)
{
    json_error_t e;
    json_t *o = json_load_file(path, 0, &e);
    if (!o)
        return 0;
    json_t *st = json_object_get(o, "settings"),
           *res = json_object_get(o, "result");
    if (!json_is_object(st)) {
        json_decref(o);
        return 0;
    }
    const char *mode = json_string_value(json_object_get(st, "mode"));
    const char *alg = json_string_value(json_object_get(st, "algorithm"));
    const char *part = json_string_value(json_object_get(st, "partition"));
    const char *outer = json_string_value(json_object_get(st, "outer"));
    const char *topo = json_string_value(json_object_get(st, "topology"));
    const char *w = json_string_value(json_object_get(st, "weights"));
    json_t *v;
    if ((v = json_object_get(st, "batch")) && json_is_integer(v))
        s->batch = (size_t)json_integer_value(v);
    if ((v = json_object_get(st, "lr")) && json_is_number(v))
        s->lr = json_number_value(v);
    if ((v = json_object_get(st, "epochs")) && json_is_number(v))
        s->epochs = json_number_value(v);
    if ((v = json_object_get(st, "seed")) && json_is_integer(v))
        *seed = (unsigned)json_integer_value(v);
    if ((v = json_object_get(st, "average_every")) && json_is_integer(v))
        s->H = (size_t)json_integer_value(v);
    if ((v = json_object_get(st, "local_after")) && json_is_integer(v))
        s->local_after = (size_t)json_integer_value(v);
    if ((v = json_object_get(st, "global_every")) && json_is_integer(v))
        s->global_every = (size_t)json_integer_value(v);
    if ((v = json_object_get(st, "staleness")) && json_is_number(v))
        s->staleness = json_number_value(v);
    if ((v = json_object_get(st, "compress")) && json_is_number(v))
        s->compress = json_number_value(v);
    else if (v && json_is_string(v)) { /* dpsgd-train's "int8", "topk:F" */
        const char *c = json_string_value(v);
        s->compress = !strcmp(c, "int8") ? TA_COMPRESS_INT8
                    : !strcmp(c, "int4") ? TA_COMPRESS_INT4
                    : !strncmp(c, "topk:", 5) ? strtod(c + 5, NULL)
                    : s->compress;
    }
    if ((v = json_object_get(st, "warmup")) && json_is_number(v))
        s->warmup = json_number_value(v);
    if ((v = json_object_get(st, "schedule")) && json_is_string(v))
        ta_fmt(s->sched, sizeof s->sched, "%s", json_string_value(v));
    if ((v = json_object_get(st, "step_epochs")) && json_is_number(v))
        s->step_epochs = json_number_value(v);
    if ((v = json_object_get(st, "fragments")) && json_is_string(v) &&
        ta_sched_parse_frags(json_string_value(v), &s->frag_p, &s->frag_t) !=
            CM_OK)
        cm_error_clear(); /* not the trainer's form: read as none */
    if ((v = json_object_get(res, "params")) && json_is_integer(v) &&
        json_integer_value(v) > 0)
        s->params = (size_t)json_integer_value(v);
    else if ((v = json_object_get(st, "model")) && json_is_string(v))
        s->params = !strcmp(json_string_value(v), "cnn") ? TOPOGEN_CNN_PARAMS
                                                         : s->params;
    if ((v = json_object_get(res, "workers")) && json_is_integer(v))
        s->n = (size_t)json_integer_value(v);
    else if ((v = json_object_get(st, "workers")) && json_is_integer(v))
        s->n = (size_t)json_integer_value(v);
    if (part)
        ta_fmt(s->partition, sizeof s->partition, "%s", part);
    int diloco = outer && strcmp(outer, "none");
    if (mode && !strcmp(mode, "allreduce")) {
        s->alg = diloco ? TA_ALG_DILOCO
               : s->H > 1 ? TA_ALG_LOCAL : TA_ALG_ALLREDUCE;
        ta_fmt(s->graph, sizeof s->graph, "-");
        ta_fmt(s->weights, sizeof s->weights, "-");
        s->slem = 0;
    } else {
        s->alg = !alg || !strcmp(alg, "dpsgd") ? TA_ALG_DPSGD
               : !strcmp(alg, "d2") ? TA_ALG_D2
               : !strcmp(alg, "gt") ? TA_ALG_GT : TA_ALG_OTHER;
        if (w)
            ta_fmt(s->weights, sizeof s->weights, "%s", w);
        ta_sched_topology_of(exp, topo, s);
    }
    json_decref(o);
    return 1;
}

/* ---- a schedule from NAME.settings / grid.env ---- */

void ta_sched_from_env(const char *path, const char *exp, ta_sched *s,
                     unsigned *seed, int *known)
{
    char v[2048];
    if (ta_env_value(path, "WORKERS", v, sizeof v) && !strchr(v, ' '))
        s->n = strtoul(v, NULL, 10);
    if (ta_env_value(path, "BATCH", v, sizeof v))
        s->batch = strtoul(v, NULL, 10);
    if (ta_env_value(path, "LR", v, sizeof v))
        s->lr = strtod(v, NULL);
    if (ta_env_value(path, "EPOCHS", v, sizeof v))
        s->epochs = strtod(v, NULL);
    if (ta_env_value(path, "SEED", v, sizeof v))
        *seed = (unsigned)strtoul(v, NULL, 10);
    if (ta_env_value(path, "PARTITION", v, sizeof v))
        ta_fmt(s->partition, sizeof s->partition, "%s", v);
    char a[64];
    if (ta_env_value(path, "TRAIN_ARGS", v, sizeof v)) {
        if (arg_value(v, "--algorithm", a, sizeof a))
            s->alg = !strcmp(a, "d2") ? TA_ALG_D2 : !strcmp(a, "gt")
                     ? TA_ALG_GT : !strcmp(a, "dpsgd") ? TA_ALG_DPSGD
                                                       : TA_ALG_OTHER;
        if (arg_value(v, "--average-every", a, sizeof a))
            s->H = strtoul(a, NULL, 10);
        if (arg_value(v, "--global-every", a, sizeof a))
            s->global_every = strtoul(a, NULL, 10);
        if (arg_value(v, "--local-after", a, sizeof a))
            s->local_after = strtoul(a, NULL, 10);
    }
    if (ta_env_value(path, "SETTING", v, sizeof v)) {
        *known = 1;
        char *colon = strchr(v, ':');
        if (colon)
            *colon = '\0';
        for (char *p = v; *p; p++)
            if (*p == '_')
                *p = '-';
        if (!strcmp(v, "allreduce")) {
            s->alg = s->H > 1 ? TA_ALG_LOCAL : TA_ALG_ALLREDUCE;
            ta_fmt(s->graph, sizeof s->graph, "-");
            ta_fmt(s->weights, sizeof s->weights, "-");
            s->slem = 0;
        } else {
            ta_fmt(s->graph, sizeof s->graph, "%s",
                     !strcmp(v, "one-peer-exp") ? "opexp" : v);
            if (colon)
                ta_fmt(s->weights, sizeof s->weights, "%s", colon + 1);
        }
    }
    if (ta_env_value(path, "TOPOLOGY", v, sizeof v) && strcmp(s->graph, "-"))
        ta_sched_topology_of(exp, v, s);
}

/* ---- a schedule from logs/NAME.log ("final: d2  workers 64 ...") ---- */

void ta_sched_from_log(const char *path, ta_sched *s, int *known)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char alg[32], part[32];
        size_t n;
        if (sscanf(line, "final: %31s workers %zu", alg, &n) == 2) {
            *known = 1;
            s->n = n;
            if (!strcmp(alg, "allreduce")) {
                s->alg = TA_ALG_ALLREDUCE;
                ta_fmt(s->graph, sizeof s->graph, "-");
                ta_fmt(s->weights, sizeof s->weights, "-");
                s->slem = 0;
            } else {
                s->alg = !strcmp(alg, "d2") ? TA_ALG_D2
                       : !strcmp(alg, "gt") ? TA_ALG_GT
                       : !strcmp(alg, "dpsgd") ? TA_ALG_DPSGD : TA_ALG_OTHER;
                const char *p = strstr(line, "  slem ");
                if (p)
                    s->slem = strtod(p + 7, NULL);
                if (!strcmp(s->graph, "?"))
                    ta_fmt(s->graph, sizeof s->graph, "learned");
            }
            const char *p = strstr(line, "  partition ");
            if (p && sscanf(p + 12, "%31s", part) == 1)
                ta_fmt(s->partition, sizeof s->partition, "%s", part);
            if ((p = strstr(line, "  epochs ")))
                s->epochs = strtod(p + 9, NULL);
        }
    }
    fclose(f);
}


/* topogen_settings.c: the values of the settings schema
 * (topogen_settings.h): each flag's value parsed from text (the command
 * line, the library's names and flag words) or set typed (the library's
 * counts and numbers), with one set of bounds and messages. The table is
 * topogen_schema.c, the checks of a whole config topogen_check.c. A
 * refusal is CM_EINVAL with one message, printed by the command line
 * (exit 2) or returned by the library.
 */
#include "topogen_schema.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_mixing.h"
#include "cm_net.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "tg_neff.h"
#include "tg_search.h"

/* A count x (as text: v) of setting f into c, within f's bounds. */
static cm_status store_size(const topogen_flag *f, unsigned long long x,
                            const char *v, topogen_config *c)
{
    void *dst = (char *)c + f->off;
    if (f->type == F_U64) {
        *(uint64_t *)dst = (uint64_t)x;
        return CM_OK;
    }
    if (x > f->hi)
        return cm_error(CM_EINVAL, "%s: at most %zu (got %s)", f->name, f->hi,
                        v);
    if (x < f->lo)
        return cm_error(CM_EINVAL, "%s: at least %zu (got %s)", f->name, f->lo,
                        v);
    *(size_t *)dst = (size_t)x;
    return CM_OK;
}

/* A positive number of seconds (or temperature) x of setting f into c. */
static cm_status store_seconds(const topogen_flag *f, double x, int ok,
                               topogen_config *c)
{
    if (!ok || !(x > 0.0) || !isfinite(x))
        return cm_error(CM_EINVAL, "%s: expected a positive number%s", f->name,
                        strcmp(f->name, "--time-limit") == 0 ? " of seconds"
                                                             : "");
    *(double *)((char *)c + f->off) = x;
    return CM_OK;
}

/* A number x >= 0 of setting f into c. */
static cm_status store_real(const topogen_flag *f, double x, int ok,
                            topogen_config *c)
{
    if (!ok || !(x >= 0.0) || !isfinite(x))
        return cm_error(CM_EINVAL, "%s: expected a number >= 0", f->name);
    *(double *)((char *)c + f->off) = x;
    return CM_OK;
}

/* Parses one value v for flag f into c. */
static cm_status parse_value(const topogen_flag *f, const char *v,
                             topogen_config *c)
{
    void *dst = (char *)c + f->off;
    char *end;
    errno = 0;
    switch (f->type) {
    case F_SIZE:
    case F_U64: {
        int nonneg = f->type == F_U64;
        unsigned long long x = 0;
        if (*v && *v != '-' && *v != '+' && *v != ' ')
            x = strtoull(v, &end, 10);
        if (!*v || *v == '-' || *v == '+' || *v == ' ' || errno || *end ||
            (!nonneg && x == 0))
            return cm_error(CM_EINVAL, "%s: expected a %s integer", f->name,
                            nonneg ? "non-negative" : "positive");
        return store_size(f, x, v, c);
    }
    case F_SECONDS: {
        double x = strtod(v, &end);
        return store_seconds(f, x, *v && !errno && !*end, c);
    }
    case F_KIND: {
        const topogen_kind *k = topogen_kind_find(v);
        if (!k)
            return cm_error(CM_EINVAL, "--kind: unknown kind '%s' (expected "
                            "learned, rrl, ring, torus, hypercube, "
                            "exponential-sym, random, complete; directed: "
                            "perm, exp-directed, epidemic; time-varying: "
                            "one-peer-exp, base; from --labels: stl-fw, "
                            "dcliques)", v);
        c->kind = k;
        return CM_OK;
    }
    case F_WEIGHTS:
        c->fdla = strcmp(v, "fdla") == 0         ? TOPOGEN_W_FDLA
                  : strcmp(v, "neff") == 0       ? TOPOGEN_W_NEFF
                  : strcmp(v, "neff-alpha") == 0 ? TOPOGEN_W_NEFF_ALPHA
                                                 : TOPOGEN_W_RULE;
        if (!c->fdla && cm_weight_rule_parse(v, dst) != CM_OK)
            return cm_error(CM_EINVAL, "--weights: unknown weight rule '%s' "
                            "(expected %s, fdla, neff, neff-alpha)", v,
                            cm_weight_rule_list());
        c->weights_given = 1;
        return CM_OK;
    case F_OBJECTIVE:
        c->obj_given = 1;
        return tg_objective_parse_gamma(v, dst, &c->search.obj_gamma);
    case F_GAMMA: {
        double g[TG_NEFF_MAX_GAMMAS];
        size_t k;
        cm_status st = tg_neff_parse_gammas(v, "--gamma", g, &k);
        if (st == CM_OK)
            *(const char **)dst = v;
        return st;
    }
    case F_INIT:
        if (strcmp(v, "rrl") == 0 || strcmp(v, "random") == 0) {
            *(int *)dst = strcmp(v, "rrl") == 0;
            return CM_OK;
        }
        return cm_error(CM_EINVAL, "--init: unknown start '%s' (expected "
                        "random or rrl)", v);
    case F_SOLVER:
        return tg_solver_parse(v, dst);
    case F_FORMAT:
        return cm_topo_format_parse(v, c->command == TOPOGEN_EVAL,
                                    "--format", dst);
    case F_PATH:
        if (!*v)
            return cm_error(CM_EINVAL, "%s: empty file name", f->name);
        if (c->command == TOPOGEN_EVAL && strcmp(v, "-") == 0)
            return cm_error(CM_EINVAL, "%s: 'topogen eval' prints its report "
                            "on stdout; give a file name", f->name);
        *(const char **)dst = v;
        c->out_given = 1;
        return CM_OK;
    case F_FLAG:
        *(int *)dst = 1;
        return CM_OK;
    case F_LABELS:
        if (!*v)
            return cm_error(CM_EINVAL, "--labels: empty file name");
        *(const char **)dst = v;
        return CM_OK;
    case F_REAL: {
        double x = strtod(v, &end);
        return store_real(f, x, *v && !errno && !*end, c);
    }
    case F_INTER:
        if (strcmp(v, "ring") == 0 || strcmp(v, "small-world") == 0 ||
            strcmp(v, "fractal") == 0) {
            *(int *)dst = v[0] == 'r' ? 1 : v[0] == 's' ? 0 : 2;
            return CM_OK;
        }
        return cm_error(CM_EINVAL, "--inter: unknown '%s' (expected ring, "
                        "small-world or fractal)", v);
    case F_CWEIGHTS:
        if (strcmp(v, "mh") == 0 || strcmp(v, "equal") == 0) {
            *(int *)dst = v[0] == 'e';
            return CM_OK;
        }
        return cm_error(CM_EINVAL, "--clique-weights: unknown '%s' (expected "
                        "mh or equal)", v);
    case F_DIR:
        if (!*v)
            return cm_error(CM_EINVAL, "%s: empty directory name", f->name);
        *(const char **)dst = v;
        return CM_OK;
    case F_WORD: /* checked by its user (plan: topo/assess/) */
        if (!*v)
            return cm_error(CM_EINVAL, "%s: empty value", f->name);
        *(const char **)dst = v;
        return CM_OK;
    case F_TARGET: {
        double x = strtod(v, &end);
        if (!*v || errno || *end || !(x > 0.0 && x <= 1.0))
            return cm_error(CM_EINVAL, "%s: expected an accuracy in (0, 1]",
                            f->name);
        *(double *)dst = x;
        return CM_OK;
    }
    case F_ALLREDUCE: {
        cm_status st = cm_net_ar_parse(v, "--allreduce", dst);
        if (st == CM_OK)
            c->allreduce_given = 1;
        return st;
    }
    case F_NET:
    case F_PLATFORM: {
        /* one network: --net and --platform name the same setting */
        int plat = f->type == F_PLATFORM;
        if (*(const char **)dst && c->platform != plat)
            return cm_error(CM_EINVAL, "--net and --platform together: give "
                            "one (--platform P.xml, or --net with a preset, "
                            "intra=ALPHA,BETA;inter=ALPHA,BETA or P.xml)");
        cm_status st = plat ? cm_net_parse_platform(v, &c->netm)
                            : cm_net_parse(v, &c->netm);
        if (st == CM_OK) {
            *(const char **)dst = v;
            c->platform = plat;
        }
        return st;
    }
    case F_PARTITION: {
        /* iid, dirichlet:A (A > 0) or shards:K (K >= 1), as dpsgd-train */
        double x = 0;
        int ok = !strcmp(v, "iid");
        if (!strncmp(v, "dirichlet:", 10)) {
            x = strtod(v + 10, &end);
            ok = v[10] && !errno && !*end && x > 0 && isfinite(x);
        } else if (!strncmp(v, "shards:", 7)) {
            x = strtod(v + 7, &end);
            ok = v[7] && !errno && !*end && x >= 1 && x == floor(x);
        }
        if (!ok)
            return cm_error(CM_EINVAL, "%s: '%s' is not iid, dirichlet:A or "
                            "shards:K", f->name, v);
        *(const char **)dst = v;
        return CM_OK;
    }
    }
    return cm_error(CM_EINVAL, "%s: internal error", f->name);
}

cm_status topogen_setting_parse(topogen_config *c, const topogen_flag *f,
                                const char *v)
{
    c->n_given |= f->off == OFF(search.n) && f->type == F_SIZE;
    c->d_given |= strcmp(f->name, "-d") == 0;
    c->hetero_given |= strcmp(f->name, "--hetero-weight") == 0;
    return parse_value(f, v ? v : "", c);
}

cm_status topogen_setting_size(topogen_config *c, const char *name, size_t x)
{
    const topogen_flag *f = topogen_flag_find(name);
    if (!f || (f->type != F_SIZE && f->type != F_U64))
        return cm_error(CM_EINVAL, "%s: not a count", name);
    char v[32];
    snprintf(v, sizeof v, "%zu", x);
    if (f->type == F_SIZE && x == 0)
        return cm_error(CM_EINVAL, "%s: expected a positive integer", name);
    return store_size(f, x, v, c);
}

cm_status topogen_setting_real(topogen_config *c, const char *name, double x)
{
    const topogen_flag *f = topogen_flag_find(name);
    if (f && f->type == F_SECONDS)
        return store_seconds(f, x, 1, c);
    if (f && f->type == F_REAL)
        return store_real(f, x, 1, c);
    return cm_error(CM_EINVAL, "%s: not a number", name);
}


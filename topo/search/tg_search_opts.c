/* tg_search_opts.c: the search's settings: defaults, objectives (energy
 * and the lower bound the screen uses), and the names the command line
 * parses (tg_search_opts.h); the defaults were tuned with
 * scripts/benches/bench-topogen.sh (docs/topo/search.md).
 */
#include "tg_search_opts.h"

#include "tg_groups.h"
#include "tg_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tg_search_opts_resolve(tg_search_opts *o)
{
    if (!o->iters)
        o->iters = tg_search_default_iters(o->n, o->d);
    if (!o->restarts)
        o->restarts = tg_search_default_restarts(o->n);
    if (!o->candidates)
        o->candidates = tg_search_default_candidates(o->n);
    if (!o->swaps)
        o->swaps = tg_search_default_swaps(o->n);
    if (o->groups || o->pi || o->hook || o->swaps > TG_SEARCH_MAX_SWAPS)
        o->swaps = o->groups || o->pi || o->hook ? 1 : TG_SEARCH_MAX_SWAPS;
    if (o->solver == TG_SOLVER_AUTO)
        o->solver = o->n >= TG_SEARCH_SPARSE_FROM ? TG_SOLVER_SPARSE
                                                  : TG_SOLVER_DENSE;
    if (!(o->t0 > 0.0))
        o->t0 = tg_search_default_t0(o->n);
    if (!(o->t1 > 0.0))
        o->t1 = o->t0 / 100.0;
    if (o->groups && !o->max_cross)
        o->max_cross = tg_groups_min_cross(o->groups);
}

void tg_search_opts_default(tg_search_opts *o)
{
    memset(o, 0, sizeof *o);
    o->n = 64;
    o->d = 4;
    o->obj = TG_OBJ_RATIO;
    o->seed = 1;
    o->restarts = 0;
    o->progress_every = 1.0;
    o->hetero_weight = 10.0;
}

cm_status tg_objective_parse(const char *s, tg_objective *obj)
{
    if (strcmp(s, "ratio") == 0)
        *obj = TG_OBJ_RATIO;
    else if (strcmp(s, "gap") == 0)
        *obj = TG_OBJ_GAP;
    else if (strcmp(s, "slem-mh") == 0)
        *obj = TG_OBJ_SLEM_MH;
    else if (strcmp(s, "neff") == 0)
        *obj = TG_OBJ_NEFF;
    else if (strcmp(s, "neff-per-message") == 0)
        *obj = TG_OBJ_NEFF_MSG;
    else
        return cm_error(CM_EINVAL, "--objective: unknown objective '%s' "
                        "(expected ratio, gap, slem-mh, neff[:GAMMA] or "
                        "neff-per-message[:GAMMA])", s);
    return CM_OK;
}

cm_status tg_objective_parse_gamma(const char *s, tg_objective *obj,
                                   double *gamma)
{
    const char *colon = strchr(s, ':');
    char name[32];
    size_t len = colon ? (size_t)(colon - s) : strlen(s);
    if (len >= sizeof name)
        return cm_error(CM_EINVAL, "--objective: unknown objective '%s'", s);
    memcpy(name, s, len);
    name[len] = '\0';
    cm_status st = tg_objective_parse(name, obj);
    if (st != CM_OK)
        return st;
    *gamma = 0.0;
    if (!colon)
        return CM_OK;
    if (!tg_objective_is_neff(*obj))
        return cm_error(CM_EINVAL, "--objective: %s takes no :GAMMA", name);
    char *end;
    double g = strtod(colon + 1, &end);
    if (end == colon + 1 || *end || !(g > 0.0 && g < 1.0))
        return cm_error(CM_EINVAL, "--objective: gamma '%s' is not a number "
                        "in (0, 1)", colon + 1);
    *gamma = g;
    return CM_OK;
}

cm_status tg_solver_parse(const char *s, tg_solver *solver)
{
    static const char *names[] = {"auto", "dense", "sparse"};
    for (int k = 0; k < 3; k++)
        if (strcmp(s, names[k]) == 0) {
            *solver = (tg_solver)k;
            return CM_OK;
        }
    return cm_error(CM_EINVAL, "--eigensolver: unknown solver '%s' "
                    "(expected auto, dense or sparse)", s);
}

const char *tg_solver_name(tg_solver solver)
{
    return solver == TG_SOLVER_DENSE    ? "dense"
           : solver == TG_SOLVER_SPARSE ? "sparse"
                                        : "auto";
}

int tg_objective_is_neff(tg_objective obj)
{
    return obj == TG_OBJ_NEFF || obj == TG_OBJ_NEFF_MSG;
}

const char *tg_objective_name(tg_objective obj)
{
    switch (obj) {
    case TG_OBJ_RATIO: return "ratio";
    case TG_OBJ_GAP: return "gap";
    case TG_OBJ_SLEM_MH: return "slem-mh";
    case TG_OBJ_NEFF: return "neff";
    case TG_OBJ_NEFF_MSG: return "neff-per-message";
    }
    return "?";
}

double tg_objective_energy(tg_objective obj, size_t d, double l2, double ln)
{
    switch (obj) {
    case TG_OBJ_RATIO:
        return l2 + ln > 0.0 ? (ln - l2) / (ln + l2) : 1.0;
    case TG_OBJ_GAP:
        return 1.0 - l2 / (double)d;
    case TG_OBJ_SLEM_MH:
        return fmax(fabs(1.0 - l2 / (double)(d + 1)),
                    fabs(ln / (double)(d + 1) - 1.0));
    case TG_OBJ_NEFF:
    case TG_OBJ_NEFF_MSG:
        break; /* a hook's energy, not one of (l2, ln) */
    }
    return 1.0;
}

double tg_objective_lower_bound(tg_objective obj, size_t d, double l2_up,
                                double ln_low)
{
    switch (obj) {
    case TG_OBJ_RATIO:
        /* 1 - 2 l2/(ln + l2): decreasing in l2, increasing in ln */
        return l2_up > 0.0 && ln_low > 0.0 ? 1.0 - 2.0 * l2_up /
                                                 (ln_low + l2_up)
                                           : -INFINITY;
    case TG_OBJ_GAP:
        return 1.0 - l2_up / (double)d;
    case TG_OBJ_SLEM_MH:
        return fmax(1.0 - l2_up / (double)(d + 1),
                    ln_low / (double)(d + 1) - 1.0);
    case TG_OBJ_NEFF:
    case TG_OBJ_NEFF_MSG:
        break;
    }
    return -INFINITY;
}

size_t tg_search_default_iters(size_t n, size_t d)
{
    (void)d;
    /* about as many proposals as fit in ~1-2 s (n <= 64; small n also
     * restart) or ~10 s (n = 128) on one core with the screen (README) */
    return n <= 32    ? 20000
           : n <= 64  ? 40000
           : n <= 128 ? 30000
           : n <= 256 ? 15000
           : n <= 1024 ? 4000
                       : 2000;
}

size_t tg_search_default_candidates(size_t n)
{
    /* small n: the plain chain, as tuned; large n: proposals guided by
     * the eigenvectors (docs/topo/search.md: at n = 1,024, 3,000
     * moves reach 0.842 with 1 candidate, 0.830 with 256, 0.829 with
     * 1,024; ranking costs O(8) per candidate, nothing next to a solve) */
    return n < 512 ? 1 : 1024;
}

size_t tg_search_default_swaps(size_t n)
{
    /* a swap moves lambda_2 by O(1/n) and the first-order estimates of
     * node-disjoint swaps add up, so a large graph takes several per
     * solve (docs/topo/search.md: at n = 4,096 ...) */
    return n < 2048 ? 1 : n / 512;
}

size_t tg_search_default_restarts(size_t n)
{
    /* small graphs have few, deep local optima: restarts are cheap there */
    /* n < 96 (dense path): one run, as tuned; from 96 (sparse path, 2-5x
     * faster per move) a second run on the second core */
    return n <= 16 ? 8 : n <= 32 ? 4 : n < 96 ? 1 : 2;
}

double tg_search_default_t0(size_t n)
{
    /* typical energy changes of one swap shrink like 1/n */
    return 0.15 / (double)n;
}

/* topogen_kinds.c: the table of topology kinds (topogen_config.h), each
 * kind's checks, and the config's defaults (the first row). A new kind is
 * one row here: name, family, builder code, check, maker. Above the
 * makers (topogen_make*.c) it names; the names and the objective rows
 * they use are topogen_config.c.
 */
#include "topogen_config.h"

#include <string.h>

#include "tg_neff.h"
#include "topogen_make.h"

/* learned: the size the search can hold */
static cm_status check_learned(const topogen_config *c)
{
    cm_status st = tg_kind_check(TG_KIND_LEARNED, c->search.n, c->search.d);
    if (st != CM_OK)
        return st;
    if (c->search.n > TG_MAX_NODES &&
        (c->command == TOPOGEN_COMPARE || c->labels || c->search.groups ||
         c->search.solver == TG_SOLVER_DENSE ||
         topogen_objective_row(c->search.obj)->neff))
        return cm_error(CM_EINVAL, "-n: %zu nodes: above %d nodes topogen "
                        "learns only with the sparse eigensolver and the "
                        "ratio, gap or slem-mh objective, without --groups, "
                        "--labels or compare (those hold n x n matrices)",
                        c->search.n, TG_MAX_NODES);
    return CM_OK;
}

static cm_status check_static(const topogen_config *c)
{
    return tg_kind_check((tg_kind)c->kind->code, c->search.n, c->search.d);
}

static cm_status check_seq(const topogen_config *c)
{
    tg_seq_kind sk = (tg_seq_kind)c->kind->code;
    cm_status st = tg_seq_check(sk, c->search.n, c->search.d);
    if (st != CM_OK)
        return st;
    if (c->weights_given)
        return cm_error(CM_EINVAL, "--weights: --kind %s carries its own "
                        "weights (exact averaging)", tg_seq_kind_name(sk));
    if (c->format != CM_FORMAT_EDGELIST)
        return cm_error(CM_EINVAL, "--format: --kind %s writes one edge list "
                        "section per round (--format edgelist)",
                        tg_seq_kind_name(sk));
    return CM_OK;
}

static cm_status check_directed(const topogen_config *c)
{
    int code = c->kind->code;
    const char *name = c->kind->name;
    if (c->weights_given &&
        (c->fdla != TOPOGEN_W_NEFF || code == TOPOGEN_D_EPIDEMIC))
        return cm_error(CM_EINVAL, "--weights: --kind %s carries its own "
                        "weights (uniform%s)", name,
                        code == TOPOGEN_D_EPIDEMIC
                            ? "" : "; --weights neff picks the best self "
                                   "weight");
    if (c->format != CM_FORMAT_EDGELIST)
        return cm_error(CM_EINVAL, "--format: --kind %s writes a directed "
                        "edge list (--format edgelist)", name);
    if (c->search.groups)
        return cm_error(CM_EINVAL, "--groups: not for --kind %s", name);
    size_t n = c->search.n, d = c->search.d;
    if (code == TOPOGEN_D_EXP ? n < 2 : n < d + 1 || n < 3)
        return cm_error(CM_EINVAL, "-n: --kind %s needs %s (got -n %zu -d "
                        "%zu)", name,
                        code == TOPOGEN_D_EXP ? "n >= 2"
                                              : "n >= 3 and n > d", n, d);
    if (code == TOPOGEN_D_LEARNED &&
        !topogen_objective_row(c->search.obj)->directed)
        return cm_error(CM_EINVAL, "--objective: --directed searches for neff "
                        "(default), neff-per-message or ratio (the spectral "
                        "norm of W - J)");
    if (code == TOPOGEN_D_LEARNED && n > TG_MAX_NODES)
        return cm_error(CM_EINVAL, "-n: %zu nodes: --directed learns at most "
                        "%d (its search holds n x n matrices)", n,
                        TG_MAX_NODES);
    return CM_OK;
}

static cm_status check_data(const topogen_config *c)
{
    if (!c->labels)
        return cm_error(CM_EINVAL, "--kind %s: needs --labels COUNTS "
                        "(dpsgd-train --write-partition FILE writes it)",
                        c->kind->name);
    if (c->weights_given)
        return cm_error(CM_EINVAL, "--weights: --kind stl-fw and dcliques "
                        "carry their own weights (dcliques: "
                        "--clique-weights)");
    if (c->format != CM_FORMAT_EDGELIST)
        return cm_error(CM_EINVAL, "--format: --kind stl-fw and dcliques "
                        "write edge lists");
    if (c->symmetric && c->kind->code != TOPOGEN_DK_STLFW)
        return cm_error(CM_EINVAL, "--symmetric: only for --kind stl-fw");
    return CM_OK;
}

#define LEARNED TOPOGEN_FAM_LEARNED
#define STATIC TOPOGEN_FAM_STATIC
#define SEQ TOPOGEN_FAM_SEQ
#define DIRECTED TOPOGEN_FAM_DIRECTED
#define DATA TOPOGEN_FAM_DATA

/* Every kind; the first row is the default. */
static const topogen_kind KINDS[] = {
    {"learned", LEARNED, TG_KIND_LEARNED, 0, 0, check_learned,
     topogen_make_learned},
    {"rrl", STATIC, TG_KIND_RRL, 0, 0, check_static, topogen_make_static},
    {"ring", STATIC, TG_KIND_RING, 0, 0, check_static, topogen_make_static},
    {"torus", STATIC, TG_KIND_TORUS, 0, 0, check_static,
     topogen_make_static},
    {"hypercube", STATIC, TG_KIND_HYPERCUBE, 0, 0, check_static,
     topogen_make_static},
    {"exponential-sym", STATIC, TG_KIND_EXPONENTIAL, 0, 0, check_static,
     topogen_make_static},
    {"exponential", STATIC, TG_KIND_EXPONENTIAL, 0, 1, check_static,
     topogen_make_static},
    {"random", STATIC, TG_KIND_RANDOM, 0, 0, check_static,
     topogen_make_static},
    {"complete", STATIC, TG_KIND_COMPLETE, 0, 0, check_static,
     topogen_make_static},
    {"one-peer-exp", SEQ, TG_SEQ_ONE_PEER_EXP, 0, 0, check_seq,
     topogen_make_seq},
    {"base", SEQ, TG_SEQ_BASE, 0, 0, check_seq, topogen_make_seq},
    {"perm", DIRECTED, TOPOGEN_D_PERM, 0, 0, check_directed,
     topogen_make_directed},
    {"exp-directed", DIRECTED, TOPOGEN_D_EXP, 0, 0, check_directed,
     topogen_make_directed},
    {"epidemic", DIRECTED, TOPOGEN_D_EPIDEMIC, 0, 0, check_directed,
     topogen_make_directed},
    {"learned", DIRECTED, TOPOGEN_D_LEARNED, 1, 0, check_directed,
     topogen_make_directed}, /* --directed */
    {"stl-fw", DATA, TOPOGEN_DK_STLFW, 0, 0, check_data, topogen_make_data},
    {"dcliques", DATA, TOPOGEN_DK_DCLIQUES, 0, 0, check_data,
     topogen_make_data},
};
#define N_KINDS (sizeof KINDS / sizeof KINDS[0])

const topogen_kind *topogen_kind_find(const char *s)
{
    for (size_t k = 0; k < N_KINDS; k++)
        if (!KINDS[k].hidden && strcmp(KINDS[k].name, s) == 0)
            return &KINDS[k];
    return NULL;
}

const topogen_kind *topogen_kind_of(topogen_family family, int code)
{
    for (size_t k = 0; k < N_KINDS; k++)
        if (KINDS[k].family == family && KINDS[k].code == code)
            return &KINDS[k];
    return &KINDS[0];
}

void topogen_config_default(topogen_config *c)
{
    memset(c, 0, sizeof *c);
    c->kind = &KINDS[0];
    c->weights = CM_WEIGHTS_LAPLACIAN;
    c->format = CM_FORMAT_EDGELIST;
    c->out = "-";
    c->lambda = 0.1;
    c->allreduce = CM_AR_AUTO;
    tg_search_opts_default(&c->search);
}

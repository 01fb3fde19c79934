/* topogen_config.c: the rows of the search objectives and the names a
 * header writes (topogen_config.h). A new objective is one row of
 * OBJECTIVES: whether it is an n_eff objective, whether --directed
 * searches for it.
 */
#include "topogen_config.h"

#include "cm_mixing.h"

/* Every objective of the search. */
static const topogen_objective OBJECTIVES[] = {
    {TG_OBJ_RATIO, 0, 1},    {TG_OBJ_GAP, 0, 0}, {TG_OBJ_SLEM_MH, 0, 0},
    {TG_OBJ_NEFF, 1, 1},     {TG_OBJ_NEFF_MSG, 1, 1},
};

const topogen_objective *topogen_objective_row(tg_objective obj)
{
    for (size_t k = 0; k < sizeof OBJECTIVES / sizeof *OBJECTIVES; k++)
        if (OBJECTIVES[k].obj == obj)
            return &OBJECTIVES[k];
    return &OBJECTIVES[0];
}

const char *topogen_kind_name(const topogen_config *c)
{
    return c->kind->name;
}

int topogen_kind_fixes_degree(const topogen_config *c)
{
    const topogen_kind *k = c->kind;
    switch (k->family) {
    case TOPOGEN_FAM_STATIC:
        return k->code == TG_KIND_RING || k->code == TG_KIND_TORUS ||
               k->code == TG_KIND_HYPERCUBE ||
               k->code == TG_KIND_EXPONENTIAL || k->code == TG_KIND_COMPLETE;
    case TOPOGEN_FAM_SEQ:
        return k->code == TG_SEQ_ONE_PEER_EXP;
    case TOPOGEN_FAM_DIRECTED:
        return k->code == TOPOGEN_D_EXP;
    default:
        return 0;
    }
}

const char *topogen_weights_name(int fdla, cm_weight_rule rule)
{
    return fdla == TOPOGEN_W_FDLA         ? "fdla"
           : fdla == TOPOGEN_W_NEFF       ? "neff"
           : fdla == TOPOGEN_W_NEFF_ALPHA ? "neff-alpha"
                                          : cm_weight_rule_name(rule);
}

const char *topogen_inter_name(int inter)
{
    return inter == 1 ? "ring" : inter == 2 ? "fractal" : "small-world";
}

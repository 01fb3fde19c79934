/* ta_price: the prices of `topogen plan`'s communication patterns (part
 * of topo/assess/, private to it): a gossip round on each graph plan
 * builds (random, learned, data-aware, ring lattice, one-peer
 * exponential, host-aware, D-Cliques) with the seed of the row's topogen
 * command, placed as dpsgd-train places it, for one array (D-PSGD, D^2)
 * and two (gradient tracking), and the cheapest all-reduce with the
 * mpirun flags that select it (src/place/cm_net.h).
 */
#ifndef TA_PRICE_H
#define TA_PRICE_H

#include <stddef.h>

#include "cm_net.h"
#include "cm_status.h"
#include "ta_plan.h"

/* The message sizes a plan prices: the whole array, then its compressed
 * forms and fragments the rows send (ta_sched_msg_bytes). */
#define TA_NSIZES 16

/* One communication pattern: a graph (or all-reduce) and its round. */
typedef struct {
    char graph[24];        /* the ta_sched graph name */
    int ok;                /* priced */
    double round_s;        /* one gossip round of one array */
    double round2_s;       /* of two arrays (gradient tracking) */
    double round_at[TA_NSIZES]; /* one array of each of ta_ctx.sizes */
    double slem;           /* of the graph built here (NAN: not computed) */
    int block;             /* placed in blocks (--placement block) */
    char topogen[560];     /* the commands that make it */
    char file[32];
    char note[160];
} price;

typedef struct {
    const ta_plan_opts *o;
    ta_plan *p;
    size_t n, d, S;
    double bytes;
    double sizes[TA_NSIZES]; /* message sizes priced (sizes[0] = bytes) */
    size_t nsizes;
    char netarg[200];
    price g[8];
    size_t ng;
    cm_net_ar ar;          /* the cheapest all-reduce (may be
                              hierarchical: priced only) */
    cm_net_ar flat;        /* the cheapest flat one, what Open MPI 4.1's
                              libnbc can be told to run */
    char mca[96];          /* the mpirun flags that select flat */
} ta_ctx;

/* Prices every pattern into x->g (x->o, x->n, x->d, x->S, x->bytes set)
 * and the cheapest all-reduce into x->ar, x->mca; schedules that cannot
 * be built are named in x->p->skipped. Cost: the graphs' builds (a
 * learned search when S < n). */
cm_status ta_prices(ta_ctx *x);

/* Adds a message size to x->sizes (before ta_prices; once each). 0, or
 * -1 when the table is full. */
int ta_price_size(ta_ctx *x, double bytes);

/* One gossip round on g of a message of `bytes` (one of x->sizes), or of
 * the all-reduce x->ar.alg runs for it (g NULL); NAN when not priced. */
double ta_price_at(const ta_ctx *x, const price *g, double bytes);

/* The priced pattern of graph name, or NULL. */
price *ta_price_of(ta_ctx *x, const char *graph);

/* v as one shell word (quoted when it holds shell characters). */
void ta_shell_word(const char *v, char *buf, size_t cap);

/* Appends "what" to p->skipped ("; "-separated, once). */
void ta_plan_skip(ta_plan *p, const char *what);

#endif

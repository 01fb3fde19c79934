/* tg_search_opts: the objectives of the search (the energy of the
 * Laplacian extremes and the lower bound the screen uses), the defaults
 * of its settings and how they are resolved, and the names the command
 * line parses; all of it defined in tg_search_opts.c. The settings
 * themselves (struct tg_search_opts) are declared with the search in
 * tg_search.h. How the defaults were tuned: docs/topo/search.md.
 */
#ifndef TG_SEARCH_OPTS_H
#define TG_SEARCH_OPTS_H

#include <stddef.h>

#include "cm_status.h"

typedef enum {
    TG_OBJ_RATIO,   /* maximise lambda_2/lambda_n (default) */
    TG_OBJ_GAP,     /* maximise lambda_2 */
    TG_OBJ_SLEM_MH, /* minimise the SLEM of the Metropolis-Hastings W */
    TG_OBJ_NEFF,    /* maximise n_eff(gamma) of the MH W (a hook:
                       tg_neff_search.h) */
    TG_OBJ_NEFF_MSG /* maximise n_eff(gamma) per message sent */
} tg_objective;

typedef enum {
    TG_SOLVER_AUTO,   /* dense below TG_SEARCH_SPARSE_FROM nodes, else sparse */
    TG_SOLVER_DENSE,  /* LAPACK dsyev/dsyevd on the dense L, O(n^3) a move */
    TG_SOLVER_SPARSE  /* warm-started Lanczos (tg_spec_sparse), ~O(n) */
} tg_solver;

/* Where the sparse path starts paying (measured, README "The search"). */
#define TG_SEARCH_SPARSE_FROM 96
/* Most swaps one move may apply together (opts.swaps). */
#define TG_SEARCH_MAX_SWAPS 64

/* The search's settings (tg_search.h). */
typedef struct tg_search_opts tg_search_opts;

/* Fills o with the defaults: n 64, d 4, ratio, random init, seed 1, iters
 * and restarts 0 (auto), default temperatures, no time limit, progress
 * every 1 s. */
void tg_search_opts_default(tg_search_opts *o);

/* Parses "ratio", "gap" or "slem-mh". CM_EINVAL naming --objective. */
cm_status tg_objective_parse(const char *s, tg_objective *obj);

/* tg_objective_parse of "NAME" or "NAME:GAMMA" (GAMMA in (0, 1), neff
 * objectives only; *gamma = 0 when absent). CM_EINVAL naming --objective. */
cm_status tg_objective_parse_gamma(const char *s, tg_objective *obj,
                                   double *gamma);

/* Parses "auto", "dense" or "sparse". CM_EINVAL naming --eigensolver. */
cm_status tg_solver_parse(const char *s, tg_solver *solver);

/* The solver's name as parsed by tg_solver_parse. */
const char *tg_solver_name(tg_solver solver);

/* The objective's name as parsed by tg_objective_parse. */
/* 1 when obj is one of the n_eff objectives (neff, neff-per-message):
 * the search holds dense n x n matrices and takes :GAMMA. The one place
 * that says which objectives are n_eff. */
int tg_objective_is_neff(tg_objective obj);

const char *tg_objective_name(tg_objective obj);

/* The energy of Laplacian extremes (l2, ln) of a d-regular graph. */
double tg_objective_energy(tg_objective obj, size_t d, double l2, double ln);

/* A lower bound on tg_objective_energy(obj, d, l2, ln) for any
 * l2 <= l2_up and ln >= ln_low (-INFINITY when none is known). */
double tg_objective_lower_bound(tg_objective obj, size_t d, double l2_up,
                                double ln_low);

/* Moves per restart used when opts.iters is 0: 20000 for n <= 32, 40000
 * for n <= 64, 30000 for n <= 128, 15000 for n <= 256, 4000 for n <=
 * 1024, else 2000 (tuned so the default run meets the README's quality
 * and time targets). */
size_t tg_search_default_iters(size_t n, size_t d);

/* Candidates per move used when opts.candidates is 0: 1 below 512 nodes
 * (the plain chain, as tuned there), else 1024. */
size_t tg_search_default_candidates(size_t n);

/* Swaps per move used when opts.swaps is 0: 1 below 2,048 nodes, else
 * n / 512 (8 at 4,096, 32 at 16,384; docs/topo/search.md). */
size_t tg_search_default_swaps(size_t n);

/* Restarts used when opts.restarts is 0: 8 for n <= 16, 4 for n <= 32,
 * 1 below 96, else 2 (one per core of a 2-core machine). */
size_t tg_search_default_restarts(size_t n);

/* Start temperature used when opts.t0 <= 0: 0.15/n. */
double tg_search_default_t0(size_t n);

/* The one place the automatic settings are resolved: iters, restarts,
 * candidates (0: the defaults above), solver (auto: sparse from
 * TG_SEARCH_SPARSE_FROM nodes), t0 (<= 0: the default), t1 (<= 0: t0/100)
 * and, with groups, max_cross (0: tg_groups_min_cross). tg_search_run
 * resolves a copy of its options so; topogen resolves its own first so
 * that the file header records the values. O(1). */
void tg_search_opts_resolve(tg_search_opts *o);

#endif

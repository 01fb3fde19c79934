/* tg_digraph_search: learn a directed gossip graph of S permutations.
 *
 * State: S permutations without fixed points, the S targets of every node
 * distinct (tg_digraph_from_perms: W = (I + sum P_s)/(S + 1), S sends and
 * S receives per node, doubly stochastic). Move: in one permutation s,
 * swap the targets of two nodes a, b (pi_s(a) <-> pi_s(b)); illegal moves
 * (a fixed point, a repeated target) are skipped. Energy 1 - n_eff(gamma)/n
 * of W: exact (the sparse Neumann series tg_neff_series, 2 (S+1) n^2
 * flops a term, ~6 ms CPU a move at n = 256, S = 4) below
 * TG_DIGRAPH_ESTIMATE_FROM nodes, else the stochastic estimate
 * tg_neff_estimate with `probes` probes, redrawn every TG_DIGRAPH_EPOCH
 * moves (the current state is then rescored). Metropolis acceptance with
 * T geometric from t0 (default 0.01/n: one move changes n_eff by
 * ~0.1 %) to t1; restarts run one after the other, restart r
 * from rng stream r + 1 of the seed; the best state (lowest restart on
 * ties) is returned. Deterministic for a seed unless the time limit or a
 * stop cuts it short.
 */
#ifndef TG_DIGRAPH_SEARCH_H
#define TG_DIGRAPH_SEARCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "tg_digraph.h"

#define TG_DIGRAPH_ESTIMATE_FROM 1025

/* Moves between redraws of the estimate's probes. */
#define TG_DIGRAPH_EPOCH 256

typedef struct {
    size_t n, s;          /* nodes, permutations */
    double gamma;         /* n_eff's gamma */
    int norm;             /* 1: minimise ||W - J||_2 instead (energy the
                             norm; dense eigenvalues of W^T W - J, O(n^3)
                             a move, n <= 1024) */
    uint64_t seed;
    size_t iters;         /* moves per restart (0: by n) */
    size_t restarts;      /* (0: 1) */
    size_t probes;        /* estimate: probes (0: 64) */
    double t0, t1;        /* temperatures (<= 0: 0.01/n and t0/100) */
    double time_limit;    /* seconds for the whole search (<= 0: none) */
    const volatile sig_atomic_t *stop; /* or NULL */
    /* data-aware (issue 22): with pi set the energy gets + hetero_weight
     * * H, H the neighbourhood heterogeneity of W = (I + sum_p P_p)/(s+1)
     * for the class proportions pi (exact, O(K) per move: a move changes
     * the senders of two receivers) */
    const double *pi;     /* [n*k] class proportions, or NULL: none */
    const double *pibar;  /* [k] their mean over nodes */
    size_t k;             /* classes */
    double hetero_weight; /* mu >= 0 */
} tg_digraph_search_opts;

typedef struct {
    double neff;          /* exact n_eff of the returned graph */
    double norm;          /* its ||W - J||_2 (norm objective; else 0) */
    double neff_start;    /* exact n_eff of restart 0's random start */
    size_t moves, evals, accepted;
    int estimated;        /* 1: the estimate scored the moves */
    int timed_out, interrupted;
    double seconds;
    double hetero;        /* with pi: H of the returned graph */
} tg_digraph_search_result;

/* Moves per restart when opts.iters is 0: 20000 below 96 nodes, 6000 up
 * to 256, 300 above (n = 1,024: ~0.25 s CPU a move). */
size_t tg_digraph_search_default_iters(size_t n);

/* Runs the search; out (initialized) gets the best graph. CM_EINVAL for
 * n < s + 1 or gamma outside (0, 1); CM_ENOMEM. Cost per move: exact
 * O(n^3 log) (dense doubling), estimate O(probes * terms * s n). */
cm_status tg_digraph_search(const tg_digraph_search_opts *o, tg_digraph *out,
                            tg_digraph_search_result *res);

#endif

/* tg_search: learn a fast-mixing d-regular graph by simulated annealing.
 *
 * State: a connected simple d-regular graph on n nodes. Move: a
 * degree-preserving double-edge swap (a,b),(c,d) -> (a,c),(b,d) or
 * (a,d),(b,c), rejected if it makes a self-loop, a multi-edge or
 * disconnects the graph (lambda_2 = 0). Energy (lower is better), a
 * function of lambda_2 and lambda_n of L:
 *   ratio:   (lambda_n - lambda_2)/(lambda_n + lambda_2), the SLEM of
 *            W = I - alpha L with alpha = 2/(lambda_2 + lambda_n); minimising
 *            it maximises lambda_2/lambda_n;
 *   gap:     1 - lambda_2/d (maximises the algebraic connectivity);
 *   slem-mh: max(|1 - lambda_2/(d+1)|, |lambda_n/(d+1) - 1|), the SLEM of
 *            the Metropolis-Hastings matrix of a d-regular graph.
 * Metropolis acceptance exp(-dE/T) with T geometric from t0 to t1 over
 * `iters` moves; `restarts` independent runs (restart r uses rng stream
 * r + 1 of the seed), run `threads` at a time; the best graph over all
 * runs (lowest restart index on ties), and never one worse than the first
 * start, is returned. Deterministic for a seed, whatever the thread count,
 * unless the time limit or a stop cuts the search short.
 *
 * Each move draws `candidates` random swaps and proposes the one whose
 * first-order energy, from the current eigenvectors, is lowest (1: a
 * plain random proposal). A proposal is then scored exactly (to the
 * eigensolver's tolerance) unless a rigorous Rayleigh-Ritz lower bound on
 * its energy already fails the Metropolis test: such moves are rejected
 * without a solve, which leaves the chain unchanged. Eigenvalues come
 * from LAPACK on the dense L below TG_SEARCH_SPARSE_FROM nodes, else from
 * warm-started Lanczos (tg_spectrum), which also stops as soon as its
 * Ritz bounds prove a rejection (see tg_search.c).
 *
 * Host-aware: with groups = G the nodes form G equal groups of contiguous
 * ids (tg_groups.h); every restart starts from tg_groups_start (random
 * swaps within the bound, or none with init_rrl) and a proposal whose swap
 * would put more than max_cross edges between groups counts as illegal
 * (drawn, then skipped like a swap that makes a multi-edge), so every
 * state visited, and the result, meets the bound. The objective is
 * unchanged: the best lambda_2/lambda_n under the bound.
 *
 * Data-aware: with pi set (class proportions of a counts file) the energy
 * is the objective's plus hetero_weight * H, H the neighbourhood
 * heterogeneity of W = (I + A)/(d + 1) (tg_search_hetero.h), updated
 * exactly in O(K) per proposal; the screen and the sparse early stop
 * bound the spectral part against the threshold minus the new H term, so
 * they stay rigorous. Composes with groups.
 *
 * The settings, their defaults and the objectives: tg_search_opts.h.
 */
#ifndef TG_SEARCH_H
#define TG_SEARCH_H

#include <stddef.h>

#include "cm_status.h"
#include "tg_graph.h"
#include "tg_search_opts.h"

typedef struct {
    double energy;        /* of the returned graph */
    double start_energy;  /* of the first start */
    double l2, ln;        /* Laplacian extremes of the returned graph (NAN
                             when its final sparse solve did not converge:
                             energy is then the search's own figure) */
    size_t moves;         /* proposals made, all restarts */
    size_t evals;         /* eigenvalue solves (exact scores) */
    size_t screened;      /* proposals rejected by the screen, unsolved */
    size_t vector_solves; /* dense eigenvector solves feeding the screen */
    size_t matvecs;       /* sparse path: Lanczos products, all solves */
    size_t early;         /* sparse path: solves stopped as soon as their
                             bounds proved the rejection */
    size_t accepted;      /* accepted moves */
    size_t swaps;         /* swaps of the accepted moves (more than
                             accepted when moves take several) */
    double seconds;       /* wall time */
    int timed_out;        /* 1 when the time limit stopped the search */
    int interrupted;      /* 1 when *opts.stop ended the search */
    int sparse;           /* 1 when the sparse (Lanczos) path ran */
    size_t threads;       /* threads used */
    size_t cross;         /* with groups: edges between groups of the
                             returned graph (<= max_cross) */
    double hetero;        /* with pi: H of the returned graph (equal
                             weights 1/(d+1)); energy includes mu * H */
    size_t failed_solves; /* moves rejected because their eigensolve did
                             not converge (CM_ENUMERIC), not counted in
                             evals */
} tg_search_result;

/* Runs the search; out (initialized) receives the best graph, res the
 * figures (also when interrupted or timed out: the best graph so far).
 * CM_EINVAL for bad (n, d) or groups (tg_groups_check); CM_ENUMERIC if
 * the eigensolver fails.
 * Cost per unscreened move: O(n^3) dense; sparse O(k (m + n)) for k
 * Lanczos products (cm_lanczos_run3 from 256 nodes; k ~ 100-700 for an
 * accepted move, fewer for an early rejection), plus O(candidates log
 * candidates) to rank the proposals. Memory per restart O(n + m) plus
 * the Lanczos vectors (at most 256 MiB). */
cm_status tg_search_run(const tg_search_opts *o, tg_graph *out,
                        tg_search_result *res);

#endif

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
 * The objectives, the defaults and the names the command line parses:
 * tg_search_opts.h.
 */
#ifndef TG_SEARCH_H
#define TG_SEARCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "tg_graph.h"
#include "tg_search_opts.h"

typedef struct {
    size_t restart;      /* restart reporting, 0-based */
    size_t restarts;     /* restarts in all */
    size_t iter;         /* moves done in this restart */
    size_t iters;        /* moves per restart */
    double temperature;  /* current T */
    double energy;       /* current state's energy */
    double best;         /* best energy so far, all restarts */
    double seconds;      /* since the search started */
    double fraction;     /* of the whole search done, 0..1 */
    double eta;          /* estimated seconds left, allowing for the
                            moves getting cheaper as the search cools */
    size_t moves;        /* moves done, all restarts */
    size_t running;      /* restarts under way (started, not finished) */
} tg_progress;

/* An energy of the whole graph instead of one of (lambda_2, lambda_n)
 * (e.g. tg_neff_search.h): the search then scores every connected
 * proposal with energy() (no screen, no Lanczos), from a workspace per
 * search thread, so the hook may keep state (e.g. a factorisation it
 * updates by low rank). energy(ws, g, NULL, e): g from scratch, and g
 * becomes the hook's current state; energy(ws, g, swap, e): g is the
 * current state after the swap (swap[0..3] = a, b, x, y: edges (a,b),
 * (x,y) replaced by (a,x), (b,y)), still a proposal; accept(ws, g) makes
 * the last proposal current (a rejected one is simply forgotten). */
/* The start temperature topogen sets with a hook, TG_HOOK_T0 / n (one
 * move changes n_eff less than lambda_2); the library's default
 * (tg_search_opts_resolve) is tg_search_default_t0 with or without one. */
#define TG_HOOK_T0 0.005
typedef struct {
    void *(*ws_new)(const void *cfg, size_t n, size_t d); /* NULL: ENOMEM */
    void (*ws_free)(void *ws);
    cm_status (*energy)(void *ws, const tg_graph *g, const size_t *swap,
                        double *e);
    cm_status (*accept)(void *ws, const tg_graph *g);
    const void *cfg;      /* passed to ws_new */
} tg_energy_hook;

typedef struct tg_search_opts {
    size_t n, d;          /* nodes and degree (tg_kind_check'ed) */
    tg_objective obj;     /* what to optimise */
    int init_rrl;         /* start from the ring lattice, not random */
    uint64_t seed;        /* RNG seed */
    size_t iters;         /* moves per restart; 0: tg_search_default_iters */
    size_t restarts;      /* independent runs; 0: tg_search_default_restarts */
    double t0, t1;        /* start and end temperatures; <= 0: defaults
                             t0 = tg_search_default_t0(n), t1 = t0/100 */
    double time_limit;    /* seconds for the whole search; <= 0: none.
                             Each restart gets an equal share of the time
                             left and cools on the clock as well as on its
                             moves, so it ends cold when cut short */
    int no_screen;        /* 1: score every proposal exactly (same result,
                             slower; for measurements and tests) */
    tg_solver solver;     /* eigensolver path (default auto) */
    size_t candidates;    /* random swaps drawn per move, the one with the
                             best first-order energy proposed; 0:
                             tg_search_default_candidates */
    size_t swaps;         /* swaps per move at most: the best candidates
                             by first-order energy that predict a gain
                             and touch disjoint nodes, applied together
                             and judged by one solve (1: one swap per
                             move); 0: tg_search_default_swaps. Only
                             without groups, labels or a hook */
    size_t threads;       /* restarts run in parallel; 0: one per online
                             CPU, at most restarts. The result does not
                             depend on it */
    const volatile sig_atomic_t *stop; /* or NULL; when *stop becomes
                             non-zero the search ends within one move and
                             returns the best graph so far (interrupted) */
    double progress_every;/* seconds between progress calls */
    void (*progress)(void *ctx, const tg_progress *p); /* or NULL; called
                             from a search thread, one call at a time */
    void *ctx;            /* passed to progress */
    size_t groups;        /* G > 0: nodes in G equal groups of contiguous
                             ids (tg_groups.h), at most max_cross edges
                             between groups; 0: no groups */
    size_t max_cross;     /* with groups: the bound C on the cut (swaps
                             that would exceed it are not proposed) */
    const tg_energy_hook *hook; /* or NULL: the energy of obj */
    double obj_gamma;     /* neff objectives: gamma (0: TG_NEFF_GAMMA) */
    /* data-aware (tg_search_hetero.c): with pi set the energy gets
     * + hetero_weight * H, H the neighbourhood heterogeneity of the
     * graph's W = (I + A)/(d + 1) for the class proportions pi */
    const double *pi;     /* [n*k] class proportions, or NULL: none */
    const double *pibar;  /* [k] their mean over nodes */
    size_t k;             /* classes */
    double hetero_weight; /* mu >= 0 (default 10) */
    size_t max_matvec;    /* sparse path: Lanczos products per solve at
                             most (0: the default, 40 n + 1000); tests set
                             a few so that solves fail: such a move is
                             rejected (failed_solves) */
} tg_search_opts;

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
 * Lanczos products (cm_lanczos_run: three-term from 256 nodes; k ~ 100-700 for an
 * accepted move, fewer for an early rejection), plus O(candidates log
 * candidates) to rank the proposals. Memory per restart O(n + m) plus
 * the Lanczos vectors (at most 256 MiB). */
cm_status tg_search_run(const tg_search_opts *o, tg_graph *out,
                        tg_search_result *res);

#endif

/* tg_eval: figures of merit of a topology, and the consensus simulation.
 *
 * tg_eval_topo computes what `topogen eval` reports: size, degree range,
 * connected components, diameter (igraph; infinite when disconnected),
 * the Laplacian extremes, the SLEM of the weights as given, the SLEM the
 * best constant Laplacian weights would give,
 * (lambda_n - lambda_2)/(lambda_n + lambda_2), and the gossip rounds to
 * shrink disagreement by 1e-3: the least integer t >= 1 with
 * SLEM^t <= 1e-3 (1 for SLEM 0, e.g. the complete graph with optimal
 * weights; infinite for SLEM 1, e.g. a disconnected graph). A
 * disconnected graph is evaluated: lambda_2 = 0, SLEM = 1. tg_simulate runs plain
 * gossip x <- W x on random vectors and records the relative disagreement
 * ||x_t - mean|| / ||x_0 - mean|| per round, which SLEM^t bounds.
 */
#ifndef TG_EVAL_H
#define TG_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "cm_topo.h"

typedef struct {
    size_t n;          /* nodes */
    size_t m;          /* undirected edges */
    size_t dmin, dmax; /* degree range */
    size_t components; /* connected components (1: connected) */
    double diameter;   /* longest shortest path, in hops (igraph);
                          INFINITY when disconnected; a lower bound when
                          !diameter_exact */
    int diameter_exact; /* 1: exact; 0: n (n + 2m) > TG_EVAL_DIAMETER_WORK,
                          diameter is the double-sweep lower bound (the
                          eccentricity of the farthest node from node 0)
                          and diameter_upper twice node 0's eccentricity */
    double diameter_upper;
    double l2, ln;     /* lambda_2 and lambda_n of L = D - A */
    double slem;       /* SLEM of W as given */
    double slem_best;  /* SLEM of the optimal constant Laplacian weights */
    double rounds;     /* least t >= 1 with slem^t <= 1e-3; INFINITY if
                          slem >= 1 */
} tg_eval;

/* Largest n (n + 2m) (steps of n breadth-first searches) for the exact
 * diameter; larger graphs get bounds from two searches, O(n + m). */
#define TG_EVAL_DIAMETER_WORK 4e8

/* The rounds figure above for a SLEM value. */
double tg_eval_rounds(double slem);

/* Evaluates a weighted topology (weights set; it may be disconnected).
 * CM_EINVAL when unweighted or beyond the spectra's size limit (refused
 * before allocating); CM_ENUMERIC on eigensolver failure; CM_ENOMEM.
 * Spectra: dense O(n^3) below CM_SPARSE_FROM nodes, else sparse
 * (cm_mixing: Lanczos or shift-and-invert, 10^5-10^6 nodes in seconds);
 * diameter O(n m) up to TG_EVAL_DIAMETER_WORK, else bounds in O(n + m). */
cm_status tg_eval_topo(const cm_topo *t, tg_eval *e);

/* Gossip simulation: X_0 has TG_SIM_DIM standard-normal columns per node
 * drawn from cm_rng(seed, 0); X_{t+1} = W X_t. rel[t] for t = 0..rounds is
 * ||X_t - 1 mean^T||_F / ||X_0 - 1 mean^T||_F (rel[0] = 1). rel has
 * rounds + 1 entries (caller-owned). CM_EINVAL when unweighted or n < 2.
 * O(rounds * (n + m) * TG_SIM_DIM). */
#define TG_SIM_DIM 8
cm_status tg_simulate(const cm_topo *t, size_t rounds, uint64_t seed,
                      double *rel);

/* tg_simulate over a periodic sequence: round r (1-based) applies
 * seq[(r - 1) mod period]; all rounds weighted, on the same n >= 2. With
 * period 1 it is tg_simulate, bit for bit. */
cm_status tg_simulate_seq(const cm_topo *seq, size_t period, size_t rounds,
                          uint64_t seed, double *rel);

#endif

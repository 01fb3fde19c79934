/* tg_seq: time-varying topologies that average exactly in finite time,
 * and the figures `topogen eval` reports for any sequence.
 *
 * Kinds (each a cm_topo_seq of weighted rounds, every W_t symmetric,
 * doubly stochastic, non-negative):
 *   one-peer-exp  n = 2^tau: in round k node i averages with the one peer
 *                 i XOR 2^k, at distance 2^k (weights 1/2), k = 0..tau-1.
 *                 The product of the tau rounds is exactly 11^T/n. This
 *                 is the symmetric form of the one-peer exponential graph
 *                 of Ying et al. (2021) (their peer i + 2^k mod n gives a
 *                 non-symmetric W, which the file format does not hold).
 *   base          Base-(k+1) graph of Takezawa et al. (NeurIPS 2023) with
 *                 k = d: exact averaging after finitely many rounds for
 *                 any n, per-round degree <= k. When every prime factor
 *                 of n is <= k+1 it is the k-peer hyper-hypercube (round l
 *                 averages over the l-th mixed-radix digit, cliques of
 *                 size f_l <= k+1); otherwise n is split by its base-(k+1)
 *                 digits, n = sum_l a_l (k+1)^p_l, into groups that
 *                 average inside, merge into the smaller groups one round
 *                 per digit, and re-average (tg_seq.c has the argument),
 *                 or, when shorter, the product of that construction on
 *                 the (k+1)-rough part of n and the hyper-hypercube on
 *                 its smooth part.
 */
#ifndef TG_SEQ_H
#define TG_SEQ_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "cm_topo_seq.h"

typedef enum {
    TG_SEQ_ONE_PEER_EXP, /* one-peer exponential (hypercube pairing) */
    TG_SEQ_BASE          /* Base-(k+1), k = d */
} tg_seq_kind;

/* 1 and *kind when s names a sequence kind ("one-peer-exp", "base"). */
int tg_seq_kind_parse(const char *s, tg_seq_kind *kind);

/* The kind's name as parsed. */
const char *tg_seq_kind_name(tg_seq_kind kind);

/* Checks (n, d) before any work: 2 <= n <= 4096; one-peer-exp needs n a
 * power of two; base needs 1 <= d < n. Messages name -n or -d.
 * CM_EINVAL on failure. */
cm_status tg_seq_check(tg_seq_kind kind, size_t n, size_t d);

/* Builds the sequence (s initialized; old content destroyed). O(period n
 * + edges). CM_EINVAL as tg_seq_check; CM_ENOMEM. */
cm_status tg_seq_build(cm_topo_seq *s, tg_seq_kind kind, size_t n, size_t d);

typedef struct {
    size_t n;          /* nodes */
    size_t period;     /* rounds per period */
    size_t dmax;       /* largest degree over all rounds */
    double messages;   /* messages sent per node per period: sum over
                          rounds of 2 m_t / n (each edge both ways) */
    double norm;       /* ||W_{P-1} ... W_0 - 11^T/n||_2 */
    int exact;         /* 1 when norm <= TG_SEQ_EXACT_TOL */
    size_t rounds;     /* smallest r with ||W_{r-1}..W_0 - J||_2 <= 1e-3,
                          found exactly within TG_SEQ_MAX_EXACT rounds;
                          0 when not reached there (then rounds_est) */
    double rounds_est; /* P log(1e-3)/log(norm) when rounds = 0 */
} tg_seq_eval;

#define TG_SEQ_EXACT_TOL 1e-12
#define TG_SEQ_MAX_EXACT 256

/* Evaluates a validated, weighted sequence; degrees[t] (caller-owned,
 * period entries, may be NULL) receives round t's largest degree.
 * rounds: the norm does not grow with r, so doubling then bisection find
 * it with O(log TG_SEQ_MAX_EXACT) norms, each O(r n (n + m) + n^3).
 * CM_ENOMEM, CM_ENUMERIC. */
cm_status tg_seq_evaluate(const cm_topo_seq *s, size_t *degrees,
                          tg_seq_eval *e);

#endif

/* topogen.h: the public C API of libtopogen (link with
 * `pkg-config --cflags --libs topogen`).
 *
 * Learn a fast-mixing topology for decentralized SGD, or build a baseline
 * kind, with the same settings and the same bytes as the `topogen`
 * program; read and write every topology file format (edge list, ncol,
 * GraphML, GML, time-varying sequences); get the mixing matrix W (dense,
 * node order 0..n-1, self weights filled) and its measures.
 *
 * Conventions: every fallible function returns a topogen_status and, on
 * failure, leaves one sentence-case message naming the file, line or
 * option at fault in a per-thread buffer (topogen_last_error). Nothing in
 * the library prints or exits. Handles are opaque: topogen_learn and
 * topogen_read create one, topogen_free frees it. Option structs carry
 * their own size (set by their init function), so options added in later
 * versions do not break programs built against this header: always call
 * the init function first, then set what you need. Names of kinds,
 * objectives, weight rules and formats are strings, parsed exactly as the
 * `topogen` command line parses them, so new ones need no new API.
 *
 * Threads and signals: the library installs no signal handler. Its entry
 * points are serialised by one process-wide (recursive) mutex: calls from
 * several threads are safe and run one at a time (a second thread's call
 * waits until the first returns), because each call sets process-wide
 * state while it runs (GSL's and igraph's error handlers, OpenBLAS's
 * thread count) and restores it before returning. The accessors that
 * only read a handle (topogen_nodes, ..., topogen_mixing_matrix) take no
 * lock; a handle must not be freed while another thread uses it. A long
 * topogen_learn is stopped from another thread or a signal handler
 * through its options' stop flag (TOPOGEN_EINTR).
 *
 * A topology is a periodic sequence of P >= 1 rounds on the same n nodes
 * (P = 1 for a static graph); round t of gossip uses W_{t mod P}. Each
 * round's W is row stochastic: x_i <- sum_j W_ij x_j, with W_ij the weight
 * node i gives to neighbour j and W_ii = 1 - sum_{j != i} W_ij.
 */
#ifndef TOPOGEN_H
#define TOPOGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's API version (bumped when something is added). 2: the
 * stop flag of topogen_learn_opts, TOPOGEN_EINTR, topogen_validate,
 * --labels in topogen_learn, kind epidemic. */
#define TOPOGEN_API_VERSION 2

typedef enum {
    TOPOGEN_OK = 0,     /* success */
    TOPOGEN_EINVAL,     /* bad argument or option value */
    TOPOGEN_ENOMEM,     /* allocation failed */
    TOPOGEN_EIO,        /* open/read/write/rename failed */
    TOPOGEN_EFORMAT,    /* malformed input file */
    TOPOGEN_ETOPO,      /* well-formed topology that breaks a rule
                           (asymmetric, not stochastic, disconnected) */
    TOPOGEN_ENUMERIC,   /* numerical failure (eigensolver, NaN) */
    TOPOGEN_EOTHER,     /* reserved */
    TOPOGEN_EINTERNAL,  /* broken invariant: a bug */
    TOPOGEN_EINTR       /* stopped through topogen_learn_opts.stop */
} topogen_status;

/* The last error message on this thread ("" when none). Borrowed: valid
 * until the next failing call on this thread. */
const char *topogen_last_error(void);

/* The version of the topogen file generator ("2.1"), as written into
 * file headers. Static storage. */
const char *topogen_version(void);

/* An opaque topology: P rounds of a weighted graph on n nodes, plus the
 * header comment its file carries. */
typedef struct topogen_topology topogen_topology;

/* ---- learning ----------------------------------------------------------
 * The fields mirror topogen's flags (`topogen --help`); 0, 0.0 or NULL
 * means "topogen's default", which is resolved as topogen resolves it. */
typedef struct {
    size_t size;             /* sizeof(topogen_learn_opts); set by init */
    size_t n, d;             /* -n, -d (default 64, 4) */
    const char *kind;        /* --kind: "learned" (default), "rrl", "ring",
                                "torus", "hypercube", "exponential",
                                "random", "complete", and the time-varying
                                "one-peer-exp", "base" */
    const char *weights;     /* --weights: "laplacian" (default), "mh",
                                "maxdeg", "fdla" (static kinds only) */
    const char *objective;   /* --objective: "ratio" (default), "gap",
                                "slem-mh", ... */
    const char *init;        /* --init: "random" (default) or "rrl" */
    const char *eigensolver; /* --eigensolver: "auto" (default), "dense",
                                "sparse" */
    uint64_t seed;           /* --seed (default 1) */
    size_t iters;            /* --iters (0: by n) */
    size_t restarts;         /* --restarts (0: by n) */
    size_t candidates;       /* --candidates (0: by n) */
    size_t threads;          /* --threads (0: one per core; the result
                                does not depend on it) */
    size_t groups;           /* --groups (0: none) */
    size_t max_cross;        /* --max-cross (0: the least, with groups) */
    double t0, t1;           /* --t0, --t1 (0: by n) */
    double time_limit;       /* --time-limit seconds (0: none; then the
                                result is not deterministic) */
    int no_screen;           /* --no-screen */
    const char *const *flags; /* NULL, or more of topogen's flags as
                                command-line words, NULL-terminated, e.g.
                                {"--directed", "--gamma", "0.9", NULL}:
                                any flag of `topogen --help` that shapes
                                the graph (not -o, --format, --quiet,
                                which are refused), --labels COUNTS
                                included (the data-aware search) */
    volatile int *stop;      /* NULL, or a flag the search polls (every
                                few milliseconds): set it to nonzero from
                                another thread or a signal handler and
                                topogen_learn returns TOPOGEN_EINTR soon
                                after, with no handle. The caller owns it
                                (API version 2) */
} topogen_learn_opts;

/* Fills o with topogen's defaults (and o->size). */
void topogen_learn_opts_init(topogen_learn_opts *o);

/* Learns (kind "learned") or builds the topology of o and weights it;
 * *out receives a new handle (free with topogen_free), whose file
 * (topogen_write, format "edgelist") is byte for byte what
 * `topogen SETTINGS` writes. The options are handed to topogen's own
 * flag parser, so every kind, objective and weight rule of the program
 * is accepted, with its checks: TOPOGEN_EINVAL with the message topogen
 * would print; n = 0 or d = 0 mean topogen's default (64, 4), so give
 * "-n", "0" in flags to have it refused as the program refuses it. The
 * directed kinds (perm, exp-directed, learned with "--directed") give
 * directed topologies; epidemic gives a topology without arcs (each
 * round's graph is drawn from the run's seed: topogen_mixing_matrix and
 * topogen_measure refuse it; topogen_write writes its header). A flag the
 * library would not use (-o, --format, --quiet, eval's flags) is refused
 * with TOPOGEN_EINVAL, never ignored. TOPOGEN_EINTR when o->stop was
 * set. Cost: the search's (seconds at n = 64, see topogen's README), or
 * O(n^3) for the spectrum of a built kind. */
topogen_status topogen_learn(const topogen_learn_opts *o,
                             topogen_topology **out);

/* ---- files --------------------------------------------------------------*/

/* Reads a topology file ("-" is stdin): format NULL or "auto" detects edge
 * list, ncol, GraphML, GML and time-varying sequences; else "edgelist",
 * "ncol", "graphml", "gml". Node ids are 0-based, or 1-based when no id is
 * 0 and no n= is declared. A file without weights gets none
 * (topogen_is_weighted 0; see topogen_set_weights). The file is checked
 * for syntax, symmetry and rows summing to 1 (a directed file, header
 * token directed=1: rows and columns); *out gets a new handle.
 * TOPOGEN_EIO, TOPOGEN_EFORMAT, TOPOGEN_ETOPO with the file and line.
 * O(file size + m log m). */
topogen_status topogen_read(const char *path, const char *format,
                            topogen_topology **out);

/* Writes t to path ("-" is stdout) atomically (temporary file + rename)
 * in format NULL/"edgelist" (with t's header comment), "ncol" (no
 * comments), "graphml" or "gml" (one undirected round only: a directed
 * topology is refused, as `topogen --format` refuses it, since those
 * files would read back as another W). */
topogen_status topogen_write(const topogen_topology *t, const char *path,
                             const char *format);

/* The checks dpsgd-train makes before training on t (every round
 * stochastic, symmetric or doubly stochastic, connected or strongly
 * connected, the SLEM or the period's product below 1), with its
 * messages: TOPOGEN_ETOPO naming what fails; TOPOGEN_EINVAL when t is
 * unweighted. An epidemic topology passes. O(n^3) up to 4,096 nodes,
 * sparse eigensolves above. */
topogen_status topogen_validate(const topogen_topology *t);

/* Frees t. Accepts NULL. */
void topogen_free(topogen_topology *t);

/* ---- the graph and its mixing matrix ------------------------------------*/

/* The accessors below return 0 (or "") for a NULL t; the ones returning
 * a status give TOPOGEN_EINVAL for a NULL pointer argument. */

/* Nodes n. */
size_t topogen_nodes(const topogen_topology *t);

/* Rounds per period P (1 for a static topology). */
size_t topogen_rounds(const topogen_topology *t);

/* 1 when W need not be symmetric (a directed file), else 0. */
int topogen_is_directed(const topogen_topology *t);

/* 1 when every round carries weights, else 0. */
int topogen_is_weighted(const topogen_topology *t);

/* Edges of round `round` (mod P): undirected edges, or arcs when
 * directed. */
size_t topogen_edges(const topogen_topology *t, size_t round);

/* The header comment t's edge-list file carries ("" when none). Borrowed:
 * lives as long as t. */
const char *topogen_header(const topogen_topology *t);

/* Replaces the weights of every round with a rule ("laplacian", "mh",
 * "maxdeg", "fdla"), as `topogen eval FILE --weights RULE` does; a
 * static topology only. TOPOGEN_EINVAL. O(n^3) for laplacian and fdla. */
topogen_status topogen_set_weights(topogen_topology *t, const char *rule);

/* Neighbours of node i in round `round` (mod P): the j != i with an edge
 * i-j (directed: the j that i receives from, W_ij != 0), ascending, into
 * ids[0 .. cap) and, when w is not NULL, W_ij into w; *count gets the
 * degree (also when larger than cap: call again with more room).
 * TOPOGEN_EINVAL for i >= n, or w on an unweighted t. O(degree). */
topogen_status topogen_neighbours(const topogen_topology *t, size_t round,
                                  size_t i, size_t *ids, double *w,
                                  size_t cap, size_t *count);

/* The dense mixing matrix of round `round` (mod P) into w[n*n], row-major,
 * node order 0..n-1: w[i*n + j] = W_ij, self weights W_ii filled, zeros
 * elsewhere. TOPOGEN_EINVAL when t is unweighted. O(n^2). */
topogen_status topogen_mixing_matrix(const topogen_topology *t,
                                     size_t round, double *w);

/* Measures of one round's graph and W, and of the whole period. */
typedef struct {
    size_t size;        /* sizeof(topogen_measures); set by the caller
                           (topogen_measures_init) */
    size_t n, m;        /* nodes, edges of the round */
    size_t dmin, dmax;  /* degree range of the round */
    size_t components;  /* connected components of the round */
    double diameter;    /* hops; INFINITY when disconnected */
    double lambda2_l;   /* lambda_2 of the Laplacian L = D - A */
    double lambdan_l;   /* lambda_n of L */
    double slem;        /* ||W - 11^T/n||_2 = max(|lambda_2|, |lambda_n|)
                           of W (symmetric) */
    double lambda2;     /* lambda_2(W), second-largest eigenvalue of W */
    double lambdan;     /* lambda_n(W), smallest eigenvalue of W */
    double slem_best;   /* SLEM of the optimal constant Laplacian weights */
    double rounds;      /* least t with slem^t <= 1e-3 (INFINITY if
                           slem >= 1) */
    size_t period;      /* P */
    double period_norm; /* ||W_{P-1} ... W_0 - 11^T/n||_2 (= slem for
                           P = 1) */
    double period_rounds; /* rounds to shrink disagreement by 1e-3 going
                           through the sequence (exact when found within
                           256 rounds, else estimated) */
    double gamma;       /* in: the discount of n_eff (0: 0.951); out: the
                           one used */
    double neff;        /* n_eff(gamma), the effective number of workers
                           (Vogels et al. 2022): of the round's W, or of
                           the period for P > 1 */
    double messages;    /* models a node sends per round (mean) */
} topogen_measures;

/* Zeroes m and sets m->size (gamma 0: n_eff at 0.951). */
void topogen_measures_init(topogen_measures *m);

/* Measures round `round` (mod P) of the weighted t into m (initialized).
 * Directed: n, m, degrees (in-degree), slem = ||W - J||_2, rounds, neff
 * and messages; the eigenvalue fields are NAN. TOPOGEN_EINVAL when
 * unweighted, epidemic or above the dense limit (4096 nodes);
 * TOPOGEN_ENUMERIC. O(n^3) (dense eigensolves) + O(n m) (diameter), plus
 * for P > 1 O(P n (n + m) + n^3) per product norm. */
topogen_status topogen_measure(const topogen_topology *t, size_t round,
                               topogen_measures *m);

#ifdef __cplusplus
}
#endif

#endif

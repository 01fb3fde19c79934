/* mpi_check_gossip.c: gossip averaging under mpirun -np 4.
 *
 * Invariants: repeated rounds keep the mean of the workers' vectors (to
 * 1e-6 relative) and shrink the disagreement D(t) = ||X_t - 1 xbar^T||_F
 * at most as fast as SLEM(W)^t predicts, and at that rate once the slower
 * modes dominate. Closed forms: Petersen graph with Laplacian weights has
 * SLEM 3/7, the cube Q3 with Metropolis-Hastings weights 1/2, the 8-ring
 * with Laplacian weights (4 - l2)/(4 + l2), l2 = 2 - sqrt 2. The result is
 * bit-identical for P = 1, 2, 3, 4 ranks (sub-communicators), the bytes
 * sent match an independent count, rounds of several plans in flight
 * together (--staleness) give the blocking round's bits, and P > n is
 * rejected on every rank. The exact average and its re-quantized form
 * (--compress int8/int4's two-way all-reduce) give the serial result's
 * bits on P = 1..4 too, and so does the compressed gossip of Q's
 * outputs (their wire form) against the float plan. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "cm_rng.h"
#include "cm_mixing.h"
#include "dt_comm.h"
#include "dt_compress.h"
#include "dt_compress_wire.h"
#include "dt_gossip.h"
#include "dt_gossip_plan.h"
#include "dt_partition.h"
#include "mpi_run.h"

#define LEN 300 /* floats per worker array */

enum { G_RING8, G_PETERSEN, G_CUBE, G_COUNT };

/* Builds topology `which` with its weights and the closed-form SLEM. */
static void make_graph(int which, cm_topo *t, double *slem)
{
    size_t ei[20], ej[20], m = 0, n = 0;
    cm_weight_rule rule = CM_WEIGHTS_LAPLACIAN;
    if (which == G_RING8) {
        n = 8;
        for (size_t i = 0; i < n; i++, m++) {
            ei[m] = i;
            ej[m] = (i + 1) % n;
        }
        double l2 = 2.0 - sqrt(2.0);
        *slem = (4.0 - l2) / (4.0 + l2);
    } else if (which == G_PETERSEN) {
        n = 10;
        for (size_t i = 0; i < 5; i++) {
            ei[m] = i, ej[m++] = (i + 1) % 5;         /* outer 5-cycle */
            ei[m] = 5 + i, ej[m++] = 5 + (i + 2) % 5; /* inner pentagram */
            ei[m] = i, ej[m++] = 5 + i;               /* spokes */
        }
        *slem = 3.0 / 7.0;
    } else {
        n = 8;
        rule = CM_WEIGHTS_MH;
        for (size_t i = 0; i < n; i++)
            for (size_t b = 1; b < n; b <<= 1)
                if (i < (i ^ b))
                    ei[m] = i, ej[m++] = i ^ b;
        *slem = 0.5;
    }
    cm_topo_init(t);
    ck_assert_int_eq(cm_topo_from_edges(t, n, m, ei, ej), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(t, rule), CM_OK);
    ck_assert_int_eq(cm_topo_validate(t, "test"), CM_OK);
    double s;
    ck_assert_int_eq(cm_topo_slem(t, &s), CM_OK);
    ck_assert_double_eq_tol(s, *slem, 1e-12);
}

/* Local worker arrays of g: worker w starts from uniforms of stream w. */
static void init_workers(const dt_gossip *g, float **x, uint64_t seed)
{
    for (size_t i = 0; i < dt_gossip_count(g); i++) {
        cm_rng r;
        cm_rng_seed(&r, seed, dt_gossip_first(g) + i);
        for (size_t k = 0; k < LEN; k++)
            x[i][k] = (float)cm_rng_uniform(&r);
    }
}

/* All n arrays into all[n*LEN] on every rank of c (exact: x + 0 = x). */
static void gather(const dt_comm *c, const dt_gossip *g, float *const *x,
                   size_t n, float *all)
{
    memset(all, 0, n * LEN * sizeof *all);
    for (size_t i = 0; i < dt_gossip_count(g); i++)
        memcpy(all + (dt_gossip_first(g) + i) * LEN, x[i],
               LEN * sizeof *all);
    ck_assert_int_eq(dt_comm_allreduce_sum_float(c, all, n * LEN), CM_OK);
}

/* Mean of all arrays per component, and D = ||X - 1 mean^T||_F. */
static double disagreement(const float *all, size_t n, double *mean)
{
    double d = 0.0;
    for (size_t k = 0; k < LEN; k++) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
            s += all[i * LEN + k];
        mean[k] = s / (double)n;
        for (size_t i = 0; i < n; i++) {
            double e = all[i * LEN + k] - mean[k];
            d += e * e;
        }
    }
    return sqrt(d);
}

static float **alloc_arrays(size_t count)
{
    float **x = malloc(count * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < count; i++) {
        x[i] = malloc(LEN * sizeof **x);
        ck_assert_ptr_nonnull(x[i]);
    }
    return x;
}

static void free_arrays(float **x, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(x[i]);
    free(x);
}

START_TEST(test_mean_and_slem_rate)
{
    dt_comm *w = dt_comm_world();
    cm_topo t;
    double slem;
    make_graph(_i, &t, &slem);
    const size_t n = t.n;
    /* Rounds while SLEM^t stays well above float rounding. */
    int T = (int)floor(log(1e-4) / log(slem));
    if (T > 25)
        T = 25;
    dt_gossip *g = NULL;
    ck_assert_int_eq(dt_gossip_new(w, &t, LEN, &g), CM_OK);
    const size_t cnt = dt_gossip_count(g);
    float **x = alloc_arrays(cnt), **y = alloc_arrays(cnt);
    float *all = malloc(n * LEN * sizeof *all);
    double mean0[LEN], mean[LEN], prev = 0.0;
    init_workers(g, x, 11);
    gather(w, g, x, n, all);
    const double d0 = disagreement(all, n, mean0);
    ck_assert_double_gt(d0, 0.1);
    prev = d0;
    for (int r = 1; r <= T; r++) {
        ck_assert_int_eq(dt_gossip_round(g, x, y), CM_OK);
        float **tmp = x;
        x = y;
        y = tmp;
        gather(w, g, x, n, all);
        double d = disagreement(all, n, mean);
        for (size_t k = 0; k < LEN; k++)
            ck_assert_msg(fabs(mean[k] - mean0[k]) <= 1e-6 * fabs(mean0[k]),
                          "graph %d round %d: mean[%zu] %.9g vs %.9g", _i, r,
                          k, mean[k], mean0[k]);
        double bound = pow(slem, r);
        ck_assert_msg(d / d0 <= bound * (1 + 1e-3) + 1e-6,
                      "graph %d round %d: D ratio %.6g > SLEM^t %.6g", _i, r,
                      d / d0, bound);
        if (r == T) /* by now the slowest modes dominate */
            ck_assert_msg(d / prev >= 0.9 * slem,
                          "graph %d: last round ratio %.4g, SLEM %.4g", _i,
                          d / prev, slem);
        prev = d;
    }
    dt_gossip_stats st;
    dt_gossip_get_stats(g, &st);
    ck_assert_uint_eq(st.rounds, (uint64_t)T);
    ck_assert_uint_eq(st.bytes_sent, (uint64_t)T * st.bytes_round);
    free(all);
    free_arrays(x, cnt);
    free_arrays(y, cnt);
    dt_gossip_free(g);
    cm_topo_destroy(&t);
}
END_TEST

/* Arrays rank r sends per round, counted the slow way: distinct
 * (rank q != r, local worker) pairs joined by an edge. */
static size_t arrays_expected(const cm_topo *t, size_t P, size_t r)
{
    size_t first, count, total = 0;
    dt_partition_block_range(t->n, P, r, &first, &count);
    for (size_t q = 0; q < P; q++) {
        if (q == r)
            continue;
        for (size_t i = first; i < first + count; i++) {
            int needed = 0;
            for (size_t k = t->off[i]; k < t->off[i + 1]; k++)
                needed |= dt_partition_block_owner(t->n, P, t->adj[k]) == q;
            total += needed;
        }
    }
    return total;
}

START_TEST(test_same_result_for_any_p)
{
    dt_comm *w = dt_comm_world();
    const size_t size = dt_comm_size(w), rank = dt_comm_rank(w);
    const size_t maxp = size < 4 ? size : 4;
    cm_topo t;
    double slem;
    make_graph(_i, &t, &slem);
    const size_t n = t.n;
    float *ref = malloc(n * LEN * sizeof *ref);
    float *all = malloc(n * LEN * sizeof *all);
    size_t compared = 0, differ = 0;
    for (size_t P = 1; P <= maxp; P++) {
        dt_comm *c = mpi_first_ranks(w, P);
        if (!c)
            continue;
        dt_gossip *g = NULL;
        ck_assert_int_eq(dt_gossip_new(c, &t, LEN, &g), CM_OK);
        const size_t cnt = dt_gossip_count(g);
        size_t first, count;
        dt_partition_block_range(n, P, rank, &first, &count);
        ck_assert_uint_eq(dt_gossip_first(g), first);
        ck_assert_uint_eq(cnt, count);
        float **x = alloc_arrays(cnt), **y = alloc_arrays(cnt);
        init_workers(g, x, 5);
        for (int r = 0; r < 7; r++) {
            /* start / (here the trainer computes) / finish */
            ck_assert_int_eq(dt_gossip_start(g, x), CM_OK);
            ck_assert_int_eq(dt_gossip_start(g, x), CM_EINVAL);
            for (int k = 0; k < 3; k++)
                ck_assert_int_eq(dt_gossip_progress(g), CM_OK);
            ck_assert_int_eq(dt_gossip_finish(g, y), CM_OK);
            ck_assert_int_eq(dt_gossip_finish(g, y), CM_EINVAL);
            float **tmp = x;
            x = y;
            y = tmp;
        }
        dt_gossip_stats st;
        dt_gossip_get_stats(g, &st);
        size_t want = arrays_expected(&t, P, rank);
        ck_assert_uint_eq(st.arrays_sent, want);
        ck_assert_uint_eq(st.bytes_round, want * LEN * sizeof(float));
        ck_assert_uint_eq(st.bytes_sent, 7 * st.bytes_round);
        if (P == 1)
            ck_assert_uint_eq(st.peers, 0);
        else
            ck_assert_uint_ge(st.peers, 1);
        gather(c, g, x, n, all);
        if (P == 1) {
            memcpy(ref, all, n * LEN * sizeof *ref);
        } else if (rank == 0) {
            /* Counted, not asserted here: a failure on rank 0 alone would
             * leave the other ranks waiting in the next collective. */
            for (size_t k = 0; k < n * LEN; k++)
                differ += all[k] != ref[k];
            compared++;
        }
        free_arrays(x, cnt);
        free_arrays(y, cnt);
        dt_gossip_free(g);
        dt_comm_free(c);
    }
    double bad[2] = {(double)differ, (double)compared};
    ck_assert_int_eq(dt_comm_allreduce_sum_double(w, bad, 2), CM_OK);
    ck_assert_msg(bad[0] == 0.0, "graph %d: %.0f elements differ from P=1",
                  _i, bad[0]);
    ck_assert_double_eq(bad[1], (double)(maxp - 1));
    free(all);
    free(ref);
    cm_topo_destroy(&t);
}
END_TEST

/* The exact average (dt_gossip_new_average) of n = 10 workers' arrays of
 * 299 floats (not a multiple of P): on P = 1..4 ranks every local out is
 * bit for bit the serial mean (dt_gossip_plan_mean over all n in worker
 * order), and each rank's bytes are its all-to-all segments of its
 * workers but its own plus its mean segment to the P - 1 others. */
START_TEST(test_exact_average_any_p)
{
    enum { NW = 10, ALEN = LEN - 1 };
    dt_comm *w = dt_comm_world();
    const size_t size = dt_comm_size(w), rank = dt_comm_rank(w);
    const size_t maxp = size < 4 ? size : 4;
    float *allx = malloc(NW * LEN * sizeof *allx), ref[LEN];
    const float *rows[NW];
    double acc[LEN];
    ck_assert_ptr_nonnull(allx);
    for (size_t j = 0; j < NW; j++) { /* init_workers' values, serially */
        cm_rng r;
        cm_rng_seed(&r, 9, j);
        for (size_t k = 0; k < LEN; k++)
            allx[j * LEN + k] = (float)cm_rng_uniform(&r);
        rows[j] = allx + j * LEN;
    }
    dt_gossip_plan_mean(rows, NW, ALEN, acc, ref);
    double differ = 0.0, badbytes = 0.0;
    for (size_t P = 1; P <= maxp; P++) {
        dt_comm *c = mpi_first_ranks(w, P);
        if (!c)
            continue;
        dt_gossip *g = NULL;
        ck_assert_int_eq(dt_gossip_new_average(c, NW, NULL, ALEN, &g), CM_OK);
        const size_t cnt = dt_gossip_count(g);
        float **x = alloc_arrays(cnt), **y = alloc_arrays(cnt);
        init_workers(g, x, 9);
        ck_assert_int_eq(dt_gossip_start(g, x), CM_OK);
        ck_assert_int_eq(dt_gossip_finish(g, y), CM_OK);
        for (size_t i = 0; i < cnt; i++)
            differ += memcmp(y[i], ref, ALEN * sizeof *ref) != 0;
        dt_gossip_stats st;
        dt_gossip_get_stats(g, &st);
        const size_t own = ALEN / P + (rank < ALEN % P);
        badbytes += st.bytes_round !=
                    (cnt * (ALEN - own) + own * (P - 1)) * sizeof(float);
        badbytes += st.peers != P - 1;
        free_arrays(x, cnt);
        free_arrays(y, cnt);
        dt_gossip_free(g);
        dt_comm_free(c);
    }
    double bad[2] = {differ, badbytes};
    ck_assert_int_eq(dt_comm_allreduce_sum_double(w, bad, 2), CM_OK);
    ck_assert_msg(bad[0] == 0.0, "%.0f local averages differ from the "
                  "serial mean", bad[0]);
    ck_assert_msg(bad[1] == 0.0, "%.0f byte or peer counts wrong", bad[1]);
    free(allx);
}
END_TEST

/* Rounds in flight together, as dpsgd-train --staleness D runs them
 * (dt_dpsgd.c, stale_exchange): D + 1 plans of one graph, round k on
 * plan k mod (D + 1) with its own arrays, started before round k - D is
 * finished. Every round's result is bit for bit the blocking round of
 * the same arrays (a fourth plan, run while the others are in flight), on
 * P = 1..4 ranks, and each plan counts the rounds it finished. */
START_TEST(test_rounds_in_flight)
{
    enum { D = 2, ROUNDS = 7 };
    dt_comm *w = dt_comm_world();
    const size_t size = dt_comm_size(w);
    const size_t maxp = size < 4 ? size : 4;
    cm_topo t;
    double slem;
    make_graph(G_PETERSEN, &t, &slem);
    double bad[2] = {0.0, 0.0}; /* elements that differ, rounds miscounted */
    for (size_t P = 1; P <= maxp; P++) {
        dt_comm *c = mpi_first_ranks(w, P);
        if (!c)
            continue;
        dt_gossip *g[D + 1], *b = NULL;
        for (size_t k = 0; k <= D; k++)
            ck_assert_int_eq(dt_gossip_new(c, &t, LEN, &g[k]), CM_OK);
        ck_assert_int_eq(dt_gossip_new(c, &t, LEN, &b), CM_OK);
        const size_t cnt = dt_gossip_count(b);
        float **x[ROUNDS], **y = alloc_arrays(cnt), **z = alloc_arrays(cnt);
        for (size_t r = 0; r < ROUNDS; r++) {
            x[r] = alloc_arrays(cnt);
            init_workers(b, x[r], 20 + r);
        }
        for (size_t r = 0; r < ROUNDS + D; r++) {
            if (r < ROUNDS)
                ck_assert_int_eq(dt_gossip_start(g[r % (D + 1)], x[r]),
                                 CM_OK);
            for (size_t k = 0; k <= D; k++)
                ck_assert_int_eq(dt_gossip_progress(g[k]), CM_OK);
            if (r < D)
                continue;
            const size_t j = r - D;
            ck_assert_int_eq(dt_gossip_finish(g[j % (D + 1)], y), CM_OK);
            ck_assert_int_eq(dt_gossip_round(b, x[j], z), CM_OK);
            for (size_t i = 0; i < cnt; i++)
                bad[0] += memcmp(y[i], z[i], LEN * sizeof(float)) != 0;
        }
        for (size_t k = 0; k <= D; k++) {
            dt_gossip_stats st;
            dt_gossip_get_stats(g[k], &st);
            bad[1] += st.rounds != (ROUNDS - k + D) / (D + 1);
            dt_gossip_free(g[k]);
        }
        for (size_t r = 0; r < ROUNDS; r++)
            free_arrays(x[r], cnt);
        free_arrays(y, cnt);
        free_arrays(z, cnt);
        dt_gossip_free(b);
        dt_comm_free(c);
    }
    ck_assert_int_eq(dt_comm_allreduce_sum_double(w, bad, 2), CM_OK);
    ck_assert_msg(bad[0] == 0.0, "%.0f worker arrays differ from the "
                  "blocking round", bad[0]);
    ck_assert_msg(bad[1] == 0.0, "%.0f plans miscounted their rounds",
                  bad[1]);
    cm_topo_destroy(&t);
}
END_TEST

/* The re-quantized average (dt_gossip_new_average_q, int8 and int4) of
 * n = 10 workers' arrays of 700 floats (three blocks of the compressor,
 * the last 188 long), each quantized first as the trainer's are: on
 * P = 1..4 ranks (at 4 one rank owns no block) every local out is bit
 * for bit the serial mean quantized block by block (dt_compress_apply on
 * [0, 256), [256, 512), [512, 700)), and each rank's bytes are the wire
 * form (codes and scales, dt_compress_wire_bytes) of its workers'
 * segments but its own plus its mean segment to the P - 1 others, the
 * segments cut on whole blocks. */
START_TEST(test_requantized_average_any_p)
{
    enum { NW = 10, QLEN = 700, NB = 3 };
    dt_comm *w = dt_comm_world();
    const size_t size = dt_comm_size(w), rank = dt_comm_rank(w);
    const size_t maxp = size < 4 ? size : 4;
    float *allx = malloc(NW * QLEN * sizeof *allx), mean[QLEN], ref[QLEN];
    float *raw = malloc(NW * QLEN * sizeof *raw);
    const float *rows[NW];
    double acc[QLEN];
    ck_assert(allx && raw);
    for (size_t j = 0; j < NW; j++) {
        cm_rng r;
        cm_rng_seed(&r, 11, j);
        for (size_t k = 0; k < QLEN; k++)
            raw[j * QLEN + k] = (float)(cm_rng_uniform(&r) - 0.5);
        rows[j] = allx + j * QLEN;
    }
    const char *forms[2] = {"int8", "int4"};
    double differ = 0.0, badbytes = 0.0, moved = 0.0;
    for (int f = 0; f < 2; f++) {
        dt_compress cz;
        ck_assert_int_eq(dt_compress_parse(forms[f], &cz), CM_OK);
        for (size_t j = 0; j < NW; j++)
            dt_compress_apply(&cz, raw + j * QLEN, allx + j * QLEN, QLEN);
        dt_gossip_plan_mean(rows, NW, QLEN, acc, mean);
        for (size_t b = 0; b < QLEN; b += DT_COMPRESS_BLOCK)
            dt_compress_apply(&cz, mean + b, ref + b,
                              QLEN - b < DT_COMPRESS_BLOCK ? QLEN - b
                                                           : DT_COMPRESS_BLOCK);
        for (size_t k = 0; k < QLEN; k++)
            moved += ref[k] != mean[k];
        for (size_t P = 1; P <= maxp; P++) {
            dt_comm *c = mpi_first_ranks(w, P);
            if (!c)
                continue;
            dt_gossip *g = NULL;
            ck_assert_int_eq(dt_gossip_new_average_q(c, NW, NULL, QLEN, &cz,
                                                     &g), CM_OK);
            const size_t cnt = dt_gossip_count(g), first = dt_gossip_first(g);
            float **x = malloc(cnt * sizeof *x), **y = malloc(cnt * sizeof *y);
            ck_assert(x && y);
            for (size_t i = 0; i < cnt; i++) {
                x[i] = allx + (first + i) * QLEN;
                y[i] = malloc(QLEN * sizeof *y[i]);
                ck_assert_ptr_nonnull(y[i]);
            }
            ck_assert_int_eq(dt_gossip_round(g, x, y), CM_OK);
            for (size_t i = 0; i < cnt; i++)
                differ += memcmp(y[i], ref, sizeof ref) != 0;
            /* rank r's blocks: NB / P each, the first NB mod P one more */
            size_t start = 0;
            for (size_t q = 0; q < rank; q++)
                start += (NB / P + (q < NB % P)) * DT_COMPRESS_BLOCK;
            size_t end = start + (NB / P + (rank < NB % P)) *
                                     DT_COMPRESS_BLOCK;
            end = end < QLEN ? end : QLEN;
            const size_t own = end > start ? end - start : 0;
            dt_gossip_stats st;
            dt_gossip_get_stats(g, &st);
            const size_t wa = dt_compress_wire_bytes(&cz, QLEN),
                         wo = dt_compress_wire_bytes(&cz, own);
            badbytes += st.bytes_round != cnt * (wa - wo) + wo * (P - 1);
            for (size_t i = 0; i < cnt; i++)
                free(y[i]);
            free(x);
            free(y);
            dt_gossip_free(g);
            dt_comm_free(c);
        }
    }
    double bad[2] = {differ, badbytes};
    ck_assert_int_eq(dt_comm_allreduce_sum_double(w, bad, 2), CM_OK);
    ck_assert_msg(moved > QLEN, "the second quantization moved only %.0f "
                  "of 2 x %d values", moved, QLEN);
    ck_assert_msg(bad[0] == 0.0, "%.0f local averages differ from the "
                  "serial mean quantized by block", bad[0]);
    ck_assert_msg(bad[1] == 0.0, "%.0f byte counts wrong", bad[1]);
    free(allx);
    free(raw);
}
END_TEST

/* Compressed gossip (dt_gossip_new_placed_q, CHOCO-SGD's q): workers'
 * arrays that are Q's output (of values in [-0.5, 0.5), so -0.0 occurs,
 * on 300 floats: a whole block and a short one), gossiped in their wire
 * form (int8/int4 codes and scales, top-k values and indices) on P =
 * 1..4 ranks, on the neighbourhood collective and on the point-to-point
 * path (DT_GOSSIP_P2P=1), give the float plan's outputs bit for bit, and
 * each rank's bytes a round are its arrays sent times their wire size. */
START_TEST(test_compressed_gossip_any_p)
{
    dt_comm *w = dt_comm_world();
    const size_t size = dt_comm_size(w), rank = dt_comm_rank(w);
    const size_t maxp = size < 4 ? size : 4;
    cm_topo t;
    double slem;
    make_graph(_i, &t, &slem);
    const size_t n = t.n;
    size_t *owner = malloc(n * sizeof *owner);
    ck_assert_ptr_nonnull(owner);
    double differ = 0.0, badbytes = 0.0, rounds = 0.0;
    const char *forms[3] = {"int8", "int4", "topk:0.1"};
    for (int f = 0; f < 3; f++)
        for (int p2p = 0; p2p < 2; p2p++)
            for (size_t P = 1; P <= maxp; P++) {
                dt_comm *c = mpi_first_ranks(w, P);
                if (!c)
                    continue;
                dt_compress q;
                ck_assert_int_eq(dt_compress_parse(forms[f], &q), CM_OK);
                dt_gossip_plan_blocks(n, P, owner);
                dt_gossip *gf = NULL, *gq = NULL;
                if (p2p)
                    setenv("DT_GOSSIP_P2P", "1", 1);
                ck_assert_int_eq(dt_gossip_new_placed(c, &t, owner, LEN, &gf),
                                 CM_OK);
                ck_assert_int_eq(dt_gossip_new_placed_q(c, &t, owner, LEN,
                                                        &q, &gq),
                                 CM_OK);
                unsetenv("DT_GOSSIP_P2P");
                const size_t cnt = dt_gossip_count(gq);
                float **x = alloc_arrays(cnt), **yf = alloc_arrays(cnt);
                float **yq = alloc_arrays(cnt);
                init_workers(gq, x, 11);
                for (size_t i = 0; i < cnt; i++) {
                    for (size_t k = 0; k < LEN; k++)
                        yf[i][k] = x[i][k] - 0.5f;
                    dt_compress_apply(&q, yf[i], x[i], LEN);
                }
                for (int r = 0; r < 2; r++) {
                    ck_assert_int_eq(dt_gossip_round(gf, x, yf), CM_OK);
                    ck_assert_int_eq(dt_gossip_start(gq, x), CM_OK);
                    ck_assert_int_eq(dt_gossip_progress(gq), CM_OK);
                    ck_assert_int_eq(dt_gossip_finish(gq, yq), CM_OK);
                    for (size_t i = 0; i < cnt; i++)
                        differ += memcmp(yf[i], yq[i], LEN * sizeof(float)) !=
                                  0;
                    rounds += 1.0;
                }
                dt_gossip_stats st;
                dt_gossip_get_stats(gq, &st);
                const size_t want = arrays_expected(&t, P, rank);
                badbytes += st.arrays_sent != want;
                badbytes += st.bytes_round !=
                            want * dt_compress_wire_bytes(&q, LEN);
                badbytes += st.bytes_sent != 2 * st.bytes_round;
                free_arrays(x, cnt);
                free_arrays(yf, cnt);
                free_arrays(yq, cnt);
                dt_gossip_free(gq);
                dt_gossip_free(gf);
                dt_comm_free(c);
            }
    double bad[3] = {differ, badbytes, rounds};
    ck_assert_int_eq(dt_comm_allreduce_sum_double(w, bad, 3), CM_OK);
    ck_assert_msg(bad[0] == 0.0, "graph %d: %.0f compressed rounds differ "
                  "from the float plan's", _i, bad[0]);
    ck_assert_msg(bad[1] == 0.0, "graph %d: %.0f byte counts wrong", _i,
                  bad[1]);
    ck_assert_msg(bad[2] > 0.0, "no round compared");
    free(owner);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_rejects_on_all_ranks)
{
    dt_comm *w = dt_comm_world();
    const size_t size = dt_comm_size(w);
    ck_assert_msg(size >= 3, "this test needs mpirun -np 3 or more");
    /* A path on size - 1 nodes: one rank too many. */
    size_t ei[8], ej[8], n = size - 1;
    for (size_t i = 0; i + 1 < n; i++)
        ei[i] = i, ej[i] = i + 1;
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, n, n - 1, ei, ej), CM_OK);
    dt_gossip *g = NULL;
    /* unweighted first */
    ck_assert_int_eq(dt_gossip_new(w, &t, LEN, &g), CM_EINVAL);
    ck_assert_ptr_null(g);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    cm_error_clear();
    ck_assert_int_eq(dt_gossip_new(w, &t, LEN, &g), CM_EINVAL);
    ck_assert_ptr_null(g);
    char want[96];
    snprintf(want, sizeof want, "%zu MPI ranks but the topology has only "
             "%zu nodes", size, n);
    ck_assert_msg(strstr(cm_last_error(), want), "%s", cm_last_error());
    ck_assert_int_eq(dt_gossip_new(w, &t, 0, &g), CM_EINVAL);
    cm_topo_destroy(&t);
}
END_TEST

Suite *mpi_gossip_suite(void)
{
    Suite *s = suite_create("mpi_gossip");
    TCase *tc = tcase_create("mean_and_slem_rate");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_mean_and_slem_rate, 0, G_COUNT);
    suite_add_tcase(s, tc);
    tc = tcase_create("same_result_for_any_p");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_same_result_for_any_p, 0, G_COUNT);
    suite_add_tcase(s, tc);
    tc = tcase_create("exact_average_any_p");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_exact_average_any_p);
    tcase_add_test(tc, test_requantized_average_any_p);
    suite_add_tcase(s, tc);
    tc = tcase_create("rounds_in_flight");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_rounds_in_flight);
    suite_add_tcase(s, tc);
    tc = tcase_create("compressed_gossip_any_p");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_compressed_gossip_any_p, 0, G_COUNT);
    suite_add_tcase(s, tc);
    tc = tcase_create("rejects_on_all_ranks");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_rejects_on_all_ranks);
    suite_add_tcase(s, tc);
    return s;
}

/* check_gossip_plan.c: the gossip plan and weighted sum without MPI. All P
 * ranks of a round are simulated in one process (each rank's send list
 * copied into its peers' receive slots, as MPI_Ineighbor_alltoallv does),
 * for every P from 1 to n and for contiguous and scrambled placements:
 * the result is bit-identical to P = 1, sender and receiver agree on
 * every slot, the mean of the arrays is kept (W doubly stochastic), and
 * bad plans are refused with CM_EINVAL. */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "cm_rng.h"
#include "cm_mixing.h"
#include "dt_gossip_plan.h"

#define LEN 1037 /* floats per worker array: odd, not a vector width, four
                     blocks of the mix (256) and a tail */

/* Ring of n with chords i ~ i+3 (n >= 7), Metropolis-Hastings weights;
 * n = 2: one edge. */
static void make_topo(cm_topo *t, size_t n)
{
    size_t ei[64], ej[64], m = 0;
    for (size_t i = 0; i < n && n > 2; i++) {
        ei[m] = i, ej[m++] = (i + 1) % n;
        if (n >= 7 && i % 2 == 0)
            ei[m] = i, ej[m++] = (i + 3) % n;
    }
    if (n == 2)
        ei[m] = 0, ej[m++] = 1;
    cm_topo_init(t);
    ck_assert_int_eq(cm_topo_from_edges(t, n, m, ei, ej), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(t, CM_WEIGHTS_MH), CM_OK);
}

/* Placement: kind 0 contiguous blocks, kind 1 the block owners of a
 * shuffled worker order (same counts per rank, workers scattered). */
static void make_owner(size_t n, size_t P, int kind, size_t *owner)
{
    dt_gossip_plan_blocks(n, P, owner);
    if (kind == 0)
        return;
    cm_rng r;
    cm_rng_seed(&r, 7, P);
    size_t *perm = malloc(n * sizeof *perm);
    ck_assert_ptr_nonnull(perm);
    for (size_t j = 0; j < n; j++)
        perm[j] = j;
    cm_rng_shuffle_size(&r, perm, n);
    size_t *o2 = malloc(n * sizeof *o2);
    ck_assert_ptr_nonnull(o2);
    for (size_t j = 0; j < n; j++)
        o2[perm[j]] = owner[j];
    memcpy(owner, o2, n * sizeof *owner);
    free(o2);
    free(perm);
}

/* One simulated round on P ranks: out_all[j * LEN ..] = worker j's mix. */
static void simulate(const cm_topo *t, size_t P, const size_t *owner,
                     const float *x_all, float *out_all)
{
    const size_t n = t->n;
    dt_gossip_plan *pl = calloc(P, sizeof *pl);
    float **send = calloc(P, sizeof *send), **recv = calloc(P, sizeof *recv);
    ck_assert(pl && send && recv);
    for (size_t r = 0; r < P; r++) {
        dt_gossip_plan_init(&pl[r]);
        ck_assert_int_eq(dt_gossip_plan_make(&pl[r], t, owner, P, r), CM_OK);
        const float *x[64];
        for (size_t c = 0; c < pl[r].count; c++) {
            ck_assert_uint_eq(owner[pl[r].local[c]], r);
            x[c] = x_all + pl[r].local[c] * LEN;
        }
        send[r] = malloc((pl[r].nsend + 1) * LEN * sizeof(float));
        recv[r] = malloc((pl[r].nrecv + 1) * LEN * sizeof(float));
        ck_assert(send[r] && recv[r]);
        dt_gossip_plan_pack(&pl[r], x, LEN, send[r]);
    }
    /* The exchange: r's slots from peer q are what q sends to r, and they
     * hold the workers the receiver expects. */
    for (size_t r = 0; r < P; r++)
        for (size_t a = 0; a < pl[r].npeers; a++) {
            size_t q = pl[r].peers[a], b = 0;
            ck_assert_uint_ne(q, r);
            while (b < pl[q].npeers && pl[q].peers[b] != r)
                b++;
            ck_assert_uint_lt(b, pl[q].npeers);
            ck_assert_uint_eq(pl[q].scount[b], pl[r].rcount[a]);
            for (size_t e = 0; e < pl[r].rcount[a]; e++) {
                size_t lq = pl[q].send_local[pl[q].sdispl[b] + e];
                ck_assert_uint_eq(pl[q].local[lq],
                                  pl[r].recv_worker[pl[r].rdispl[a] + e]);
            }
            memcpy(recv[r] + pl[r].rdispl[a] * LEN,
                   send[q] + pl[q].sdispl[b] * LEN,
                   pl[r].rcount[a] * LEN * sizeof(float));
        }
    double acc[LEN];
    for (size_t r = 0; r < P; r++) {
        const float *x[64];
        float *out[64];
        for (size_t c = 0; c < pl[r].count; c++) {
            x[c] = x_all + pl[r].local[c] * LEN;
            out[c] = out_all + pl[r].local[c] * LEN;
        }
        dt_gossip_plan_mix(&pl[r], x, recv[r], LEN, acc, out);
        free(send[r]);
        free(recv[r]);
        dt_gossip_plan_destroy(&pl[r]);
    }
    (void)n;
    free(send);
    free(recv);
    free(pl);
}

static float *random_arrays(size_t n, uint64_t seed)
{
    float *x = malloc(n * LEN * sizeof *x);
    ck_assert_ptr_nonnull(x);
    cm_rng r;
    cm_rng_seed(&r, seed, 0);
    for (size_t k = 0; k < n * LEN; k++)
        x[k] = (float)(2.0 * cm_rng_uniform(&r) - 1.0);
    return x;
}

START_TEST(test_same_bits_for_any_p_and_placement)
{
    static const size_t sizes[] = {2, 5, 12};
    const size_t n = sizes[_i];
    cm_topo t;
    make_topo(&t, n);
    float *x = random_arrays(n, 11);
    float *ref = malloc(n * LEN * sizeof *ref);
    float *out = malloc(n * LEN * sizeof *out);
    size_t *owner = malloc(n * sizeof *owner);
    ck_assert(ref && out && owner);
    make_owner(n, 1, 0, owner);
    simulate(&t, 1, owner, x, ref);
    /* P = 1 against the sum written out directly, ascending j, double */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < LEN; k++) {
            double a = 0.0;
            int self_done = 0;
            for (size_t e = t.off[i]; e <= t.off[i + 1]; e++) {
                size_t j = e < t.off[i + 1] ? t.adj[e] : n;
                if (!self_done && i < j) {
                    a += t.self[i] * (double)x[i * LEN + k];
                    self_done = 1;
                }
                if (j < n)
                    a += t.adj_w[e] * (double)x[j * LEN + k];
            }
            ck_assert_float_eq(ref[i * LEN + k], (float)a);
        }
    for (size_t P = 2; P <= n; P++)
        for (int kind = 0; kind < 2; kind++) {
            make_owner(n, P, kind, owner);
            memset(out, 0, n * LEN * sizeof *out);
            simulate(&t, P, owner, x, out);
            ck_assert_msg(memcmp(out, ref, n * LEN * sizeof *out) == 0,
                          "n %zu P %zu placement %d differs from P = 1", n,
                          P, kind);
        }
    free(owner);
    free(out);
    free(ref);
    free(x);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_mean_preserved)
{
    const size_t n = 12, P = 4;
    cm_topo t;
    make_topo(&t, n);
    float *x = random_arrays(n, 5), *y = malloc(n * LEN * sizeof *y);
    size_t owner[12];
    ck_assert_ptr_nonnull(y);
    make_owner(n, P, 1, owner);
    for (int round = 0; round < 20; round++) {
        simulate(&t, P, owner, x, y);
        for (size_t k = 0; k < LEN; k++) {
            double mx = 0.0, my = 0.0;
            for (size_t j = 0; j < n; j++) {
                mx += x[j * LEN + k];
                my += y[j * LEN + k];
            }
            ck_assert_double_eq_tol(my / n, mx / n, 1e-6);
        }
        memcpy(x, y, n * LEN * sizeof *x);
    }
    /* and the arrays contract towards their mean (SLEM < 1) */
    for (size_t k = 0; k < LEN; k++) {
        double m = 0.0, spread = 0.0;
        for (size_t j = 0; j < n; j++)
            m += x[j * LEN + k] / n;
        for (size_t j = 0; j < n; j++)
            spread += (x[j * LEN + k] - m) * (x[j * LEN + k] - m);
        ck_assert_double_lt(spread, 1e-2);
    }
    free(y);
    free(x);
    cm_topo_destroy(&t);
}
END_TEST

/* What rank r sends: each local worker once per rank holding one of its
 * neighbours, counted the slow way; one rank sends nothing. The bytes a
 * round streams in memory follow from those counts. */
START_TEST(test_send_list_counts)
{
    const size_t n = 12;
    cm_topo t;
    make_topo(&t, n);
    size_t owner[12];
    for (size_t P = 1; P <= 4; P++)
        for (int kind = 0; kind < 2; kind++) {
            make_owner(n, P, kind, owner);
            for (size_t r = 0; r < P; r++) {
                dt_gossip_plan p;
                dt_gossip_plan_init(&p);
                ck_assert_int_eq(dt_gossip_plan_make(&p, &t, owner, P, r),
                                 CM_OK);
                size_t want = 0;
                for (size_t i = 0; i < n; i++) {
                    if (owner[i] != r)
                        continue;
                    for (size_t q = 0; q < P; q++) {
                        int uses = 0;
                        for (size_t e = t.off[i]; e < t.off[i + 1]; e++)
                            uses |= q != r && owner[t.adj[e]] == q;
                        want += (size_t)uses;
                    }
                }
                ck_assert_uint_eq(p.nsend, want);
                if (P == 1)
                    ck_assert_uint_eq(p.npeers + p.nrecv, 0);
                size_t terms = p.count;
                for (size_t c = 0; c < p.count; c++)
                    terms += cm_topo_degree(&t, p.local[c]);
                ck_assert_uint_eq(p.term_off[p.count], terms);
                /* the in-memory bytes: pack reads and writes the sent
                 * arrays, the sums read every term and write each worker */
                size_t count = 0;
                for (size_t i = 0; i < n; i++)
                    count += owner[i] == r;
                ck_assert_uint_eq(dt_gossip_plan_mem_bytes(&p, LEN),
                                  4 * LEN * (2 * want + terms + count));
                dt_gossip_plan_destroy(&p);
            }
        }
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_bad_plans_refused)
{
    const size_t n = 5;
    cm_topo t, u;
    make_topo(&t, n);
    size_t ei[] = {0, 1}, ej[] = {1, 2};
    cm_topo_init(&u);
    ck_assert_int_eq(cm_topo_from_edges(&u, 3, 2, ei, ej), CM_OK);
    size_t owner[5] = {0, 0, 1, 1, 1};
    dt_gossip_plan p;
    dt_gossip_plan_init(&p);
    /* unweighted topology */
    ck_assert_int_eq(dt_gossip_plan_make(&p, &u, owner, 2, 0), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "weighted"));
    /* rank out of range, no ranks */
    ck_assert_int_eq(dt_gossip_plan_make(&p, &t, owner, 2, 2), CM_EINVAL);
    ck_assert_int_eq(dt_gossip_plan_make(&p, &t, owner, 0, 0), CM_EINVAL);
    /* a worker placed on a rank that does not exist */
    owner[4] = 7;
    ck_assert_int_eq(dt_gossip_plan_make(&p, &t, owner, 2, 0), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "worker 4"));
    /* a rank with no worker */
    owner[4] = 1;
    ck_assert_int_eq(dt_gossip_plan_make(&p, &t, owner, 3, 2), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "no worker"));
    /* a failed plan is empty and can be destroyed or reused */
    ck_assert_uint_eq(p.count, 0);
    ck_assert_int_eq(dt_gossip_plan_make(&p, &t, owner, 2, 1), CM_OK);
    ck_assert_uint_eq(p.count, 3);
    ck_assert_uint_eq(p.local[0], 2);
    dt_gossip_plan_destroy(&p);
    dt_gossip_plan_destroy(&p);
    cm_topo_destroy(&u);
    cm_topo_destroy(&t);
}
END_TEST

/* dt_gossip_plan_mean (the exact average's sum, computed once) has the
 * bits of the complete graph's round with W = 11^T/n for every worker,
 * on values whose double sum depends on the order (a few large, many
 * small of mixed sign): a sum in another order or in float would differ. */
START_TEST(test_mean_is_the_complete_round)
{
    const size_t n = 13;
    size_t ei[78], ej[78], m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            ei[m] = i, ej[m++] = j;
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, n, m, ei, ej), CM_OK);
    t.ew = malloc(m * sizeof *t.ew);
    t.self = malloc(n * sizeof *t.self);
    t.adj_w = malloc(2 * m * sizeof *t.adj_w);
    ck_assert(t.ew && t.self && t.adj_w);
    for (size_t q = 0; q < m; q++)
        t.ew[q] = 1.0 / (double)n;
    for (size_t q = 0; q < 2 * m; q++)
        t.adj_w[q] = 1.0 / (double)n;
    for (size_t i = 0; i < n; i++)
        t.self[i] = 1.0 / (double)n;
    float *mem = malloc(2 * n * LEN * sizeof *mem), *x[13], *out[13];
    float *mean = malloc(LEN * sizeof *mean);
    double *acc = malloc(LEN * sizeof *acc);
    ck_assert(mem && mean && acc);
    cm_rng r;
    cm_rng_seed(&r, 11, 0);
    for (size_t j = 0; j < n; j++) {
        x[j] = mem + j * LEN;
        out[j] = mem + (n + j) * LEN;
        for (size_t k = 0; k < LEN; k++)
            x[j][k] = (float)((cm_rng_uniform(&r) - 0.5) *
                              (j % 5 == 0 ? 1e7 : 1e-3));
    }
    size_t *owner = calloc(n, sizeof *owner);
    dt_gossip_plan p;
    dt_gossip_plan_init(&p);
    ck_assert_int_eq(dt_gossip_plan_make(&p, &t, owner, 1, 0), CM_OK);
    dt_gossip_plan_mix(&p, (const float *const *)x, NULL, LEN, acc, out);
    dt_gossip_plan_mean((const float *const *)x, n, LEN, acc, mean);
    size_t differ_float = 0;
    for (size_t k = 0; k < LEN; k++) {
        float f = 0.0f; /* the same sum in float, in reverse order */
        for (size_t j = n; j-- > 0;)
            f += x[j][k] / (float)n;
        differ_float += f != mean[k];
    }
    ck_assert_uint_gt(differ_float, 0); /* the oracle can tell orders apart */
    for (size_t j = 0; j < n; j++)
        ck_assert_int_eq(memcmp(out[j], mean, LEN * sizeof *mean), 0);
    dt_gossip_plan_destroy(&p);
    cm_topo_destroy(&t);
    free(owner);
    free(acc);
    free(mean);
    free(mem);
}
END_TEST

Suite *gossip_plan_suite(void)
{
    Suite *s = suite_create("gossip_plan");
    TCase *tc = tcase_create("same_bits");
    tcase_add_loop_test(tc, test_same_bits_for_any_p_and_placement, 0, 3);
    suite_add_tcase(s, tc);
    tc = tcase_create("mean_preserved");
    tcase_add_test(tc, test_mean_preserved);
    suite_add_tcase(s, tc);
    tc = tcase_create("send_list_counts");
    tcase_add_test(tc, test_send_list_counts);
    suite_add_tcase(s, tc);
    tc = tcase_create("mean_is_the_complete_round");
    tcase_add_test(tc, test_mean_is_the_complete_round);
    suite_add_tcase(s, tc);
    tc = tcase_create("bad_plans_refused");
    tcase_add_test(tc, test_bad_plans_refused);
    suite_add_tcase(s, tc);
    return s;
}

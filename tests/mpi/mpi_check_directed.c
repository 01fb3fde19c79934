/* mpi_check_directed.c: gossip over directed and epidemic topologies
 * under mpirun (P = 1..4 ranks on sub-communicators).
 *
 * Each round is compared bit for bit with a serial reference of the same
 * sum, out_i = (float) sum over {i} U in(i), ascending, of W_ij x_j in
 * double, for block and round-robin placements (so sources and
 * destinations of a rank differ: a directed ring sends to the next rank
 * and receives from the previous one); the arrays each rank sends are
 * counted the slow way along out-arcs; a doubly stochastic W keeps the
 * mean. Epidemic topologies: a dynamic plan re-planned every round for
 * cm_topo_epidemic_draw(seed, round) equals the reference on that round's
 * graph, for EL-Oracle and EL-Local. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "cm_mixing.h"
#include "cm_rng.h"
#include "cm_topo.h"
#include "dt_comm.h"
#include "dt_gossip.h"
#include "mpi_run.h"

#define LEN 64 /* floats per worker array */

enum { D_RING9, D_UNEVEN7, D_EPI_ORACLE, D_EPI_LOCAL, D_COUNT };

/* Static directed test topologies. */
static void make_directed(int which, cm_topo *t)
{
    size_t src[32], dst[32], m = 0, n;
    double w[32];
    if (which == D_RING9) { /* W = (I + P)/2, i -> i+1 */
        n = 9;
        for (size_t i = 0; i < n; i++, m++)
            src[m] = i, dst[m] = (i + 1) % n, w[m] = 0.5;
    } else { /* 0.4 I + 0.35 P1 + 0.25 P3 */
        n = 7;
        for (size_t i = 0; i < n; i++) {
            src[m] = i, dst[m] = (i + 1) % n, w[m++] = 0.35;
            src[m] = i, dst[m] = (i + 3) % n, w[m++] = 0.25;
        }
    }
    cm_topo_init(t);
    ck_assert_int_eq(cm_topo_from_arcs(t, n, m, src, dst, w), CM_OK);
    ck_assert_int_eq(cm_topo_validate(t, "test"), CM_OK);
}

/* acc (+)= w * x, the first term assigning. */
static void term(double *acc, double w, const float *x, int first)
{
    for (size_t k = 0; k < LEN; k++)
        acc[k] = (first ? 0.0 : acc[k]) + w * (double)x[k];
}

/* The serial round on all n arrays: self merged into the ascending
 * in-list. */
static void ref_round(const cm_topo *t, const float *in, float *out)
{
    double acc[LEN];
    for (size_t i = 0; i < t->n; i++) {
        int nterms = 0, self_done = 0;
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
            if (!self_done && i < t->adj[p]) {
                term(acc, t->self[i], in + i * LEN, nterms++ == 0);
                self_done = 1;
            }
            term(acc, t->adj_w[p], in + t->adj[p] * LEN, nterms++ == 0);
        }
        if (!self_done)
            term(acc, t->self[i], in + i * LEN, nterms++ == 0);
        for (size_t k = 0; k < LEN; k++)
            out[i * LEN + k] = (float)acc[k];
    }
}

/* Arrays rank r sends per round: distinct (local i, rank q != r) pairs
 * with an arc i -> j, j on q. */
static size_t arrays_expected(const cm_topo *t, const size_t *owner, size_t P,
                              size_t r)
{
    size_t total = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (owner[i] != r)
            continue;
        for (size_t q = 0; q < P; q++) {
            int needed = 0;
            const size_t *oa;
            const double *ow;
            size_t oc;
            cm_topo_out(t, i, &oa, &ow, &oc);
            for (size_t k = 0; k < oc; k++)
                needed |= q != r && owner[oa[k]] == q;
            total += needed;
        }
    }
    return total;
}

/* The round's graph of test `which` (epidemic: drawn for round r). */
static void round_graph(int which, size_t r, cm_topo *t)
{
    if (which == D_EPI_ORACLE || which == D_EPI_LOCAL)
        ck_assert_int_eq(cm_topo_epidemic_draw(t, 10, 3, which == D_EPI_LOCAL,
                                               77, r), CM_OK);
    else
        make_directed(which, t);
}

START_TEST(test_same_as_serial_for_any_p)
{
    dt_comm *w = dt_comm_world();
    const size_t size = dt_comm_size(w), rank = dt_comm_rank(w);
    const size_t maxp = size < 4 ? size : 4;
    const int dynamic = _i >= D_EPI_ORACLE;
    const int rounds = 6;
    cm_topo t;
    cm_topo_init(&t);
    round_graph(_i, 0, &t);
    const size_t n = t.n;
    float *all = malloc(n * LEN * sizeof *all);
    float *ref = malloc(n * LEN * sizeof *ref);
    float *tmp = malloc(n * LEN * sizeof *tmp);
    float *init = malloc(n * LEN * sizeof *init);
    size_t *owner = malloc(n * sizeof *owner);
    double bad[3] = {0, 0, 0}; /* elements differing, arrays miscounted,
                                  mean drift beyond 1e-6 */
    for (size_t P = 1; P <= maxp; P++)
        for (int rr = 0; rr < 2; rr++) { /* block, round-robin */
            dt_comm *c = mpi_first_ranks(w, P);
            if (!c)
                continue;
            for (size_t j = 0; j < n; j++)
                owner[j] = rr ? j % P : j * P / n;
            round_graph(_i, 0, &t);
            dt_gossip *g = NULL;
            if (dynamic)
                ck_assert_int_eq(dt_gossip_new_dynamic(c, &t, owner, LEN, &g),
                                 CM_OK);
            else
                ck_assert_int_eq(dt_gossip_new_placed(c, &t, owner, LEN, &g),
                                 CM_OK);
            size_t cnt = dt_gossip_count(g), loc[16], k = 0;
            for (size_t j = 0; j < n; j++)
                if (owner[j] == rank)
                    loc[k++] = j;
            ck_assert_uint_eq(k, cnt);
            float **x = malloc(cnt * sizeof *x), **y = malloc(cnt * sizeof *y);
            for (size_t i = 0; i < cnt; i++) {
                x[i] = malloc(LEN * sizeof **x);
                y[i] = malloc(LEN * sizeof **y);
            }
            cm_rng g0;
            cm_rng_seed(&g0, 3, 0);
            for (size_t e = 0; e < n * LEN; e++)
                init[e] = ref[e] = (float)cm_rng_uniform(&g0);
            for (size_t i = 0; i < cnt; i++)
                memcpy(x[i], ref + loc[i] * LEN, LEN * sizeof(float));
            for (int r = 0; r < rounds; r++) {
                if (dynamic) {
                    round_graph(_i, (size_t)r, &t);
                    ck_assert_int_eq(dt_gossip_retopo(g, &t), CM_OK);
                }
                ck_assert_int_eq(dt_gossip_round(g, x, y), CM_OK);
                float **sw = x;
                x = y;
                y = sw;
                ref_round(&t, ref, tmp);
                memcpy(ref, tmp, n * LEN * sizeof *ref);
                dt_gossip_stats st;
                dt_gossip_get_stats(g, &st);
                bad[1] += st.arrays_sent != arrays_expected(&t, owner, P,
                                                            rank);
            }
            memset(all, 0, n * LEN * sizeof *all);
            for (size_t i = 0; i < cnt; i++)
                memcpy(all + loc[i] * LEN, x[i], LEN * sizeof(float));
            ck_assert_int_eq(dt_comm_allreduce_sum_float(c, all, n * LEN),
                             CM_OK);
            for (size_t e = 0; e < n * LEN; e++)
                bad[0] += memcmp(&all[e], &ref[e], sizeof(float)) != 0;
            if (_i != D_EPI_LOCAL) /* doubly stochastic: mean kept */
                for (size_t k2 = 0; k2 < LEN; k2++) {
                    double m0 = 0, m1 = 0;
                    for (size_t i = 0; i < n; i++) {
                        m0 += init[i * LEN + k2];
                        m1 += all[i * LEN + k2];
                    }
                    bad[2] += fabs(m1 - m0) > 1e-5 * fabs(m0);
                }
            for (size_t i = 0; i < cnt; i++) {
                free(x[i]);
                free(y[i]);
            }
            free(x);
            free(y);
            dt_gossip_free(g);
            dt_comm_free(c);
        }
    ck_assert_int_eq(dt_comm_allreduce_sum_double(w, bad, 3), CM_OK);
    ck_assert_msg(bad[0] == 0.0, "case %d: %.0f elements differ from the "
                  "serial reference", _i, bad[0]);
    ck_assert_msg(bad[1] == 0.0, "case %d: %.0f rounds with a wrong count of "
                  "arrays sent", _i, bad[1]);
    ck_assert_msg(bad[2] == 0.0, "case %d: the mean drifted in %.0f "
                  "components", _i, bad[2]);
    free(owner);
    free(init);
    free(tmp);
    free(ref);
    free(all);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_static_plan_refuses_retopo)
{
    dt_comm *w = dt_comm_world();
    cm_topo t;
    make_directed(D_RING9, &t);
    dt_gossip *g = NULL;
    ck_assert_int_eq(dt_gossip_new(w, &t, LEN, &g), CM_OK);
    ck_assert_int_eq(dt_gossip_retopo(g, &t), CM_EINVAL);
    dt_gossip_free(g);
    cm_topo_destroy(&t);
}
END_TEST

Suite *mpi_directed_suite(void)
{
    Suite *s = suite_create("mpi_directed");
    TCase *tc = tcase_create("directed_and_epidemic_gossip");
    tcase_add_loop_test(tc, test_same_as_serial_for_any_p, 0, D_COUNT);
    tcase_add_test(tc, test_static_plan_refuses_retopo);
    suite_add_tcase(s, tc);
    return s;
}

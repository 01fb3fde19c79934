/* check_compress.c: --compress (dt_compress, issue 41): the forms and
 * their refusals, the bytes of each wire format, the quantization error
 * (at most half a step of the block's scale), top-k's selection, error
 * feedback's telescoping sum, the re-quantized average of the
 * pseudo-gradients against an independent reference, the wire form of
 * int8/int4 arrays (lossless for Q's output), local SGD on one
 * rank whose averages go compressed (int8, int4, topk) training the
 * synthetic set with the compressed bytes counted, DiLoCo's outer step on
 * int8 and int4 pseudo-gradients, and CHOCO-SGD's gossip training it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "check_blas.h"
#include "cm_topo.h"

#include "dt_comm.h"
#include "dt_compress.h"
#include "dt_compress_wire.h"
#include "dt_gossip.h"
#include "dt_local.h"
#include "mpi_run.h"

START_TEST(parse_and_bytes)
{
    dt_compress c;
    char buf[64];
    const char *ok[] = {"none", "int8", "int4", "topk:0.01", "topk:1"};
    for (size_t i = 0; i < 5; i++) {
        ck_assert_int_eq(dt_compress_parse(ok[i], &c), CM_OK);
        ck_assert_str_eq(dt_compress_str(&c, buf, sizeof buf), ok[i]);
    }
    const char *bad[] = {"int2", "topk:0", "topk:1.5", "topk:", "topk:x",
                         ""};
    for (size_t i = 0; i < 6; i++) {
        ck_assert_int_eq(dt_compress_parse(bad[i], &c), CM_EINVAL);
        ck_assert_ptr_nonnull(strstr(cm_last_error(), "--compress: '"));
    }
    dt_compress_parse("none", &c);
    ck_assert(!dt_compress_active(&c));
    ck_assert_double_eq(dt_compress_bytes(&c, 1000), 4000.0);
    dt_compress_parse("int8", &c); /* 1000 codes + 4 scales */
    ck_assert_double_eq(dt_compress_bytes(&c, 1000), 1016.0);
    dt_compress_parse("int4", &c);
    ck_assert_double_eq(dt_compress_bytes(&c, 1001), 501.0 + 16.0);
    dt_compress_parse("topk:0.01", &c); /* 10 (value, index) pairs */
    ck_assert_double_eq(dt_compress_bytes(&c, 1000), 80.0);
    dt_compress_parse("topk:0.0001", &c); /* at least one */
    ck_assert_double_eq(dt_compress_bytes(&c, 1000), 8.0);
}
END_TEST

/* |q - p| <= scale / 2 per element, scale = max |p| of its block / L;
 * a block of zeros stays zero. */
START_TEST(quantization_error)
{
    enum { N = 600 };
    float p[N], q[N];
    for (size_t k = 0; k < N; k++)
        p[k] = k >= 512 ? 0.0f : (float)sin(0.37 * (double)k) *
                                     (k < 256 ? 1.0f : 1e-3f);
    const char *forms[2] = {"int8", "int4"};
    const float L[2] = {127.0f, 7.0f};
    for (int f = 0; f < 2; f++) {
        dt_compress c;
        dt_compress_parse(forms[f], &c);
        dt_compress_apply(&c, p, q, N);
        for (size_t b = 0; b < N; b += DT_COMPRESS_BLOCK) {
            float m = 0.0f;
            size_t e = b + DT_COMPRESS_BLOCK < N ? b + DT_COMPRESS_BLOCK : N;
            for (size_t k = b; k < e; k++)
                m = fmaxf(m, fabsf(p[k]));
            for (size_t k = b; k < e; k++)
                ck_assert_msg(fabsf(q[k] - p[k]) <= 0.5f * m / L[f] * 1.0001f,
                              "%s k %zu: %g vs %g", forms[f], k,
                              (double)q[k], (double)p[k]);
        }
        for (size_t k = 512; k < N; k++)
            ck_assert(q[k] == 0.0f);
    }
}
END_TEST

/* top-k keeps exactly the k largest magnitudes (ties: lower index). */
START_TEST(topk_selects)
{
    float p[10] = {0.1f, -5.0f, 2.0f, 2.0f, -2.0f, 0.0f, 3.0f, 0.5f, -0.2f,
                   1.0f};
    float q[10];
    dt_compress c;
    dt_compress_parse("topk:0.4", &c); /* k = 4: -5, 3, 2 (idx 2), 2 (3) */
    dt_compress_apply(&c, p, q, 10);
    const float want[10] = {0, -5.0f, 2.0f, 2.0f, 0, 0, 3.0f, 0, 0, 0};
    ck_assert_mem_eq(q, want, sizeof q);
    /* 1000 values with many ties: exactly k kept, each kept magnitude >=
     * each dropped one */
    enum { M = 1000 };
    static float pm[M], qm[M];
    for (size_t i = 0; i < M; i++)
        pm[i] = (float)((int)((i * 7919) % 61) - 30) / 8.0f;
    dt_compress_parse("topk:0.137", &c); /* k = 137 */
    dt_compress_apply(&c, pm, qm, M);
    size_t kept = 0;
    float lo = INFINITY, hi = 0.0f;
    for (size_t i = 0; i < M; i++) {
        if (qm[i] != 0.0f) {
            kept++;
            ck_assert(qm[i] == pm[i]);
            lo = fminf(lo, fabsf(pm[i]));
        } else {
            hi = fmaxf(hi, fabsf(pm[i]));
        }
    }
    ck_assert_uint_eq(kept, 137);
    ck_assert(lo >= hi);
}
END_TEST

/* Error feedback: sum_t q_t = sum_t d_t - e_T (e_0 = 0), so nothing is
 * lost, only delayed; with top-k of 1 in 8 the residual stays bounded. */
START_TEST(error_feedback_telescopes)
{
    enum { N = 64, T = 50 };
    float d[N], e[N] = {0}, q[N], p[N];
    double sd[N] = {0}, sq[N] = {0};
    dt_compress c;
    dt_compress_parse("topk:0.125", &c);
    for (int t = 0; t < T; t++) {
        for (size_t k = 0; k < N; k++)
            d[k] = (float)cos(0.1 * (double)(t * N + k));
        dt_compress_ef(&c, d, e, q, p, N);
        for (size_t k = 0; k < N; k++) {
            sd[k] += d[k];
            sq[k] += q[k];
        }
    }
    for (size_t k = 0; k < N; k++) {
        ck_assert_double_eq_tol(sq[k], sd[k] - e[k], 1e-4);
        ck_assert_msg(fabsf(e[k]) < 16.0f, "residual %g", (double)e[k]);
    }
}
END_TEST

/* top-k's wire form (CHOCO-SGD's top-k gossip): 8 k bytes; Q's output
 * (k = 13 of 125 values, a selected -0.0 and a selected +0.0 among them)
 * decodes bit for bit; an input Q did not make travels as Q of it; an
 * all-zero array and one with fewer than k non-zero values (padding)
 * come back as they went. */
START_TEST(wire_topk)
{
    enum { N = 125 };
    dt_compress c;
    ck_assert_int_eq(dt_compress_parse("topk:0.1", &c), CM_OK);
    const size_t k = 13, wb = dt_compress_wire_bytes(&c, N);
    ck_assert_uint_eq(wb, 8 * k);
    ck_assert_uint_eq(wb, (size_t)dt_compress_bytes(&c, N));
    float p[N], q[N], d[N], ref[N];
    unsigned char w[8 * 13];
    for (size_t i = 0; i < N; i++)
        p[i] = (float)sin(0.7 * (double)i) * (i % 3 ? 1.0f : 1e-3f);
    p[7] = 5.0f; /* selected, then made -0.0 in q */
    dt_compress_apply(&c, p, q, N);
    q[7] = -0.0f;
    dt_compress_wire_pack(&c, q, N, w);
    dt_compress_wire_decode(&c, w, N, d);
    ck_assert(memcmp(q, d, sizeof q) == 0);
    ck_assert(signbit(d[7]));
    dt_compress_wire_encode(&c, p, N, w); /* not Q's output: Q of it */
    dt_compress_wire_decode(&c, w, N, d);
    dt_compress_apply(&c, p, ref, N);
    ck_assert(memcmp(ref, d, sizeof ref) == 0);
    dt_compress_wire_pack(&c, p, N, w);
    dt_compress_wire_decode(&c, w, N, d);
    ck_assert(memcmp(ref, d, sizeof ref) == 0);
    memset(q, 0, sizeof q);
    dt_compress_wire_pack(&c, q, N, w);
    for (size_t i = 0; i < N; i++)
        d[i] = 1.0f;
    dt_compress_wire_decode(&c, w, N, d);
    ck_assert(memcmp(q, d, sizeof q) == 0);
    q[3] = 2.0f;
    q[100] = -1.0f; /* two entries, the second repeated to k */
    dt_compress_wire_pack(&c, q, N, w);
    dt_compress_wire_decode(&c, w, N, d);
    ck_assert(memcmp(q, d, sizeof q) == 0);
}
END_TEST

/* The compressed gossip plan (dt_gossip_new_placed_q) of the one-rank
 * build: every array is in memory, so the round is the float plan's, bit
 * for bit, and nothing is counted as sent. */
START_TEST(compressed_gossip_one_rank)
{
    enum { NW = 6, LEN = 300 };
    size_t ei[NW], ej[NW], owner[NW] = {0};
    for (size_t i = 0; i < NW; i++)
        ei[i] = i, ej[i] = (i + 1) % NW;
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, NW, NW, ei, ej), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    float *x[NW], *yf[NW], *yq[NW], raw[LEN];
    for (size_t j = 0; j < NW; j++) {
        x[j] = malloc(LEN * sizeof *x[j]);
        yf[j] = malloc(LEN * sizeof *yf[j]);
        yq[j] = malloc(LEN * sizeof *yq[j]);
        ck_assert(x[j] && yf[j] && yq[j]);
    }
    dt_compress c;
    ck_assert_int_eq(dt_compress_parse("int4", &c), CM_OK);
    for (size_t j = 0; j < NW; j++) {
        for (size_t k = 0; k < LEN; k++)
            raw[k] = (float)sin(0.3 * (double)(k + 11 * j));
        dt_compress_apply(&c, raw, x[j], LEN);
    }
    dt_gossip *gf = NULL, *gq = NULL;
    ck_assert_int_eq(dt_gossip_new_placed(dt_comm_world(), &t, owner, LEN,
                                          &gf), CM_OK);
    ck_assert_int_eq(dt_gossip_new_placed_q(dt_comm_world(), &t, owner, LEN,
                                            &c, &gq), CM_OK);
    ck_assert_int_eq(dt_gossip_round(gf, x, yf), CM_OK);
    ck_assert_int_eq(dt_gossip_round(gq, x, yq), CM_OK);
    for (size_t j = 0; j < NW; j++)
        ck_assert(memcmp(yf[j], yq[j], LEN * sizeof(float)) == 0);
    dt_gossip_stats st;
    dt_gossip_get_stats(gq, &st);
    ck_assert_uint_eq(st.rounds, 1);
    ck_assert_uint_eq(st.bytes_sent, 0);
    dt_gossip_free(gq);
    dt_gossip_free(gf);
    for (size_t j = 0; j < NW; j++) {
        free(x[j]);
        free(yf[j]);
        free(yq[j]);
    }
    cm_topo_destroy(&t);
}
END_TEST

/* The exact mean of NW arrays of len floats in double, in ascending
 * worker order (w x_0 + w x_1 + ..., w = 1/NW), rounded to float. */
static void serial_mean(float *const *x, size_t nw, size_t len, float *out)
{
    const double w = 1.0 / (double)nw;
    for (size_t k = 0; k < len; k++) {
        double a = w * (double)x[0][k];
        for (size_t j = 1; j < nw; j++)
            a += w * (double)x[j][k];
        out[k] = (float)a;
    }
}

/* The re-quantized average (dt_gossip_new_average_q, the one-rank build)
 * of 5 workers' arrays of 700 floats (two whole blocks and one of 188),
 * each quantized first as the trainer's pseudo-gradients are: every out
 * is, bit for bit, an independent reference: the mean in double in
 * ascending worker order, rounded to float, then each block of 256
 * quantized alone by dt_compress_apply; it differs from the exact mean
 * (what dt_gossip_new_average gives: checked too). Top-k is refused. */
START_TEST(requantized_average)
{
    enum { NW = 5, LEN = 700 };
    float *raw[NW], *x[NW], *y[NW], exact[LEN], ref[LEN];
    for (size_t j = 0; j < NW; j++) {
        raw[j] = malloc(LEN * sizeof *raw[j]);
        x[j] = malloc(LEN * sizeof *x[j]);
        y[j] = malloc(LEN * sizeof *y[j]);
        ck_assert(raw[j] && x[j] && y[j]);
        for (size_t k = 0; k < LEN; k++) /* a block of small values too */
            raw[j][k] = (float)sin(0.11 * (double)(k + 37 * j) + (double)j) *
                        (k >= 256 && k < 512 ? 1e-3f : 1.0f);
    }
    dt_gossip *g = NULL;
    serial_mean(raw, NW, LEN, exact);
    ck_assert_int_eq(dt_gossip_new_average(dt_comm_world(), NW, NULL, LEN,
                                           &g), CM_OK);
    ck_assert_int_eq(dt_gossip_round(g, raw, y), CM_OK);
    for (size_t j = 0; j < NW; j++)
        ck_assert(memcmp(y[j], exact, sizeof exact) == 0);
    dt_gossip_free(g);
    const char *forms[2] = {"int8", "int4"};
    for (int f = 0; f < 2; f++) {
        dt_compress c;
        ck_assert_int_eq(dt_compress_parse(forms[f], &c), CM_OK);
        for (size_t j = 0; j < NW; j++)
            dt_compress_apply(&c, raw[j], x[j], LEN);
        serial_mean(x, NW, LEN, exact);
        for (size_t b = 0; b < LEN; b += DT_COMPRESS_BLOCK)
            dt_compress_apply(&c, exact + b, ref + b,
                              LEN - b < DT_COMPRESS_BLOCK ? LEN - b
                                                          : DT_COMPRESS_BLOCK);
        ck_assert_int_eq(dt_gossip_new_average_q(dt_comm_world(), NW, NULL,
                                                 LEN, &c, &g), CM_OK);
        ck_assert_int_eq(dt_gossip_round(g, x, y), CM_OK);
        size_t moved = 0;
        for (size_t k = 0; k < LEN; k++)
            moved += y[0][k] != exact[k];
        ck_assert_msg(moved > LEN / 2, "%s: only %zu of %d values moved by "
                      "the second quantization", forms[f], moved, LEN);
        for (size_t j = 0; j < NW; j++)
            ck_assert_msg(memcmp(y[j], ref, sizeof ref) == 0, "%s worker "
                          "%zu differs from the reference", forms[f], j);
        dt_gossip_free(g);
    }
    dt_compress t;
    ck_assert_int_eq(dt_compress_parse("topk:0.1", &t), CM_OK);
    ck_assert_int_eq(dt_gossip_new_average_q(dt_comm_world(), NW, NULL, LEN,
                                             &t, &g), CM_EINVAL);
    ck_assert_ptr_null(g);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "not top-k"));
    for (size_t j = 0; j < NW; j++) {
        free(raw[j]);
        free(x[j]);
        free(y[j]);
    }
}
END_TEST

/* The wire form (dt_compress_wire) of 1,000 values (three whole blocks
 * and one of 232; one block of zeros, one of values 1e-3 that int4 turns
 * into codes 0 of both signs): dt_compress_bytes long; packing Q's output
 * and decoding gives it back bit for bit, -0.0 included; encoding p gives
 * Q(p) bit for bit; an array Q did not make comes back as Q of it. */
START_TEST(wire_roundtrip)
{
    enum { N = 1000 };
    float p[N], q[N], back[N];
    unsigned char w[N + 64];
    for (size_t k = 0; k < N; k++)
        p[k] = k >= 512 && k < 768 ? 0.0f
               : (float)sin(0.37 * (double)k + 0.2) *
                     (k < 256 ? 1.0f : k < 512 ? 1e-3f : 3.0f);
    p[300] = 0.9f; /* int4 codes 0 of both signs in block 1 */
    const char *forms[2] = {"int8", "int4"};
    for (int f = 0; f < 2; f++) {
        dt_compress c;
        ck_assert_int_eq(dt_compress_parse(forms[f], &c), CM_OK);
        ck_assert_uint_eq(dt_compress_wire_bytes(&c, N),
                          (size_t)dt_compress_bytes(&c, N));
        dt_compress_apply(&c, p, q, N);
        size_t negz = 0;
        for (size_t k = 0; k < N; k++)
            negz += q[k] == 0.0f && signbit(q[k]);
        ck_assert_msg(negz > 0, "%s: no -0.0 to carry", forms[f]);
        memset(w, 0xAB, sizeof w);
        dt_compress_wire_pack(&c, q, N, w);
        ck_assert_uint_eq(w[dt_compress_wire_bytes(&c, N)], 0xAB);
        dt_compress_wire_decode(&c, w, N, back);
        ck_assert_msg(memcmp(back, q, sizeof q) == 0, "%s: pack lost bits",
                      forms[f]);
        dt_compress_wire_encode(&c, p, N, w);
        dt_compress_wire_decode(&c, w, N, back);
        ck_assert_msg(memcmp(back, q, sizeof q) == 0, "%s: encode is not Q",
                      forms[f]);
        dt_compress_wire_pack(&c, p, N, w); /* not Q's output */
        dt_compress_wire_decode(&c, w, N, back);
        ck_assert_msg(memcmp(back, q, sizeof q) == 0, "%s: a raw array "
                      "does not travel as Q of it", forms[f]);
    }
}
END_TEST

/* Local SGD (8 workers, H = 4) with every average compressed trains the
 * synthetic set (as the uncompressed run does: above 50%), and counts
 * the compressed array per average: bytes per step = bytes(n) / 4. */
START_TEST(local_sgd_compressed_trains)
{
    const char *forms[4] = {"none", "int8", "int4", "topk:0.25"};
    double acc0 = 0.0;
    for (int f = 0; f < 4; f++) {
        dt_config cfg;
        mpi_local_config(&cfg, "none", forms[f]);
        mpi_outcome o = mpi_run_on(1, &cfg);
        ck_assert_int_eq(o.s, CM_OK);
        if (f == 0)
            acc0 = o.acc;
        ck_assert_msg(o.acc > 0.5, "%s: acc %g (none %g)", forms[f], o.acc,
                      acc0);
        ck_assert_double_eq_tol(o.bytes, dt_compress_bytes(&cfg.compress,
                                (size_t)o.n_params) / 4.0, 1.0);
    }
}
END_TEST

/* DiLoCo (8 workers, H = 4, --outer nesterov:1,0.5) with its
 * pseudo-gradients sent as int8 and int4 with error feedback trains the
 * synthetic set within 5 points of the uncompressed DiLoCo (measured:
 * 72.7%, 70.3%, 70.3%), and counts the compressed array per outer step. */
START_TEST(diloco_compressed_trains)
{
    const char *forms[3] = {"none", "int8", "int4"};
    double acc0 = 0.0;
    for (int f = 0; f < 3; f++) {
        dt_config cfg;
        mpi_local_config(&cfg, "nesterov:1,0.5", forms[f]);
        mpi_outcome o = mpi_run_on(1, &cfg);
        ck_assert_int_eq(o.s, CM_OK);
        if (f == 0)
            acc0 = o.acc;
        ck_assert_msg(o.acc > 0.6 && o.acc > acc0 - 0.05,
                      "DiLoCo %s: acc %g (none %g)", forms[f], o.acc, acc0);
        ck_assert_double_eq_tol(o.bytes, dt_compress_bytes(&cfg.compress,
                                (size_t)o.n_params) / 4.0, 1.0);
    }
}
END_TEST

/* CHOCO-SGD (gossip, dpsgd, 8 workers on the cube): with int8 and with
 * top-k at a consensus step of 0.3 it trains the synthetic set; a
 * consensus step changes the trajectory. */
START_TEST(choco_trains)
{
    char path[64];
    mpi_cube_file(path, sizeof path, "/tmp/check_compress_");
    const char *forms[2] = {"int8", "topk:0.25"};
    const double gam[2] = {1.0, 0.3};
    uint64_t h[2];
    for (int f = 0; f < 2; f++) {
        dt_config cfg;
        mpi_small_config(&cfg, path);
        cfg.local_eval = 0;
        cfg.consensus_step = gam[f];
        ck_assert_int_eq(dt_compress_parse(forms[f], &cfg.compress), CM_OK);
        mpi_outcome o = mpi_run_on(1, &cfg);
        ck_assert_int_eq(o.s, CM_OK);
        ck_assert_msg(o.acc > 0.5, "CHOCO %s: acc %g", forms[f], o.acc);
        cfg.consensus_step = 0.5;
        h[f] = mpi_run_on(1, &cfg).hash;
        ck_assert_uint_ne(h[f], o.hash);
    }
    unlink(path);
}
END_TEST

Suite *compress_suite(void)
{
    Suite *s = suite_create("compress");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, parse_and_bytes);
    tcase_add_test(tc, quantization_error);
    tcase_add_test(tc, topk_selects);
    tcase_add_test(tc, error_feedback_telescopes);
    tcase_add_test(tc, requantized_average);
    tcase_add_test(tc, compressed_gossip_one_rank);
    tcase_add_test(tc, wire_topk);
    tcase_add_test(tc, wire_roundtrip);
    tcase_add_test(tc, local_sgd_compressed_trains);
    tcase_add_test(tc, diloco_compressed_trains);
    tcase_add_test(tc, choco_trains);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    return s;
}

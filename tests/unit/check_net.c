/* check_net.c: the network (dt_net). The whole network's gradient
 * against central differences of the mean loss for both models and both
 * layouts; parameter counts and layer chains of both models; bad shapes
 * and model names refused. Threads (dt_net_set_threads): a batch is cut
 * into shards fixed by its size, and gradient, loss, accuracy and
 * evaluation loss are the same BITS for every thread count (1, 2, 3, a
 * request past the cap of 8), both models, batches that do not split (1,
 * 31), split evenly (32, 128) or unevenly (50, 200; lenet); the sharded gradient is
 * the sum of the shards' own (to rounding); a training run gives the same
 * hash on 1 and 2 threads. The AVX2 layouts (direct and indirect convs,
 * NHWC between them) compute the same network as im2col + OpenBLAS. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_env.h"
#include "check_num.h"
#include "cm_rng.h"
#include "dt_config.h"
#include "dt_net.h"
#include "dt_train.h"

/* Whole network: dt_net_grad against central differences of the mean loss
 * at 300 random parameters. A step in a conv weight moves a whole channel,
 * so some samples cross a relu kink or a pooling tie (the error then grows
 * with the step, as measured); the layers themselves are checked exactly
 * above, and this test checks the wiring (offsets, in-place buffers): at
 * least 90% of the samples agree to 1e-2, where a wiring bug breaks most. */
static void gradcheck_net(dt_model m, size_t c, size_t hw)
{
    dt_net *net = NULL;
    ck_assert_int_eq(dt_net_new(m, c, hw, hw, 10, 3,
                                check_allow_own, &net), CM_OK);
    cm_rng r;
    cm_rng_seed(&r, 5, (uint64_t)m);
    dt_net_init(net, net->params, &r);
    for (size_t i = 0; i < net->n_params; i++) /* nonzero biases too */
        net->params[i] += (float)(0.05 * (cm_rng_uniform(&r) - 0.5));
    size_t nx = 3 * c * hw * hw;
    float *x = malloc(nx * sizeof *x);
    fill_uniform(&r, x, nx, -1, 1);
    uint8_t y[3] = {1, 7, 4};
    double loss;
    ck_assert_int_eq(dt_net_grad(net, net->params, net->grads, x, y, 3, &loss),
                     CM_OK);
    ck_assert(loss > 0.5 && loss < 10.0);
    int good = 0, total = 300;
    for (int t = 0; t < total; t++) {
        size_t i = cm_rng_below(&r, net->n_params);
        float keep = net->params[i];
        double lp, lm;
        net->params[i] = keep + 1e-3f;
        float up = net->params[i];
        dt_net_eval(net, net->params, x, y, 3, NULL, &lp);
        net->params[i] = keep - 1e-3f;
        float dn = net->params[i];
        dt_net_eval(net, net->params, x, y, 3, NULL, &lm);
        net->params[i] = keep;
        double num = (lp - lm) / ((double)up - (double)dn);
        good += fabs(num - net->grads[i]) <= 1e-2 * fmax(fabs(num), 1e-2);
    }
    ck_assert_int_ge(good, total * 9 / 10);
    ck_assert_int_eq(dt_net_grad(net, net->params, net->grads, x, y, 4, &loss),
                     CM_EINVAL);
    free(x);
    dt_net_free(net);
}

START_TEST(test_gradcheck_net)
{
    gradcheck_net(DT_MODEL_LENET, 1, 28);
    gradcheck_net(DT_MODEL_CNN, 3, 16);
    gradcheck_net(DT_MODEL_CNN, 1, 16); /* NHWC where the CPU can */
}
END_TEST

START_TEST(test_net_shapes)
{
    dt_net *net = NULL;
    ck_assert_int_eq(dt_net_new(DT_MODEL_LENET, 1, 28, 28, 10, 8,
                                check_allow_own, &net),
                     CM_OK);
    /* LeNet-5 on 28x28: 156 + 2416 + 48120 + 10164 + 850 parameters */
    ck_assert_uint_eq(net->n_params, 61706);
    ck_assert_uint_eq(net->layers[net->n_layers - 1].oc, 10);
    ck_assert_uint_eq(net->n_layers, 7); /* relus fused */
    ck_assert_int_eq(net->layers[0].relu, 1);
    ck_assert_int_eq(net->layers[6].relu, 0); /* logits */
    dt_net_free(net);
    ck_assert_int_eq(dt_net_new(DT_MODEL_CNN, 3, 32, 32, 10, 8,
                                check_allow_own, &net), CM_OK);
    /* 896 + 9248 + 18496 + 36928 + (64*5*5*256+256) + 2570 */
    ck_assert_uint_eq(net->n_params, 896 + 9248 + 18496 + 36928 + 409856 +
                                         2570);
    dt_net_free(net);
    ck_assert_int_eq(dt_net_new(DT_MODEL_CNN, 1, 8, 8, 10, 8,
                                check_allow_own, &net),
                     CM_EINVAL);
    ck_assert_ptr_null(net);
    dt_model m;
    ck_assert_int_eq(dt_model_parse("resnet", &m), CM_EINVAL);
    ck_assert_int_eq(dt_model_parse("cnn", &m), CM_OK);
    ck_assert_int_eq(m, DT_MODEL_CNN);
    dt_net_free(NULL);
}
END_TEST

START_TEST(test_shards)
{
    /* closed form: 1 below 32 images, then B / 16 up to 8 */
    static const size_t b[] = {1, 16, 31, 32, 47, 48, 50, 127, 128, 129,
                               200, 1000};
    static const size_t s[] = {1, 1, 1, 2, 2, 3, 3, 7, 8, 8, 8, 8};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        ck_assert_uint_eq(dt_net_shards(b[i]), s[i]);
    dt_net *net = NULL;
    ck_assert_int_eq(dt_net_new(DT_MODEL_LENET, 1, 28, 28, 10, 64,
                                check_allow_own, &net),
                     CM_OK);
    ck_assert_uint_eq(net->threads, 1);
    ck_assert_int_eq(dt_net_set_threads(net, 0), CM_OK);
    ck_assert_uint_eq(net->threads, 1);
    ck_assert_int_eq(dt_net_set_threads(net, 100), CM_OK);
    ck_assert_uint_eq(net->threads, DT_NET_MAX_SHARDS);
    dt_net_free(net);
}
END_TEST

typedef struct {
    float *x, *g;
    uint8_t *y;
} net_data;

static void fill(net_data *d, const dt_net *net, size_t n, cm_rng *r)
{
    const size_t in = net->in_c * net->in_h * net->in_w;
    d->x = malloc(n * in * sizeof *d->x);
    d->y = malloc(n);
    d->g = malloc(net->n_params * sizeof *d->g);
    ck_assert(d->x && d->y && d->g);
    for (size_t i = 0; i < n * in; i++)
        d->x[i] = (float)cm_rng_normal(r);
    for (size_t i = 0; i < n; i++)
        d->y[i] = (uint8_t)cm_rng_below(r, net->classes);
}

static void drop(net_data *d)
{
    free(d->x);
    free(d->y);
    free(d->g);
}

/* Same bits for any thread count: gradients, loss, eval. */
START_TEST(test_threads_same_bits)
{
    /* lenet: every kind of split, eval in chunks of 256 + 44; the
       (slower) cnn: an uneven split, eval in chunks of 64 + 36 */
    static const size_t batches[] = {1, 31, 32, 50, 128, 200};
    static const size_t threads[] = {2, 3, 100};
    const dt_model m = _i ? DT_MODEL_CNN : DT_MODEL_LENET;
    const size_t NE = _i ? 100 : 300, NB = _i ? 4 : 6, MB = _i ? 64 : 256;
    dt_net *net = NULL;
    ck_assert_int_eq(dt_net_new(m, 1, 28, 28, 10, MB, check_allow_own,
                                &net), CM_OK);
    cm_rng r;
    cm_rng_seed(&r, 5, 0);
    dt_net_init(net, net->params, &r);
    net_data d;
    fill(&d, net, NE, &r);
    float *ref = malloc(net->n_params * sizeof *ref);
    ck_assert_ptr_nonnull(ref);
    for (size_t bi = 0; bi < NB; bi++) {
        const size_t B = batches[bi];
        double l1, l2, e1, e2;
        size_t c1, c2;
        ck_assert_int_eq(dt_net_set_threads(net, 1), CM_OK);
        ck_assert_int_eq(dt_net_grad(net, net->params, ref, d.x, d.y, B, &l1),
                         CM_OK);
        ck_assert(isfinite(l1) && l1 > 0.0);
        ck_assert_int_eq(dt_net_eval(net, net->params, d.x, d.y, NE, &c1,
                                     &e1), CM_OK);
        for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
            ck_assert_int_eq(dt_net_set_threads(net, threads[ti]), CM_OK);
            memset(d.g, 0xff, net->n_params * sizeof *d.g); /* NaN garbage */
            ck_assert_int_eq(dt_net_grad(net, net->params, d.g, d.x, d.y, B,
                                         &l2), CM_OK);
            ck_assert_int_eq(memcmp(ref, d.g, net->n_params * sizeof *ref),
                             0);
            ck_assert(l1 == l2);
            ck_assert_int_eq(dt_net_eval(net, net->params, d.x, d.y, NE, &c2,
                                         &e2), CM_OK);
            ck_assert_uint_eq(c1, c2);
            ck_assert(e1 == e2);
        }
    }
    free(ref);
    drop(&d);
    dt_net_free(net);
}
END_TEST

/* The sharded gradient of B images is the sum over the shards of their
 * own gradients (each computed alone with its mean, rescaled by |s| / B):
 * every image counted once with weight 1/B. Also the loss. */
START_TEST(test_shards_sum)
{
    const size_t B = 50; /* 3 shards: 16, 17, 17 */
    dt_net *net = NULL;
    ck_assert_int_eq(dt_net_new(DT_MODEL_LENET, 1, 28, 28, 10, B,
                                check_allow_own, &net),
                     CM_OK);
    ck_assert_int_eq(dt_net_set_threads(net, 2), CM_OK);
    cm_rng r;
    cm_rng_seed(&r, 6, 0);
    dt_net_init(net, net->params, &r);
    net_data d;
    fill(&d, net, B, &r);
    const size_t np = net->n_params, in = 28 * 28, S = dt_net_shards(B);
    ck_assert_uint_eq(S, 3);
    double *sum = calloc(np, sizeof *sum), loss, ls = 0.0, lsum = 0.0;
    ck_assert_ptr_nonnull(sum);
    for (size_t s = 0; s < S; s++) {
        size_t lo = s * B / S, hi = (s + 1) * B / S, n = hi - lo;
        ck_assert(n < 2 * DT_NET_SHARD_MIN); /* one shard alone */
        ck_assert_int_eq(dt_net_grad(net, net->params, d.g, d.x + lo * in,
                                     d.y + lo, n, &ls), CM_OK);
        lsum += ls * (double)n;
        for (size_t i = 0; i < np; i++)
            sum[i] += (double)d.g[i] * (double)n / (double)B;
    }
    ck_assert_int_eq(dt_net_grad(net, net->params, d.g, d.x, d.y, B, &loss),
                     CM_OK);
    ck_assert_double_eq_tol(loss, lsum / (double)B, 1e-6);
    double gmax = 0.0;
    for (size_t i = 0; i < np; i++)
        gmax = fmax(gmax, fabs(sum[i]));
    ck_assert(gmax > 0.0);
    for (size_t i = 0; i < np; i++)
        ck_assert_double_eq_tol(d.g[i], sum[i], 1e-5 * gmax);
    free(sum);
    drop(&d);
    dt_net_free(net);
}
END_TEST

/* The layouts dt_net picks (direct, indirect and Winograd AVX2 kernels,
 * NHWC between them, where the CPU has them) compute the same network as
 * the all-NCHW im2col path (allow_own = 0): logits, loss and gradient to
 * float rounding, both models, 1 and 3 input channels. Tolerance 1e-4
 * relative: each Winograd conv is within 1e-6 of im2col (check_wino), and
 * the CNN chains four convs and two fcs. */
START_TEST(test_layouts_same_network)
{
    static const size_t shapes[][3] = {{1, 28, 28}, {3, 32, 32}};
    const dt_model m = _i / 2 ? DT_MODEL_CNN : DT_MODEL_LENET;
    const size_t *sh = shapes[_i % 2], B = 5;
    dt_net *a = NULL, *b = NULL;
    ck_assert_int_eq(dt_net_new(m, sh[0], sh[1], sh[2], 10, B,
                                check_allow_own, &a), CM_OK);
    ck_assert_int_eq(dt_net_new(m, sh[0], sh[1], sh[2], 10, B, 0, &b), CM_OK);
    for (size_t i = 0; i < b->n_layers; i++)
        ck_assert(!b->layers[i].direct && !b->layers[i].ind);
    cm_rng r;
    cm_rng_seed(&r, 7, 0);
    dt_net_init(a, a->params, &r);
    net_data d;
    fill(&d, a, B, &r);
    float *gb = malloc(a->n_params * sizeof *gb);
    ck_assert_ptr_nonnull(gb);
    const float *za = dt_net_forward(a, a->params, d.x, B);
    const float *zb = dt_net_forward(b, a->params, d.x, B);
    for (size_t i = 0; i < B * 10; i++)
        ck_assert_double_eq_tol(za[i], zb[i], 1e-4 * fmax(1.0, fabs(zb[i])));
    double la, lb;
    ck_assert_int_eq(dt_net_grad(a, a->params, d.g, d.x, d.y, B, &la), CM_OK);
    ck_assert_int_eq(dt_net_grad(b, a->params, gb, d.x, d.y, B, &lb), CM_OK);
    ck_assert_double_eq_tol(la, lb, 1e-5);
    double gmax = 0.0;
    for (size_t i = 0; i < a->n_params; i++)
        gmax = fmax(gmax, fabs(gb[i]));
    for (size_t i = 0; i < a->n_params; i++)
        ck_assert_double_eq_tol(d.g[i], gb[i], 1e-4 * gmax);
    free(gb);
    drop(&d);
    dt_net_free(b);
    dt_net_free(a);
}
END_TEST

/* A training run on 1 and on 2 threads: same parameters bit for bit. */
START_TEST(test_train_threads)
{
    dt_config c;
    dt_config_default(&c);
    c.dataset = DT_DS_SYNTHETIC;
    c.model = DT_MODEL_LENET;
    c.synth_train = 256;
    c.synth_test = 128;
    c.epochs = 1;
    c.batch = 40; /* 2 shards of 20, and a last batch of 16 */
    c.own_kernels = check_allow_own;
    dt_train_result a, b;
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &a), CM_OK);
    c.threads = 2;
    ck_assert_int_eq(dt_train_single(&c, NULL, NULL, &b), CM_OK);
    ck_assert_uint_eq(a.param_hash, b.param_hash);
    ck_assert(a.test_loss == b.test_loss);
}
END_TEST

Suite *net_suite(void)
{
    Suite *s = suite_create("net");
    TCase *tc = tcase_create("whole_net_gradient");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_gradcheck_net);
    suite_add_tcase(s, tc);
    tc = tcase_create("shapes_and_names");
    tcase_add_test(tc, test_net_shapes);
    suite_add_tcase(s, tc);
    tc = tcase_create("threads_same_bits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_shards);
    tcase_add_loop_test(tc, test_threads_same_bits, 0, 2);
    tcase_add_test(tc, test_shards_sum);
    tcase_add_test(tc, test_train_threads);
    suite_add_tcase(s, tc);
    tc = tcase_create("avx2_layouts_same_network");
    tcase_add_loop_test(tc, test_layouts_same_network, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

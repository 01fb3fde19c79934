/* check_net.c: the network (dt_net). The whole network's gradient
 * against central differences of the mean loss for both models and both
 * layouts; parameter counts and layer chains of both models; bad shapes
 * and model names refused. */
#include <math.h>
#include <stdlib.h>

#include <check.h>

#include "check_env.h"
#include "check_num.h"
#include "cm_rng.h"
#include "dt_net.h"

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
                                check_allow_avx512, &net), CM_OK);
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
                                check_allow_avx512, &net),
                     CM_OK);
    /* LeNet-5 on 28x28: 156 + 2416 + 48120 + 10164 + 850 parameters */
    ck_assert_uint_eq(net->n_params, 61706);
    ck_assert_uint_eq(net->layers[net->n_layers - 1].oc, 10);
    ck_assert_uint_eq(net->n_layers, 7); /* relus fused */
    ck_assert_int_eq(net->layers[0].relu, 1);
    ck_assert_int_eq(net->layers[6].relu, 0); /* logits */
    dt_net_free(net);
    ck_assert_int_eq(dt_net_new(DT_MODEL_CNN, 3, 32, 32, 10, 8,
                                check_allow_avx512, &net), CM_OK);
    /* 896 + 9248 + 18496 + 36928 + (64*5*5*256+256) + 2570 */
    ck_assert_uint_eq(net->n_params, 896 + 9248 + 18496 + 36928 + 409856 +
                                         2570);
    dt_net_free(net);
    ck_assert_int_eq(dt_net_new(DT_MODEL_CNN, 1, 8, 8, 10, 8,
                                check_allow_avx512, &net),
                     CM_EINVAL);
    ck_assert_ptr_null(net);
    dt_model m;
    ck_assert_int_eq(dt_model_parse("resnet", &m), CM_EINVAL);
    ck_assert_int_eq(dt_model_parse("cnn", &m), CM_OK);
    ck_assert_int_eq(m, DT_MODEL_CNN);
    dt_net_free(NULL);
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
    return s;
}

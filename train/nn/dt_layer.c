/* dt_layer.c: shapes and costs of a layer descriptor, and the CPU query
 * that says whether the own AVX-512 kernels can run (see dt_layer.h). */
#include "dt_layer.h"

int dt_layer_shape(dt_layer *l)
{
    switch (l->kind) {
    case DT_CONV:
        if (l->k == 0 || l->oc == 0 || l->h + 2 * l->pad < l->k ||
            l->w + 2 * l->pad < l->k)
            return -1;
        l->oh = l->h + 2 * l->pad - l->k + 1;
        l->ow = l->w + 2 * l->pad - l->k + 1;
        l->n_w = l->oc * l->c * l->k * l->k;
        return 0;
    case DT_POOL:
        l->oc = l->c;
        l->oh = l->h / 2;
        l->ow = l->w / 2;
        l->n_w = 0;
        return l->oh && l->ow ? 0 : -1;
    case DT_FC:
        l->n_w = l->oc * l->c * l->h * l->w;
        l->oh = l->ow = 1;
        return l->oc ? 0 : -1;
    case DT_RELU:
        l->oc = l->c;
        l->oh = l->h;
        l->ow = l->w;
        l->n_w = 0;
        return 0;
    }
    return -1;
}

size_t dt_layer_in_size(const dt_layer *l) { return l->c * l->h * l->w; }

size_t dt_layer_out_size(const dt_layer *l) { return l->oc * l->oh * l->ow; }

double dt_layer_macs(const dt_layer *l)
{
    switch (l->kind) {
    case DT_CONV:
        return (double)l->n_w * (double)(l->oh * l->ow);
    case DT_FC:
        return (double)l->n_w;
    default:
        return 0.0;
    }
}

int dt_layer_cpu_avx512(void)
{
#ifdef DT_AVX512
    return __builtin_cpu_supports("avx512f") != 0;
#else
    return 0;
#endif
}

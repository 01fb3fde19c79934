/* dt_synth.c: a small generated data set for tests and smoke runs.
 *
 * Ten classes, 1x28x28 bytes. Class k has a prototype made of three
 * Gaussian blobs of random centre, width and sign, drawn from stream
 * (seed, 2^50 + k). Image i of a split draws, from its own stream
 * (seed, split 2^40 + i): its label first (so labels are cheap), then a
 * shift of up to +-2 pixels, a contrast in [0.7, 1.3] and pixel noise of
 * std 0.8 (in prototype units, whose blobs peak at 1). Any image can be
 * generated alone, so shards cost only their own images. Easy enough that
 * LeNet and the small CNN learn it to > 90% within an epoch or two of 2048
 * images (about 97% after two), noisy enough not to be trivial.
 */
#include "dt_readers.h"

#include <math.h>
#include <string.h>

#include "cm_rng.h"

#define SYN_SIDE 28
#define SYN_PIX (SYN_SIDE * SYN_SIDE)
#define SYN_CLASSES DT_DATA_CLASSES
#define SYN_BLOBS 3

static void prototypes(uint64_t seed, float proto[SYN_CLASSES][SYN_PIX])
{
    for (int k = 0; k < SYN_CLASSES; k++) {
        cm_rng r;
        cm_rng_seed(&r, seed, (1ull << 50) + (uint64_t)k);
        memset(proto[k], 0, sizeof proto[k]);
        for (int b = 0; b < SYN_BLOBS; b++) {
            double cy = 6 + 16 * cm_rng_uniform(&r);
            double cx = 6 + 16 * cm_rng_uniform(&r);
            double sg = 1.5 + 2.5 * cm_rng_uniform(&r);
            double amp = b == 0 ? 1.0 : (cm_rng_u64(&r) & 1 ? 1.0 : -1.0);
            for (int y = 0; y < SYN_SIDE; y++)
                for (int x = 0; x < SYN_SIDE; x++) {
                    double d2 = (y - cy) * (y - cy) + (x - cx) * (x - cx);
                    proto[k][y * SYN_SIDE + x] +=
                        (float)(amp * exp(-d2 / (2 * sg * sg)));
                }
        }
    }
}

static uint8_t image_label(cm_rng *r) { return (uint8_t)cm_rng_below(r, SYN_CLASSES); }

static void image_pixels(cm_rng *r, const float *proto, uint8_t *pix)
{
    int dy = (int)cm_rng_below(r, 5) - 2, dx = (int)cm_rng_below(r, 5) - 2;
    double contrast = 0.7 + 0.6 * cm_rng_uniform(r);
    for (int y = 0; y < SYN_SIDE; y++)
        for (int x = 0; x < SYN_SIDE; x++) {
            int sy = y - dy, sx = x - dx;
            double v = 0.0;
            if (sy >= 0 && sy < SYN_SIDE && sx >= 0 && sx < SYN_SIDE)
                v = proto[sy * SYN_SIDE + sx];
            v = contrast * v + 0.8 * cm_rng_normal(r);
            double p = 96.0 + 96.0 * v;
            pix[y * SYN_SIDE + x] =
                (uint8_t)(p < 0 ? 0 : p > 255 ? 255 : p + 0.5);
        }
}

static uint64_t stream_of(dt_split sp, size_t i)
{
    return ((uint64_t)sp << 40) + (uint64_t)i;
}

cm_status dt_synth_shape(const dt_source *s, dt_split sp, dt_shape *sh)
{
    sh->n = s->synth_n[sp];
    sh->c = 1;
    sh->h = sh->w = SYN_SIDE;
    if (sh->n == 0)
        return cm_error(CM_EINVAL, "synthetic data set with no images");
    return CM_OK;
}

cm_status dt_synth_labels(const dt_source *s, dt_split sp, uint8_t *labels)
{
    for (size_t i = 0; i < s->synth_n[sp]; i++) {
        cm_rng r;
        cm_rng_seed(&r, s->seed, stream_of(sp, i));
        labels[i] = image_label(&r);
    }
    return CM_OK;
}

cm_status dt_synth_scan(const dt_source *s, dt_split sp, const uint8_t *want,
                        dt_visit_fn f, void *ctx)
{
    static _Thread_local float proto[SYN_CLASSES][SYN_PIX];
    uint8_t pix[SYN_PIX];
    prototypes(s->seed, proto);
    for (size_t i = 0; i < s->synth_n[sp]; i++) {
        if (want && !want[i])
            continue;
        cm_rng r;
        cm_rng_seed(&r, s->seed, stream_of(sp, i));
        uint8_t label = image_label(&r);
        image_pixels(&r, proto[label], pix);
        cm_status st = f(ctx, i, pix, label);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

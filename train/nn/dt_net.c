/* dt_net.c: model tables, parameter layout, scratch allocation and the
 * forward / backward sweep over the layer chain.
 *
 * A model is a table of layer specs; dt_net_new walks it once to infer the
 * shapes, lay the parameters out (weights then biases, layer by layer) and
 * size every scratch buffer for max_batch images, so a training step never
 * allocates. The trade-off: one network holds scratch for its largest batch
 * even when evaluating smaller ones.
 *
 * Threads: a batch is cut into shards that depend on its size only
 * (dt_net_shards); OpenMP runs them, each shard writing its own gradient
 * buffer, and the buffers are summed element by element in shard order
 * (g_0 + g_1) + g_2 + ..., so any thread count gives the same bits. One
 * thread pays only the extra additions (O(shards x n_params) per step).
 */
#include "dt_net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cm_time.h"

typedef struct {
    dt_layer_kind kind;
    size_t oc, k, pad; /* conv/fc width; conv kernel and padding */
} layer_spec;

/* oc == 0 on the last fc means "classes". */
static const layer_spec LENET[] = {
    {DT_CONV, 6, 5, 2}, {DT_RELU, 0, 0, 0}, {DT_POOL, 0, 0, 0},
    {DT_CONV, 16, 5, 0}, {DT_RELU, 0, 0, 0}, {DT_POOL, 0, 0, 0},
    {DT_FC, 120, 0, 0}, {DT_RELU, 0, 0, 0}, {DT_FC, 84, 0, 0},
    {DT_RELU, 0, 0, 0}, {DT_FC, 0, 0, 0}};
static const layer_spec CNN[] = {
    {DT_CONV, 32, 3, 0}, {DT_RELU, 0, 0, 0}, {DT_CONV, 32, 3, 0},
    {DT_RELU, 0, 0, 0}, {DT_POOL, 0, 0, 0}, {DT_CONV, 64, 3, 0},
    {DT_RELU, 0, 0, 0}, {DT_CONV, 64, 3, 0}, {DT_RELU, 0, 0, 0},
    {DT_POOL, 0, 0, 0}, {DT_FC, 256, 0, 0}, {DT_RELU, 0, 0, 0},
    {DT_FC, 0, 0, 0}};

/* Images per conv GEMM: enough columns (>= COL_TARGET) for an efficient
 * GEMM, without the column matrix outgrowing the cache much. */
#ifndef COL_TARGET
#define COL_TARGET 512
#endif

cm_status dt_model_parse(const char *name, dt_model *m)
{
    if (name && strcmp(name, "lenet") == 0) {
        *m = DT_MODEL_LENET;
        return CM_OK;
    }
    if (name && strcmp(name, "cnn") == 0) {
        *m = DT_MODEL_CNN;
        return CM_OK;
    }
    return cm_error(CM_EINVAL, "unknown model '%s' (expected lenet or cnn)",
                    name ? name : "");
}

const char *dt_model_name(dt_model m)
{
    return m == DT_MODEL_CNN ? "cnn" : "lenet";
}

static float *net_alloc(dt_net *net, size_t n)
{
    float *p = malloc((n ? n : 1) * sizeof *p);
    if (p)
        net->owned[net->n_owned++] = p;
    return p;
}

/* Scratch: what one call of dt_net_grad, dt_net_forward or dt_net_eval
 * writes and reads back within that call and never after (the col
 * workspace, every layer's activations and their gradients, the pools'
 * arg-max, the gradients of shards 1..): sized for max_batch. */

/* How a piece of scratch is held: owned floats (freed through owned[]),
 * the shards' gradients (net->shard_grads) or a pool's int32 arg-max. */
typedef enum { PIECE_OWNED, PIECE_SHARDS, PIECE_ARG } piece_kind;

/* Hands out every piece of scratch, in one order for both builds: col
 * (col floats), the gradients of shards 1.. ((shards - 1) x off floats,
 * only with more than one shard), then per layer but an in-place relu
 * (whose act and dact are its input's) act[i + 1] and dact[i + 1]
 * (max_batch x its output size floats each) and a pool's arg[i] (as many
 * int32). take(ctx, n, kind) returns a piece of n elements (float and
 * int32 both 4 bytes); -1 as soon as it returns NULL. */
static int scratch_pieces(dt_net *net, size_t off, size_t col,
                          void *(*take)(void *, size_t, piece_kind),
                          void *ctx)
{
    const size_t S = dt_net_shards(net->max_batch); /* the most shards */
    if (!(net->col = take(ctx, col, PIECE_OWNED)))
        return -1;
    if (S > 1 && !(net->shard_grads = take(ctx, (S - 1) * (off ? off : 1),
                                           PIECE_SHARDS)))
        return -1;
    for (size_t i = 0; i < net->n_layers; i++) {
        const dt_layer *l = &net->layers[i];
        size_t nout = net->max_batch * dt_layer_out_size(l);
        if (l->kind == DT_RELU) { /* in place */
            net->act[i + 1] = net->act[i];
            net->dact[i + 1] = net->dact[i];
            continue;
        }
        if (!(net->act[i + 1] = take(ctx, nout, PIECE_OWNED)) ||
            !(net->dact[i + 1] = take(ctx, nout, PIECE_OWNED)))
            return -1;
        if (l->kind == DT_POOL && !(net->arg[i] = take(ctx, nout, PIECE_ARG)))
            return -1;
    }
    return 0;
}

#ifndef DT_SMPI
/* Each piece its own malloc: owned floats through net_alloc, the shards'
 * gradients and the arg-max freed by dt_net_free on their own. */
static void *take_malloc(void *ctx, size_t n, piece_kind kind)
{
    if (kind == PIECE_OWNED)
        return net_alloc(ctx, n);
    return malloc(n * (kind == PIECE_ARG ? sizeof(int32_t) : sizeof(float)));
}

static int scratch_alloc(dt_net *net, size_t off, size_t col)
{
    return scratch_pieces(net, off, col, take_malloc, net);
}
#else
/* Under SimGrid's SMPI (make smpi) every simulated rank is a context of
 * one process, and each built its own network: some 17 MB of scratch for
 * 256-image evaluation chunks, of which an evaluation touches one shard's
 * (32 images, about 1 MB for LeNet) and a step its batch's. Ranks run one
 * at a time (SimGrid's default of one thread for all contexts), and one
 * gives way to another only in an MPI call or a read of the simulated
 * clock, which no network call makes (the clock is read inside only when
 * net->profile is set: --bench, run by rank 0 alone). So no two ranks are
 * ever inside network calls at once: all networks of one shape share one
 * scratch block, handed out through SMPI_SHARED_CALL's process-wide table
 * (as dt_idx.c shares the decoded data set). The Open MPI build, too,
 * holds one network per process for all its workers. Each piece starts
 * on 64 bytes. The block lives as long as the simulation (never freed);
 * params and grads stay the rank's own (the trainer reads grads after the
 * call). Measured with the gossip change in dt_gossip_mpi.c: docs/smpi.md,
 * "Memory". */
#include <smpi/smpi.h>
#include <stdio.h>

static size_t scratch_bytes(size_t floats)
{
    return ((floats ? floats : 1) * sizeof(float) + 63) / 64 * 64;
}

/* The block's pieces one after the other, each on 64 bytes: from b, or
 * (b NULL) only counted, the pointers then placeholders that the pass
 * over the block overwrites. */
typedef struct {
    char *b;      /* the block; NULL: count only */
    size_t bytes; /* bytes handed out so far */
} block_cursor;

static void *take_block(void *ctx, size_t n, piece_kind kind)
{
    block_cursor *cu = ctx;
    void *p = cu->b ? (void *)(cu->b + cu->bytes) : ctx;
    (void)kind; /* float and int32: 4 bytes each */
    cu->bytes += scratch_bytes(n);
    return p;
}

static int scratch_alloc(dt_net *net, size_t off, size_t col)
{
    block_cursor cu = {NULL, 0};
    net->shared_scratch = 1; /* first: dt_net_free leaves the placeholders */
    scratch_pieces(net, off, col, take_block, &cu);
    const size_t bytes = cu.bytes;
    char key[256]; /* the shape fixes the layout, hence the size */
    snprintf(key, sizeof key, "%d|%zu|%zu|%zu|%zu|%zu|%d|%zu",
             (int)net->model, net->in_c, net->in_h, net->in_w, net->classes,
             net->max_batch, net->allow_own, bytes);
    char *b;
    if (smpi_shared_known_call("dt_net_scratch", key)) {
        b = smpi_shared_get_call("dt_net_scratch", key);
    } else {
        if (!(b = aligned_alloc(64, bytes)))
            return -1;
        b = smpi_shared_set_call("dt_net_scratch", key, b);
    }
    cu = (block_cursor){b, 0};
    return scratch_pieces(net, off, col, take_block, &cu);
}
#endif

/* Runs the convs and pools NHWC (direct AVX-512 convolution, no im2col)
 * when the network runs the own AVX-512 kernels, every conv is unpadded,
 * the input has one channel (NCHW = NHWC then) and every fc follows a pool
 * or an fc (a pool before an fc writes NCHW, the flattening the fc weights
 * expect). Else all NCHW. */
static void set_layouts(dt_net *net)
{
    if (!net->avx512 || net->in_c != 1)
        return;
    for (size_t i = 0; i < net->n_layers; i++) {
        const dt_layer *l = &net->layers[i];
        if (l->kind == DT_RELU || (l->kind == DT_CONV && l->pad) ||
            (l->kind == DT_FC && i > 0 && net->layers[i - 1].kind == DT_CONV))
            return;
    }
    for (size_t i = 0; i < net->n_layers; i++) {
        dt_layer *l = &net->layers[i];
        int next_conv = i + 1 < net->n_layers &&
                        net->layers[i + 1].kind != DT_FC;
        if (l->kind == DT_CONV) {
            l->in_nhwc = l->out_nhwc = 1;
        } else if (l->kind == DT_POOL) {
            l->in_nhwc = i > 0; /* the input image is NCHW = NHWC */
            l->out_nhwc = next_conv;
        }
    }
}

/* Without the AVX-512 layout: a one-channel first conv runs the direct
 * kernel (NCHW out), every other conv the indirect AVX2 kernel (input in
 * whatever layout the layer before wrote, NHWC out), a pool reads what its
 * conv wrote and writes NHWC for an indirect conv (whose dX then adds
 * whole runs of k c floats), NCHW for an fc (the flattening its weights
 * expect). All or nothing: if some conv cannot run
 * these kernels (or a relu stands alone), everything stays NCHW. Only
 * when own kernels are allowed (dt_net_new's allow_own): without, the
 * portable path, im2col and OpenBLAS, is the reference tests compare
 * against. */
static void set_layouts_avx2(dt_net *net)
{
    for (size_t i = 0; i < net->n_layers; i++) {
        const dt_layer *l = &net->layers[i];
        if (l->kind == DT_RELU)
            return;
        if (l->kind == DT_CONV && !(i == 0 && dt_layer_direct_available(l)) &&
            !dt_layer_ind_available(l))
            return;
    }
    int nhwc = 0; /* layout of the current activation (the input: NCHW) */
    for (size_t i = 0; i < net->n_layers; i++) {
        dt_layer *l = &net->layers[i];
        int next_conv = i + 1 < net->n_layers &&
                        net->layers[i + 1].kind == DT_CONV;
        if (l->kind == DT_CONV && i == 0 && dt_layer_direct_available(l)) {
            l->direct = 1; /* the first layer needs no dx */
            nhwc = 0;
        } else if (l->kind == DT_CONV) {
            l->ind = 1;
            l->in_nhwc = nhwc;
            nhwc = 1;
        } else if (l->kind == DT_POOL) {
            l->in_nhwc = nhwc;
            l->out_nhwc = nhwc = next_conv;
        }
    }
}

cm_status dt_net_new(dt_model m, size_t c, size_t h, size_t w,
                     size_t classes, size_t max_batch, int allow_own,
                     dt_net **out)
{
    cm_status st = CM_OK;
    *out = NULL;
    const layer_spec *spec = m == DT_MODEL_CNN ? CNN : LENET;
    size_t n_spec = m == DT_MODEL_CNN ? sizeof CNN / sizeof CNN[0]
                                      : sizeof LENET / sizeof LENET[0];
    if (!c || !h || !w || classes < 2 || classes > 256 || !max_batch)
        return cm_error(CM_EINVAL, "invalid network shape %zux%zux%zu, "
                        "%zu classes, batch %zu", c, h, w, classes, max_batch);
    dt_net *net = calloc(1, sizeof *net);
    if (!net)
        return cm_error(CM_ENOMEM, "out of memory building the network");
    net->model = m;
    net->in_c = c;
    net->in_h = h;
    net->in_w = w;
    net->classes = classes;
    net->max_batch = max_batch;
    net->allow_own = allow_own != 0;
    net->avx512 = allow_own && dt_layer_cpu_avx512();
    size_t off = 0, col = 0, i = 0;
    for (size_t t = 0; t < n_spec; t++) {
        if (spec[t].kind == DT_RELU && i > 0 &&
            (net->layers[i - 1].kind == DT_CONV ||
             net->layers[i - 1].kind == DT_FC)) {
            net->layers[i - 1].relu = 1; /* fused: no pass of its own */
            continue;
        }
        dt_layer *l = &net->layers[i];
        memset(l, 0, sizeof *l);
        l->kind = spec[t].kind;
        l->c = c;
        l->h = h;
        l->w = w;
        l->oc = spec[t].oc ? spec[t].oc : classes;
        l->k = spec[t].k;
        l->pad = spec[t].pad;
        l->avx512 = net->avx512;
        if (dt_layer_shape(l) != 0) {
            st = cm_error(CM_EINVAL, "input %zux%zux%zu is too small for "
                          "model %s", net->in_c, net->in_h, net->in_w,
                          dt_model_name(m));
            goto cleanup;
        }
        if (l->kind == DT_FC) {
            l->c = c * h * w; /* flatten */
            l->h = l->w = 1;
        }
        if (l->n_w) {
            l->w_off = off;
            l->b_off = off + l->n_w;
            off += l->n_w + l->oc;
        }
        c = l->oc;
        h = l->oh;
        w = l->ow;
        i++;
    }
    net->n_layers = i;
    net->n_params = off;
    net->threads = 1;
    set_layouts(net);
    if (net->allow_own && !net->layers[0].out_nhwc)
        set_layouts_avx2(net);
    for (i = 0; i < net->n_layers; i++) {
        dt_layer *l = &net->layers[i];
        if (l->kind == DT_FC) {
            size_t need = dt_layer_col_size(l, max_batch);
            col = need > col ? need : col;
        }
        if (l->kind != DT_CONV)
            continue;
        size_t pix = l->oh * l->ow;
        size_t nb = (COL_TARGET + pix - 1) / pix;
        net->col_batch[i] = nb < max_batch ? nb : max_batch;
        size_t need = dt_layer_col_size(l, net->col_batch[i]);
        col = need > col ? need : col;
    }
    if (!(net->params = net_alloc(net, off)) ||
        !(net->grads = net_alloc(net, off)))
        goto nomem;
    memset(net->params, 0, off * sizeof *net->params);
    memset(net->grads, 0, off * sizeof *net->grads);
    if (scratch_alloc(net, off, col) != 0)
        goto nomem;
    *out = net;
    return CM_OK;
nomem:
    st = cm_error(CM_ENOMEM, "out of memory allocating the %s network for "
                  "batch %zu", dt_model_name(m), max_batch);
cleanup:
    dt_net_free(net);
    return st;
}

void dt_net_free(dt_net *net)
{
    if (!net)
        return;
    for (size_t i = 0; i < net->n_owned; i++)
        free(net->owned[i]);
    for (size_t i = 0; !net->shared_scratch && i < DT_NET_MAX_LAYERS; i++)
        free(net->arg[i]);
    for (size_t t = 1; t < DT_NET_MAX_SHARDS; t++)
        dt_net_free(net->team[t]);
    if (!net->shared_scratch)
        free(net->shard_grads);
    free(net);
}

size_t dt_net_shards(size_t batch)
{
    size_t s = batch / DT_NET_SHARD_MIN;
    if (s < 2)
        return 1;
    return s < DT_NET_MAX_SHARDS ? s : DT_NET_MAX_SHARDS;
}

/* The largest shard of any batch up to max_batch: what a helper thread's
 * scratch network must hold. */
static size_t shard_max(size_t max_batch)
{
    size_t m = 0;
    for (size_t b = 1; b <= max_batch; b++) {
        size_t s = dt_net_shards(b), sz = (b + s - 1) / s;
        m = sz > m ? sz : m;
    }
    return m;
}

cm_status dt_net_set_threads(dt_net *net, size_t threads)
{
    if (threads == 0)
        threads = 1;
    if (threads > DT_NET_MAX_SHARDS)
        threads = DT_NET_MAX_SHARDS;
    size_t sm = shard_max(net->max_batch);
    for (size_t t = 1; t < threads; t++) {
        if (net->team[t])
            continue;
        cm_status s = dt_net_new(net->model, net->in_c, net->in_h, net->in_w,
                                 net->classes, sm, net->allow_own,
                                 &net->team[t]);
        if (s != CM_OK)
            return s;
    }
    net->threads = threads;
    return CM_OK;
}

/* The scratch network of the calling thread inside a team region. */
static dt_net *my_net(dt_net *net)
{
#ifdef _OPENMP
    int t = omp_get_thread_num();
    return t > 0 ? net->team[t] : net;
#else
    return net;
#endif
}

void dt_net_init(const dt_net *net, float *params, cm_rng *r)
{
    for (size_t i = 0; i < net->n_layers; i++) {
        const dt_layer *l = &net->layers[i];
        if (!l->n_w)
            continue;
        double fan_in = (double)(l->n_w / l->oc);
        double a = sqrt(6.0 / fan_in);
        for (size_t j = 0; j < l->n_w; j++)
            params[l->w_off + j] = (float)((2.0 * cm_rng_uniform(r) - 1.0) * a);
        memset(params + l->b_off, 0, l->oc * sizeof *params);
    }
}

const float *dt_net_forward(dt_net *net, const float *params, const float *x,
                            size_t batch)
{
    net->act[0] = (float *)x; /* read only: no layer writes its input */
    double t = net->profile ? cm_time_now() : 0.0;
    for (size_t i = 0; i < net->n_layers; i++) {
        const dt_layer *l = &net->layers[i];
        const float *in = net->act[i];
        float *o = net->act[i + 1];
        switch (l->kind) {
        case DT_CONV:
            dt_conv_forward(l, params + l->w_off, params + l->b_off, in, o,
                            batch, net->col, net->col_batch[i]);
            break;
        case DT_POOL:
            dt_pool_forward(l, in, o, net->arg[i], batch);
            break;
        case DT_FC:
            dt_fc_forward(l, params + l->w_off, params + l->b_off, in, o,
                          batch, net->col);
            break;
        case DT_RELU:
            dt_relu_forward(o, batch * dt_layer_out_size(l));
            break;
        }
        if (net->profile) {
            double now = cm_time_now();
            net->t_fwd[i] += now - t;
            t = now;
        }
    }
    return net->act[net->n_layers];
}

/* One shard: grads = d/dparams of scale x (its summed loss) (overwritten);
 * returns the summed loss. batch <= net->max_batch. */
static double grad_shard(dt_net *net, const float *params, float *grads,
                         const float *x, const uint8_t *y, size_t batch,
                         float scale)
{
    const size_t L = net->n_layers;
    const float *z = dt_net_forward(net, params, x, batch);
    double sum = dt_softmax_xent(z, y, batch, net->classes, net->dact[L],
                                 scale, NULL);
    memset(grads, 0, net->n_params * sizeof *grads);
    double t = net->profile ? cm_time_now() : 0.0;
    for (size_t i = L; i-- > 0;) {
        const dt_layer *l = &net->layers[i];
        const float *in = net->act[i];
        float *dy = net->dact[i + 1];
        float *dx = i > 0 ? net->dact[i] : NULL;
        switch (l->kind) {
        case DT_CONV:
            dt_conv_backward(l, params + l->w_off, in, net->act[i + 1], dy,
                             dx, grads + l->w_off, grads + l->b_off, batch,
                             net->col, net->col_batch[i]);
            break;
        case DT_POOL:
            if (dx)
                dt_pool_backward(l, dy, net->arg[i], dx, batch);
            break;
        case DT_FC:
            dt_fc_backward(l, params + l->w_off, in, net->act[i + 1], dy, dx,
                           grads + l->w_off, grads + l->b_off, batch,
                           net->col);
            break;
        case DT_RELU: /* in place: output buffer == input buffer */
            dt_relu_backward(net->act[i + 1], net->dact[i + 1],
                             batch * dt_layer_out_size(l));
            break;
        }
        if (net->profile) {
            double now = cm_time_now();
            net->t_bwd[i] += now - t;
            t = now;
        }
    }
    return sum;
}

/* Images [lo, hi) of shard s of S in a batch of b. */
static void shard_range(size_t b, size_t S, size_t s, size_t *lo, size_t *hi)
{
    *lo = s * b / S;
    *hi = (s + 1) * b / S;
}

cm_status dt_net_grad(dt_net *net, const float *params, float *grads,
                      const float *x, const uint8_t *y, size_t batch,
                      double *loss)
{
    if (batch == 0 || batch > net->max_batch)
        return cm_error(CM_EINVAL, "batch %zu outside 1..%zu", batch,
                        net->max_batch);
    const size_t S = dt_net_shards(batch), np = net->n_params;
    const size_t in = net->in_c * net->in_h * net->in_w;
    const float scale = 1.0f / (float)batch;
    double part[DT_NET_MAX_SHARDS];
    int T = (int)(net->threads < S ? net->threads : S);
    (void)T;
#pragma omp parallel for num_threads(T) schedule(static) if (T > 1)
    for (size_t s = 0; s < S; s++) {
        size_t lo, hi;
        shard_range(batch, S, s, &lo, &hi);
        float *g = s == 0 ? grads : net->shard_grads + (s - 1) * np;
        part[s] = grad_shard(my_net(net), params, g, x + lo * in, y + lo,
                             hi - lo, scale);
    }
    if (S > 1) { /* grads = g_0 + g_1 + ... in shard order, per element */
        enum { BLK = 4096 };
        const float *sg = net->shard_grads;
#pragma omp parallel for num_threads(T) schedule(static) if (T > 1)
        for (size_t i0 = 0; i0 < np; i0 += BLK) {
            size_t i1 = np - i0 < BLK ? np : i0 + BLK;
            for (size_t s = 1; s < S; s++) {
                const float *gs = sg + (s - 1) * np;
                for (size_t i = i0; i < i1; i++)
                    grads[i] += gs[i];
            }
        }
    }
    double sum = 0.0;
    for (size_t s = 0; s < S; s++)
        sum += part[s];
    if (loss)
        *loss = sum / (double)batch;
    return CM_OK;
}

cm_status dt_net_eval(dt_net *net, const float *params, const float *x,
                      const uint8_t *y, size_t n, size_t *correct,
                      double *loss)
{
    const size_t in = net->in_c * net->in_h * net->in_w;
    size_t right = 0;
    double sum = 0.0;
    for (size_t n0 = 0; n0 < n; n0 += net->max_batch) {
        size_t b = n - n0 < net->max_batch ? n - n0 : net->max_batch;
        const size_t S = dt_net_shards(b);
        double part[DT_NET_MAX_SHARDS];
        size_t hits[DT_NET_MAX_SHARDS];
        int T = (int)(net->threads < S ? net->threads : S);
        (void)T;
#pragma omp parallel for num_threads(T) schedule(static) if (T > 1)
        for (size_t s = 0; s < S; s++) {
            size_t lo, hi;
            shard_range(b, S, s, &lo, &hi);
            dt_net *w = my_net(net);
            const float *z = dt_net_forward(w, params, x + (n0 + lo) * in,
                                            hi - lo);
            hits[s] = 0;
            part[s] = dt_softmax_xent(z, y + n0 + lo, hi - lo, net->classes,
                                      NULL, 1.0f, &hits[s]);
        }
        for (size_t s = 0; s < S; s++) {
            sum += part[s];
            right += hits[s];
        }
    }
    if (correct)
        *correct = right;
    if (loss)
        *loss = n ? sum / (double)n : 0.0;
    return CM_OK;
}

/* dt_algo.c: D-PSGD, D^2, gradient tracking and quasi-global momentum as
 * per-worker array updates around a gossip callback (formulas in
 * dt_algo.h).
 *
 * References: Lian et al. 2017 (D-PSGD); Tang, Lian, Yan, Zhang, Liu 2018
 * "D^2: decentralized training over decentralized data" and Yuan, Ying,
 * Zhao, Sayed 2019 "Exact diffusion" (d2); Pu and Nedic 2021
 * "Distributed stochastic gradient tracking methods" and Liu, Lin,
 * Koloskova, Stich 2023 "Decentralized gradient tracking with local
 * steps" (gt: K-GT, adapt then combine; the combine-then-adapt form
 * x <- Wx - eta v of before overlapped the gossip but did not train at
 * lr >= 0.05 with momentum on a random 4-regular graph of 16 workers,
 * nor at 0.01 on a ring); Lin, Karimireddy, Stich, Jaggi 2021
 * "Quasi-global momentum" Algorithm 1 (qgm, with its mu = beta).
 *
 * Trade-off: every update is a plain float loop in a fixed order over the
 * elements of one worker, so the result of a worker never depends on how
 * the workers are spread over ranks; the dpsgd path calls the very
 * dt_sgd_velocity / dt_sgd_apply of the original trainer so its bits do
 * not change. Storage per worker, the caller's x and xn included: dpsgd
 * 3n floats, d2 4n, gt 6n, qgm 4n.
 */
#include "dt_algo.h"

#include <stdlib.h>
#include <string.h>

#include "dt_local.h"
#include "dt_optim.h"
#include "dt_slab.h"

enum { SLOT_X, SLOT_XN, SLOT_A, SLOT_B, N_SLOTS };

struct dt_algo {
    dt_algo_spec sp;
    dt_algo_mixer mx;
    size_t glen;            /* floats per gossiped array */
    float **slot[N_SLOTS];  /* [count] arrays; x and xn are the caller's
                               (glen floats each), the others owned */
    void *slab[N_SLOTS];    /* the owned slots' arrays, one block each
                               (dt_slab) */
    int begun;              /* a step is between begin and end */
    int comm;               /* this step gossips (dt_algo_set_step) */
    int exact;              /* ... with an exact average */
    size_t round_len;       /* local steps of the current round */
};

/* Slot roles: dpsgd A = v; d2 A = v, B = psi_prev (LED: y); gt A = v,
 * B = the sum of h over the round; qgm A = mhat, B = the vector sent
 * (scratch). gt keeps its correction c in x[i] + n (and xn[i] + n). */
static size_t slots_of(dt_algo_kind k)
{
    switch (k) {
    case DT_ALGO_DPSGD: return 3;
    case DT_ALGO_D2: return 4;
    case DT_ALGO_GT: return 4;
    case DT_ALGO_QGM: return 4;
    }
    return 0;
}

static const char *const names[] = {"dpsgd", "d2", "gt", "qgm"};

cm_status dt_algo_parse(const char *s, dt_algo_kind *kind)
{
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(s, names[k]) == 0) {
            *kind = (dt_algo_kind)k;
            return CM_OK;
        }
    return cm_error(CM_EINVAL, "unknown algorithm '%s' (choose dpsgd, d2, "
                    "gt, qgm or clique-avg)", s);
}

const char *dt_algo_name(dt_algo_kind kind)
{
    return (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

size_t dt_algo_gossip_factor(dt_algo_kind kind)
{
    return kind == DT_ALGO_GT ? 2 : 1;
}

size_t dt_algo_gossip_len(dt_algo_kind kind, size_t n)
{
    return dt_algo_gossip_factor(kind) * n;
}

void dt_algo_free(dt_algo *a)
{
    if (!a)
        return;
    for (size_t s = SLOT_A; s < N_SLOTS; s++) {
        dt_slab_free(a->slab[s]);
        free(a->slot[s]);
    }
    free(a);
}

cm_status dt_algo_new(const dt_algo_spec *spec, float **x, float **xn,
                      const dt_algo_mixer *mixer, dt_algo **out)
{
    *out = NULL;
    if (spec->n == 0 || spec->count == 0 || slots_of(spec->kind) == 0)
        return cm_error(CM_EINVAL, "algorithm: %s", spec->n == 0 ?
                        "no parameters" : spec->count == 0 ? "no workers"
                        : "unknown kind");
    if (!(spec->mu >= 0.0f && spec->mu < 1.0f) || !(spec->wd >= 0.0f))
        return cm_error(CM_EINVAL, "algorithm: momentum %g must be in "
                        "[0, 1) and weight decay %g >= 0", (double)spec->mu,
                        (double)spec->wd);
    if (spec->kind == DT_ALGO_D2 &&
        !(spec->mix_w > 0.0f && spec->mix_w <= 1.0f))
        return cm_error(CM_EINVAL, "algorithm d2: weight %g of W in the "
                        "mixing matrix must be in (0, 1]",
                        (double)spec->mix_w);
    if (!mixer || !mixer->start || !mixer->finish)
        return cm_error(CM_EINVAL, "algorithm: no gossip callback");
    dt_algo *a = calloc(1, sizeof *a);
    if (!a)
        return cm_error(CM_ENOMEM, "out of memory");
    a->sp = *spec;
    a->mx = *mixer;
    a->comm = 1;
    a->round_len = 1;
    a->glen = dt_algo_gossip_len(spec->kind, spec->n);
    a->slot[SLOT_X] = x;
    a->slot[SLOT_XN] = xn;
    size_t ns = slots_of(spec->kind);
    for (size_t s = SLOT_A; s < ns; s++) {
        if (!(a->slot[s] = calloc(spec->count, sizeof(float *))) ||
            dt_slab_alloc(spec->count, spec->n, "optimizer arrays",
                          a->slot[s], &a->slab[s]) != CM_OK)
            goto oom;
    }
    for (size_t i = 0; i < spec->count; i++) {
        if (spec->kind == DT_ALGO_D2 && !spec->local) /* LED: d = 0 */
            memcpy(a->slot[SLOT_B][i], x[i], spec->n * sizeof(float));
        if (spec->kind == DT_ALGO_GT)
            memset(x[i] + spec->n, 0, spec->n * sizeof(float));
    }
    *out = a;
    return CM_OK;
oom:
    dt_algo_free(a);
    return cm_error(CM_ENOMEM, "out of memory for %zu workers of %zu "
                    "parameters", spec->count, spec->n);
}

float *dt_algo_x(const dt_algo *a, size_t i)
{
    return a->slot[SLOT_X][i];
}

void dt_algo_set_step(dt_algo *a, int comm, int exact, size_t round_len)
{
    a->comm = comm;
    a->exact = exact;
    a->round_len = round_len ? round_len : 1;
}

cm_status dt_algo_begin(dt_algo *a)
{
    if (a->begun)
        return cm_error(CM_EINVAL, "algorithm: step already begun");
    a->begun = 1;
    if (a->comm && a->sp.kind == DT_ALGO_DPSGD)
        return a->mx.start(a->mx.ctx, a->slot[SLOT_X]);
    return CM_OK;
}

void dt_algo_grad(dt_algo *a, size_t i, const float *g, float lr)
{
    const size_t n = a->sp.n;
    const float mu = a->sp.mu, wd = a->sp.wd;
    float *x = a->slot[SLOT_X][i];
    float *sa = a->slot[SLOT_A][i];
    switch (a->sp.kind) {
    case DT_ALGO_DPSGD:
        dt_sgd_velocity(sa, g, x, n, mu, wd);
        break;
    case DT_ALGO_D2: {
        /* x becomes phi = psi + x - psi_prev; psi_prev <- psi */
        float *pp = a->slot[SLOT_B][i];
        dt_sgd_velocity(sa, g, x, n, mu, wd);
        if (a->sp.local) { /* LED: x <- x - eta (v + y) (pp is y) */
            for (size_t k = 0; k < n; k++)
                x[k] = x[k] - lr * (sa[k] + pp[k]);
            break;
        }
        for (size_t k = 0; k < n; k++) {
            float psi = x[k] - lr * sa[k];
            float phi = psi + x[k] - pp[k];
            pp[k] = psi;
            x[k] = phi;
        }
        break;
    }
    case DT_ALGO_GT: { /* v <- mu v + h + c; x <- x - eta v; hs += h
                          (c is x + n, hs slot B) */
        float *hs = a->slot[SLOT_B][i];
        const float *c = x + n;
        for (size_t k = 0; k < n; k++) {
            float h = g[k] + wd * x[k];
            hs[k] += h;
            sa[k] = mu * sa[k] + (h + c[k]);
            x[k] -= lr * sa[k];
        }
        break;
    }
    case DT_ALGO_QGM: {
        float *send = a->slot[SLOT_B][i];
        for (size_t k = 0; k < n; k++) {
            float m = mu * sa[k] + (g[k] + wd * x[k]);
            send[k] = x[k] - lr * m;
        }
        break;
    }
    }
}

/* A step without gossip (W = I), in place; d2 and gt with spec.local have
 * done their local step in dt_algo_grad. */
static void local_end(dt_algo *a, float lr)
{
    const size_t n = a->sp.n, cnt = a->sp.count;
    const float mu = a->sp.mu;
    for (size_t i = 0; i < cnt; i++) {
        float *x = a->slot[SLOT_X][i], *sa = a->slot[SLOT_A][i];
        switch (a->sp.kind) {
        case DT_ALGO_DPSGD:
            dt_sgd_apply(x, sa, n, lr);
            break;
        case DT_ALGO_D2:
            break;
        case DT_ALGO_GT:
            break;
        case DT_ALGO_QGM: {
            const float *send = a->slot[SLOT_B][i];
            for (size_t k = 0; k < n; k++) {
                if (lr > 0.0f)
                    sa[k] = mu * sa[k] + (1.0f - mu) * ((x[k] - send[k]) / lr);
                x[k] = send[k];
            }
            break;
        }
        }
    }
}

static void swap_x(dt_algo *a, size_t i)
{
    float *t = a->slot[SLOT_X][i];
    a->slot[SLOT_X][i] = a->slot[SLOT_XN][i];
    a->slot[SLOT_XN][i] = t;
}

/* GT's communication (K-GT: Liu et al. 2023, Algorithm 1; at L = 1 the
 * adapt-then-combine GT), after the local step of dt_algo_grad: each worker sends [x_i | c_i + hbar_i] (hbar the
 * mean of h over the round's L steps, i.e. the round's mean local
 * direction without the momentum's memory), and keeps
 *     x_i <- sum_j W_ij x_j,  c_i <- sum_j W_ij (c_j + hbar_j) - hbar_i
 * (c_i + (W - I)(c + hbar) of the paper). sum_i c_i stays 0, so at a
 * fixed point (no movement: h_i + c_i = 0) sum_i h_i = 0: the optimum. */
static cm_status gt_comm(dt_algo *a)
{
    const size_t n = a->sp.n, cnt = a->sp.count;
    const float inv = 1.0f / (float)a->round_len;
    float **x = a->slot[SLOT_X], **xn = a->slot[SLOT_XN];
    for (size_t i = 0; i < cnt; i++) {
        float *hs = a->slot[SLOT_B][i], *c = x[i] + n;
        for (size_t k = 0; k < n; k++) {
            hs[k] *= inv; /* now hbar */
            c[k] += hs[k];
        }
    }
    cm_status s;
    if ((s = a->mx.start(a->mx.ctx, x)) != CM_OK ||
        (s = a->mx.finish(a->mx.ctx, xn)) != CM_OK)
        return s;
    for (size_t i = 0; i < cnt; i++) {
        float *hs = a->slot[SLOT_B][i], *c = xn[i] + n;
        for (size_t k = 0; k < n; k++) {
            c[k] -= hs[k];
            hs[k] = 0.0f;
        }
        swap_x(a, i);
    }
    return CM_OK;
}

cm_status dt_algo_end(dt_algo *a, float lr)
{
    if (!a->begun)
        return cm_error(CM_EINVAL, "algorithm: no step begun");
    a->begun = 0;
    const size_t n = a->sp.n, cnt = a->sp.count;
    const float mu = a->sp.mu;
    float **x = a->slot[SLOT_X], **xn = a->slot[SLOT_XN];
    cm_status s = CM_OK;
    if (!a->comm) {
        local_end(a, lr);
        return CM_OK;
    }
    switch (a->sp.kind) {
    case DT_ALGO_DPSGD:
        if ((s = a->mx.finish(a->mx.ctx, xn)) != CM_OK)
            return s;
        for (size_t i = 0; i < cnt; i++) {
            dt_sgd_apply(xn[i], a->slot[SLOT_A][i], n, lr);
            swap_x(a, i);
        }
        break;
    case DT_ALGO_D2:
        if ((s = a->mx.start(a->mx.ctx, x)) != CM_OK ||
            (s = a->mx.finish(a->mx.ctx, xn)) != CM_OK)
            return s;
        for (size_t i = 0; i < cnt; i++) {
            const float c = a->exact ? 1.0f : a->sp.mix_w, c0 = 1.0f - c;
            if (c != 1.0f)
                for (size_t k = 0; k < n; k++)
                    xn[i][k] = c0 * x[i][k] + c * xn[i][k];
            /* LED: y <- y - (x' - phi) / (eta L), from gossip rounds
             * only: an exact average feeds the whole disagreement of the
             * round's start, x_i - xbar, into y as (x_i - xbar)/(eta L),
             * and alternating J with (1 - c) I + c W then grew without
             * bound (NaN on the quadratic of check_local.c, H = 4, every
             * 3rd round exact; D^2's recursion needs one fixed M). The
             * correction is kept across it, the fixed point too. */
            if (a->sp.local && lr > 0.0f && !a->exact) {
                float *y = a->slot[SLOT_B][i];
                const float s = lr * (float)a->round_len;
                for (size_t k = 0; k < n; k++)
                    y[k] -= (xn[i][k] - x[i][k]) / s;
            }
            if (a->exact && !a->sp.local) /* restart from the consensus:
                the next step is D^2's first, phi = psi (psi_prev <- x) */
                memcpy(a->slot[SLOT_B][i], xn[i], n * sizeof *xn[i]);
            swap_x(a, i);
        }
        break;
    case DT_ALGO_GT:
        return gt_comm(a);
    case DT_ALGO_QGM:
        if ((s = a->mx.start(a->mx.ctx, a->slot[SLOT_B])) != CM_OK ||
            (s = a->mx.finish(a->mx.ctx, xn)) != CM_OK)
            return s;
        for (size_t i = 0; i < cnt; i++) {
            float *mh = a->slot[SLOT_A][i];
            if (lr > 0.0f)
                for (size_t k = 0; k < n; k++)
                    mh[k] = mu * mh[k] +
                            (1.0f - mu) * ((x[i][k] - xn[i][k]) / lr);
            swap_x(a, i);
        }
        break;
    }
    return CM_OK;
}

void dt_algo_stale_mix(dt_algo *a, size_t i, const float *mixed,
                       const float *old, float gamma, float lr)
{
    const size_t n = a->sp.n;
    float *x = a->slot[SLOT_X][i];
    if (a->sp.kind != DT_ALGO_D2) {
        dt_stale_mix(x, mixed, old, n, gamma);
        return;
    }
    /* the correction's step: beta = gamma / 2 of the model's */
    const float g = gamma * a->sp.mix_w, b = 0.5f * gamma;
    float *y = a->slot[SLOT_B][i];
    const float s = lr * (float)a->round_len;
    for (size_t k = 0; k < n; k++) {
        float dx = g * (mixed[k] - old[k]);
        x[k] += dx;
        if (lr > 0.0f)
            y[k] -= b * dx / s;
    }
}

size_t dt_algo_state(const dt_algo *a, size_t i,
                     float *arr[DT_ALGO_MAX_STATE])
{
    switch (a->sp.kind) {
    case DT_ALGO_DPSGD:
        arr[0] = a->slot[SLOT_A][i];
        return 1;
    case DT_ALGO_D2:
        arr[0] = a->slot[SLOT_A][i];
        arr[1] = a->slot[SLOT_B][i];
        return 2;
    case DT_ALGO_GT:
        arr[0] = a->slot[SLOT_X][i] + a->sp.n;
        arr[1] = a->slot[SLOT_A][i];
        arr[2] = a->slot[SLOT_B][i];
        return 3;
    case DT_ALGO_QGM:
        arr[0] = a->slot[SLOT_A][i];
        return 1;
    }
    return 0;
}

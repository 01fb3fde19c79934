/* dt_compress_wire.c: int8/int4 arrays as codes and block scales (the
 * format and its guarantees in dt_compress_wire.h).
 *
 * Trade-off: the callers hand over dequantized floats q (what the trainer
 * and its error feedback work with), so packing finds each block's scale
 * again instead of being given it: a search of a few candidate scales,
 * each checked against every value of the block, where carrying the
 * scales beside every array would touch every caller of dt_compress.
 */
#include "dt_compress_wire.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Candidate scales tried on each side of q_max / L: the block's own scale
 * s gives q_max = fl(L s), so q_max / L is within 2 ulps of s. */
#define SCALE_ULPS 4

typedef struct {
    float L;      /* largest code: 127 or 7 */
    int zneg;     /* the code of -0.0: -128 or -8 */
    int nibbles;  /* 1: int4, two codes a byte */
} wire_form;

static wire_form form_of(const dt_compress *c)
{
    wire_form f = {127.0f, -128, 0};
    if (c->kind == DT_COMPRESS_INT4) {
        f.L = 7.0f;
        f.zneg = -8;
        f.nibbles = 1;
    }
    return f;
}

size_t dt_compress_wire_bytes(const dt_compress *c, size_t n)
{
    /* the bytes the trainer counts (an exact integer for these kinds):
     * one formula for both */
    return (size_t)dt_compress_bytes(c, n);
}

static int same_bits(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

/* The code of r = round(v / s): -0.0 gets the free code; a value out of
 * range (not finite) travels as 0. */
static int code_of(const wire_form *f, float r)
{
    if (r == 0.0f)
        return signbit(r) ? f->zneg : 0;
    return fabsf(r) <= f->L ? (int)r : 0;
}

static void put_codes(const wire_form *f, const int *code, size_t m,
                      unsigned char *out)
{
    if (!f->nibbles) {
        for (size_t k = 0; k < m; k++)
            out[k] = (unsigned char)(int8_t)code[k];
        return;
    }
    for (size_t k = 0; k < m; k += 2) {
        unsigned lo = (unsigned)code[k] & 0xFu;
        unsigned hi = k + 1 < m ? (unsigned)code[k + 1] & 0xFu : 0u;
        out[k / 2] = (unsigned char)(lo | hi << 4);
    }
}

/* Q of one block of m values (dt_compress.c's quantize): its scale and
 * codes. */
static float encode_block(const wire_form *f, const float *p, size_t m,
                          int *code)
{
    float mx = 0.0f;
    for (size_t k = 0; k < m; k++)
        mx = fmaxf(mx, fabsf(p[k]));
    if (mx == 0.0f) {
        memset(code, 0, m * sizeof *code);
        return 0.0f;
    }
    const float s = mx / f->L;
    for (size_t k = 0; k < m; k++)
        code[k] = code_of(f, roundf(p[k] / s));
    return s;
}

/* 1 when every q[k] is round(q[k] / s) x s bit for bit (codes into code). */
static int fits(const wire_form *f, const float *q, size_t m, float s,
                int *code)
{
    for (size_t k = 0; k < m; k++) {
        float r = s > 0.0f ? roundf(q[k] / s) : 0.0f * q[k];
        if (!(fabsf(r) <= f->L) || !same_bits(r * s, q[k]))
            return 0;
        code[k] = code_of(f, r);
    }
    return 1;
}

/* The scale and codes of a block Q made (see the top), else Q's. */
static float pack_block(const wire_form *f, const float *q, size_t m,
                        int *code)
{
    float mx = 0.0f;
    for (size_t k = 0; k < m; k++)
        mx = fmaxf(mx, fabsf(q[k]));
    if (mx == 0.0f && fits(f, q, m, 0.0f, code))
        return 0.0f;
    if (mx > 0.0f && isfinite(mx)) {
        const float s0 = mx / f->L;
        float up = s0, down = s0;
        if (fits(f, q, m, s0, code))
            return s0;
        for (int u = 0; u < SCALE_ULPS; u++) {
            up = nextafterf(up, INFINITY);
            down = nextafterf(down, 0.0f);
            if (fits(f, q, m, up, code))
                return up;
            if (down > 0.0f && fits(f, q, m, down, code))
                return down;
        }
    }
    return encode_block(f, q, m, code);
}

/* Block by block: the scale, then the codes. */
static void wire_blocks(const dt_compress *c, const float *x, size_t n,
                        unsigned char *out, int pack)
{
    const wire_form f = form_of(c);
    int code[DT_COMPRESS_BLOCK];
    for (size_t b = 0; b < n; b += DT_COMPRESS_BLOCK) {
        const size_t m = n - b < DT_COMPRESS_BLOCK ? n - b : DT_COMPRESS_BLOCK;
        float s = pack ? pack_block(&f, x + b, m, code)
                       : encode_block(&f, x + b, m, code);
        memcpy(out, &s, sizeof s);
        put_codes(&f, code, m, out + sizeof s);
        out += sizeof s + (f.nibbles ? (m + 1) / 2 : m);
    }
}

/* top-k: the first k entries of q whose bits are not +0.0 (all of them
 * when Q made q), as (32-bit index, float value) pairs in ascending
 * index, the last pair repeated up to k (index 0, +0.0 when there is
 * none). 0 when q has more than k such entries (the rest left out). */
static int topk_pack(size_t k, const float *q, size_t n, unsigned char *out)
{
    size_t e = 0;
    int all = 1;
    for (size_t i = 0; i < n; i++) {
        if (same_bits(q[i], 0.0f))
            continue;
        if (e == k) {
            all = 0;
            break;
        }
        uint32_t idx = (uint32_t)i;
        memcpy(out + 8 * e, &idx, sizeof idx);
        memcpy(out + 8 * e + 4, &q[i], sizeof q[i]);
        e++;
    }
    if (e == 0) {
        const uint32_t z = 0;
        const float v = 0.0f;
        memcpy(out, &z, sizeof z);
        memcpy(out + 4, &v, sizeof v);
        e = 1;
    }
    for (; e < k; e++)
        memcpy(out + 8 * e, out + 8 * (e - 1), 8);
    return all;
}

/* top-k of an input Q did not make: Q's output packed (without memory
 * for it, the input's first k entries that are not +0.0). */
static void topk_encode(const dt_compress *c, const float *p, size_t n,
                        unsigned char *out)
{
    const size_t k = dt_compress_wire_bytes(c, n) / 8;
    float *q = malloc((n ? n : 1) * sizeof *q);
    if (!q) {
        topk_pack(k, p, n, out);
        return;
    }
    dt_compress_apply(c, p, q, n);
    topk_pack(k, q, n, out);
    free(q);
}

void dt_compress_wire_encode(const dt_compress *c, const float *p, size_t n,
                             unsigned char *out)
{
    if (c->kind == DT_COMPRESS_TOPK)
        topk_encode(c, p, n, out);
    else
        wire_blocks(c, p, n, out, 0);
}

void dt_compress_wire_pack(const dt_compress *c, const float *q, size_t n,
                           unsigned char *out)
{
    if (c->kind != DT_COMPRESS_TOPK)
        wire_blocks(c, q, n, out, 1);
    else if (!topk_pack(dt_compress_wire_bytes(c, n) / 8, q, n, out))
        topk_encode(c, q, n, out);
}

void dt_compress_wire_decode(const dt_compress *c, const unsigned char *in,
                             size_t n, float *q)
{
    if (c->kind == DT_COMPRESS_TOPK) {
        const size_t k = dt_compress_wire_bytes(c, n) / 8;
        memset(q, 0, n * sizeof *q);
        for (size_t e = 0; e < k; e++) {
            uint32_t idx;
            memcpy(&idx, in + 8 * e, sizeof idx);
            if (idx < n)
                memcpy(&q[idx], in + 8 * e + 4, sizeof *q);
        }
        return;
    }
    const wire_form f = form_of(c);
    for (size_t b = 0; b < n; b += DT_COMPRESS_BLOCK) {
        const size_t m = n - b < DT_COMPRESS_BLOCK ? n - b : DT_COMPRESS_BLOCK;
        float s;
        memcpy(&s, in, sizeof s);
        in += sizeof s;
        for (size_t k = 0; k < m; k++) {
            int v;
            if (f.nibbles) {
                unsigned nib = (in[k / 2] >> (k % 2 ? 4 : 0)) & 0xFu;
                v = nib >= 8 ? (int)nib - 16 : (int)nib;
            } else {
                v = (int8_t)in[k];
            }
            q[b + k] = v == f.zneg ? -0.0f : (float)v * s;
        }
        in += f.nibbles ? (m + 1) / 2 : m;
    }
}

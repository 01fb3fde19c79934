/* dt_compress: what --compress does to an array before it is sent
 * (issue 41): int8 or int4 quantization with one float scale per block of
 * DT_COMPRESS_BLOCK values, or top-k sparsification (the fraction F of
 * the largest magnitudes, each sent with its index), always with error
 * feedback kept by the sender:
 *     p = d + e;  q = Q(p);  e <- p - q;  send q
 * so what Q drops is sent later (Seide et al. 2014; Karimireddy et al.
 * 2019; Streaming DiLoCo sends 4-bit outer gradients this way without
 * the feedback). Q is deterministic (round to nearest, ties away from 0;
 * top-k ties broken by the lower index), so the same seed gives the same
 * bits on any number of ranks. Bytes are counted and priced at
 * dt_compress_bytes, what the codes, the block scales and the indices
 * take.
 *
 * Averaged over --mode allreduce, int8 and int4 arrays go through a
 * two-way quantized all-reduce (dt_gossip_new_average_q): the exact mean
 * of the q, quantized again by Q on the same block grid without error
 * feedback, as torchft's quantized all-reduce does and as the price (the
 * compressed array in both phases) assumes; both of its phases move the
 * codes and scales (dt_compress_wire.h), lossless for Q's output. Top-k
 * is averaged exactly (one-way) as floats. CHOCO-SGD's q is gossiped in
 * its wire form (dt_gossip_new_placed_q: int8/int4 codes and scales,
 * top-k values and indices). Runs made before the
 * two-way average (summaries without settings.compress_reduce) took the
 * exact mean for int8/int4 too.
 */
#ifndef DT_COMPRESS_H
#define DT_COMPRESS_H

#include <stddef.h>

#include "cm_status.h"

#define DT_COMPRESS_BLOCK 256 /* values per scale (int8, int4) */

typedef enum {
    DT_COMPRESS_NONE, /* floats as they are (the default) */
    DT_COMPRESS_INT8, /* codes -127..127, a float scale per block */
    DT_COMPRESS_INT4, /* codes -7..7, a float scale per block */
    DT_COMPRESS_TOPK  /* ceil(F n) largest |values|, value and index */
} dt_compress_kind;

typedef struct {
    dt_compress_kind kind;
    double frac; /* topk: F in (0, 1] */
} dt_compress;

/* Parses "none", "int8", "int4" or "topk:F" (F in (0, 1]). CM_EINVAL
 * naming the value and the forms. */
cm_status dt_compress_parse(const char *s, dt_compress *c);

/* The form dt_compress_parse reads, into buf (cap bytes); returns buf. */
char *dt_compress_str(const dt_compress *c, char *buf, size_t cap);

/* 1 unless kind is none. */
int dt_compress_active(const dt_compress *c);

/* Bytes on the wire for an array of n floats: 4n (none), n + 4 blocks
 * (int8), ceil(n/2) + 4 blocks (int4), 8 ceil(F n) (topk: a float and a
 * 32-bit index each). */
double dt_compress_bytes(const dt_compress *c, size_t n);

/* q <- Q(p) on n floats (q and p may not overlap); p is left as is.
 * O(n) (topk: on average, quickselect). */
void dt_compress_apply(const dt_compress *c, const float *p, float *q,
                       size_t n);

/* Error feedback on n floats: p <- d + e; q <- Q(p); e <- p - q. d is
 * read (it may be q: it is read before q is written), e updated, q
 * written; p scratch of n floats. */
void dt_compress_ef(const dt_compress *c, const float *d, float *e,
                    float *q, float *p, size_t n);

#endif

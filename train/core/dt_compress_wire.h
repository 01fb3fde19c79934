/* dt_compress_wire: the wire format of compressed arrays (dt_compress.h),
 * what the two-way quantized all-reduce (dt_gossip_new_average_q) and
 * CHOCO-SGD's gossip (dt_gossip_new_placed_q) move between ranks instead
 * of the dequantized floats. int8 and int4: per block of
 * DT_COMPRESS_BLOCK values, its float scale s (4 bytes, host order) then
 * its codes, one signed byte each (int8) or two 4-bit two's-complement
 * codes a byte (int4, the even value in the low nibble). A value is
 * code x s; the code the range leaves free (-128, -8) stands for -0.0,
 * which the quantizer gives for small negative values, so the bytes carry
 * the floats' bits exactly. The size of n values is dt_compress_bytes
 * (n + 4 blocks, ceil(n/2) + 4 blocks) when only the last block is short.
 *
 * An array is cut on its own block grid: the first value of p is the
 * first of a block. Encoding an array that Q already quantized on that
 * grid (dt_compress_apply, dt_compress_ef) is lossless: the block's scale
 * is found again from its largest |q| (within a few ulps of q_max / L,
 * each candidate checked value by value) and each code is
 * round(q / s). A block no scale reproduces (not Q's output, or not
 * finite) is quantized on the way, as dt_compress_apply would (non-finite
 * values travel as 0).
 *
 * top-k: k = ceil(F n) pairs of a 32-bit index (host order) and the float
 * value, ascending index: every value whose bits are not +0.0 (Q leaves
 * at most k: the ones it kept, a kept -0.0 or +0.0 included), the last
 * pair repeated up to k (index 0, +0.0 when there is none), 8 k bytes
 * (dt_compress_bytes); the decode is +0.0 everywhere else, so Q's output
 * comes back bit for bit. An input with more than k such values is
 * compressed by Q on the way (its first k if Q's scratch cannot be
 * allocated).
 */
#ifndef DT_COMPRESS_WIRE_H
#define DT_COMPRESS_WIRE_H

#include <stddef.h>

#include "dt_compress.h"

/* Bytes of the wire form of n values (c int8, int4 or top-k). */
size_t dt_compress_wire_bytes(const dt_compress *c, size_t n);

/* The wire form of Q(p): out gets dt_compress_wire_bytes(c, n) bytes whose
 * dt_compress_wire_decode is bit for bit dt_compress_apply(c, p). O(n). */
void dt_compress_wire_encode(const dt_compress *c, const float *p, size_t n,
                             unsigned char *out);

/* The wire form of q, an array Q already quantized on this grid (then
 * lossless: the decode is q bit for bit; see the top). O(n) plus the
 * scale search, a few passes over a block at most. */
void dt_compress_wire_pack(const dt_compress *c, const float *q, size_t n,
                           unsigned char *out);

/* The n values of a wire form into q. O(n). */
void dt_compress_wire_decode(const dt_compress *c, const unsigned char *in,
                             size_t n, float *q);

#endif

/* cm_hash: the one FNV-1a 64-bit hash of the project (Fowler, Noll, Vo),
 * used to compare parameter arrays and settings bit for bit: two runs are
 * equal exactly when their hashes are (up to collisions, 2^-64).
 *     h_0 = CM_HASH_FNV_OFFSET;  h_{k+1} = (h_k ^ byte_k) * CM_HASH_FNV_PRIME
 * Not a cryptographic hash. (Until dpsgd-train 1.2 the basis was
 * 1469598103934665603, a digit short, so every published hash changed
 * with the fix.)
 */
#ifndef CM_HASH_H
#define CM_HASH_H

#include <stddef.h>
#include <stdint.h>

#define CM_HASH_FNV_OFFSET 14695981039346656037ull /* FNV-1a 64 basis */
#define CM_HASH_FNV_PRIME 1099511628211ull        /* FNV-1a 64 prime */

/* Continues the FNV-1a hash h over the n bytes at p (p may be NULL when
 * n is 0). Start a new hash with h = CM_HASH_FNV_OFFSET. O(n). */
uint64_t cm_hash_fnv1a(uint64_t h, const void *p, size_t n);

#endif

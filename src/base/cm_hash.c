/* cm_hash.c: FNV-1a 64, one byte at a time (see cm_hash.h). */
#include "cm_hash.h"

uint64_t cm_hash_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= CM_HASH_FNV_PRIME;
    }
    return h;
}

/* dt_frag: Streaming DiLoCo's fragments (issue 41; Douillard, Donchev,
 * Rush, Kale, Charles, Garrett, Teston, Lacey, McIlroy, Shen, Rame,
 * Szlam, Ranzato, Barham, "Streaming DiLoCo with overlapping
 * communication: towards a distributed free lunch", arXiv 2501.18512,
 * 2025): the schedule of --fragments P[:T] in plain C, unit-tested
 * without MPI.
 *
 * The flat parameter array of n floats is split into P contiguous
 * fragments, fragment p = [p n / P, (p + 1) n / P) (the paper splits by
 * layers; contiguous floats here). After the warm-up of --local-after S
 * (steps t < S average the whole model every step, as without
 * fragments), with u = t - S, fragment p's outer step starts at the end
 * of step t when
 *     (u + 1) % H == ((p + 1) H / P) % H,
 * so each fragment is synchronised once per H steps and the P of them in
 * turn, H / P steps apart (fragment P - 1 at DiLoCo's own steps), and the
 * bytes of one synchronisation are n / P floats instead of n. P <= H, so
 * at most one fragment starts per step. With T > 0 (the overlap) the
 * fragment's result is applied T steps later, while the workers go on
 * training: its all-reduce runs behind T inner steps (T < H / P, so one
 * fragment is in flight at a time). Everything is a function of
 * (H, S, P, t). */
#ifndef DT_FRAG_H
#define DT_FRAG_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"

typedef struct {
    size_t p;       /* fragments (1: the whole model at once, the default) */
    size_t overlap; /* T: steps a fragment's synchronisation is in flight */
} dt_frag;

/* Parses "P" or "P:T" (P in [1, 256], T in [0, 1e6]) into f. CM_EINVAL
 * naming the value and the form. */
cm_status dt_frag_parse(const char *s, dt_frag *f);

/* "P" or "P:T" (T > 0) into buf (cap bytes); returns buf. */
char *dt_frag_str(const dt_frag *f, char *buf, size_t cap);

/* The fragment whose synchronisation starts at the end of step t, or P
 * when none does (warm-up steps included: they average everything).
 * O(P). */
size_t dt_frag_at(size_t H, size_t S, size_t P, uint64_t t);

/* Fragment synchronisations started in steps 0 .. t-1. O(P). */
uint64_t dt_frag_syncs(size_t H, size_t S, size_t P, uint64_t t);

/* Fragment p of n floats: [*lo, *hi). O(1). */
void dt_frag_range(size_t n, size_t P, size_t p, size_t *lo, size_t *hi);

/* The overlap's merge of a fragment's global result g into a worker's
 * fragment x (len floats), Streaming DiLoCo's mixing with factor alpha:
 * x <- alpha x + (1 - alpha) g. O(len). */
void dt_frag_merge(float *x, const float *g, size_t len, float alpha);

/* The mixing factor of an overlapped merge (T > 0): 0.5; 0 at T = 0
 * (replace: DiLoCo's step on the fragment). */
float dt_frag_alpha(const dt_frag *f);

#endif

/* tg_catalog.c: the catalogue of tg_catalog.h. Each family is an
 * adjacency predicate adj(n, i, j) over node ids; a table row says for
 * which (n, d) it exists. Building is O(n^2) (n <= 20 here). The
 * multipartite predicate reads its part size from a thread-local
 * variable set by tg_catalog_build in the same call, so builds on several
 * threads at once do not race (issue 34). */
#include "tg_catalog.h"

#include <stdlib.h>

static int popcount(size_t x)
{
    int c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
}

/* complete multipartite K_{s,...,s} (parts of s = n - d consecutive
 * ids): i ~ j iff in different parts; K_{d,d} for n = 2d */
static _Thread_local size_t part_size;

static int multipartite(size_t n, size_t i, size_t j)
{
    (void)n;
    return i / part_size != j / part_size;
}

/* outer 5-cycle 0..4, inner pentagram 5..9, spokes i ~ i + 5 */
static int petersen(size_t n, size_t i, size_t j)
{
    (void)n;
    if (i > j) {
        size_t t = i;
        i = j;
        j = t;
    }
    if (j < 5)
        return (j - i) % 5 == 1 || (j - i) % 5 == 4;
    if (i >= 5)
        return (j - i) % 5 == 2 || (j - i) % 5 == 3;
    return j == i + 5;
}

/* LCF [5, -5]^7: the 14-cycle plus i ~ i + 5 for even i */
static int heawood(size_t n, size_t i, size_t j)
{
    size_t d = (j + n - i) % n;
    if (d == 1 || d == n - 1)
        return 1;
    return (i % 2 == 0 && d == 5) || (j % 2 == 0 && d == n - 5);
}

/* Paley(q), q prime: i ~ j iff i - j is a nonzero square mod q */
static int paley(size_t n, size_t i, size_t j)
{
    size_t d = (i + n - j) % n;
    for (size_t x = 1; x < n; x++)
        if (x * x % n == d)
            return 1;
    return 0;
}

/* K_a x K_a (n = a^2): same row or same column */
static int rook(size_t n, size_t i, size_t j)
{
    size_t a = 1;
    while (a * a < n)
        a++;
    return (i / a == j / a) != (i % a == j % a);
}

/* the folded 5-cube on 4-bit ids: Hamming distance 1, or complements */
static int clebsch(size_t n, size_t i, size_t j)
{
    (void)n;
    return popcount(i ^ j) == 1 || (i ^ j) == 15;
}

typedef struct {
    const char *name;
    size_t n, d;   /* n = 0: complete multipartite, any d >= 3 with
                      (n - d) dividing n */
    int (*adj)(size_t n, size_t i, size_t j);
} family;

static const family FAMILIES[] = {
    {"complete multipartite", 0, 0, multipartite},
    {"Petersen", 10, 3, petersen},
    {"Heawood", 14, 3, heawood},
    {"Paley(5)", 5, 2, paley},
    {"Paley(13)", 13, 6, paley},
    {"Paley(17)", 17, 8, paley},
    {"rook 3x3 (Paley(9))", 9, 4, rook},
    {"rook 4x4", 16, 6, rook},
    {"Clebsch", 16, 5, clebsch},
};
#define N_FAMILIES (sizeof FAMILIES / sizeof FAMILIES[0])

static int matches(const family *f, size_t n, size_t d)
{
    return f->n ? f->n == n && f->d == d
                : d >= 3 && d < n && n % (n - d) == 0;
}

size_t tg_catalog_count(size_t n, size_t d)
{
    size_t c = 0;
    for (size_t k = 0; k < N_FAMILIES; k++)
        c += matches(&FAMILIES[k], n, d);
    return c;
}

cm_status tg_catalog_build(size_t n, size_t d, size_t k, cm_topo *t,
                           const char **name)
{
    const family *f = NULL;
    for (size_t q = 0, c = 0; q < N_FAMILIES && !f; q++)
        if (matches(&FAMILIES[q], n, d) && c++ == k)
            f = &FAMILIES[q];
    if (!f)
        return cm_error(CM_EINVAL, "no catalogue graph %zu for n=%zu d=%zu",
                        k, n, d);
    part_size = n - d; /* read by multipartite() only */
    size_t cap = n * d / 2, m = 0;
    size_t *ei = malloc((cap + 1) * sizeof *ei);
    size_t *ej = malloc((cap + 1) * sizeof *ej);
    cm_status st = CM_OK;
    if (!ei || !ej) {
        st = cm_error(CM_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (f->adj(n, i, j)) {
                if (m == cap) {
                    st = cm_error(CM_EINTERNAL, "%s: more than n d / 2 "
                                  "edges", f->name);
                    goto done;
                }
                ei[m] = i;
                ej[m++] = j;
            }
    if (m != cap) {
        st = cm_error(CM_EINTERNAL, "%s: %zu edges, not n d / 2", f->name, m);
        goto done;
    }
    st = cm_topo_from_edges(t, n, m, ei, ej);
    *name = f->name;
done:
    free(ei);
    free(ej);
    return st;
}

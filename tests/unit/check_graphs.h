/* check_graphs.h: small cm_topo graphs with closed-form spectra (ring,
 * complete, hypercube, Petersen), shared by the topology suites. Static
 * functions: each test file that includes it gets its own copy. */
#ifndef CHECK_GRAPHS_H
#define CHECK_GRAPHS_H

#include <check.h>

#include "cm_topo.h"

static inline void ring(cm_topo *t, size_t n)
{
    size_t ei[64], ej[64];
    for (size_t i = 0; i < n; i++) {
        ei[i] = i;
        ej[i] = (i + 1) % n;
    }
    ck_assert_int_eq(cm_topo_from_edges(t, n, n, ei, ej), CM_OK);
}

static inline void complete(cm_topo *t, size_t n)
{
    size_t ei[512], ej[512], m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            ei[m] = i;
            ej[m++] = j;
        }
    ck_assert_int_eq(cm_topo_from_edges(t, n, m, ei, ej), CM_OK);
}

static inline void hypercube(cm_topo *t, size_t k)
{
    size_t n = (size_t)1 << k, ei[512], ej[512], m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < k; b++)
            if (!(i & ((size_t)1 << b))) {
                ei[m] = i;
                ej[m++] = i | ((size_t)1 << b);
            }
    ck_assert_int_eq(cm_topo_from_edges(t, n, m, ei, ej), CM_OK);
}

static inline void petersen(cm_topo *t)
{
    size_t ei[15], ej[15], m = 0;
    for (size_t i = 0; i < 5; i++) {
        ei[m] = i; ej[m++] = (i + 1) % 5;           /* outer cycle */
        ei[m] = i; ej[m++] = i + 5;                 /* spokes */
        ei[m] = 5 + i; ej[m++] = 5 + (i + 2) % 5;   /* inner pentagram */
    }
    ck_assert_int_eq(cm_topo_from_edges(t, 10, m, ei, ej), CM_OK);
}

#endif

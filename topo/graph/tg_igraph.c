/* tg_igraph.c: igraph_t <-> cm_topo, the constructions over igraph, the
 * diameter and the writers (see tg_igraph.h).
 *
 * Every igraph call goes through ig(), which turns an igraph error code
 * into a cm_status with the call named; with the error handler set to
 * return (main), igraph then never aborts the process. Constructions
 * simplify what igraph returns (igraph_ring on 2 nodes and circulant
 * shifts of n/2 give parallel edges) before conversion. igraph 0.10 as
 * Debian builds it is not thread-safe (global RNG, error state): every
 * public function here holds one recursive lock, so the search may build
 * its starts from several threads; results stay deterministic because
 * each random construction seeds igraph from the caller's own cm_rng
 * inside the lock.
 */
#include "tg_igraph.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static cm_status ig(igraph_error_t rc, const char *what)
{
    if (rc == IGRAPH_SUCCESS)
        return CM_OK;
    return cm_error(rc == IGRAPH_ENOMEM ? CM_ENOMEM : CM_ENUMERIC,
                    "igraph: %s failed: %s", what, igraph_strerror(rc));
}

static void attribute_table(void)
{
    if (!igraph_has_attribute_table())
        igraph_set_attribute_table(&igraph_cattribute_table);
}

static cm_status to_topo_locked(const igraph_t *g, cm_topo *t)
{
    igraph_vector_int_t el;
    cm_status st = ig(igraph_vector_int_init(&el, 0), "vector");
    if (st != CM_OK)
        return st;
    size_t *ei = NULL, *ej = NULL;
    st = ig(igraph_get_edgelist(g, &el, 0), "igraph_get_edgelist");
    size_t m = (size_t)igraph_ecount(g), n = (size_t)igraph_vcount(g);
    if (st == CM_OK) {
        ei = malloc((m + 1) * sizeof *ei);
        ej = malloc((m + 1) * sizeof *ej);
        if (!ei || !ej)
            st = cm_error(CM_ENOMEM, "out of memory for %zu edges", m);
    }
    for (size_t k = 0; st == CM_OK && k < m; k++) {
        ei[k] = (size_t)VECTOR(el)[2 * k];
        ej[k] = (size_t)VECTOR(el)[2 * k + 1];
    }
    if (st == CM_OK)
        st = cm_topo_from_edges(t, n, m, ei, ej);
    free(ei);
    free(ej);
    igraph_vector_int_destroy(&el);
    return st;
}

static cm_status from_topo_locked(const cm_topo *t, igraph_t *g)
{
    igraph_vector_int_t el;
    cm_status st = ig(igraph_vector_int_init(&el, (igraph_integer_t)(2 * t->m)),
                      "vector");
    if (st != CM_OK)
        return st;
    for (size_t k = 0; k < t->m; k++) {
        VECTOR(el)[2 * k] = (igraph_integer_t)t->ei[k];
        VECTOR(el)[2 * k + 1] = (igraph_integer_t)t->ej[k];
    }
    if (t->ew)
        attribute_table();
    st = ig(igraph_create(g, &el, (igraph_integer_t)t->n, IGRAPH_UNDIRECTED),
            "igraph_create");
    igraph_vector_int_destroy(&el);
    if (st != CM_OK || !t->ew)
        return st;
    igraph_vector_t w;
    igraph_vector_view(&w, t->ew, (igraph_integer_t)t->m);
    st = ig(igraph_cattribute_EAN_setv(g, "weight", &w), "setting weights");
    if (st != CM_OK)
        igraph_destroy(g);
    return st;
}

static cm_status write_locked(const cm_topo *t, FILE *fp, cm_topo_format f,
                          const char *const *keys, const char *const *vals,
                          size_t nattr)
{
    if (f != CM_FORMAT_GRAPHML && f != CM_FORMAT_GML)
        return cm_error(CM_EINVAL, "igraph writes graphml or gml, not %s",
                        cm_topo_format_name(f));
    attribute_table();
    igraph_t g;
    cm_status st = tg_igraph_from_topo(t, &g);
    if (st != CM_OK)
        return st;
    for (size_t k = 0; st == CM_OK && k < nattr; k++)
        st = ig(igraph_cattribute_GAS_set(&g, keys[k], vals[k]),
                "setting a graph attribute");
    if (st == CM_OK && f == CM_FORMAT_GRAPHML)
        st = ig(igraph_write_graph_graphml(&g, fp, 0), "GraphML writer");
    else if (st == CM_OK)
        st = ig(igraph_write_graph_gml(&g, fp, IGRAPH_WRITE_GML_DEFAULT_SW,
                                       NULL, "topogen"), "GML writer");
    igraph_destroy(&g);
    if (st == CM_OK && ferror(fp))
        st = cm_error(CM_EIO, "write error");
    return st;
}

static cm_status diameter_locked(const cm_topo *t, double *diam)
{
    igraph_t g;
    *diam = 0.0;
    cm_status st = tg_igraph_from_topo(t, &g);
    if (st != CM_OK)
        return st;
    igraph_real_t res = 0;
    st = ig(igraph_diameter(&g, &res, NULL, NULL, NULL, NULL,
                            IGRAPH_UNDIRECTED, 0), "igraph_diameter");
    *diam = isfinite(res) ? (double)res : INFINITY;
    igraph_destroy(&g);
    return st;
}

/* Simplifies g, converts it to t, destroys g. */
static cm_status finish(igraph_t *g, cm_status st, cm_topo *t)
{
    if (st != CM_OK)
        return st;
    st = ig(igraph_simplify(g, 1, 1, NULL), "igraph_simplify");
    if (st == CM_OK)
        st = tg_igraph_to_topo(g, t);
    igraph_destroy(g);
    return st;
}

static cm_status circulant_locked(cm_topo *t, size_t n, const size_t *shifts,
                              size_t k)
{
    igraph_vector_int_t l;
    igraph_t g;
    cm_status st = ig(igraph_vector_int_init(&l, (igraph_integer_t)k),
                      "vector");
    if (st != CM_OK)
        return st;
    for (size_t i = 0; i < k; i++)
        VECTOR(l)[i] = (igraph_integer_t)shifts[i];
    st = ig(igraph_circulant(&g, (igraph_integer_t)n, &l, IGRAPH_UNDIRECTED),
            "igraph_circulant");
    igraph_vector_int_destroy(&l);
    return finish(&g, st, t);
}

static cm_status lattice_locked(cm_topo *t, const size_t *dims, size_t k,
                            int periodic)
{
    igraph_vector_int_t dv;
    igraph_vector_bool_t per;
    igraph_t g;
    cm_status st = ig(igraph_vector_int_init(&dv, (igraph_integer_t)k),
                      "vector");
    if (st != CM_OK)
        return st;
    st = ig(igraph_vector_bool_init(&per, (igraph_integer_t)k), "vector");
    if (st != CM_OK) {
        igraph_vector_int_destroy(&dv);
        return st;
    }
    for (size_t i = 0; i < k; i++) {
        VECTOR(dv)[i] = (igraph_integer_t)dims[i];
        VECTOR(per)[i] = periodic ? 1 : 0;
    }
    st = ig(igraph_square_lattice(&g, &dv, 1, IGRAPH_UNDIRECTED, 0, &per),
            "igraph_square_lattice");
    igraph_vector_bool_destroy(&per);
    igraph_vector_int_destroy(&dv);
    return finish(&g, st, t);
}

static cm_status full_locked(cm_topo *t, size_t n)
{
    igraph_t g;
    cm_status st = ig(igraph_full(&g, (igraph_integer_t)n, IGRAPH_UNDIRECTED,
                                  IGRAPH_NO_LOOPS), "igraph_full");
    return finish(&g, st, t);
}

static cm_status random_regular_locked(cm_topo *t, size_t n, size_t d,
                                   cm_rng *rng)
{
    igraph_vector_int_t deg;
    igraph_t g;
    /* igraph_uint_t may be 32 bits wide on some builds: keep 31 */
    igraph_uint_t seed = (igraph_uint_t)(cm_rng_u64(rng) >> 33);
    cm_status st = ig(igraph_rng_seed(igraph_rng_default(), seed),
                      "igraph_rng_seed");
    if (st != CM_OK)
        return st;
    st = ig(igraph_vector_int_init(&deg, (igraph_integer_t)n), "vector");
    if (st != CM_OK)
        return st;
    igraph_vector_int_fill(&deg, (igraph_integer_t)d);
    /* above TG_IGRAPH_VL_MAX: stub matching with local restarts, kept
     * when connected (a few tries), else Viger-Latapy after all */
    for (int try = 0; n > TG_IGRAPH_VL_MAX && try < 8; try++) {
        st = ig(igraph_degree_sequence_game(&g, &deg, NULL,
                                            IGRAPH_DEGSEQ_FAST_HEUR_SIMPLE),
                "igraph_degree_sequence_game");
        if (st != CM_OK)
            break;
        igraph_bool_t conn = 0;
        st = ig(igraph_is_connected(&g, &conn, IGRAPH_WEAK),
                "igraph_is_connected");
        if (st == CM_OK && conn) {
            igraph_vector_int_destroy(&deg);
            return finish(&g, st, t);
        }
        igraph_destroy(&g);
        if (st != CM_OK)
            break;
    }
    if (st == CM_OK)
        st = ig(igraph_degree_sequence_game(&g, &deg, NULL, IGRAPH_DEGSEQ_VL),
                "igraph_degree_sequence_game");
    igraph_vector_int_destroy(&deg);
    return finish(&g, st, t);
}

cm_status tg_igraph_to_topo(const igraph_t *g, cm_topo *t)
{
    pthread_mutex_lock(&lock);
    cm_status st = to_topo_locked(g, t);
    pthread_mutex_unlock(&lock);
    return st;
}

cm_status tg_igraph_from_topo(const cm_topo *t, igraph_t *g)
{
    pthread_mutex_lock(&lock);
    cm_status st = from_topo_locked(t, g);
    pthread_mutex_unlock(&lock);
    return st;
}

cm_status tg_igraph_write(const cm_topo *t, FILE *fp, cm_topo_format f,
                          const char *const *keys, const char *const *vals,
                          size_t nattr)
{
    pthread_mutex_lock(&lock);
    cm_status st = write_locked(t, fp, f, keys, vals, nattr);
    pthread_mutex_unlock(&lock);
    return st;
}

cm_status tg_igraph_diameter(const cm_topo *t, double *diam)
{
    pthread_mutex_lock(&lock);
    cm_status st = diameter_locked(t, diam);
    pthread_mutex_unlock(&lock);
    return st;
}

cm_status tg_igraph_circulant(cm_topo *t, size_t n, const size_t *shifts,
                              size_t k)
{
    pthread_mutex_lock(&lock);
    cm_status st = circulant_locked(t, n, shifts, k);
    pthread_mutex_unlock(&lock);
    return st;
}

cm_status tg_igraph_lattice(cm_topo *t, const size_t *dims, size_t k,
                            int periodic)
{
    pthread_mutex_lock(&lock);
    cm_status st = lattice_locked(t, dims, k, periodic);
    pthread_mutex_unlock(&lock);
    return st;
}

cm_status tg_igraph_full(cm_topo *t, size_t n)
{
    pthread_mutex_lock(&lock);
    cm_status st = full_locked(t, n);
    pthread_mutex_unlock(&lock);
    return st;
}

cm_status tg_igraph_random_regular(cm_topo *t, size_t n, size_t d,
                                   cm_rng *rng)
{
    pthread_mutex_lock(&lock);
    cm_status st = random_regular_locked(t, n, d, rng);
    pthread_mutex_unlock(&lock);
    return st;
}

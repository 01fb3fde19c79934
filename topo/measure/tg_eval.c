/* tg_eval.c: topology figures (tg_eval_topo) and the consensus simulation
 * (tg_simulate; tg_simulate_seq for time-varying rounds). Spectra come from src/cm_mixing.c through spectra(), the
 * one call to swap for a sparse solver (dense today: exact, O(n^3), and
 * refused above CM_MIXING_DENSE_MAX); components from the one BFS
 * (cm_topo_components); the diameter from igraph's igraph_diameter
 * (tg_igraph), infinite for a disconnected graph. The simulation keeps X as n x TG_SIM_DIM row-major and
 * applies W through the CSR adjacency, so a round costs O((n + m) dim).
 */
#include "tg_eval.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_mixing.h"
#include "cm_rng.h"
#include "tg_igraph.h"

/* The one place the spectra come from: lambda_2, lambda_n of L and the
 * SLEM of W (cm_topo_spectra: dense below CM_SPARSE_FROM, else sparse,
 * one spectrum when W = I - a L). */
static cm_status spectra(const cm_topo *t, double *l2, double *ln,
                         double *slem)
{
    return cm_topo_spectra(t, l2, ln, slem);
}

/* Eccentricity of src by breadth-first search over t's CSR (connected t);
 * *far gets a farthest node. dist is scratch of n entries. */
static size_t eccentricity(const cm_topo *t, size_t src, size_t *dist,
                           size_t *queue, size_t *far)
{
    for (size_t i = 0; i < t->n; i++)
        dist[i] = SIZE_MAX;
    size_t head = 0, tail = 0;
    dist[src] = 0;
    queue[tail++] = src;
    *far = src;
    while (head < tail) {
        size_t u = queue[head++];
        *far = u;
        for (size_t p = t->off[u]; p < t->off[u + 1]; p++)
            if (dist[t->adj[p]] == SIZE_MAX) {
                dist[t->adj[p]] = dist[u] + 1;
                queue[tail++] = t->adj[p];
            }
    }
    return dist[*far];
}

/* The diameter: exact (igraph, O(n m)) when small enough, else the
 * double-sweep bounds ecc(far) <= diam <= 2 ecc(0). */
static cm_status diameter(const cm_topo *t, size_t components, tg_eval *e)
{
    e->diameter_exact = 1;
    double work = (double)t->n * ((double)t->n + 2.0 * (double)t->m);
    if (components != 1 || work <= TG_EVAL_DIAMETER_WORK) {
        cm_status st = tg_igraph_diameter(t, &e->diameter);
        e->diameter_upper = e->diameter;
        return st;
    }
    size_t *dist = malloc(t->n * sizeof *dist);
    size_t *queue = malloc(t->n * sizeof *queue);
    if (!dist || !queue) {
        free(dist);
        free(queue);
        return cm_error(CM_ENOMEM, "out of memory for a breadth-first "
                        "search");
    }
    size_t far, far2;
    size_t e0 = eccentricity(t, 0, dist, queue, &far);
    size_t e1 = eccentricity(t, far, dist, queue, &far2);
    free(dist);
    free(queue);
    e->diameter = (double)e1;
    e->diameter_upper = 2.0 * (double)e0;
    e->diameter_exact = e->diameter == e->diameter_upper;
    return CM_OK;
}

double tg_eval_rounds(double slem)
{
    if (!(slem < 1.0))
        return INFINITY;
    if (slem <= 1e-3)
        return 1.0;
    /* least integer t with t log(slem) <= log(1e-3); the tolerance keeps
     * exact powers (slem = 0.1: 3 rounds) from rounding up */
    return ceil(log(1e-3) / log(slem) - 1e-9);
}

cm_status tg_eval_topo(const cm_topo *t, tg_eval *e)
{
    memset(e, 0, sizeof *e);
    if (!t->self)
        return cm_error(CM_EINVAL, "evaluation needs a weighted topology");
    e->n = t->n;
    e->m = t->m;
    cm_topo_degree_range(t, &e->dmin, &e->dmax);
    cm_status st = cm_topo_components(t, NULL, &e->components);
    if (st == CM_OK)
        st = spectra(t, &e->l2, &e->ln, &e->slem);
    if (st == CM_OK)
        st = diameter(t, e->components, e);
    if (st != CM_OK)
        return st;
    if (e->components > 1) { /* exact values, not round-off */
        e->l2 = 0.0;
        e->slem = 1.0;
    }
    e->slem_best = e->l2 + e->ln > 0.0 ? (e->ln - e->l2) / (e->ln + e->l2)
                                       : (e->n > 1 ? 1.0 : 0.0);
    e->rounds = tg_eval_rounds(e->slem);
    return CM_OK;
}

/* ||X - 1 mean^T||_F for X n x dim row-major. */
static double disagreement(const double *x, size_t n, size_t dim)
{
    double s = 0.0;
    for (size_t c = 0; c < dim; c++) {
        double mean = 0.0;
        for (size_t i = 0; i < n; i++)
            mean += x[i * dim + c];
        mean /= (double)n;
        for (size_t i = 0; i < n; i++) {
            double dv = x[i * dim + c] - mean;
            s += dv * dv;
        }
    }
    return sqrt(s);
}

cm_status tg_simulate(const cm_topo *t, size_t rounds, uint64_t seed,
                      double *rel)
{
    return tg_simulate_seq(t, 1, rounds, seed, rel);
}

cm_status tg_simulate_seq(const cm_topo *seq, size_t period, size_t rounds,
                          uint64_t seed, double *rel)
{
    size_t n = period ? seq[0].n : 0, dim = TG_SIM_DIM;
    for (size_t k = 0; k < period; k++)
        if (!seq[k].self || seq[k].n != n)
            return cm_error(CM_EINVAL, "simulation needs weighted rounds on "
                            "one node set");
    if (n < 2)
        return cm_error(CM_EINVAL, "simulation needs at least 2 nodes");
    double *x = malloc(n * dim * sizeof *x);
    double *y = malloc(n * dim * sizeof *y);
    cm_status st = CM_OK;
    if (!x || !y) {
        st = cm_error(CM_ENOMEM, "out of memory for the simulation");
        goto cleanup;
    }
    cm_rng rng;
    cm_rng_seed(&rng, seed, 0);
    for (size_t k = 0; k < n * dim; k++)
        x[k] = cm_rng_normal(&rng);
    double d0 = disagreement(x, n, dim);
    rel[0] = 1.0;
    for (size_t r = 1; r <= rounds; r++) {
        const cm_topo *t = &seq[(r - 1) % period];
        for (size_t i = 0; i < n; i++) {
            double *yi = y + i * dim;
            for (size_t c = 0; c < dim; c++)
                yi[c] = t->self[i] * x[i * dim + c];
            for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
                const double *xj = x + t->adj[p] * dim;
                for (size_t c = 0; c < dim; c++)
                    yi[c] += t->adj_w[p] * xj[c];
            }
        }
        double *tmp = x;
        x = y;
        y = tmp;
        rel[r] = d0 > 0.0 ? disagreement(x, n, dim) / d0 : 0.0;
    }
cleanup:
    free(x);
    free(y);
    return st;
}

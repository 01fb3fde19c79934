/* bench_place.c: the edge cut (and volume) of `--placement graph`'s own
 * recursive bisection (src/cm_place.c) against METIS (libmetis-dev) on one
 * topology file, for P = 2, 4, ..., up to 64 parts at exact balance (part
 * r holds cm_place_rank_size(n, P, r) workers). METIS runs both its
 * recursive bisection and its k-way partitioner (UFACTOR 1, the least
 * imbalance it takes, target weights of the exact sizes, fixed seed) and
 * the better cut is kept; a METIS part left over or under its exact size
 * is repaired greedily (move the node whose move adds the least cut from
 * an over-full to an under-full part) and the moves are counted. Built
 * and run by scripts/bench-place.sh, which prints the table.
 *   bench_place FILE NAME
 * METIS runs three ways: recursive bisection and k-way on the edge cut,
 * k-way on the communication volume (METIS_OBJTYPE_VOL); the result kept
 * is the best by the own code's objective J = V (m + 1) + cut, and the
 * least cut of the three is printed too.
 * prints one line per P: NAME n P own_cut metis_cut own_vol metis_vol
 * repaired_moves metis_least_cut */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <metis.h>

#include "cm_place.h"
#include "cm_topo.h"

static size_t cut_of(const cm_topo *t, const size_t *part)
{
    size_t c = 0;
    for (size_t i = 0; i < t->n; i++)
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            c += t->adj[p] > i && part[t->adj[p]] != part[i];
    return c;
}

/* Greedy repair to the exact sizes want[P]; returns the moves made. */
static size_t repair(const cm_topo *t, size_t P, const size_t *want,
                     size_t *part)
{
    size_t *have = calloc(P, sizeof *have), moves = 0;
    for (size_t i = 0; i < t->n; i++)
        have[part[i]]++;
    for (;;) {
        size_t best_i = SIZE_MAX, best_to = 0;
        long best_d = 0;
        for (size_t i = 0; i < t->n; i++) {
            size_t a = part[i];
            if (have[a] <= want[a])
                continue;
            for (size_t b = 0; b < P; b++) {
                if (have[b] >= want[b])
                    continue;
                long d = 0;
                for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
                    size_t j = part[t->adj[p]];
                    d += (j == a) - (j == b);
                }
                if (best_i == SIZE_MAX || d < best_d) {
                    best_i = i;
                    best_to = b;
                    best_d = d;
                }
            }
        }
        if (best_i == SIZE_MAX)
            break;
        have[part[best_i]]--;
        have[best_to]++;
        part[best_i] = best_to;
        moves++;
    }
    free(have);
    return moves;
}

static size_t metis_part(const cm_topo *t, size_t P, const size_t *want,
                         int kway, int vol, size_t *part)
{
    idx_t nv = (idx_t)t->n, ncon = 1, np = (idx_t)P, objval = 0;
    idx_t *xadj = malloc((t->n + 1) * sizeof *xadj);
    idx_t *adj = malloc((t->off[t->n] + 1) * sizeof *adj);
    idx_t *out = malloc(t->n * sizeof *out);
    real_t *tp = malloc(P * sizeof *tp);
    for (size_t i = 0; i <= t->n; i++)
        xadj[i] = (idx_t)t->off[i];
    for (size_t p = 0; p < t->off[t->n]; p++)
        adj[p] = (idx_t)t->adj[p];
    for (size_t r = 0; r < P; r++)
        tp[r] = (real_t)want[r] / (real_t)t->n;
    idx_t opt[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_UFACTOR] = 1;
    opt[METIS_OPTION_SEED] = 1;
    opt[METIS_OPTION_NUMBERING] = 0;
    if (vol)
        opt[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_VOL;
    int rc = kway ? METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL,
                                        NULL, &np, tp, NULL, opt, &objval,
                                        out)
                  : METIS_PartGraphRecursive(&nv, &ncon, xadj, adj, NULL,
                                             NULL, NULL, &np, tp, NULL, opt,
                                             &objval, out);
    if (rc != METIS_OK) {
        fprintf(stderr, "bench_place: METIS failed (%d)\n", rc);
        exit(1);
    }
    for (size_t i = 0; i < t->n; i++)
        part[i] = (size_t)out[i];
    free(xadj);
    free(adj);
    free(out);
    free(tp);
    return repair(t, P, want, part);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_place FILE NAME\n");
        return 2;
    }
    cm_topo t;
    cm_topo_init(&t);
    if (cm_topo_read(&t, argv[1]) != CM_OK) {
        fprintf(stderr, "bench_place: %s\n", cm_last_error());
        return 1;
    }
    size_t n = t.n;
    size_t *own = malloc(n * sizeof *own), *mr = malloc(n * sizeof *mr);
    size_t *mk = malloc(n * sizeof *mk), *want = malloc(n * sizeof *want);
    for (size_t P = 2; P <= 64 && P <= n; P *= 2) {
        for (size_t r = 0; r < P; r++)
            want[r] = cm_place_rank_size(n, P, r);
        if (cm_place_workers(&t, P, NULL, CM_PLACE_GRAPH, own) != CM_OK) {
            fprintf(stderr, "bench_place: %s\n", cm_last_error());
            return 1;
        }
        /* METIS's candidates: recursive (cut), k-way (cut), k-way
         * (volume); the best by the own code's J = V (m + 1) + cut */
        size_t best_j = SIZE_MAX, moves = 0, cut_best = SIZE_MAX;
        cm_place_stats so, sm, sc;
        for (int c = 0; c < 3; c++) {
            size_t mv = metis_part(&t, P, want, c > 0, c == 2, mk);
            cm_place_eval(&t, P, NULL, mk, NULL, &sc);
            size_t j = sc.volume * (t.m + 1) + sc.cut_edges;
            if (sc.cut_edges < cut_best)
                cut_best = sc.cut_edges;
            if (j < best_j) {
                best_j = j;
                sm = sc;
                moves = mv;
                memcpy(mr, mk, n * sizeof *mr);
            }
        }
        cm_place_eval(&t, P, NULL, own, NULL, &so);
        printf("%s %zu %zu %zu %zu %zu %zu %zu %zu\n", argv[2], n, P,
               so.cut_edges, sm.cut_edges, so.volume, sm.volume, moves,
               cut_best);
    }
    free(own);
    free(mr);
    free(mk);
    free(want);
    cm_topo_destroy(&t);
    return 0;
}

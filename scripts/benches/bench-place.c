/* bench-place.c: `--placement graph` (src/cm_place.c: METIS's three
 * partitioners and the own recursive bisection, the least J kept) against
 * each partitioner alone on one topology file, for P = 2, 4, ..., up to
 * 64 parts at exact balance (part r holds cm_place_rank_size(n, P, r)
 * workers), one host. "own" is the own bisection alone (the placement
 * before METIS came in, bit for bit), "metis" METIS alone (the best of its
 * recursive and k-way runs on the cut and its k-way run on the volume by
 * J = V (m + 1) + cut, each repaired to the exact sizes: cm_place_metis),
 * "new" what --placement graph now does. The least cut of the three METIS
 * runs, and the repair moves of the METIS result, are printed too. Built
 * by `make bench-build` (bin/bench/bench-place), run by
 * scripts/benches/bench-place.sh, which prints the table.
 *   bench-place FILE NAME
 * prints one line per P: NAME n P own_cut metis_cut new_cut own_vol
 * metis_vol new_vol own_J new_J kept repairs metis_least_cut */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_place.h"
#include "cm_place_metis.h"
#include "cm_topo.h"

static void die(void)
{
    fprintf(stderr, "bench-place: %s\n", cm_last_error());
    exit(1);
}

/* The placement by the partitioners in use, its stats and J. */
static uint64_t run(const cm_topo *t, size_t P, unsigned use, size_t *ro,
                    cm_place_stats *st, cm_place_how *how)
{
    if (cm_place_workers_how(t, P, NULL, CM_PLACE_GRAPH, use, ro, how) !=
            CM_OK ||
        cm_place_eval(t, P, NULL, ro, NULL, st) != CM_OK)
        die();
    return (uint64_t)st->volume * (t->m + 1) + st->cut_edges;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench-place FILE NAME\n");
        return 2;
    }
    cm_topo t;
    cm_topo_init(&t);
    if (cm_topo_read(&t, argv[1]) != CM_OK)
        die();
    size_t n = t.n;
    size_t *ro = malloc(n * sizeof *ro), *want = malloc(n * sizeof *want);
    if (!ro || !want)
        return 1;
    for (size_t P = 2; P <= 64 && P <= n; P *= 2) {
        cm_place_stats so, sm, sn;
        cm_place_how hm, hn;
        uint64_t jo = run(&t, P, CM_PLACE_USE_OWN, ro, &so, NULL);
        run(&t, P, CM_PLACE_USE_METIS, ro, &sm, &hm);
        uint64_t jn = run(&t, P, CM_PLACE_USE_ALL, ro, &sn, &hn);
        /* the least cut of METIS's runs; the repairs of the one kept */
        for (size_t r = 0; r < P; r++)
            want[r] = cm_place_rank_size(n, P, r);
        size_t least = SIZE_MAX, repairs = 0;
        for (int m = 0; m < CM_METIS_METHODS; m++) {
            size_t mv, cut;
            uint64_t j;
            if (cm_place_metis(n, t.off, t.adj, P, want, (cm_metis_method)m,
                               ro, &mv) != CM_OK ||
                cm_place_part_j(n, t.off, t.adj, P, ro, &j, NULL, &cut) !=
                    CM_OK)
                die();
            if (cut < least)
                least = cut;
            if (hm.won[m])
                repairs = mv;
        }
        char kept[96];
        cm_place_how_describe(&hn, kept, sizeof kept);
        for (char *c = kept; *c; c++)
            if (*c == ' ')
                *c = '-';
        printf("%s %zu %zu %zu %zu %zu %zu %zu %zu %llu %llu %s %zu %zu\n",
               argv[2], n, P, so.cut_edges, sm.cut_edges, sn.cut_edges,
               so.volume, sm.volume, sn.volume, (unsigned long long)jo,
               (unsigned long long)jn, kept, repairs, least);
    }
    free(ro);
    free(want);
    cm_topo_destroy(&t);
    return 0;
}

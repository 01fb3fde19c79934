/* dt_placement.c: host discovery, the agreed worker -> rank map and its
 * costs (see dt_placement.h). Host names are compared through a 52-bit
 * FNV-1a hash carried exactly in a double, so one sum-allreduce of a
 * vector with one slot per rank collects them; a collision between two
 * different names (odds ~P^2 / 2^53) would only merge two hosts in the
 * report and the graph placement, never change results.
 */
#include "dt_placement.h"

#include "cm_hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

cm_status dt_comm_host_ids(const dt_comm *c, size_t *host_of_rank)
{
    size_t P = dt_comm_size(c), me = dt_comm_rank(c);
    double *h = calloc(P, sizeof *h);
    cm_status s = dt_comm_agree(c, h ? CM_OK : cm_error(CM_ENOMEM, "out of "
                                "memory (host names)"));
    if (s != CM_OK) {
        free(h);
        return s;
    }
    char name[256] = "";
    if (gethostname(name, sizeof name - 1) != 0)
        strcpy(name, "?");
    uint64_t x = cm_hash_fnv1a(CM_HASH_FNV_OFFSET, name, strlen(name));
    h[me] = (double)(x >> 12);  /* 52 bits: exact in a double */
    s = dt_comm_allreduce_sum_double(c, h, P);
    if (s == CM_OK)
        for (size_t r = 0; r < P; r++) {
            size_t q = 0;
            while (h[q] != h[r])
                q++;
            host_of_rank[r] = q;
        }
    free(h);
    return s;
}

void dt_placement_destroy(dt_placement *pl)
{
    if (!pl)
        return;
    free(pl->host_of_rank);
    free(pl->rank_of);
    free(pl->load);
    memset(pl, 0, sizeof *pl);
}

/* dt_placement_init over t (costs), placed by cm_place_workers_seq(seq)
 * when seq is given, else cm_place_workers(t). */
static cm_status placement_init(dt_placement *pl, const dt_comm *c,
                                const cm_topo *t, const cm_topo_seq *seq,
                                cm_place_kind kind)
{
    memset(pl, 0, sizeof *pl);
    size_t P = dt_comm_size(c), n = t->n;
    pl->P = P;
    pl->kind = kind;
    pl->host_of_rank = malloc(P * sizeof *pl->host_of_rank);
    pl->rank_of = malloc((n + 1) * sizeof *pl->rank_of);
    pl->load = calloc(P, sizeof *pl->load);
    cm_status s = pl->host_of_rank && pl->rank_of && pl->load
                      ? CM_OK
                      : cm_error(CM_ENOMEM, "out of memory (placement)");
    s = dt_comm_agree(c, s);
    if (s == CM_OK)
        s = dt_comm_host_ids(c, pl->host_of_rank);
    if (s == CM_OK) {
        cm_status s0 = CM_OK;
        if (dt_comm_rank(c) == 0)
            s0 = seq ? cm_place_workers_seq_how(seq, P, pl->host_of_rank,
                                                kind, pl->rank_of, &pl->how)
                   : cm_place_workers_how(t, P, pl->host_of_rank, kind,
                                          CM_PLACE_USE_ALL, pl->rank_of,
                                          &pl->how);
        /* the others wait behind rank 0's partitioning (minutes for
         * thousands of workers): idle, and without the --timeout
         * deadline, since rank 0 is computing, not silent */
        s = dt_comm_agree_idle(c, s0);
    }
    if (s == CM_OK)
        s = dt_comm_bcast(c, pl->rank_of, n * sizeof *pl->rank_of, 0);
    if (s == CM_OK)
        s = dt_comm_bcast(c, &pl->how, sizeof pl->how, 0);
    if (s == CM_OK)
        s = dt_comm_agree(c, cm_place_eval(t, P, pl->host_of_rank,
                                           pl->rank_of, pl->load, &pl->st));
    if (s != CM_OK)
        dt_placement_destroy(pl);
    return s;
}

cm_status dt_placement_init(dt_placement *pl, const dt_comm *c,
                            const cm_topo *t, cm_place_kind kind)
{
    return placement_init(pl, c, t, NULL, kind);
}

cm_status dt_placement_init_seq(dt_placement *pl, const dt_comm *c,
                                const cm_topo_seq *s, cm_place_kind kind)
{
    if (s->period <= 1)
        return placement_init(pl, c, &s->round[0], NULL, kind);
    cm_topo u;
    cm_topo_init(&u);
    cm_status st = dt_comm_agree(c, cm_topo_seq_union(s, &u));
    if (st == CM_OK)
        st = placement_init(pl, c, &u, s, kind);
    else
        memset(pl, 0, sizeof *pl);
    cm_topo_destroy(&u);
    return st;
}

size_t dt_placement_workers(const dt_placement *pl, size_t n, size_t r,
                            size_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (pl->rank_of[i] == r)
            out[k++] = i;
    return k;
}

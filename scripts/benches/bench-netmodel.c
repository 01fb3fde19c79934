/* bench-netmodel.c: the MPI side of scripts/benches/bench-netmodel.sh (built
 * by `make bench-build` with mpicc into bin/bench/; not part of the
 * programs). One measurement per run:
 *
 *   bench-netmodel pingpong BYTES REPS    rank 0 <-> rank 1, half the
 *                                         round trip
 *   bench-netmodel gossip D BYTES REPS    every rank exchanges BYTES with
 *                                         D peers (D = 1: r xor 1; D even:
 *                                         r +- 1 .. D/2), all sends and
 *                                         receives posted together, as
 *                                         dt_gossip_mpi.c posts a round
 *   bench-netmodel allreduce BYTES REPS   MPI_Allreduce (coll/tuned; its
 *                                         algorithm forced by the caller's
 *                                         MCA parameters)
 *   bench-netmodel iallreduce BYTES REPS  MPI_Iallreduce in place (what
 *                                         dpsgd-train calls; coll/libnbc)
 *
 * Floats summed; every repetition starts after a barrier and its time is
 * the slowest rank's. Rank 0 prints one line: `min_s median_s reps`.
 * REPS = 0: the operation once, alone (no barrier, warm-up or timing
 * reduction), for Open MPI's monitoring counters.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 4 || (strcmp(argv[1], "gossip") == 0 && argc < 5)) {
        if (rank == 0)
            fprintf(stderr, "usage: bench-netmodel pingpong|allreduce|"
                    "iallreduce BYTES REPS | gossip D BYTES REPS\n");
        MPI_Finalize();
        return 2;
    }
    int gossip = strcmp(argv[1], "gossip") == 0;
    int d = gossip ? atoi(argv[2]) : 0;
    long bytes = atol(argv[2 + gossip]);
    int reps = atoi(argv[3 + gossip]);
    long count = bytes / 4 > 0 ? bytes / 4 : 1;
    int peers = gossip ? d : 1;
    float *buf = calloc((size_t)count * (size_t)(peers + 1), sizeof *buf);
    double *t = calloc((size_t)reps + 1, sizeof *t);
    MPI_Request *req = calloc(2 * (size_t)peers, sizeof *req);
    if (!buf || !t || !req)
        MPI_Abort(MPI_COMM_WORLD, 1);
    int alone = reps == 0;
    for (int k = alone ? -1 : -2; k < reps; k++) { /* two warm-ups */
        if (!alone)
            MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (!strcmp(argv[1], "pingpong")) {
            if (rank == 0) {
                MPI_Send(buf, (int)count, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)count, MPI_FLOAT, 1, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, (int)count, MPI_FLOAT, 0, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)count, MPI_FLOAT, 0, 0, MPI_COMM_WORLD);
            }
        } else if (gossip) {
            int q = 0;
            for (int j = 0; j < d; j++) {
                int off = d == 1 ? 0 : 1 + j / 2;
                int peer = d == 1 ? rank ^ 1
                           : j % 2 ? (rank - off + P) % P : (rank + off) % P;
                MPI_Irecv(buf + (size_t)(j + 1) * (size_t)count, (int)count,
                          MPI_FLOAT, peer, j % 2 == 0 || d == 1 ? 1 : 0,
                          MPI_COMM_WORLD, &req[q++]);
                MPI_Isend(buf, (int)count, MPI_FLOAT, peer,
                          j % 2 == 0 && d != 1 ? 0 : 1, MPI_COMM_WORLD,
                          &req[q++]);
            }
            MPI_Waitall(q, req, MPI_STATUSES_IGNORE);
        } else if (!strcmp(argv[1], "allreduce")) {
            MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM,
                          MPI_COMM_WORLD);
        } else {
            MPI_Iallreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM,
                           MPI_COMM_WORLD, &req[0]);
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        }
        if (alone)
            break;
        double dt = MPI_Wtime() - t0, mx;
        if (!strcmp(argv[1], "pingpong"))
            dt /= 2;
        MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (k >= 0)
            t[k] = mx;
    }
    if (rank == 0 && !alone) {
        qsort(t, (size_t)reps, sizeof *t, cmp);
        printf("%.9g %.9g %d\n", t[0], t[reps / 2], reps);
    }
    free(req);
    free(t);
    free(buf);
    MPI_Finalize();
    return 0;
}

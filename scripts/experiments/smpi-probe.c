/* smpi-probe.c: one communication of the trainer, timed under SimGrid's
 * SMPI (built with smpicc by smpi-netmodel.sh; docs/network-model.md).
 *
 *   smpi-probe gossip FILE BYTES REPS   every rank exchanges BYTES with its
 *                                       neighbours in a topogen edge-list
 *                                       FILE (a `# round` sequence: round
 *                                       t mod period), all Irecv and Isend
 *                                       posted together, then Waitall, as
 *                                       the trainer's point-to-point path
 *   smpi-probe gossip:D FILE BYTES REPS the same with D + 1 rounds in flight
 *                                       (--staleness D): round k is posted,
 *                                       then round k - D waited for; prints
 *                                       the steady state, the seconds from
 *                                       round 0's completion to the last
 *                                       one's over REPS - 1 rounds
 *   smpi-probe allreduce - BYTES REPS   MPI_Allreduce of BYTES/4 floats
 *                                       (smpirun --cfg=smpi/allreduce:ALG)
 *   smpi-probe direct - BYTES REPS      MPI_Ialltoall, local sum,
 *                                       MPI_Iallgather (dt_allreduce_mpi.c)
 *   smpi-probe hier G BYTES REPS        hierarchical: groups of G
 *                                       consecutive ranks, MPI_Reduce to
 *                                       each group's first, MPI_Allreduce
 *                                       among those, MPI_Bcast in the
 *                                       group (dt_allreduce_mpi.c; SMPI's
 *                                       algorithms by --cfg)
 *
 * REPS operations back to back after a barrier; rank 0 prints the slowest
 * rank's mean seconds per operation ("probe_s S"). A single operation
 * after a barrier carries up to one path latency of barrier exit skew;
 * REPS operations amortize it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXNB 64
#define MAXROUNDS 32
#define MAXDEPTH 8

static int nb[MAXROUNDS][MAXNB], nnb[MAXROUNDS], period = 1;

/* this rank's neighbours in every round of FILE */
static int read_topo(const char *path, int me)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -1;
    char line[512];
    int round = 0, seen_round = 0;
    while (fgets(line, sizeof line, fp)) {
        int r;
        if (sscanf(line, "# round %d", &r) == 1) {
            round = r;
            seen_round = 1;
            if (round + 1 > period)
                period = round + 1;
            continue;
        }
        if (line[0] == '#')
            continue;
        int i, j;
        if (sscanf(line, "%d %d", &i, &j) != 2 || i == j)
            continue;
        int other = i == me ? j : j == me ? i : -1;
        if (other >= 0 && round < MAXROUNDS && nnb[round] < MAXNB)
            nb[round][nnb[round]++] = other;
    }
    fclose(fp);
    if (!seen_round)
        period = 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc != 5) {
        if (me == 0)
            fprintf(stderr, "usage: smpi-probe gossip|allreduce|direct|"
                    "hier FILE|-|G BYTES REPS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1];
    int depth = 0; /* gossip:D: D rounds in flight besides the newest */
    if (strncmp(mode, "gossip:", 7) == 0) {
        depth = atoi(mode + 7);
        if (depth < 1 || depth >= MAXDEPTH) {
            if (me == 0)
                fprintf(stderr, "smpi-probe: gossip:D needs 1 <= D < %d\n",
                        MAXDEPTH);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        mode = "gossip";
    }
    size_t bytes = strtoull(argv[3], NULL, 10);
    int reps = atoi(argv[4]);
    size_t cnt = bytes / 4;
    if (depth && reps <= depth) {
        if (me == 0)
            fprintf(stderr, "smpi-probe: gossip:%d needs REPS > %d\n", depth,
                    depth);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(mode, "gossip") == 0 && read_topo(argv[2], me) != 0) {
        fprintf(stderr, "smpi-probe: cannot read %s\n", argv[2]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    size_t blk = (cnt + (size_t)P - 1) / (size_t)P;
    int maxd = 1;
    for (int t = 0; t < period; t++)
        maxd = nnb[t] > maxd ? nnb[t] : maxd;
    /* contents do not matter: every rank shares one copy of each buffer
     * (SMPI_SHARED_MALLOC), so 256 ranks of 16 MB arrays fit */
    size_t c1 = cnt ? cnt : 1, cp = (size_t)P * (blk ? blk : 1);
    float *x = SMPI_SHARED_MALLOC(c1 * sizeof(float));
    float *y = SMPI_SHARED_MALLOC((cp > c1 ? cp : c1) * sizeof(float));
    /* gossip:D: a receive buffer per round in flight */
    size_t ci = (size_t)(depth + 1) * (size_t)maxd * c1;
    float *in = SMPI_SHARED_MALLOC((ci > cp ? ci : cp) * sizeof(float));
    MPI_Request rq[2 * MAXNB], rqd[MAXDEPTH][2 * MAXNB];
    int nq[MAXDEPTH] = {0};
    double t_first = -1.0;
    MPI_Comm local = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
    if (strcmp(mode, "hier") == 0) {
        int G = atoi(argv[2]), lr;
        if (G < 1) {
            fprintf(stderr, "smpi-probe: hier G: G >= 1\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Comm_split(MPI_COMM_WORLD, me / G, me, &local);
        MPI_Comm_rank(local, &lr);
        MPI_Comm_split(MPI_COMM_WORLD, lr == 0 ? 0 : MPI_UNDEFINED, me,
                       &leaders);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < reps; k++) {
        if (depth) { /* post round k in slot k mod (D + 1), wait for k - D */
            int t = k % period, sl = k % (depth + 1), q = 0;
            float *buf = in + (size_t)sl * (size_t)maxd * c1;
            for (int a = 0; a < nnb[t]; a++)
                MPI_Irecv(buf + (size_t)a * cnt, (int)cnt, MPI_FLOAT,
                          nb[t][a], sl, MPI_COMM_WORLD, &rqd[sl][q++]);
            for (int a = 0; a < nnb[t]; a++)
                MPI_Isend(x, (int)cnt, MPI_FLOAT, nb[t][a], sl,
                          MPI_COMM_WORLD, &rqd[sl][q++]);
            nq[sl] = q;
            if (k >= depth) {
                int old = (k - depth) % (depth + 1);
                MPI_Waitall(nq[old], rqd[old], MPI_STATUSES_IGNORE);
                nq[old] = 0;
                if (t_first < 0)
                    t_first = MPI_Wtime();
            }
            if (k == reps - 1) /* the rounds still in flight */
                for (int j = k - depth + 1; j <= k; j++) {
                    int o = j % (depth + 1);
                    MPI_Waitall(nq[o], rqd[o], MPI_STATUSES_IGNORE);
                    nq[o] = 0;
                    if (t_first < 0)
                        t_first = MPI_Wtime();
                }
        } else if (strcmp(mode, "gossip") == 0) {
            int t = k % period, q = 0;
            for (int a = 0; a < nnb[t]; a++)
                MPI_Irecv(in + (size_t)a * cnt, (int)cnt, MPI_FLOAT,
                          nb[t][a], 0, MPI_COMM_WORLD, &rq[q++]);
            for (int a = 0; a < nnb[t]; a++)
                MPI_Isend(x, (int)cnt, MPI_FLOAT, nb[t][a], 0,
                          MPI_COMM_WORLD, &rq[q++]);
            MPI_Waitall(q, rq, MPI_STATUSES_IGNORE);
        } else if (strcmp(mode, "direct") == 0) {
            MPI_Request r;
            MPI_Ialltoall(y, (int)blk, MPI_FLOAT, in, (int)blk, MPI_FLOAT,
                          MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            for (int p = 1; p < P; p++)
                for (size_t j = 0; j < blk; j++)
                    in[j] += in[(size_t)p * blk + j];
            MPI_Iallgather(in, (int)blk, MPI_FLOAT, y, (int)blk, MPI_FLOAT,
                           MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (local != MPI_COMM_NULL) {
            MPI_Reduce(x, y, (int)cnt, MPI_FLOAT, MPI_SUM, 0, local);
            if (leaders != MPI_COMM_NULL)
                MPI_Allreduce(y, in, (int)cnt, MPI_FLOAT, MPI_SUM, leaders);
            MPI_Bcast(in, (int)cnt, MPI_FLOAT, 0, local);
        } else {
            MPI_Allreduce(x, y, (int)cnt, MPI_FLOAT, MPI_SUM,
                          MPI_COMM_WORLD);
        }
    }
    double dt = (MPI_Wtime() - t0) / reps, worst = 0;
    if (depth && reps > 1) /* the steady state: after round 0 completed */
        dt = (MPI_Wtime() - t_first) / (reps - 1);
    MPI_Reduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("probe_s %.9g\n", worst);
    if (leaders != MPI_COMM_NULL)
        MPI_Comm_free(&leaders);
    if (local != MPI_COMM_NULL)
        MPI_Comm_free(&local);
    SMPI_SHARED_FREE(x);
    SMPI_SHARED_FREE(y);
    SMPI_SHARED_FREE(in);
    MPI_Finalize();
    return 0;
}

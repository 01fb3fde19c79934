/* mpi_check_placement.c: where workers live does not change what they
 * compute (dt_placement, --placement) under mpirun -np 4. A 16-worker
 * graph with scrambled labels (two 8-cliques joined by two edges, so block
 * and graph placement differ) gives the same workers-hash on 1, 2, 3 and
 * 4 ranks with block and with graph placement; a run checkpointed with
 * block placement on 2 ranks and resumed with graph placement on 4 ends
 * like an uninterrupted run; the placement all ranks agree on is the one
 * rank 0 computed, balanced, and the graph one cuts fewer edges; a
 * time-varying file is placed by the union of its rounds.
 *
 * Every assertion is made on every rank with values every rank holds
 * (broadcast from rank 0 where needed) (CK_FORK=no). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "check_env.h"
#include "cm_net.h"
#include "cm_rng.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "dt_comm.h"
#include "dt_config.h"
#include "dt_dpsgd.h"
#include "dt_placement.h"
#include "mpi_run.h"

/* Two 8-cliques joined by two edges, labels scrambled (seeded), Laplacian
 * weights; saved to a per-process file named by rank 0's pid. */
static void cliques_topo(cm_topo *t)
{
    size_t ei[64], ej[64], m = 0, p[16];
    for (size_t i = 0; i < 16; i++)
        p[i] = i;
    cm_rng r;
    cm_rng_seed(&r, 77, 0);
    cm_rng_shuffle_size(&r, p, 16);
    for (size_t q = 0; q < 2; q++)
        for (size_t i = 0; i < 8; i++)
            for (size_t j = i + 1; j < 8; j++) {
                ei[m] = p[8 * q + i];
                ej[m++] = p[8 * q + j];
            }
    ei[m] = p[0], ej[m++] = p[8];
    ei[m] = p[3], ej[m++] = p[12];
    cm_topo_init(t);
    ck_assert_int_eq(cm_topo_from_edges(t, 16, m, ei, ej), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(t, CM_WEIGHTS_LAPLACIAN), CM_OK);
}

static int shared_pid(void)
{
    int pid = (int)getpid();
    ck_assert_int_eq(dt_comm_bcast(dt_comm_world(), &pid, sizeof pid, 0),
                     CM_OK);
    return pid;
}

static void config(dt_config *cfg, const char *topo)
{
    dt_config_default(cfg);
    cfg->own_kernels = check_allow_own;
    cfg->dataset = DT_DS_SYNTHETIC;
    cfg->synth_train = 2048;
    cfg->synth_test = 128;
    cfg->batch = 16;
    cfg->epochs = 2;
    cfg->lr = 0.02;
    cfg->local_eval = 64;
    cfg->seed = 9;
    snprintf(cfg->topology, sizeof cfg->topology, "%s", topo);
}

/* Runs cfg on the first P ranks, which must succeed; the workers-hash on
 * every rank. */
static uint64_t run_on(size_t P, const dt_config *cfg)
{
    mpi_outcome o = mpi_run_on(P, cfg);
    ck_assert_int_eq(o.s, CM_OK);
    return o.hash;
}

START_TEST(test_same_trajectory_any_placement)
{
    cm_topo t;
    cliques_topo(&t);
    char path[64];
    snprintf(path, sizeof path, "/tmp/mpi_check_place_%d.txt", shared_pid());
    if (dt_comm_rank(dt_comm_world()) == 0)
        ck_assert_int_eq(cm_topo_save(&t, path, "two cliques"), CM_OK);
    ck_assert_int_eq(dt_comm_barrier(dt_comm_world()), CM_OK);
    dt_config cfg;
    config(&cfg, path);
    cfg.placement = CM_PLACE_BLOCK;
    uint64_t h = run_on(1, &cfg);
    for (size_t P = 2; P <= 4; P++)
        for (int k = 0; k < 2; k++) {
            cfg.placement = k ? CM_PLACE_GRAPH : CM_PLACE_BLOCK;
            ck_assert_uint_eq(run_on(P, &cfg), h);
        }
    ck_assert_int_eq(dt_comm_barrier(dt_comm_world()), CM_OK);
    if (dt_comm_rank(dt_comm_world()) == 0)
        unlink(path);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_resume_on_another_placement)
{
    cm_topo t;
    cliques_topo(&t);
    int pid = shared_pid();
    char path[64], dir[64];
    snprintf(path, sizeof path, "/tmp/mpi_check_place_%d.txt", pid);
    snprintf(dir, sizeof dir, "/tmp/mpi_check_place_ck_%d", pid);
    if (dt_comm_rank(dt_comm_world()) == 0)
        ck_assert_int_eq(cm_topo_save(&t, path, "two cliques"), CM_OK);
    ck_assert_int_eq(dt_comm_barrier(dt_comm_world()), CM_OK);
    dt_config cfg;
    config(&cfg, path);
    cfg.epochs = 3;
    uint64_t full = run_on(4, &cfg);
    snprintf(cfg.ckpt_dir, sizeof cfg.ckpt_dir, "%s", dir);
    cfg.placement = CM_PLACE_BLOCK;
    cfg.stop_after = 1;
    run_on(2, &cfg);
    cfg.placement = CM_PLACE_GRAPH;
    cfg.stop_after = 0;
    cfg.resume = 1;
    ck_assert_uint_eq(run_on(4, &cfg), full);
    ck_assert_int_eq(dt_comm_barrier(dt_comm_world()), CM_OK);
    if (dt_comm_rank(dt_comm_world()) == 0) {
        char cmd[160];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        ck_assert_int_eq(system(cmd), 0);
        unlink(path);
    }
    cm_topo_destroy(&t);
}
END_TEST

/* The agreed placement: rank 0's, balanced; graph cuts the 2 bridges. */
START_TEST(test_agreed_placement)
{
    cm_topo t;
    cliques_topo(&t);
    dt_comm *w = dt_comm_world();
    size_t P = dt_comm_size(w);
    dt_placement g, b;
    ck_assert_int_eq(dt_placement_init(&g, w, &t, CM_PLACE_GRAPH), CM_OK);
    ck_assert_int_eq(dt_placement_init(&b, w, &t, CM_PLACE_BLOCK), CM_OK);
    size_t mine[16], cnt = dt_placement_workers(&g, 16, dt_comm_rank(w), mine);
    ck_assert_uint_eq(cnt, cm_place_rank_size(16, P, dt_comm_rank(w)));
    for (size_t k = 1; k < cnt; k++)
        ck_assert_uint_lt(mine[k - 1], mine[k]);
    /* everyone holds rank 0's map */
    size_t ro[16];
    memcpy(ro, g.rank_of, sizeof ro);
    ck_assert_int_eq(dt_comm_bcast(w, ro, sizeof ro, 0), CM_OK);
    ck_assert_mem_eq(ro, g.rank_of, sizeof ro);
    /* one host here: nothing crosses hosts; P = 2 or 4 parts of cliques */
    ck_assert_uint_eq(g.st.hosts, 1);
    ck_assert_uint_eq(g.st.volume_host, 0);
    if (P == 2)
        ck_assert_uint_eq(g.st.cut_edges, 2);
    ck_assert_uint_lt(g.st.cut_edges, b.st.cut_edges);
    dt_placement_destroy(&g);
    dt_placement_destroy(&b);
    cm_topo_destroy(&t);
}
END_TEST

/* A time-varying topology is placed for all its rounds: round 0 a ring in
 * label order, round 1 the two cliques of cliques_topo (scrambled labels),
 * so round 0 alone would be split into two arcs of the ring and the union
 * of the rounds' edges into the two cliques. On 2 ranks the run gets the
 * union's graph placement (its costs on the union), not round 0's; the
 * trajectory is block placement's; --net models each round's load under
 * that placement, the mean over the period. */
START_TEST(test_sequence_placed_by_union)
{
    const size_t P = 2;
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_int_eq(cm_topo_seq_alloc(&s, 2, 16), CM_OK);
    size_t ei[16], ej[16];
    for (size_t i = 0; i < 16; i++)
        ei[i] = i, ej[i] = (i + 1) % 16;
    ck_assert_int_eq(cm_topo_from_edges(&s.round[0], 16, 16, ei, ej), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&s.round[0], CM_WEIGHTS_LAPLACIAN),
                     CM_OK);
    cliques_topo(&s.round[1]);
    char path[64];
    snprintf(path, sizeof path, "/tmp/mpi_check_place_seq_%d.txt",
             shared_pid());
    if (dt_comm_rank(dt_comm_world()) == 0)
        ck_assert_int_eq(cm_topo_seq_save(&s, path, "ring, cliques"), CM_OK);
    ck_assert_int_eq(dt_comm_barrier(dt_comm_world()), CM_OK);
    /* what every rank expects: one host (the placement suite's premise) */
    const size_t hosts[2] = {0, 0};
    size_t ro_union[16], ro_round0[16];
    cm_topo u;
    cm_topo_init(&u);
    ck_assert_int_eq(cm_topo_seq_union(&s, &u), CM_OK);
    ck_assert_int_eq(cm_place_workers(&u, P, hosts, CM_PLACE_GRAPH,
                                      ro_union), CM_OK);
    ck_assert_int_eq(cm_place_workers(&s.round[0], P, hosts, CM_PLACE_GRAPH,
                                      ro_round0), CM_OK);
    cm_place_stats su, s0;
    ck_assert_int_eq(cm_place_eval(&u, P, hosts, ro_union, NULL, &su), CM_OK);
    ck_assert_int_eq(cm_place_eval(&u, P, hosts, ro_round0, NULL, &s0),
                     CM_OK);
    /* the fixture tells the two apart: round 0's placement cuts more of
     * the union (clique edges) than the union's own; and the union's is
     * the one chosen for the sequence (cm_place_workers_seq) */
    ck_assert_uint_gt(s0.cut_edges, su.cut_edges);
    size_t ro_seq[16];
    ck_assert_int_eq(cm_place_workers_seq(&s, P, hosts, CM_PLACE_GRAPH,
                                          ro_seq), CM_OK);
    ck_assert_mem_eq(ro_seq, ro_union, sizeof ro_seq);
    dt_config cfg;
    config(&cfg, path);
    cfg.epochs = 1;
    cfg.placement = CM_PLACE_BLOCK;
    mpi_outcome blk = mpi_run_on(P, &cfg);
    ck_assert_int_eq(blk.s, CM_OK);
    cfg.placement = CM_PLACE_GRAPH;
    ck_assert_int_eq(cm_net_parse("wan", &cfg.net), CM_OK);
    cfg.net_given = 1;
    mpi_outcome gr = mpi_run_on(P, &cfg);
    ck_assert_int_eq(gr.s, CM_OK);
    ck_assert_uint_eq(gr.hash, blk.hash);
    ck_assert_double_eq(gr.place_cut, (double)su.cut_edges);
    ck_assert_double_eq(gr.place_volume, (double)su.volume);
    double t_round = 0.0;
    for (size_t t = 0; t < 2; t++) {
        cm_place_load load[2];
        cm_place_stats st;
        ck_assert_int_eq(cm_place_eval(&s.round[t], P, hosts, ro_union, load,
                                       &st), CM_OK);
        t_round += cm_net_round_time(&cfg.net, load, hosts, P,
                                     4.0 * gr.n_params, NULL, &s.round[t],
                                     ro_union) / 2.0;
    }
    ck_assert_double_gt(t_round, 0.0);
    ck_assert_double_eq_tol(gr.round_model_s, t_round, 1e-12 * t_round);
    ck_assert_int_eq(dt_comm_barrier(dt_comm_world()), CM_OK);
    if (dt_comm_rank(dt_comm_world()) == 0)
        unlink(path);
    cm_topo_destroy(&u);
    cm_topo_seq_destroy(&s);
}
END_TEST

Suite *mpi_placement_suite(void)
{
    Suite *s = suite_create("mpi_placement");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_agreed_placement);
    tcase_add_test(tc, test_same_trajectory_any_placement);
    tcase_add_test(tc, test_resume_on_another_placement);
    tcase_add_test(tc, test_sequence_placed_by_union);
    suite_add_tcase(s, tc);
    return s;
}

/* mpi_run.h: what the MPI suites (tests/mpi/mpi_check_*.c) share: the small
 * synthetic-data configuration of the D-PSGD suites, the communicator of
 * the first P ranks, a file rank 0 writes for every rank, run a
 * configuration on the first P ranks of the world and hand every rank
 * rank 0's outcome, check that a run checkpointed, stopped and resumed on
 * another number of ranks equals an uninterrupted one, and remove a
 * directory on rank 0. Header-only (static inline), so that the
 * Makefile's rule "one tests/mpi/mpi_check_X.c, one suite" needs no extra
 * source.
 *
 * Every value a test asserts on is broadcast from rank 0 first, so a
 * failing assertion fails on every rank and no rank is left waiting in a
 * collective (the runner uses CK_FORK=no). */
#ifndef MPI_RUN_H
#define MPI_RUN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include <unistd.h>

#include "check_env.h"
#include "cm_mixing.h"
#include "cm_topo.h"
#include "dt_comm.h"
#include "dt_config.h"
#include "dt_dpsgd.h"

/* The small run of the D-PSGD suites: synthetic data (4096 training and
 * 256 test images), batch 32, 2 epochs at lr 0.02, local evaluation on 128
 * images, seed 5, on the topology file topo ("" for none). */
static inline void mpi_small_config(dt_config *cfg, const char *topo)
{
    dt_config_default(cfg);
    cfg->own_kernels = check_allow_own;
    cfg->dataset = DT_DS_SYNTHETIC;
    cfg->synth_train = 4096;
    cfg->synth_test = 256;
    cfg->batch = 32;
    cfg->epochs = 2;
    cfg->lr = 0.02;
    cfg->local_eval = 128;
    cfg->seed = 5;
    snprintf(cfg->topology, sizeof cfg->topology, "%s", topo);
}

/* The small all-reduce run of local SGD and DiLoCo (check_compress,
 * check_frag): mpi_small_config without a topology or local evaluation,
 * 8 workers averaging every H = 4 steps, --outer outer ("none": local
 * SGD) and --compress comp. */
static inline void mpi_local_config(dt_config *cfg, const char *outer,
                                    const char *comp)
{
    mpi_small_config(cfg, "");
    cfg->local_eval = 0;
    cfg->mode = DT_MODE_ALLREDUCE;
    cfg->workers = 8;
    cfg->average_every = 4;
    ck_assert_int_eq(dt_outer_parse(outer, &cfg->outer), CM_OK);
    ck_assert_int_eq(dt_compress_parse(comp, &cfg->compress), CM_OK);
}

/* What one run leaves, as rank 0 of the run saw it. */
typedef struct {
    int s;               /* the cm_status of dt_dpsgd_run */
    uint64_t hash;       /* workers hash: every worker's final parameters */
    double acc;          /* final test accuracy of the average model */
    double bytes;        /* gossip bytes per step per rank (mean) */
    double n_params;     /* model size (floats) */
    double period;       /* rounds of the topology (1: static) */
    double mix_c;        /* d2's weight of W */
    double place_cut;    /* gossip: edges the placement cuts */
    double place_volume; /* gossip: the placement's arrays per round */
    double round_model_s; /* --net: modelled seconds of a round */
} mpi_outcome;

/* The communicator of the first P ranks of w (dt_comm_split), NULL on
 * the others: the any-P tests run the same code on 1, 2, ... ranks inside
 * one mpirun. Collective over w (every rank calls it with the same P);
 * the caller frees it with dt_comm_free. */
static inline dt_comm *mpi_first_ranks(dt_comm *w, size_t P)
{
    dt_comm *c = NULL;
    ck_assert_int_eq(dt_comm_split(w, dt_comm_rank(w) < P ? 0 : -1, &c),
                     CM_OK);
    return c;
}

/* Runs cfg on the first P ranks of the world (a sub-communicator; the
 * other ranks wait in the broadcast); every rank gets rank 0's outcome.
 * Collective over the world. */
static inline mpi_outcome mpi_run_on(size_t P, const dt_config *cfg)
{
    dt_comm *w = dt_comm_world(), *c = mpi_first_ranks(w, P);
    mpi_outcome o = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (c) {
        dt_dpsgd_result res;
        o.s = (int)dt_dpsgd_run(cfg, c, NULL, NULL, &res);
        o.hash = res.workers_hash;
        o.acc = res.last.test_acc;
        o.bytes = (double)res.bytes_per_step;
        o.n_params = (double)res.n_params;
        o.period = (double)res.period;
        o.mix_c = res.mix_c;
        o.place_cut = (double)res.place.cut_edges;
        o.place_volume = (double)res.place.volume;
        o.round_model_s = res.round_model_s;
        dt_comm_free(c);
    }
    ck_assert_int_eq(dt_comm_bcast(w, &o, sizeof o, 0), CM_OK);
    return o;
}

/* cfg checkpointed in dir, stopped after epoch 1 on p_stop ranks (a hash
 * other than want's: it did stop early), then resumed on p_resume ranks:
 * want's bits and accuracy. Leaves cfg resuming from dir, so a caller can
 * go on to check what a resume refuses. Collective over the world. */
static inline void mpi_resume_matches(dt_config *cfg, const char *dir,
                                      size_t p_stop, size_t p_resume,
                                      mpi_outcome want)
{
    snprintf(cfg->ckpt_dir, sizeof cfg->ckpt_dir, "%s", dir);
    cfg->stop_after = 1;
    cfg->resume = 0;
    mpi_outcome part = mpi_run_on(p_stop, cfg);
    ck_assert_int_eq(part.s, CM_OK);
    ck_assert_uint_ne(part.hash, want.hash);
    cfg->stop_after = 0;
    cfg->resume = 1;
    mpi_outcome res = mpi_run_on(p_resume, cfg);
    ck_assert_int_eq(res.s, CM_OK);
    ck_assert_uint_eq(res.hash, want.hash);
    ck_assert_double_eq(res.acc, want.acc);
}

/* The cube Q3 (i ~ i XOR 2^b) with Laplacian weights (lambda_min(W) =
 * -1/2) saved to "<stem><pid>.txt" (path, n bytes): the topology of the
 * algorithm suites, with and without MPI. */
static inline void mpi_cube_file(char *path, size_t n, const char *stem)
{
    cm_topo t;
    size_t ei[12], ej[12], m = 0;
    for (size_t i = 0; i < 8; i++)
        for (size_t b = 1; b < 8; b <<= 1)
            if (i < (i ^ b))
                ei[m] = i, ej[m++] = i ^ b;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, 8, m, ei, ej), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    snprintf(path, n, "%s%d.txt", stem, (int)getpid());
    ck_assert_int_eq(cm_topo_save(&t, path, "cube"), CM_OK);
    cm_topo_destroy(&t);
}

/* Rank 0 writes text to a fresh file made from the mkstemp template
 * tmpl (e.g. "/tmp/mpi_check_comm_XXXXXX") into path (n bytes); every
 * rank of w gets its path. Collective over w; mpi_remove_shared removes
 * it. */
static inline void mpi_shared_file(const dt_comm *w, const char *tmpl,
                                   const char *text, char *path, size_t n)
{
    memset(path, 0, n);
    if (dt_comm_rank(w) == 0) {
        snprintf(path, n, "%s", tmpl);
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        FILE *fp = fdopen(fd, "w");
        ck_assert_ptr_nonnull(fp);
        fputs(text, fp);
        ck_assert_int_eq(fclose(fp), 0);
    }
    ck_assert_int_eq(dt_comm_bcast(w, path, n, 0), CM_OK);
}

/* Removes path on rank 0 once every rank of w is past it (a barrier).
 * Collective over w. */
static inline void mpi_remove_shared(const dt_comm *w, const char *path)
{
    ck_assert_int_eq(dt_comm_barrier(w), CM_OK);
    if (dt_comm_rank(w) == 0)
        unlink(path);
}

/* `rm -rf dir` on rank 0 (dir is a test's own /tmp path, no quoting). */
static inline void mpi_remove_dir(const char *dir)
{
    if (dt_comm_rank(dt_comm_world()) == 0) {
        char cmd[160];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        ck_assert_int_eq(system(cmd), 0);
    }
}

#endif

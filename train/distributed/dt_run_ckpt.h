/* dt_run_ckpt: checkpoints of a whole D-PSGD run, and resuming from them.
 *
 * A run's checkpoint of epoch E is: one file per worker (dt_ckpt: x, the
 * algorithm's state (v; d2 v, psi_prev; gt y, v, h_prev; qgm mhat),
 * the generator state at the start of its pass, its position), written by
 * the rank that holds it; rank 0's run state (dt_dpsgd_state: CSV rows,
 * clock, bytes); then the marker DIR/latest, which makes it complete. A
 * resumed run replays each worker's pass from the stored generator state
 * and continues bit for bit as if never interrupted, on any number of
 * ranks. With --outer the worker files also hold the outer optimizer's
 * anchor and Nesterov buffer; the phase of --average-every and
 * --global-every is a function of the step (dt_local.h), so a run resumed
 * in the middle of a period continues it exactly. Every function here is
 * collective over comm and agrees failures
 * across ranks (dt_comm_agree).
 */
#ifndef DT_RUN_CKPT_H
#define DT_RUN_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "cm_lock.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "dt_comm.h"
#include "dt_algo.h"
#include "dt_config.h"
#include "dt_dpsgd_state.h"
#include "dt_workers.h"

/* --drop-workers: the run continues without lost workers. */
typedef struct {
    const size_t *lost;   /* borrowed: their ids in the run before the
                             drop, ascending */
    size_t k;             /* how many */
    size_t n0;            /* workers before the drop: n + k */
    dt_algo_kind algo;    /* --algorithm: the invariants over the
                             workers that the lost ones leave broken are
                             restored over the survivors, as at a start:
                             gt's tracker y_i = h_prev_i (mean(y) =
                             mean(h_prev)), d2's psi_prev_i = x_i
                             (mean(x) = mean(psi_prev)) */
    /* set by dt_run_ckpt_restore (the same on every rank): */
    int first;            /* 1: the checkpoint is of the n0 workers, this
                             resume drops them; 0: it is of a run that
                             already dropped them */
    uint64_t epoch;       /* the epoch they were dropped at */
} dt_run_drop;

/* --add-workers: the run continues with new workers n0 .. n-1. */
typedef struct {
    size_t n0;            /* workers before: the checkpoint's */
    size_t k;             /* new workers (n = n0 + k) */
    dt_algo_kind algo;    /* --algorithm: its invariants restored over
                             all workers as after a drop */
    /* set by dt_run_ckpt_restore (the same on every rank): */
    int first;            /* 1: this resume adds them */
    uint64_t epoch;       /* the epoch they joined at */
} dt_run_add;

/* Which run a checkpoint belongs to. */
typedef struct {
    const dt_comm *comm;  /* borrowed: the run's communicator */
    const char *dir;      /* borrowed: --checkpoint DIR */
    size_t n;             /* workers in the run */
    size_t steps_per_epoch;
    uint64_t fingerprint; /* dt_run_ckpt_fingerprint of the run */
    const dt_algo *algo;  /* borrowed, gossip mode: the update rule whose
                             per-worker state (dt_algo_state) is saved with
                             x; NULL (all-reduce): the momentum w->v[0] */
    const char *settings; /* borrowed: dt_run_ckpt_settings of the run,
                             written to DIR/settings at every save */
    size_t keep;          /* --keep: generations kept */
    size_t epochs;        /* --epochs of this invocation */
    dt_run_drop *drop;    /* borrowed: --drop-workers, or NULL */
    const char *settings0; /* borrowed, with drop or add: the settings the
                             run before must have had (its workers, its
                             --topology line and, for add, its drop lines
                             are not compared) */
    dt_run_add *add;      /* borrowed: --add-workers, or NULL; the new
                             workers' neighbours are nb_off/nb (the new
                             topology's, rewritten into DIR/neighbours at
                             the first save) */
    const size_t *nb_off, *nb; /* borrowed: the workers' neighbour lists
                             (undirected; union of the rounds) for
                             DIR/neighbours, written at a save when DIR has
                             none; NULL: none written (epidemic, or after
                             a drop: the run's first topology stays) */
    uint64_t topo_hash;   /* dt_run_ckpt_topo_hash of the topology */
    float **outer[2];     /* borrowed, --outer: [count] anchors and (for
                             nesterov) buffers, saved after the algorithm's
                             state */
    size_t n_outer;       /* how many of outer are in use (0, 1, 2) */
} dt_run_ckpt;

/* The settings a checkpoint must match, one per line as "FLAG VALUE"
 * ("--lr 0.05"; the topology as a hash of its edges and weights), into
 * buf (cap bytes, truncated if short). --epochs is not among them: a
 * resumed run may train longer. With --drop-workers LIST (cfg), two more
 * lines: "--drop-workers LIST" (canonical, cm_idlist_format) and
 * "workers-before-drop N0". Returns the length written. */
size_t dt_run_ckpt_settings(const dt_config *cfg, size_t n, size_t len,
                            const cm_topo *topo, char *buf, size_t cap);

/* Collective, at start-up, when --checkpoint is given. Rank 0 creates DIR
 * and locks it for the run (lock: release with cm_lock_release; other
 * ranks get an unlocked one); every rank checks it can create files there.
 * A fresh run (resume 0) refuses a DIR that holds a complete checkpoint,
 * and complete epochs without a readable DIR/latest (another run's, or a
 * first save killed before its marker). With resume, a missing DIR/latest
 * beside complete epochs is a save killed before its marker: the newest
 * complete epoch is adopted (its marker written, *adopted = its epoch,
 * else 0) when its worker files carry this run's fingerprint and
 * DIR/settings, if any, matches; otherwise refused; an empty or garbage
 * marker is always refused. Refusals are CM_EINVAL naming --resume and how
 * to start over. With resume and no checkpoint yet, *resume_now is 0
 * (start from scratch), else 1. Errors agreed, prefixed "--checkpoint". */
cm_status dt_run_ckpt_open(const dt_run_ckpt *c, int resume, cm_lock *lock,
                           int *resume_now, uint64_t *adopted);

/* The settings' topology hash: FNV-1a of topo's CSR lists, weights, self
 * weights and epidemic parameters ("--topology
 * edges-and-weights-hash:%016llx"). 0 for NULL. */
uint64_t dt_run_ckpt_topo_hash(const cm_topo *topo);

/* Hash (FNV-1a) of dt_run_ckpt_settings: the flags that shape the
 * trajectory (not --epochs; --algorithm and --d2-mixing when the
 * algorithm is not dpsgd), n workers, len parameters, and, when topo is
 * not NULL, the topology's edges and weights. */
uint64_t dt_run_ckpt_fingerprint(const dt_config *cfg, size_t n, size_t len,
                                 const cm_topo *topo);

/* Rank 0 only, once the run's checkpoint is open and (with --resume)
 * restored: writes DIR/placement atomically, one line per rank, "rank R:
 * LIST" (cm_idlist_format of the workers rank_of[0..n) puts on R): which
 * workers a lost rank held, for `topogen repair --remove LIST` and
 * `--drop-workers LIST`. It describes the run that started last. CM_EIO
 * naming the file; CM_ENOMEM. O(n). */
cm_status dt_run_ckpt_placement(const char *dir, size_t n, size_t P,
                                const size_t *rank_of);

/* Collective. Saves epoch's checkpoint: every rank its workers of w, then
 * rank 0 the run state rs (read on rank 0 only), DIR/settings and the
 * marker, keeping c->keep generations. A failed save removes its partial
 * epoch (dt_ckpt_discard), so a full disk does not stay full. Errors
 * agreed, prefixed "--checkpoint". */
cm_status dt_run_ckpt_save(const dt_run_ckpt *c, const dt_workers *w,
                           uint64_t epoch, size_t step,
                           const dt_run_state *rs);

/* Rank 0: the list of the "--drop-workers LIST" line of DIR/settings
 * into list (cap bytes), "" when DIR/settings is missing or records no
 * drop: a plain --resume of a run that continued without workers goes on
 * without them. CM_EFORMAT naming the file when the list does not fit. */
cm_status dt_run_ckpt_recorded_drop(const char *dir, char *list, size_t cap);

/* Collective. Restores every worker of w (x, v, generator, pass and
 * position) from the last complete checkpoint. With c->drop and a
 * checkpoint of the n0 workers before the drop: survivor j (new id)
 * takes old worker s_j's file (x, algorithm state, generator at the start
 * of its pass) and starts a new pass over its new shard at its next step;
 * the run continues at step epoch * c->steps_per_epoch (the survivors'
 * epoch grid); DIR/settings must be the run's before the drop
 * (c->settings0, its --topology line aside), or, when the first save
 * after a drop stopped between DIR/settings and DIR/latest, a
 * DIR/settings recording a drop at the checkpoint's epoch (then the lines
 * a drop changes aside): the drop is redone from that checkpoint, whatever
 * list the interrupted one had. c->drop->first and ->epoch
 * are set; rank 0 also reads the run
 * state into rs (zeroed before). *step is the step to continue from, the
 * same on every rank. Errors agreed, prefixed "--resume": no checkpoint,
 * other settings (naming the first that differs, with both values, from
 * DIR/settings; a fingerprint mismatch when that file is missing), a
 * corrupt file, a checkpoint beyond --epochs, or a step that does not fall
 * on an epoch of this configuration. */
cm_status dt_run_ckpt_restore(const dt_run_ckpt *c, dt_workers *w,
                              size_t *step, dt_run_state *rs);

#endif

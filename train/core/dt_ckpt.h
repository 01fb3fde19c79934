/* dt_ckpt: per-worker checkpoints for --checkpoint DIR / --resume.
 *
 * Layout: DIR/epoch-EEEEEE/worker-WWWWWW.ckpt, one file per worker, each
 * written atomically (cm_atomic: temporary + fsync + rename). A checkpoint
 * is complete only once DIR/latest, a one-line marker naming the epoch
 * directory ("epoch-000003"), has been written (atomically) by
 * dt_ckpt_commit, which the trainer calls on rank 0 after a barrier that
 * follows every rank's dt_ckpt_write. dt_ckpt_commit then removes every
 * other epoch-* directory (dt_ckpt_commit_keep: all but the K newest), so
 * the previous complete checkpoint survives until the new one is complete.
 * A crash at any point leaves either the old or the new checkpoint
 * complete. DIR/lock (dt_ckpt_prepare) keeps a second run out. Beside
 * them (written by the trainer, dt_run_ckpt): DIR/settings, DIR/state-E.bin,
 * DIR/neighbours (the workers' neighbour lists, for --drop-workers) and
 * DIR/placement (the workers of each rank of the run that started last).
 *
 * File format (all integers little-endian, floats IEEE-754 binary32
 * little-endian, whatever the host):
 *   0   char[8]  magic "DPSGDCK\0"
 *   8   u32      version (1)
 *   12  u32      n_state: state arrays after params (0..6; 1 = the
 *                momentum of D-PSGD, as in the first files)
 *   16  u64      n_workers, worker, epoch, step, pos, fingerprint,
 *                n_params, rng.s[0..3]          (11 x u64, to byte 104)
 *   104 f32      params[n_params], then n_state arrays of n_params
 *   end u32      crc32 (zlib) of every byte before it
 * No MPI here: each rank reads and writes only its own workers' files.
 */
#ifndef DT_CKPT_H
#define DT_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "cm_lock.h"
#include "cm_rng.h"
#include "cm_status.h"

#define DT_CKPT_MAX_STATE 6 /* state arrays per worker file at most (gt 3
                            + --outer nesterov 2) */

typedef struct {
    uint64_t n_workers;   /* workers in the run */
    uint64_t worker;      /* this file's worker id, < n_workers */
    uint64_t epoch;       /* epoch the checkpoint belongs to (directory) */
    uint64_t step;        /* global step count at the checkpoint */
    uint64_t pos;         /* position within the epoch (caller's unit) */
    uint64_t fingerprint; /* caller's hash of settings that must match on
                             resume (seed, batch, ...); 0 when unused */
    uint64_t n_params;    /* floats in params and in each state array */
    unsigned n_state;     /* state arrays stored after params (momentum,
                             the algorithm's extra vectors, --outer's),
                             <= 6 */
    cm_rng rng;           /* the worker's generator state */
} dt_ckpt_meta;

/* Path of worker w's file of epoch e: "DIR/epoch-%06llu/worker-%06llu.ckpt"
 * into buf (n bytes; truncated if short). */
void dt_ckpt_path(char *buf, size_t n, const char *dir, uint64_t epoch,
                  uint64_t worker);

/* Writes worker m->worker's file of epoch m->epoch, creating DIR and the
 * epoch directory when missing (safe when several ranks race). params and
 * state[0..m->n_state) hold m->n_params floats each (borrowed, never
 * written: non-const only so a float ** converts); CM_EINVAL
 * when n_state > DT_CKPT_MAX_STATE or an array is missing.
 * Atomic: on error nothing is left at the final path. CM_EIO naming the
 * path on failure. O(n_params). */
cm_status dt_ckpt_write(const char *dir, const dt_ckpt_meta *m,
                        const float *params, float *const *state);

/* Marks epoch complete: checks that all n_workers files of the epoch
 * exist (CM_EIO naming the first missing one), writes DIR/latest
 * atomically, then removes every other DIR/epoch-* directory of the same
 * run, i.e. whose worker files carry the fingerprint of this epoch's (only
 * files named worker-*; never through a symbolic link; directories of
 * other runs stay; errors while removing old checkpoints are ignored).
 * Call on one rank, after every rank's dt_ckpt_write has returned. */
cm_status dt_ckpt_commit(const char *dir, uint64_t epoch, uint64_t n_workers);

/* dt_ckpt_commit that keeps the `keep` newest epoch directories at or
 * below epoch (keep 0 counts as 1) and removes the others, and any above
 * epoch (leftovers of an unfinished save), each with its run state file
 * DIR/state-E.bin. --keep K. */
cm_status dt_ckpt_commit_keep(const char *dir, uint64_t epoch,
                              uint64_t n_workers, size_t keep);

/* After a failed save of epoch: removes DIR/epoch-E and the files in it
 * (and DIR/state-E.bin), unless DIR/latest names it, so a save that ran out of space leaves no
 * partial epoch behind to fill the disk again. Errors are ignored. */
void dt_ckpt_discard(const char *dir, uint64_t epoch);

/* At start-up, on the rank that commits: creates DIR if missing (its
 * parent must exist) and locks DIR/lock (cm_lock) for the run, so an
 * unwritable DIR is found before the first epoch (CM_EIO naming it and
 * the cause) and a second run on DIR is refused ("DIR is in use by
 * another run"); then dt_ckpt_scan (links refused, temporary files of
 * an interrupted save removed). Release with cm_lock_release. */
cm_status dt_ckpt_prepare(const char *dir, cm_lock *lock);

/* What dt_ckpt_scan found in DIR. */
typedef struct {
    size_t complete;  /* epoch-E directories with a worker file and a
                         DIR/state-E.bin beside them (complete saves) */
    uint64_t newest;  /* the newest of them (0 when none) */
} dt_ckpt_dir_info;

/* Rank 0 at start-up, holding DIR/lock: refuses (CM_EIO naming it) an
 * epoch-*, state-*, latest, settings or neighbours entry of DIR that is a symbolic
 * link, since writing or pruning through it would change another run's
 * files; with clean (only while holding DIR/lock) removes the temporary
 * files (*.tmp.XXXXXX) an interrupted save left in DIR and its epoch
 * directories; counts the complete epochs into *info (may be NULL). A missing DIR is CM_OK with nothing found.
 * dt_ckpt_prepare calls it. O(entries of DIR and its epochs). */
cm_status dt_ckpt_scan(const char *dir, int clean, dt_ckpt_dir_info *info);

/* Reads DIR/latest into *epoch. CM_EIO "no complete checkpoint in DIR
 * (DIR/latest is missing)" when absent, CM_EFORMAT "DIR/latest: ..." when
 * malformed. The trainer prefixes "--resume". */
cm_status dt_ckpt_latest(const char *dir, uint64_t *epoch);

/* The header of the first readable worker file of DIR/epoch-E (its
 * n_workers, fingerprint, ...; the magic and version checked, not the
 * crc) into *m: which run an epoch belongs to. CM_EIO when there is none.
 * O(entries of the epoch). */
cm_status dt_ckpt_epoch_meta(const char *dir, uint64_t epoch,
                             dt_ckpt_meta *m);

/* Reads and validates worker expect->worker's file of epoch: magic,
 * version, length, crc32 ("PATH: checksum mismatch (corrupt checkpoint)",
 * "PATH: truncated (corrupt checkpoint)", CM_EFORMAT), then that
 * n_workers, worker, n_params, n_state and fingerprint equal expect's
 * (CM_EINVAL "PATH: ... but the running configuration has ..."). On
 * success fills *got (all fields), params[expect->n_params] and each of
 * state[0..n_state). On error the outputs are unspecified.
 * Reads the file twice (check, then load). O(n_params). */
cm_status dt_ckpt_read(const char *dir, uint64_t epoch,
                       const dt_ckpt_meta *expect, dt_ckpt_meta *got,
                       float *params, float *const *state);

/* DIR/neighbours: the neighbour lists of the run's workers, which
 * --drop-workers needs to hand a lost worker's shard to its former
 * neighbours after the topology file has been replaced. Text:
 *   # dpsgd-train neighbours n=N topology=edges-and-weights-hash:HHHH
 *   # one line per worker: i: its neighbours, ascending
 *   0: 1 5 9
 * Written by rank 0 at a save, atomically, only when DIR has none (the
 * run before any loss keeps it). nb[off[i] .. off[i+1]) are i's
 * neighbours (undirected), topo_hash the settings' topology hash
 * (dt_run_ckpt_topo_hash). CM_EIO naming the file. O(n + edges). */
cm_status dt_ckpt_neighbours_write(const char *dir, size_t n,
                                   const size_t *off, const size_t *nb,
                                   uint64_t topo_hash);

/* dt_ckpt_neighbours_write that replaces DIR/neighbours (atomically):
 * after --add-workers the run's workers are the grown topology's. */
cm_status dt_ckpt_neighbours_replace(const char *dir, size_t n,
                                     const size_t *off, const size_t *nb,
                                     uint64_t topo_hash);

/* Reads DIR/neighbours of *n workers (*n = 0: any; set to the file's):
 * *off ([n+1]) and *nb (malloc'd, the caller frees both), *topo_hash. CM_EIO when missing ("DIR/neighbours:
 * ..."), CM_EFORMAT naming the line when malformed, another n, an id out
 * of range or an asymmetric list. O(n + edges log). */
cm_status dt_ckpt_neighbours_read(const char *dir, size_t *n,
                                  uint64_t *topo_hash, size_t **off,
                                  size_t **nb);

#endif

/* dt_run_ckpt.c: save and restore of a D-PSGD run (see dt_run_ckpt.h).
 * Rank 0 decides which epoch to resume (the marker) and broadcasts it;
 * the workers then read their own files, so a run saved on P ranks
 * resumes on any other number of ranks.
 */
#include "dt_run_ckpt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_hash.h"
#include "cm_idlist.h"
#include "dt_algo.h"
#include "dt_ckpt.h"
#include "dt_data.h"
#include "dt_net.h"
#include "dt_optim.h"
#include "dt_partition.h"
#include "dt_run_settings.h"

#define SETTINGS_MAX DT_RUN_SETTINGS_MAX /* bytes of DIR/settings */

static void ckpt_meta(const dt_run_ckpt *c, const dt_workers *w, size_t i,
                      uint64_t epoch, size_t step, dt_ckpt_meta *m)
{
    memset(m, 0, sizeof *m);
    m->n_workers = c->n;
    m->worker = dt_workers_id(w, i);
    m->epoch = epoch;
    m->step = step;
    m->pos = w->cursor[i];
    m->fingerprint = c->fingerprint;
    m->n_params = w->len;
    m->n_state = 1;
    if (c->algo) {
        float *arr[DT_ALGO_MAX_STATE];
        m->n_state = (unsigned)dt_algo_state(c->algo, i, arr);
    }
    m->n_state += (unsigned)c->n_outer;
    m->rng = w->rng_pass[i];
}

/* DIR/settings, atomically; after a drop, with the line
 * "dropped-at-epoch E" (not compared: a run learns E from it). */
static cm_status write_settings(const char *dir, const char *text,
                                const dt_run_drop *drop,
                                const dt_run_add *add)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/settings", dir);
    cm_afile f;
    cm_status s = cm_atomic_open(&f, path);
    if (s != CM_OK)
        return s;
    if (fputs(text, f.fp) < 0 ||
        (drop && fprintf(f.fp, "dropped-at-epoch %llu\n",
                         (unsigned long long)drop->epoch) < 0) ||
        (add && fprintf(f.fp, "added-at-epoch %llu\n",
                        (unsigned long long)add->epoch) < 0))
        return cm_atomic_fail(&f);
    return cm_atomic_commit(&f);
}

#define DROP_EPOCH "dropped-at-epoch "
#define DROP_LINE "--drop-workers "
#define ADD_EPOCH "added-at-epoch "

/* Rank 0 on resume: compares DIR/settings with want, its
 * "dropped-at-epoch E" line aside (*drop_epoch = E, 0 when none; *had_drop
 * = 1 when it has a --drop-workers line); skip_topology: the --topology
 * lines are not compared. On the first line that differs, CM_EINVAL
 * naming the setting and both values. A missing file (an older
 * checkpoint) is CM_OK with *found = 0, left to the fingerprint. */
static cm_status compare_text(const dt_run_ckpt *c, const char *want,
                              int skip_topology, uint64_t *drop_epoch,
                              int *had_drop, int *found)
{
    char path[4200], raw[SETTINGS_MAX + 1], old[SETTINGS_MAX + 1];
    snprintf(path, sizeof path, "%s/settings", c->dir);
    *drop_epoch = 0;
    *had_drop = 0;
    *found = 0;
    FILE *fp = fopen(path, "r");
    if (!fp || !want) {
        if (fp)
            fclose(fp);
        return CM_OK;
    }
    *found = 1;
    size_t got = fread(raw, 1, SETTINGS_MAX, fp);
    fclose(fp);
    raw[got] = '\0';
    size_t at = 0; /* old: raw without its dropped-at-epoch line */
    char dropped[SETTINGS_MAX + 1] = "";
    for (const char *l = raw; *l;) {
        size_t len = strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n');
        if (strncmp(l, DROP_EPOCH, strlen(DROP_EPOCH)) == 0) {
            *drop_epoch = strtoull(l + strlen(DROP_EPOCH), NULL, 10);
        } else if (strncmp(l, ADD_EPOCH, strlen(ADD_EPOCH)) == 0) {
            /* a record, not a setting */
        } else {
            if (strncmp(l, DROP_LINE, strlen(DROP_LINE)) == 0) {
                *had_drop = 1;
                size_t v = strcspn(l, "\n") - strlen(DROP_LINE);
                memcpy(dropped, l + strlen(DROP_LINE), v);
                dropped[v] = '\0';
            }
            memcpy(old + at, l, len);
            at += len;
        }
        l += len;
    }
    old[at] = '\0';
    if (*had_drop && !c->drop)
        return cm_error(CM_EINVAL, "%s holds a run that continued without "
                        "workers %s (from epoch %llu): resume it with "
                        "--drop-workers %s and the survivors' --topology",
                        c->dir, dropped, (unsigned long long)*drop_epoch,
                        dropped);
    const char *a = old, *b = want;
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        size_t ka = strcspn(a, " "), kb = strcspn(b, " ");
        int topo = strncmp(a, "--topology ", 11) == 0 &&
                   strncmp(b, "--topology ", 11) == 0;
        if (!(skip_topology && topo) &&
            (la != lb || memcmp(a, b, la) != 0)) {
            if (ka > la)
                ka = la;
            if (kb > lb)
                kb = lb;
            if (ka == kb && memcmp(a, b, ka) == 0)
                return cm_error(CM_EINVAL, "%s was written with other "
                                "settings: %.*s %.*s, this run has %.*s "
                                "%.*s: resume with the "
                                "settings of the run that wrote it, or start "
                                "over with another --checkpoint DIR", c->dir,
                                (int)ka, a, (int)(la > ka ? la - ka - 1 : 0),
                                a + ka + (la > ka), (int)kb, b,
                                (int)(lb > kb ? lb - kb - 1 : 0),
                                b + kb + (lb > kb));
            return cm_error(CM_EINVAL, "%s was written with other settings "
                            "('%.*s' where this run has '%.*s')", c->dir,
                            (int)la, a, (int)lb, b);
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
    return CM_OK;
}

static cm_status compare_settings(const dt_run_ckpt *c)
{
    uint64_t e;
    int had, found;
    return compare_text(c, c->settings, 0, &e, &had, &found);
}

/* Rank 0, --resume, complete epochs but no DIR/latest: a first save
 * killed between its run state and its marker. Adopts the newest complete
 * epoch when it is this run's (its worker files carry this run's
 * fingerprint, every worker's file is there, DIR/settings, if written,
 * matches) by finishing the save's commit: the marker, then the pruning.
 * Else CM_EINVAL: the directory holds another run. */
static cm_status adopt_newest(const dt_run_ckpt *c, uint64_t newest,
                              uint64_t *adopted)
{
    dt_ckpt_meta m;
    cm_status s = compare_settings(c); /* names the first difference */
    if (s != CM_OK)
        return s;
    s = dt_ckpt_epoch_meta(c->dir, newest, &m);
    if (s != CM_OK || m.fingerprint != c->fingerprint || m.n_workers != c->n)
        s = cm_error(CM_EINVAL, "%s holds a complete checkpoint "
                     "(epoch-%06llu) but %s/latest is missing: it is another "
                     "run's (other settings), and no run writes over it; to "
                     "continue it, --resume with its settings; to start "
                     "over, remove %s (or choose another --checkpoint DIR)",
                     c->dir, (unsigned long long)newest, c->dir, c->dir);
    if (s == CM_OK)
        s = dt_ckpt_commit_keep(c->dir, newest, c->n, c->keep);
    if (s == CM_OK)
        *adopted = newest;
    return s;
}

cm_status dt_run_ckpt_open(const dt_run_ckpt *c, int resume, cm_lock *lock,
                           int *resume_now, uint64_t *adopted)
{
    int flag[1] = {resume};
    uint64_t epoch = 0;
    cm_status s = CM_OK;
    lock->fd = -1;
    lock->path = NULL;
    *adopted = 0;
    if (dt_comm_rank(c->comm) == 0) {
        dt_ckpt_dir_info info;
        s = dt_ckpt_prepare(c->dir, lock);
        if (s == CM_OK)
            s = dt_ckpt_scan(c->dir, 0, &info);
        cm_status l = s == CM_OK ? dt_ckpt_latest(c->dir, &epoch) : s;
        if (s == CM_OK && l == CM_EIO && info.complete && resume)
            s = adopt_newest(c, info.newest, adopted);
        else if (s == CM_OK && l != CM_OK && info.complete)
            /* complete epochs, no marker: another run's; never overwritten */
            s = cm_error(CM_EINVAL, "%s holds a complete checkpoint "
                         "(epoch-%06llu) but %s/latest is missing or "
                         "unreadable: it is another run's, and no run writes "
                         "over it; to continue it, add --resume (a missing "
                         "marker: with its settings) or restore the marker "
                         "(echo epoch-%06llu > %s/latest); to "
                         "start over, remove %s (or choose another "
                         "--checkpoint DIR)", c->dir,
                         (unsigned long long)info.newest, c->dir,
                         (unsigned long long)info.newest, c->dir, c->dir);
        else if (s == CM_OK && l == CM_OK && !resume)
            s = cm_error(CM_EINVAL, "%s holds the checkpoint of an earlier "
                         "run (epoch %llu): add --resume to continue it, or "
                         "remove %s (or choose another --checkpoint DIR) to "
                         "start over", c->dir, (unsigned long long)epoch,
                         c->dir);
        else if (s == CM_OK && resume && l == CM_EIO && c->drop)
            s = cm_error(CM_EINVAL, "--drop-workers: %s holds no "
                         "checkpoint to continue without those workers",
                         c->dir);
        else if (s == CM_OK && resume && l == CM_EIO && c->add)
            s = cm_error(CM_EINVAL, "--add-workers: %s holds no "
                         "checkpoint to continue with new workers", c->dir);
        else if (s == CM_OK && resume && l == CM_EIO)
            flag[0] = 0; /* nothing to resume yet: start from scratch */
    }
    if ((s = dt_comm_agree(c->comm, s)) != CM_OK ||
        (s = dt_comm_bcast(c->comm, flag, sizeof flag, 0)) != CM_OK ||
        (s = dt_comm_bcast(c->comm, adopted, sizeof *adopted, 0)) != CM_OK)
        goto fail;
    if (dt_comm_rank(c->comm) != 0) { /* every rank writes its own files */
        char probe[4200];
        cm_afile f;
        snprintf(probe, sizeof probe, "%s/probe", c->dir);
        s = cm_atomic_open(&f, probe);
        if (s == CM_OK)
            cm_atomic_abort(&f);
    }
    if ((s = dt_comm_agree(c->comm, s)) != CM_OK)
        goto fail;
    *resume_now = flag[0];
    return CM_OK;
fail:
    cm_lock_release(lock);
    /* a rank that does not answer is not the directory's fault */
    return s == CM_EMPI ? s : cm_error_prefix(s, "--checkpoint");
}

/* Worker i's state beyond x: the algorithm's arrays, or the shared v;
 * then the outer optimizer's. */
static unsigned state_of(const dt_run_ckpt *c, const dt_workers *w, size_t i,
                         float *arr[DT_CKPT_MAX_STATE])
{
    unsigned k = 1;
    if (!c->algo)
        arr[0] = w->v[0];
    else
        k = (unsigned)dt_algo_state(c->algo, i, arr);
    for (size_t j = 0; j < c->n_outer && k < DT_CKPT_MAX_STATE; j++)
        arr[k++] = c->outer[j][i];
    return k;
}

cm_status dt_run_ckpt_save(const dt_run_ckpt *c, const dt_workers *w,
                           uint64_t epoch, size_t step,
                           const dt_run_state *rs)
{
    cm_status s = CM_OK;
    for (size_t i = 0; i < w->count && s == CM_OK; i++) {
        dt_ckpt_meta m;
        ckpt_meta(c, w, i, epoch, step, &m);
        float *st[DT_CKPT_MAX_STATE];
        state_of(c, w, i, st);
        s = dt_ckpt_write(c->dir, &m, w->x[w->shared ? 0 : i], st);
    }
    int root = dt_comm_rank(c->comm) == 0;
    if ((s = dt_comm_agree(c->comm, s)) == CM_OK && root) {
        s = dt_run_state_write(c->dir, epoch, rs);
        if (s == CM_OK && c->settings)
            s = write_settings(c->dir, c->settings, c->drop,
                               c->add && c->add->first ? c->add : NULL);
        if (s == CM_OK && c->nb_off && c->add && c->add->first)
            s = dt_ckpt_neighbours_replace(c->dir, c->n, c->nb_off, c->nb,
                                           c->topo_hash);
        else if (s == CM_OK && c->nb_off)
            s = dt_ckpt_neighbours_write(c->dir, c->n, c->nb_off, c->nb,
                                         c->topo_hash);
        if (s == CM_OK)
            s = dt_ckpt_commit_keep(c->dir, epoch, c->n, c->keep);
    }
    if ((s = dt_comm_agree(c->comm, s)) != CM_OK) {
        if (root) { /* keep the message: discarding may set another */
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", cm_last_error());
            dt_ckpt_discard(c->dir, epoch);
            cm_error(s, "%s", msg);
        }
        /* a rank that does not answer (the watchdog's CM_EMPI, met in the
         * agreement) is named as such, not as a --checkpoint problem */
        return s == CM_EMPI ? s : cm_error_prefix(s, "--checkpoint");
    }
    return CM_OK;
}

cm_status dt_run_ckpt_placement(const char *dir, size_t n, size_t P,
                                const size_t *rank_of)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/placement", dir);
    size_t *ids = malloc((n + 1) * sizeof *ids);
    size_t cap = 64 + 24 * n; /* "a-b," per worker at most */
    char *list = malloc(cap);
    if (!ids || !list) {
        free(ids);
        free(list);
        return cm_error(CM_ENOMEM, "out of memory for %s", path);
    }
    cm_afile f;
    cm_status s = cm_atomic_open(&f, path);
    int ok = s == CM_OK &&
             fprintf(f.fp, "# dpsgd-train placement: the workers of each "
                     "rank of the run that started last (ids for topogen "
                     "repair --remove and --drop-workers)\n") > 0;
    for (size_t r = 0; ok && r < P; r++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (rank_of[i] == r)
                ids[k++] = i;
        ok = fprintf(f.fp, "rank %zu: %s\n", r,
                     cm_idlist_format(ids, k, list, cap)) > 0;
    }
    free(ids);
    free(list);
    if (s != CM_OK)
        return s;
    return ok ? cm_atomic_commit(&f) : cm_atomic_fail(&f);
}

/* Old id of survivor j (new id) of a drop: the j-th id not lost. */
static size_t old_id(const dt_run_drop *d, size_t j)
{
    size_t x = j;
    for (size_t i = 0; i < d->k && d->lost[i] <= x; i++)
        x++;
    return x;
}

/* Rank 0, --drop-workers: which checkpoint the latest epoch is (of the n0
 * workers before the drop: first = 1, fp0 its files' fingerprint; or of
 * the survivors after it) and whether its settings are this run's;
 * *drop_epoch. */
static cm_status drop_check(const dt_run_ckpt *c, uint64_t epoch, int *first,
                            uint64_t *drop_epoch, uint64_t *fp0)
{
    const dt_run_drop *d = c->drop;
    dt_ckpt_meta m;
    int had, found;
    uint64_t e;
    cm_status s = dt_ckpt_epoch_meta(c->dir, epoch, &m);
    if (s != CM_OK)
        return s;
    if (m.n_workers == d->n0 && dt_run_settings_pending_drop(c->dir, c->settings0, epoch, &s)) {
        /* the first save after a drop was interrupted after DIR/settings
         * and before DIR/latest: the drop is done again from epoch */
        *first = 1;
        *drop_epoch = epoch;
        *fp0 = m.fingerprint;
        return s;
    }
    if (m.n_workers == d->n0) { /* drop them now */
        s = compare_text(c, c->settings0, 1, &e, &had, &found);
        if (s == CM_OK && !found)
            s = cm_error(CM_EINVAL, "--drop-workers: %s/settings is missing "
                         "(a checkpoint of an older version): the run's "
                         "settings cannot be checked", c->dir);
        if (s == CM_OK && had)
            s = cm_error(CM_EINVAL, "--drop-workers: the run in %s already "
                         "continued without workers once; dropping more is "
                         "not supported", c->dir);
        *first = 1;
        *drop_epoch = epoch;
        *fp0 = m.fingerprint;
        return s;
    }
    if (m.n_workers == c->n) { /* a checkpoint after the drop */
        s = compare_text(c, c->settings, 0, &e, &had, &found);
        if (s == CM_OK && !had)
            s = cm_error(CM_EINVAL, "--drop-workers: the checkpoint in %s "
                         "(epoch %llu) is of a run of %llu workers that "
                         "dropped none; dropping %zu leaves %llu, but "
                         "--topology has %zu", c->dir,
                         (unsigned long long)epoch,
                         (unsigned long long)m.n_workers, d->k,
                         (unsigned long long)(m.n_workers - d->k), c->n);
        *first = 0;
        *drop_epoch = e;
        *fp0 = 0;
        return s;
    }
    return cm_error(CM_EINVAL, "--drop-workers: the checkpoint in %s "
                    "(epoch %llu) has %llu workers; dropping %zu of them "
                    "leaves %llu, but --topology has %zu nodes (give the "
                    "topology of the survivors: topogen repair FILE "
                    "--remove LIST -o NEW)", c->dir,
                    (unsigned long long)epoch,
                    (unsigned long long)m.n_workers, d->k,
                    m.n_workers > d->k
                        ? (unsigned long long)(m.n_workers - d->k) : 0ULL,
                    c->n);
}

/* text without the lines a drop or an add changes, compared line by line
 * with CM_EINVAL naming the first difference. */
static cm_status compare_stripped(const dt_run_ckpt *c, const char *file,
                                  const char *want)
{
    static char a[SETTINGS_MAX + 1], b[SETTINGS_MAX + 1];
    dt_run_settings_strip(file, a, sizeof a);
    dt_run_settings_strip(want, b, sizeof b);
    const char *x = a, *y = b;
    while (*x || *y) {
        size_t la = strcspn(x, "\n"), lb = strcspn(y, "\n");
        if (la != lb || memcmp(x, y, la) != 0)
            return cm_error(CM_EINVAL, "%s was written with other settings "
                            "('%.*s' where this run has '%.*s'): resume with "
                            "the settings of the run that wrote it", c->dir,
                            (int)la, x, (int)lb, y);
        x += la + (x[la] == '\n');
        y += lb + (y[lb] == '\n');
    }
    return CM_OK;
}

/* Rank 0, --add-workers: the latest checkpoint is of the n0 workers
 * before (first = 1; DIR/settings, its lines of workers, topology and
 * drops aside, must be the run's; a first save of the join stopped
 * before its marker leaves the same state) or of the grown run (first =
 * 0: the join is done, DIR/settings must be this run's). */
static cm_status add_check(const dt_run_ckpt *c, uint64_t epoch, int *first,
                           uint64_t *add_epoch, uint64_t *fp0)
{
    dt_ckpt_meta m;
    cm_status s = dt_ckpt_epoch_meta(c->dir, epoch, &m);
    if (s != CM_OK)
        return s;
    *first = 0;
    *add_epoch = epoch;
    *fp0 = m.fingerprint;
    if (m.n_workers == c->add->n0) {
        static char raw[SETTINGS_MAX + 1];
        dt_run_settings_read(c->dir, raw, sizeof raw);
        if (!raw[0])
            return cm_error(CM_EINVAL, "--add-workers: %s/settings is "
                            "missing (a checkpoint of an older version): the "
                            "run's settings cannot be checked", c->dir);
        *first = 1;
        return compare_stripped(c, raw, c->settings0);
    }
    if (m.n_workers == c->n)
        return compare_settings(c); /* joined already: the grown run's */
    return cm_error(CM_EINVAL, "--add-workers %zu: the checkpoint in %s "
                    "(epoch %llu) has %llu workers; with %zu more that is "
                    "%llu, but --topology has %zu nodes (give the grown "
                    "topology: topogen repair FILE --add %zu -o NEW)",
                    c->add->k, c->dir, (unsigned long long)epoch,
                    (unsigned long long)m.n_workers, c->add->k,
                    (unsigned long long)(m.n_workers + c->add->k), c->n,
                    c->add->k);
}

/* After a drop or a join, the invariants over the workers restarted as
 * at a start: gt's tracker y = h_prev, d2's psi_prev = x. n_algo: the
 * algorithm's arrays in st (the outer ones after). */
static void restart_state(dt_algo_kind algo, size_t n_algo, float **st,
                          const float *x, size_t len)
{
    if (algo == DT_ALGO_GT && n_algo == 3)
        memcpy(st[0], st[2], len * sizeof *st[0]); /* y, v, h */
    if (algo == DT_ALGO_D2 && n_algo == 2)
        memcpy(st[1], x, len * sizeof *st[1]); /* psi */
}

/* New worker i (id >= n0) of a join: x and every state array the mean of
 * its old neighbours' (ids < n0 in c->nb; none: their old neighbours,
 * two hops; none: worker 0), read from their files of epoch. */
static cm_status add_average(const dt_run_ckpt *c, dt_workers *w, size_t i,
                             uint64_t epoch, uint64_t fp0)
{
    size_t id = dt_workers_id(w, i), n0 = c->add->n0, len = w->len;
    size_t *src = malloc((c->n + 1) * sizeof *src), ns = 0;
    float *st[DT_CKPT_MAX_STATE], *tx = NULL, *tst[DT_CKPT_MAX_STATE];
    unsigned k = state_of(c, w, i, st);
    float *tmp = malloc((size_t)(k + 1) * len * sizeof *tmp);
    cm_status s = CM_OK;
    if (!src || !tmp) {
        s = cm_error(CM_ENOMEM, "out of memory for a new worker's state");
        goto done;
    }
    tx = tmp;
    for (unsigned a = 0; a < k; a++)
        tst[a] = tmp + (size_t)(a + 1) * len;
    for (size_t q = c->nb_off[id]; q < c->nb_off[id + 1]; q++)
        if (c->nb[q] < n0)
            src[ns++] = c->nb[q];
    for (size_t q = c->nb_off[id]; !ns && q < c->nb_off[id + 1]; q++) {
        size_t j = c->nb[q];
        for (size_t p = c->nb_off[j]; p < c->nb_off[j + 1]; p++) {
            size_t u = c->nb[p], dup = 0;
            for (size_t e = 0; e < ns; e++)
                dup |= src[e] == u;
            if (u < n0 && !dup)
                src[ns++] = u;
        }
    }
    if (!ns)
        src[ns++] = 0;
    float *x = w->x[i];
    memset(x, 0, len * sizeof *x);
    for (unsigned a = 0; a < k; a++)
        memset(st[a], 0, len * sizeof *st[a]);
    for (size_t e = 0; e < ns && s == CM_OK; e++) {
        dt_ckpt_meta want, got;
        ckpt_meta(c, w, i, epoch, 0, &want);
        want.worker = src[e];
        want.n_workers = n0;
        want.fingerprint = fp0;
        s = dt_ckpt_read(c->dir, epoch, &want, &got, tx, tst);
        for (size_t p = 0; s == CM_OK && p < len; p++) {
            x[p] += tx[p];
            for (unsigned a = 0; a < k; a++)
                st[a][p] += tst[a][p];
        }
    }
    for (size_t p = 0; s == CM_OK && p < len; p++) {
        x[p] /= (float)ns;
        for (unsigned a = 0; a < k; a++)
            st[a][p] /= (float)ns;
    }
    if (s == CM_OK)
        restart_state(c->add->algo, k - c->n_outer, st, x, len);
done:
    free(src);
    free(tmp);
    return s;
}

cm_status dt_run_ckpt_restore(const dt_run_ckpt *c, dt_workers *w,
                              size_t *step, dt_run_state *rs)
{
    uint64_t epoch = 0;
    uint64_t dinfo[3] = {0, 0, 0}; /* first, drop epoch, fp0 */
    cm_status s = CM_OK;
    if (dt_comm_rank(c->comm) == 0) {
        s = dt_ckpt_latest(c->dir, &epoch);
        if (s == CM_OK && c->drop) {
            int first = 0;
            s = drop_check(c, epoch, &first, &dinfo[1], &dinfo[2]);
            dinfo[0] = (uint64_t)first;
        } else if (s == CM_OK && c->add) {
            int first = 0;
            s = add_check(c, epoch, &first, &dinfo[1], &dinfo[2]);
            dinfo[0] = (uint64_t)first;
        } else if (s == CM_OK) {
            dt_ckpt_meta m;
            /* a checkpoint of fewer workers than --topology's nodes (a
             * join whose first save stopped before its marker, at any of
             * its writes, so DIR/settings may still be the old run's),
             * resumed without --add-workers: name the flag, before the
             * settings' "workers 6, this run has workers 8" */
            if (dt_ckpt_epoch_meta(c->dir, epoch, &m) == CM_OK &&
                m.n_workers < c->n)
                s = cm_error(CM_EINVAL, "the checkpoint in %s (epoch %llu) "
                             "is of %llu workers, --topology has %zu: resume "
                             "with --add-workers %llu to continue it with "
                             "the new ones", c->dir, (unsigned long long)epoch,
                             (unsigned long long)m.n_workers, c->n,
                             (unsigned long long)(c->n - m.n_workers));
            else
                s = compare_settings(c);
        }
        if (s == CM_OK && epoch > c->epochs)
            s = cm_error(CM_EINVAL, "the checkpoint in %s is at epoch %llu, "
                         "beyond --epochs %zu (give --epochs %llu or more to "
                         "continue it)", c->dir, (unsigned long long)epoch,
                         c->epochs, (unsigned long long)epoch);
        if (s == CM_OK)
            s = dt_run_state_read(c->dir, epoch, rs);
    }
    if ((s = dt_comm_agree(c->comm, s)) != CM_OK ||
        (s = dt_comm_bcast(c->comm, &epoch, sizeof epoch, 0)) != CM_OK ||
        (s = dt_comm_bcast(c->comm, dinfo, sizeof dinfo, 0)) != CM_OK)
        return cm_error_prefix(s, "--resume");
    const int first = c->drop && dinfo[0];
    const int joining = c->add && dinfo[0];
    if (c->drop) {
        c->drop->first = first;
        c->drop->epoch = dinfo[1];
    }
    if (c->add) {
        c->add->first = joining;
        c->add->epoch = dinfo[1];
    }
    uint64_t got_step = 0;
    for (size_t i = 0; i < w->count && s == CM_OK; i++) {
        dt_ckpt_meta want, got;
        ckpt_meta(c, w, i, epoch, 0, &want);
        if (first) { /* survivor i reads its file of the run before */
            want.worker = old_id(c->drop, dt_workers_id(w, i));
            want.n_workers = c->drop->n0;
            want.fingerprint = dinfo[2];
        }
        size_t n_i = dt_workers_shard_size(w, i);
        if (joining && dt_workers_id(w, i) >= c->add->n0) {
            /* a new worker: its neighbours' mean, its own generator, a
             * pass over its shard from its next step */
            s = add_average(c, w, i, epoch, dinfo[2]);
            w->cursor[i] = n_i;
            continue;
        }
        if (joining) { /* an old worker keeps its id */
            want.n_workers = c->add->n0;
            want.fingerprint = dinfo[2];
        }
        float *st[DT_CKPT_MAX_STATE];
        unsigned n_st = state_of(c, w, i, st);
        s = dt_ckpt_read(c->dir, epoch, &want, &got, w->x[w->shared ? 0 : i],
                         st);
        if (s != CM_OK)
            break;
        if (joining) {
            w->rng[i] = got.rng;
            w->cursor[i] = n_i;
            restart_state(c->add->algo, n_st - c->n_outer, st, w->x[i],
                          w->len);
            continue;
        }
        if (first) {
            /* a new shard: a new pass at the next step, drawn from the
             * generator state at the start of the interrupted pass */
            w->rng[i] = got.rng;
            w->cursor[i] = n_i;
            /* the algorithm's arrays come first, the outer ones after */
            const size_t n_algo = got.n_state - c->n_outer;
            if (c->drop->algo == DT_ALGO_GT && n_algo == 3)
                memcpy(st[0], st[2], w->len * sizeof *st[0]); /* y, v, h */
            if (c->drop->algo == DT_ALGO_D2 && n_algo == 2)
                memcpy(st[1], w->x[i], w->len * sizeof *st[1]); /* psi */
            continue;
        }
        if (got.pos > n_i) {
            s = cm_error(CM_EFORMAT, "worker %zu's position %llu is beyond "
                         "its shard of %zu images (corrupt checkpoint?)",
                         dt_workers_id(w, i), (unsigned long long)got.pos,
                         n_i);
            break;
        }
        /* Replay the pass the worker was in, then move to its position. */
        w->rng[i] = got.rng;
        if (got.pos < n_i || got.step > 0)
            dt_workers_new_pass(w, i);
        w->cursor[i] = (size_t)got.pos;
        got_step = got.step;
    }
    if ((s = dt_comm_agree(c->comm, s)) != CM_OK)
        return cm_error_prefix(s, "--resume");
    if (first || joining) { /* the new epoch grid */
        *step = (size_t)epoch * c->steps_per_epoch;
        return CM_OK;
    }
    *step = (size_t)got_step;
    if ((s = dt_comm_bcast(c->comm, step, sizeof *step, 0)) != CM_OK)
        return s;
    if (*step != epoch * c->steps_per_epoch)
        s = cm_error(CM_EINVAL, "--resume: the checkpoint of epoch %llu is "
                     "at step %zu, but this configuration has %zu steps per "
                     "epoch", (unsigned long long)epoch, *step,
                     c->steps_per_epoch);
    return dt_comm_agree(c->comm, s);
}


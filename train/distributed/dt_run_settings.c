/* dt_run_settings.c: the text of DIR/settings (see dt_run_ckpt.h and
 * dt_run_settings.h): the settings a checkpoint must match, their hash,
 * and the lines a change of membership adds (a drop's, a join's), read
 * back for a pending drop and a plain --resume. One writer and one reader
 * of the format, both here and in dt_run_ckpt.c.
 */
#include "dt_run_settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_hash.h"
#include "cm_idlist.h"
#include "dt_algo.h"
#include "dt_data.h"
#include "dt_net.h"
#include "dt_optim.h"
#include "dt_partition.h"
#include "dt_run_ckpt.h"

#define SETTINGS_MAX DT_RUN_SETTINGS_MAX
#define DROP_EPOCH "dropped-at-epoch "
#define DROP_LINE "--drop-workers "
#define ADD_EPOCH "added-at-epoch "

/* Whether line l (up to its newline) is one of the lines a drop changes:
 * workers, --topology, --drop-workers, workers-before-drop,
 * dropped-at-epoch. */
static int drop_line(const char *l)
{
    static const char *const keys[] = {"workers ", "--topology ", DROP_LINE,
                                       "workers-before-drop ", DROP_EPOCH,
                                       ADD_EPOCH};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        if (strncmp(l, keys[k], strlen(keys[k])) == 0)
            return 1;
    return 0;
}

void dt_run_settings_strip(const char *text, char *out, size_t cap)
{
    size_t at = 0;
    for (const char *l = text; *l;) {
        size_t len = strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n');
        if (!drop_line(l) && at + len < cap) {
            memcpy(out + at, l, len);
            at += len;
        }
        l += len;
    }
    out[at] = '\0';
}

/* Rank 0, --drop-workers, the latest checkpoint (of epoch) of the workers
 * before a drop: 1 when DIR/settings records a drop at that same epoch,
 * i.e. the first save after a drop stopped between its DIR/settings and
 * its DIR/latest (a kill, SIGTERM or a full disk). The checkpoint is then
 * still the one before the drop, and this resume drops again from it
 * (with this run's list: the interrupted drop never took effect). The
 * settings other than those a drop changes must be this run's (*s:
 * CM_EINVAL naming the first that differs). 0: no pending drop. */
int dt_run_settings_pending_drop(const char *dir, const char *settings0,
                                 uint64_t epoch, cm_status *s)
{
    char path[4200], raw[SETTINGS_MAX + 1];
    snprintf(path, sizeof path, "%s/settings", dir);
    *s = CM_OK;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    size_t got = fread(raw, 1, SETTINGS_MAX, fp);
    fclose(fp);
    raw[got] = '\0';
    const char *l = strstr(raw, "\n" DROP_EPOCH);
    if (!l || strtoull(l + 1 + strlen(DROP_EPOCH), NULL, 10) != epoch ||
        !strstr(raw, "\n" DROP_LINE))
        return 0;
    char a[SETTINGS_MAX + 1], b[SETTINGS_MAX + 1];
    dt_run_settings_strip(raw, a, sizeof a);
    dt_run_settings_strip(settings0, b, sizeof b);
    const char *x = a, *y = b;
    while (*x || *y) {
        size_t la = strcspn(x, "\n"), lb = strcspn(y, "\n");
        if (la != lb || memcmp(x, y, la) != 0) {
            *s = cm_error(CM_EINVAL, "%s was written with other settings "
                          "('%.*s' where this run has '%.*s'): resume with "
                          "the settings of the run that wrote it", dir,
                          (int)la, x, (int)lb, y);
            return 1;
        }
        x += la + (x[la] == '\n');
        y += lb + (y[lb] == '\n');
    }
    return 1;
}

cm_status dt_run_ckpt_recorded_drop(const char *dir, char *list, size_t cap)
{
    char path[4200], raw[SETTINGS_MAX + 1];
    snprintf(path, sizeof path, "%s/settings", dir);
    list[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (!fp)
        return CM_OK;
    size_t got = fread(raw, 1, SETTINGS_MAX, fp);
    fclose(fp);
    raw[got] = '\0';
    const char *l = raw;
    while (l && strncmp(l, DROP_LINE, strlen(DROP_LINE)) != 0)
        l = (l = strchr(l, '\n')) ? l + 1 : NULL;
    if (!l)
        return CM_OK;
    l += strlen(DROP_LINE);
    size_t v = strcspn(l, "\n");
    if (v + 1 > cap)
        return cm_error(CM_EFORMAT, "%s: the --drop-workers line is longer "
                        "than %zu bytes", path, cap - 1);
    memcpy(list, l, v);
    list[v] = '\0';
    return CM_OK;
}

void dt_run_settings_read(const char *dir, char *buf, size_t cap)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/settings", dir);
    buf[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    size_t got = fread(buf, 1, cap - 1, fp);
    fclose(fp);
    buf[got] = '\0';
}

/* The shortest %g form of x that reads back as x (at most 17 digits). */
static const char *exact(double x, char buf[32])
{
    for (int p = 6; p <= 17; p++) {
        snprintf(buf, 32, "%.*g", p, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return buf;
}

uint64_t dt_run_ckpt_topo_hash(const cm_topo *topo)
{
    uint64_t th = 0;
    if (topo) { /* off[n] = 2m (undirected) or m (directed) entries */
        size_t na = topo->off[topo->n];
        th = cm_hash_fnv1a(CM_HASH_FNV_OFFSET, topo->adj,
                           na * sizeof *topo->adj);
        if (topo->adj_w)
            th = cm_hash_fnv1a(th, topo->adj_w, na * sizeof *topo->adj_w);
        if (topo->self)
            th = cm_hash_fnv1a(th, topo->self, topo->n * sizeof *topo->self);
        if (cm_topo_is_epidemic(topo)) { /* its graphs come from s, local */
            uint64_t e[2] = {topo->epi_s, (uint64_t)topo->epi_local};
            th = cm_hash_fnv1a(th, e, sizeof e);
        }
    }
    return th;
}

size_t dt_run_ckpt_settings(const dt_config *cfg, size_t n, size_t len,
                            const cm_topo *topo, char *buf, size_t cap)
{
    char v[6][32];
    char part[64];
    dt_partition_spec_str(&cfg->partition, part, sizeof part);
    uint64_t th = dt_run_ckpt_topo_hash(topo);
    int k = snprintf(
        buf, cap,
        "--dataset %s\n--data %s\n--model %s\n--mode %s\nworkers %zu\n"
        "--topology edges-and-weights-hash:%016llx\n--partition %s\n"
        "--batch %zu\n--lr %s\n--momentum %s\n--weight-decay %s\n"
        "--schedule %s\n--warmup %s\n--step-epochs %s\n"
        "--gamma %s\n--seed %llu\n--train-limit %zu\n"
        "--synthetic-train %zu\n--synthetic-test %zu\nparameters %zu\n",
        dt_dataset_name(cfg->dataset),
        cfg->data_dir[0] ? cfg->data_dir : "(default)",
        dt_model_name(cfg->model), topo ? "gossip" : "allreduce", n,
        (unsigned long long)th, part, cfg->batch, exact(cfg->lr, v[0]),
        exact(cfg->momentum, v[1]), exact(cfg->weight_decay, v[2]),
        dt_sched_name(cfg->schedule), exact(cfg->warmup, v[3]),
        exact(cfg->step_epochs, v[4]), exact(cfg->gamma, v[5]),
        (unsigned long long)cfg->seed,
        cfg->train_limit, cfg->synth_train, cfg->synth_test, len);
    if (k < 0)
        k = 0;
    size_t at = (size_t)k < cap ? (size_t)k : cap ? cap - 1 : 0;
    if (cfg->algorithm != DT_ALGO_DPSGD && at < cap) {
        k = snprintf(buf + at, cap - at, "--algorithm %s\n--d2-mixing %s\n",
                     dt_algo_name(cfg->algorithm), exact(cfg->d2_mix, v[0]));
        if (k > 0)
            at += (size_t)k < cap - at ? (size_t)k : cap - at - 1;
    }
    size_t *ids = NULL, k_ids = 0;
    if (cfg->drop_workers[0] && at < cap &&
        cm_idlist_parse(cfg->drop_workers, 0, "--drop-workers", &ids,
                        &k_ids) == CM_OK) {
        char list[DT_PATH_MAX];
        k = snprintf(buf + at, cap - at, "--drop-workers %s\n"
                     "workers-before-drop %zu\n",
                     cm_idlist_format(ids, k_ids, list, sizeof list),
                     n + k_ids);
        if (k > 0)
            at += (size_t)k < cap - at ? (size_t)k : cap - at - 1;
    }
    free(ids);
    /* issue 31's flags, only when one is not its default, so every
     * earlier run's settings and fingerprint stay as they were */
    if ((cfg->average_every != 1 || cfg->local_after || cfg->global_every ||
         cfg->outer.kind != DT_OUTER_NONE) && at + 1 < cap) {
        char o[64];
        k = snprintf(buf + at, cap - at, "--average-every %zu\n"
                     "--local-after %zu\n--global-every %zu\n--outer %s\n",
                     cfg->average_every, cfg->local_after, cfg->global_every,
                     dt_outer_str(&cfg->outer, o, sizeof o));
        if (k > 0)
            at += (size_t)k < cap - at ? (size_t)k : cap - at - 1;
    }
    return at;
}

uint64_t dt_run_ckpt_fingerprint(const dt_config *cfg, size_t n, size_t len,
                                 const cm_topo *topo)
{
    char buf[SETTINGS_MAX];
    size_t k = dt_run_ckpt_settings(cfg, n, len, topo, buf, sizeof buf);
    return cm_hash_fnv1a(CM_HASH_FNV_OFFSET, buf, k);
}

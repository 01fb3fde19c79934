/* dt_summary.c: the --summary JSON writer, built as a jansson object and
 * dumped with two-space indentation (`"key": value`, one per line; keys
 * in the order added). Strings are escaped by jansson; non-finite numbers
 * (which JSON cannot carry) are written as null; integers stay integers,
 * reals are written with 17 significant digits (they read back bit for
 * bit). */
#include "dt_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cm_atomic.h"
#include "cm_hash.h"
#include "cm_mixing.h"
#include "cm_net.h"
#include "cm_place.h"
#include "dt_algo.h"
#include "dt_data.h"
#include "dt_net.h"
#include "dt_optim.h"
#include "dt_partition.h"

/* Adds k: v to o; counts failures (out of memory) in *bad. */
static void put(json_t *o, const char *k, json_t *v, int *bad)
{
    *bad |= !v || json_object_set_new(o, k, v) != 0;
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jint(unsigned long long v)
{
    return json_integer((json_int_t)v);
}

static json_t *hex(uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%016llx", (unsigned long long)v);
    return json_string(b);
}

/* The topology file named by its content: FNV-1a 64 (cm_hash) of its
 * bytes, as 16 hex digits; null without --topology or when it cannot be
 * read any more. */
static json_t *file_hash(const char *path)
{
    if (!path[0])
        return json_null();
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return json_null();
    uint64_t h = CM_HASH_FNV_OFFSET;
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0)
        h = cm_hash_fnv1a(h, buf, got);
    int bad = ferror(fp);
    fclose(fp);
    return bad ? json_null() : hex(h);
}

/* A string that may not be UTF-8 (a path): jansson refuses those, so
 * bytes >= 0x80 of an invalid sequence become '?'. */
static json_t *str(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *c = strdup(s);
    if (!c)
        return NULL;
    for (char *p = c; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    j = json_string(c);
    free(c);
    return j;
}

const double dt_targets[DT_N_TARGETS] = {0.5, 0.6, 0.7, 0.75, 0.8, 0.85,
                                         0.9};

static json_t *settings(const dt_config *c, int *bad)
{
    json_t *o = json_object();
    char part[64], net[160];
    dt_partition_spec_str(&c->partition, part, sizeof part);
    const char *dir = c->data_dir[0] ? c->data_dir
                                     : dt_dataset_default_dir(c->dataset);
    put(o, "dataset", str(dt_dataset_name(c->dataset)), bad);
    put(o, "data", str(dir ? dir : ""), bad); /* the folder read */
    put(o, "model", str(dt_model_name(c->model)), bad);
    put(o, "epochs", jint(c->epochs), bad);
    put(o, "batch", jint(c->batch), bad);
    put(o, "lr", num(c->lr), bad);
    put(o, "momentum", num(c->momentum), bad);
    put(o, "weight_decay", num(c->weight_decay), bad);
    put(o, "schedule", str(dt_sched_name(c->schedule)), bad);
    put(o, "warmup", num(c->warmup), bad);
    put(o, "step_epochs", num(c->step_epochs), bad);
    put(o, "gamma", num(c->gamma), bad);
    put(o, "seed", jint((unsigned long long)c->seed), bad);
    put(o, "threads", jint((unsigned long long)c->threads), bad);
    put(o, "own_kernels", jint((unsigned long long)c->own_kernels), bad);
    put(o, "train_limit", jint(c->train_limit), bad);
    put(o, "test_limit", jint(c->test_limit), bad);
    put(o, "synthetic_train", jint(c->synth_train), bad);
    put(o, "synthetic_test", jint(c->synth_test), bad);
    put(o, "topology", str(c->topology), bad);
    put(o, "topology_hash", file_hash(c->topology), bad);
    put(o, "weights", str(cm_weight_rule_name(c->weights)), bad);
    put(o, "mode", str(c->mode == DT_MODE_ALLREDUCE ? "allreduce"
                                                    : "gossip"), bad);
    put(o, "workers", jint(c->workers), bad);
    put(o, "partition", str(part), bad);
    put(o, "algorithm", str(dt_algo_name(c->algorithm)), bad);
    /* --d2-mixing as given: 0 is "auto" (the run's C: result.d2_mixing) */
    put(o, "d2_mixing", c->d2_mix > 0 ? num(c->d2_mix) : json_string("auto"),
        bad);
    put(o, "placement", str(cm_place_name(c->placement)), bad);
    put(o, "net", c->net_given ? str(cm_net_describe(&c->net, net,
                                                     sizeof net))
                               : json_null(), bad);
    put(o, "eval_every", jint(c->eval_every), bad);
    put(o, "local_eval", jint(c->local_eval), bad);
    put(o, "checkpoint", str(c->ckpt_dir), bad);
    put(o, "resume", jint((unsigned long long)c->resume), bad);
    put(o, "keep", jint(c->keep), bad);
    put(o, "timeout", num(c->timeout), bad);
    put(o, "log", str(c->log_path), bad);
    put(o, "save_model", str(c->save_model), bad);
    put(o, "save_model_every", jint(c->save_model_every), bad);
    put(o, "init_model", str(c->init_model), bad);
    put(o, "drop_workers", c->drop_workers[0] ? str(c->drop_workers)
                                              : json_null(), bad);
    char outer[64];
    put(o, "average_every", jint(c->average_every), bad);
    put(o, "local_after", jint(c->local_after), bad);
    put(o, "global_every", jint(c->global_every), bad);
    put(o, "outer", str(dt_outer_str(&c->outer, outer, sizeof outer)), bad);
    char comp[64];
    put(o, "compress", str(dt_compress_str(&c->compress, comp, sizeof comp)),
        bad);
    /* how the compressed pseudo-gradients of --mode allreduce are
     * averaged: "requantize" (int8, int4: the exact mean quantized again,
     * dt_gossip_new_average_q), "exact" (top-k: the exact mean); null when
     * nothing compressed is averaged (none, CHOCO-SGD). Summaries written
     * before the re-quantized average have no key: their int8/int4 runs
     * took the exact mean (one-way). */
    const dt_compress_kind ck = c->compress.kind;
    put(o, "compress_reduce",
        c->mode != DT_MODE_ALLREDUCE || ck == DT_COMPRESS_NONE
            ? json_null()
            : str(ck == DT_COMPRESS_TOPK ? "exact" : "requantize"),
        bad);
    put(o, "consensus_step", num(c->consensus_step), bad);
    put(o, "staleness", jint(c->staleness), bad);
    char frag[64];
    put(o, "fragments", str(dt_frag_str(&c->fragments, frag, sizeof frag)),
        bad);
    return o;
}

static json_t *result(const dt_summary *s, int *bad)
{
    json_t *o = json_object();
    put(o, "mode", str(s->mode), bad);
    put(o, "workers", jint(s->workers), bad);
    put(o, "ranks", jint(s->ranks), bad);
    put(o, "steps", jint(s->steps), bad);
    put(o, "params", jint(s->n_params), bad);
    put(o, "train_images", jint(s->n_train), bad);
    put(o, "test_images", jint(s->n_test), bad);
    put(o, "test_acc", num(s->test_acc), bad);
    put(o, "test_loss", num(s->test_loss), bad);
    put(o, "train_loss", num(s->train_loss), bad);
    put(o, "local_acc", num(s->local_acc), bad);
    put(o, "consensus", num(s->consensus), bad);
    put(o, "train_loss_global", num(s->train_loss_global), bad);
    put(o, "epoch", num(s->epoch), bad);
    put(o, "wall_s", num(s->wall_s), bad);
    put(o, "model_s", num(s->model_s), bad);
    put(o, "lr", num(s->lr), bad);
    put(o, "slem", num(s->slem), bad);
    put(o, "d2_mixing", num(s->d2_mixing), bad);
    put(o, "images_per_s", num(s->images_per_s), bad);
    put(o, "t_total_s", num(s->t_total), bad);
    put(o, "t_compute_s", num(s->t_compute), bad);
    put(o, "t_gossip_mem_s", num(s->t_gossip_mem), bad);
    put(o, "t_gossip_mpi_s", num(s->t_gossip_mpi), bad);
    put(o, "t_eval_s", num(s->t_eval), bad);
    put(o, "bytes_per_step", jint(s->bytes_per_step), bad);
    put(o, "bytes_sent", jint(s->bytes_sent), bad);
    put(o, "param_hash", hex(s->param_hash), bad);
    put(o, "workers_hash", hex(s->workers_hash), bad);
    put(o, "placed_by", s->placed_by ? str(s->placed_by) : json_null(), bad);
    json_t *d = json_null();
    if (s->dropped) { /* what was dropped and when (--drop-workers) */
        d = json_object();
        put(d, "workers", str(s->dropped), bad);
        put(d, "count", jint(s->dropped_count), bad);
        put(d, "at_epoch", jint((unsigned long long)s->dropped_epoch), bad);
        put(d, "workers_before", jint(s->workers_before_drop), bad);
    }
    put(o, "dropped", d, bad);
    if (s->has_comms) {
        json_t *c = json_object();
        put(c, "gossip_rounds", jint(s->comm_gossip), bad);
        put(c, "exact_averages", jint(s->comm_exact), bad);
        put(c, "clique_rounds", jint(s->comm_clique), bad);
        put(c, "gradient_allreduces", jint(s->comm_grad_allreduce), bad);
        put(c, "fragment_averages", jint(s->comm_frag), bad);
        put(o, "communications", c, bad);
    }
    if (s->has_steps_to) {
        json_t *t = json_object();
        for (size_t k = 0; k < DT_N_TARGETS; k++) {
            char key[16];
            snprintf(key, sizeof key, "%.2f", dt_targets[k]);
            put(t, key, s->steps_to[k] >= 0 ? json_integer(s->steps_to[k])
                                            : json_null(), bad);
        }
        put(o, "steps_to_target", t, bad);
    }
    return o;
}

cm_status dt_summary_write(const char *path, const dt_config *c,
                           const dt_summary *s)
{
    int bad = 0;
    json_t *root = json_object();
    put(root, "program", json_string("dpsgd-train"), &bad);
    put(root, "version", json_string(DT_TRAIN_VERSION), &bad);
    put(root, "settings", settings(c, &bad), &bad);
    put(root, "result", result(s, &bad), &bad);
    char *text = bad ? NULL : json_dumps(root, JSON_INDENT(2) |
                                                   JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!text)
        return cm_error(CM_ENOMEM, "out of memory writing %s", path);
    cm_afile af;
    cm_status st = cm_atomic_open(&af, path);
    if (st == CM_OK) {
        fputs(text, af.fp);
        fputc('\n', af.fp);
        st = cm_atomic_commit(&af);
    }
    free(text);
    return st;
}

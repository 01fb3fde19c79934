/* dt_summary.c: the --summary JSON writer. A flat printf of every field;
 * strings (paths, names) escaped per RFC 8259; non-finite numbers (which
 * JSON cannot carry) written as null. */
#include "dt_summary.h"

#include <math.h>
#include <stdio.h>

#include "cm_atomic.h"
#include "cm_mixing.h"
#include "dt_data.h"
#include "dt_net.h"
#include "dt_optim.h"
#include "dt_partition.h"

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void jnum(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

/* "key": value pairs, comma-separated after the first of an object. */
static void key(FILE *f, int *first, const char *k)
{
    fprintf(f, "%s\n    ", *first ? "" : ",");
    *first = 0;
    jstr(f, k);
    fputs(": ", f);
}

static void kstr(FILE *f, int *first, const char *k, const char *v)
{
    key(f, first, k);
    jstr(f, v);
}

static void knum(FILE *f, int *first, const char *k, double v)
{
    key(f, first, k);
    jnum(f, v);
}

static void kint(FILE *f, int *first, const char *k, unsigned long long v)
{
    key(f, first, k);
    fprintf(f, "%llu", v);
}

static void khex(FILE *f, int *first, const char *k, uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%016llx", (unsigned long long)v);
    kstr(f, first, k, b);
}

cm_status dt_summary_write(const char *path, const dt_config *c,
                           const dt_summary *s)
{
    cm_afile af;
    cm_status st = cm_atomic_open(&af, path);
    if (st != CM_OK)
        return st;
    FILE *f = af.fp;
    char part[64];
    dt_partition_spec_str(&c->partition, part, sizeof part);
    int first = 1;
    fprintf(f, "{\n  \"program\": \"dpsgd-train\",\n  \"version\": ");
    jstr(f, DT_TRAIN_VERSION);
    fprintf(f, ",\n  \"settings\": {");
    kstr(f, &first, "dataset", dt_dataset_name(c->dataset));
    kstr(f, &first, "data", c->data_dir);
    kstr(f, &first, "model", dt_model_name(c->model));
    kint(f, &first, "epochs", c->epochs);
    kint(f, &first, "batch", c->batch);
    knum(f, &first, "lr", c->lr);
    knum(f, &first, "momentum", c->momentum);
    knum(f, &first, "weight_decay", c->weight_decay);
    kstr(f, &first, "schedule", dt_sched_name(c->schedule));
    knum(f, &first, "warmup", c->warmup);
    knum(f, &first, "step_epochs", c->step_epochs);
    knum(f, &first, "gamma", c->gamma);
    kint(f, &first, "seed", (unsigned long long)c->seed);
    kint(f, &first, "threads", (unsigned long long)c->threads);
    kint(f, &first, "own_kernels", (unsigned long long)c->own_kernels);
    kint(f, &first, "train_limit", c->train_limit);
    kint(f, &first, "test_limit", c->test_limit);
    kint(f, &first, "synthetic_train", c->synth_train);
    kint(f, &first, "synthetic_test", c->synth_test);
    kstr(f, &first, "topology", c->topology);
    kstr(f, &first, "weights", cm_weight_rule_name(c->weights));
    kstr(f, &first, "mode", c->mode == DT_MODE_ALLREDUCE ? "allreduce"
                                                         : "gossip");
    kint(f, &first, "workers", c->workers);
    kstr(f, &first, "partition", part);
    kint(f, &first, "eval_every", c->eval_every);
    kint(f, &first, "local_eval", c->local_eval);
    kstr(f, &first, "checkpoint", c->ckpt_dir);
    kint(f, &first, "resume", (unsigned long long)c->resume);
    kstr(f, &first, "log", c->log_path);
    kstr(f, &first, "save_model", c->save_model);
    kint(f, &first, "save_model_every", c->save_model_every);
    kstr(f, &first, "init_model", c->init_model);
    fprintf(f, "\n  },\n  \"result\": {");
    first = 1;
    kstr(f, &first, "mode", s->mode);
    kint(f, &first, "workers", s->workers);
    kint(f, &first, "ranks", s->ranks);
    kint(f, &first, "steps", s->steps);
    kint(f, &first, "params", s->n_params);
    kint(f, &first, "train_images", s->n_train);
    kint(f, &first, "test_images", s->n_test);
    knum(f, &first, "test_acc", s->test_acc);
    knum(f, &first, "test_loss", s->test_loss);
    knum(f, &first, "train_loss", s->train_loss);
    knum(f, &first, "local_acc", s->local_acc);
    knum(f, &first, "consensus", s->consensus);
    knum(f, &first, "train_loss_global", s->train_loss_global);
    knum(f, &first, "epoch", s->epoch);
    knum(f, &first, "wall_s", s->wall_s);
    knum(f, &first, "model_s", s->model_s);
    knum(f, &first, "lr", s->lr);
    knum(f, &first, "slem", s->slem);
    knum(f, &first, "images_per_s", s->images_per_s);
    knum(f, &first, "t_total_s", s->t_total);
    knum(f, &first, "t_compute_s", s->t_compute);
    knum(f, &first, "t_gossip_mem_s", s->t_gossip_mem);
    knum(f, &first, "t_gossip_mpi_s", s->t_gossip_mpi);
    knum(f, &first, "t_eval_s", s->t_eval);
    kint(f, &first, "bytes_per_step", s->bytes_per_step);
    kint(f, &first, "bytes_sent", s->bytes_sent);
    khex(f, &first, "param_hash", s->param_hash);
    khex(f, &first, "workers_hash", s->workers_hash);
    fprintf(f, "\n  }\n}\n");
    return cm_atomic_commit(&af);
}

/* ta_runs: the committed training runs, read from an experiment tree in
 * any layout the experiment scripts write (topo/assess/, the room of
 * `topogen plan` under the command line; docs/topo/plan-model.md).
 *
 * A run is one dpsgd-train CSV log (`epoch,step,...,test_acc,...`) and
 * the schedule it ran, taken from the first of: its --summary JSON
 * (NAME.json beside it: settings.*), its NAME.settings (KEY="VALUE", the
 * grid scripts), the experiment's grid.env (WORKERS, BATCH, LR,
 * TRAIN_ARGS), its logs/NAME.log ("final: ALG  workers N ... partition
 * P"), and the name (`-lrLR`, `-HH`, `-pgaK`, `local-`, `diloco-`). The
 * graph's SLEM comes from the topology file's header (`slem=`) when the
 * file is in the experiment's topo/. A folder without run CSVs that
 * holds a per-run.tsv (results-slow-network.py) is read from that
 * table, at the target 0.85 only.
 */
#ifndef TA_RUNS_H
#define TA_RUNS_H

#include <stddef.h>

#include "cm_status.h"
#include "ta_sched.h"

/* One run. */
typedef struct {
    ta_sched s;
    char exp[256];      /* the experiment directory it was read from */
    char setting[96];   /* the name the experiment gave it (no -sS) */
    unsigned seed;
    double steps;       /* first logged step at test_acc >= target; -1 never */
    double steps_fit;   /* the step where test_acc crosses the target,
                           linear in accuracy between the two evaluations
                           that bracket it (= steps without an earlier
                           evaluation below it); -1 never */
    double steps_run;   /* the last logged step (a run that never reached
                           the target: a lower bound on its steps) */
    double final_acc;   /* the last row's test accuracy (NAN: diverged) */
    double steps_per_epoch; /* the log's steps / epochs */
    int diverged;       /* a NAME.failed beside it, or a NaN accuracy */
    int complete;       /* reached the target, diverged or ran its epochs */
} ta_run;

/* What was read (printed by the command line on stderr). */
typedef struct {
    size_t dirs;        /* experiment directories */
    size_t csv;         /* run CSVs read */
    size_t per_run;     /* rows of per-run.tsv tables read */
    size_t incomplete;  /* runs left out: stopped early, not diverged */
    size_t unknown;     /* runs left out: schedule not recognised */
    size_t duplicates;  /* a schedule and seed read twice: the later kept */
    size_t other_model; /* runs left out by ta_runs_keep_model */
} ta_read_stats;

/* Measured compute: images per second of one CPU at a batch (bench.txt,
 * modelled.tsv's "# compute" line). */
typedef struct {
    char model[8];      /* dpsgd-train --model: "lenet", "cnn" */
    size_t batch;
    double images_per_s;
    int dedicated;      /* 1: from a bench.txt (dpsgd-train --bench) */
} ta_bench;

typedef struct {
    ta_run *v;
    size_t n, cap;
    ta_bench bench[32];
    size_t nbench;
    ta_read_stats st;
} ta_runs;

void ta_runs_init(ta_runs *r);
void ta_runs_destroy(ta_runs *r);

/* Reads every experiment under dir (itself and its subdirectories, four
 * levels deep) at test accuracy target into r (appends). CM_EIO naming
 * dir when it cannot be opened or holds no run; CM_EFORMAT naming the
 * file and line for a run CSV without step/test_acc columns or with a
 * field that is not a number, a modelled.tsv row that is not
 * "SETTING NET T T T [ALG]", or a per-run.tsv without its columns.
 * Cost: linear in the bytes read. */
cm_status ta_runs_read(ta_runs *r, const char *dir, double target);

/* Reads only the compute benches (every bench.txt) under dir, four
 * levels deep, into r (no runs; a missing dir adds nothing). */
void ta_runs_read_benches(ta_runs *r, const char *dir);

/* Images per second of model (dpsgd-train --model) at batch b from r's
 * benches of that model: the bench at b, else the one of the nearest
 * batch; 0 when none (or model is NULL). */
double ta_runs_rate(const ta_runs *r, const char *model, size_t b);

/* Leaves out of r every run of a model with another number of
 * parameters than params (ta_sched_params), counted in
 * r->st.other_model. O(r->n). */
void ta_runs_keep_model(ta_runs *r, size_t params);

#endif

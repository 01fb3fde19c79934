/* topogen_data: topogen's data-aware kinds and measures, from a counts
 * file (src/cm_labels.h, written by dpsgd-train --write-partition):
 * --kind stl-fw (tg_stlfw), --kind dcliques (tg_dcliques), --labels for
 * the learned search (tg_search's H term) and for `topogen eval` (H,
 * tg_hetero). Part of topogen's main (prints, returns exit statuses).
 */
#ifndef TOPOGEN_DATA_H
#define TOPOGEN_DATA_H

#include <stddef.h>

#include "cm_labels.h"
#include "cm_topo.h"
#include "topogen_cli.h"

/* Checks the data-aware flags of c after parsing: -1 to go on, else
 * EXIT_USAGE after one message. */
int topogen_data_check_args(const topogen_config *c);

/* 1 when the H_DATA flag `name` belongs in c's header settings. */
int topogen_data_in_header(const char *name, const topogen_config *c);

/* "stl-fw", "dcliques"; "ring", "small-world", "fractal". */
const char *topogen_data_kind_name(int dkind);
const char *topogen_data_inter_name(int inter);

/* Builds --kind stl-fw or dcliques from c->labels and writes it (-o);
 * an exit status, one message on stderr on failure. */
int topogen_data_generate(topogen_config *c);

/* For the learned kind with --labels: reads the counts file into *l
 * (initialized) and points c->search.pi/pibar/k at its proportions
 * (*pi, *pibar: caller frees). An exit status, or -1 to go on. */
int topogen_data_search_labels(topogen_config *c, cm_labels *l, double **pi,
                               double **pibar);

/* The topology header's line naming the partition a graph was learned
 * for: "# labels: IDENTITY file=PATH" (dpsgd-train compares it with its
 * own; cm_labels_topo_identity reads it back), or "" without labels. */
void topogen_data_header_line(const cm_labels *l, const char *path,
                              char *buf, size_t cap);

/* `topogen eval --labels`: H of the weighted rounds of a file (the mean
 * over rounds of a sequence, the worst node over all rounds), formatted
 * into buf as text lines or as JSON members ending in a comma (the one
 * place the JSON of the measure is written). CM_* with the message. */
cm_status topogen_data_eval(const char *labels, const cm_topo *rounds,
                            size_t period, int json, char *buf, size_t cap);

#endif

/* topogen_data: `topogen eval --labels`, the measure H of a file for the
 * partition of a counts file (src/topo/cm_labels.h, written by dpsgd-train
 * --write-partition). Part of topogen's command line.
 */
#ifndef TOPOGEN_DATA_H
#define TOPOGEN_DATA_H

#include <stddef.h>

#include "cm_labels.h"
#include "cm_topo.h"

/* `topogen eval --labels`: H of the weighted rounds of a file (the mean
 * over rounds of a sequence, the worst node over all rounds), formatted
 * into buf as text lines or as JSON members ending in a comma (the one
 * place the JSON of the measure is written). CM_* with the message. */
cm_status topogen_data_eval(const char *labels, const cm_topo *rounds,
                            size_t period, int json, char *buf, size_t cap);

#endif

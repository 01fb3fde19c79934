/* topogen_neff_print: n_eff (topo/make/topogen_neff.h) in topogen's
 * reports, as text lines or JSON members (part of topogen's command
 * line: it prints).
 */
#ifndef TOPOGEN_NEFF_PRINT_H
#define TOPOGEN_NEFF_PRINT_H

#include "topogen_json.h"
#include "topogen_neff.h"

/* Text lines: `neff          41.4  (gamma 0.951; 10.3 per message, ...)`. */
void topogen_neff_print(const topogen_neff *v);

/* JSON members `"neff":X,"neff_per_message":Y,` (one gamma), or objects
 * keyed by gamma for several; with a Monte Carlo also "neff_error". */
void topogen_neff_json(const topogen_neff *v, json_t *o, int *bad);

#endif

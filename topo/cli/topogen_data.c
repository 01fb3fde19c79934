/* topogen_data.c: `topogen eval --labels`, the neighbourhood
 * heterogeneity H of a file's weighted rounds (tg_hetero). Building the
 * data-aware kinds is topo/make/topogen_make_data.c.
 */
#include "topogen_data.h"

#include <jansson.h>
#include <math.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_mixing.h"
#include "tg_dcliques.h"
#include "tg_digraph.h"
#include "tg_hetero.h"
#include "tg_stlfw.h"
#include "tg_wdense.h"

cm_status topogen_data_eval(const char *labels, const cm_topo *rounds,
                            size_t period, int json, char *buf, size_t cap)
{
    cm_labels l;
    cm_labels_init(&l);
    cm_status s = cm_labels_read(&l, labels);
    int unread = s != CM_OK; /* the reader's message names file and line */
    double hsum = 0.0, neff = NAN;
    tg_hetero worst = {0}, h;
    for (size_t r = 0; r < period && s == CM_OK; r++) {
        if ((s = tg_hetero_topo(&rounds[r], &l, &h)) != CM_OK)
            break;
        hsum += h.h;
        if (r == 0 || h.worst > worst.worst) {
            worst.worst = h.worst;
            worst.worst_node = h.worst_node;
        }
        if (h.worst_tv > worst.worst_tv)
            worst.worst_tv = h.worst_tv;
    }
    if (s == CM_OK && period == 1 && rounds[0].n <= 1024) {
        double *W;
        if ((s = tg_wdense_from_topo(&rounds[0], &W)) == CM_OK) {
            s = tg_wdense_neff(rounds[0].n, W, 0.951, &neff);
            free(W);
        }
    }
    if (s == CM_OK) {
        double H = hsum / (double)period;
        if (json) { /* the path JSON-escaped by jansson */
            json_t *js = json_string(labels);
            char *q = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
            char nb[32] = "null";
            json_decref(js);
            if (isfinite(neff))
                snprintf(nb, sizeof nb, "%.9g", neff);
            snprintf(buf, cap, "\"heterogeneity\":{\"labels\":%s,"
                     "\"h\":%.9g,\"worst\":%.9g,\"worst_node\":%zu,"
                     "\"worst_tv\":%.9g,\"rounds\":%zu,\"neff_0.951\":%s},",
                     q ? q : "null", H, worst.worst, worst.worst_node,
                     worst.worst_tv, period, nb);
            free(q);
        }
        else
            snprintf(buf, cap, "heterogeneity H %.6f  ((1/n)||(W - J) Pi||_F^2"
                     "%s; %s)\n  worst node  %zu: %.6f  (||(W Pi)_i - "
                     "pibar||^2; total variation %.4f)\n"
                     "neff_0.951    %.2f\n", H,
                     period > 1 ? ", mean over the rounds" : "", labels,
                     worst.worst_node, worst.worst, worst.worst_tv, neff);
    }
    if (s != CM_OK && unread)
        cm_error_prefix(s, "--labels");
    else if (s != CM_OK)
        cm_error_prefix(s, "--labels %s", labels);
    cm_labels_destroy(&l);
    return s;
}

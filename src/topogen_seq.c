/* topogen_seq.c: topogen's reports for time-varying topologies (see
 * topogen_seq.h): generation writes the cm_topo_seq format with a header
 * that records the settings, the period and the product norm; evaluation
 * prints the period, per-round degrees, messages per period, the product
 * norm and the rounds to 1e-3 (tg_seq_evaluate), or simulates gossip
 * through the rounds (tg_simulate_seq).
 */
#include "topogen_seq.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cm_status.h"
#include "tg_eval.h"

void topogen_print_number(const char *key, double v, int last)
{
    if (isfinite(v))
        printf("\"%s\":%.17g%s", key, v, last ? "" : ",");
    else
        printf("\"%s\":null%s", key, last ? "" : ",");
}

void topogen_print_json_string(const char *s)
{
    putchar('"');
    for (const char *p = s; *p; p++)
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if ((unsigned char)*p < 0x20)
            printf("\\u%04x", (unsigned)(unsigned char)*p);
        else
            putchar(*p);
    putchar('"');
}

int topogen_seq_generate(const topogen_seq_job *job)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    tg_seq_eval e;
    int rc = EXIT_FAILURE;
    cm_status st = tg_seq_build(&s, job->kind, job->n, job->d);
    if (st == CM_OK)
        st = tg_seq_evaluate(&s, NULL, &e);
    if (st == CM_OK) {
        char comment[1536];
        snprintf(comment, sizeof comment,
                 "# topogen 2 n=%zu d=%zu kind=%s period=%zu seed=%llu "
                 "version=%s\n"
                 "# settings: %s\n"
                 "# product_norm=%.3g exact=%d messages_per_period=%.4g\n"
                 "# one `# round R` section per round, `i j W_ij` lines; "
                 "W_ii = 1 - sum_j W_ij",
                 s.n, e.dmax, tg_seq_kind_name(job->kind), s.period,
                 (unsigned long long)job->seed, job->version,
                 job->settings, e.norm, e.exact, e.messages);
        st = cm_topo_seq_save(&s, job->out, comment);
    }
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        goto cleanup;
    }
    if (!job->quiet)
        fprintf(stderr, "topogen: n=%zu kind=%s: period %zu, per-round "
                "degree <= %zu, ||product - 11^T/n|| = %.3g\n", s.n,
                tg_seq_kind_name(job->kind), s.period, e.dmax, e.norm);
    rc = EXIT_SUCCESS;
cleanup:
    cm_topo_seq_destroy(&s);
    return rc;
}

int topogen_seq_evaluate(const topogen_seq_eval_job *job,
                         const cm_topo_seq *s)
{
    const char *file = job->file;
    const int json = job->json;
    const size_t simulate = job->simulate;
    const uint64_t seed = job->seed;
    size_t *deg = NULL;
    double *rel = NULL;
    int rc = EXIT_FAILURE;
    tg_seq_eval e;
    cm_status st = CM_OK;
    if (job->out_given)
        st = cm_error(CM_EINVAL, "-o: %s is time-varying (period %zu); -o "
                      "rewrites one-round files with new weights", file,
                      s->period);
    else if (job->weights_given)
        st = cm_error(CM_EINVAL, "--weights: %s is time-varying (period %zu) "
                      "and carries its own weights", file, s->period);
    if (st == CM_OK)
        st = cm_topo_seq_validate(s, file, NULL);
    if (st == CM_OK && !(deg = malloc(s->period * sizeof *deg)))
        st = cm_error(CM_ENOMEM, "out of memory");
    if (st == CM_OK)
        st = tg_seq_evaluate(s, deg, &e);
    if (st == CM_OK && simulate) {
        rel = malloc((simulate + 1) * sizeof *rel);
        st = rel ? tg_simulate_seq(s->round, s->period, simulate,
                                   seed, rel)
                 : cm_error(CM_ENOMEM, "out of memory for %zu rounds",
                            simulate);
    }
    if (st != CM_OK) {
        fprintf(stderr, "topogen: %s\n", cm_last_error());
        goto cleanup;
    }
    if (simulate) {
        printf("# round disagreement bound\n");
        printf("# file=%s n=%zu period=%zu product_norm=%.6g seed=%llu "
               "dim=%d (bound: product_norm^floor(round/period))\n",
               file, e.n, e.period, e.norm,
               (unsigned long long)seed, TG_SIM_DIM);
        for (size_t r = 0; r <= simulate; r++)
            printf("%zu %.6g %.6g\n", r, rel[r],
                   pow(e.norm, (double)(r / e.period)));
    } else if (json) {
        printf("{\"file\":");
        topogen_print_json_string(file);
        printf(",\"n\":%zu,\"period\":%zu,\"degree_per_round\":[", e.n,
               e.period);
        for (size_t t = 0; t < e.period; t++)
            printf("%s%zu", t ? "," : "", deg[t]);
        printf("],\"max_degree\":%zu,", e.dmax);
        topogen_print_number("messages_per_period", e.messages, 0);
        topogen_print_number("product_norm", e.norm, 0);
        printf("\"exact\":%s,", e.exact ? "true" : "false");
        topogen_print_number("rounds_1e-3", e.rounds ? (double)e.rounds
                                             : e.rounds_est, 0);
        printf("\"weights\":\"file\"}\n");
    } else {
        printf("file          %s\n", file);
        printf("n             %zu\n", e.n);
        printf("period        %zu\n", e.period);
        printf("degree        ");
        for (size_t t = 0; t < e.period; t++)
            printf("%s%zu", t ? " " : "", deg[t]);
        printf("  (largest per round)\n");
        printf("messages      %.4g  (per node per period)\n", e.messages);
        printf("product_norm  %.3g  (||W_%zu ... W_0 - 11^T/n||_2%s)\n",
               e.norm, e.period - 1, e.exact ? "; exact averaging" : "");
        if (e.rounds)
            printf("rounds_1e-3   %zu\n", e.rounds);
        else
            printf("rounds_1e-3   %.1f  (estimated from the period)\n",
                   e.rounds_est);
        printf("weights       file\n");
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "topogen: write error on standard output\n");
        goto cleanup;
    }
    rc = EXIT_SUCCESS;
cleanup:
    free(rel);
    free(deg);
    return rc;
}

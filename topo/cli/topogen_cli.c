/* topogen_cli.c: topogen's command line (part of topogen's main, linked
 * into topogen only; like topo/cli/topogen.c it prints and returns exit
 * statuses). argv is walked by cm_flags over the settings schema of
 * topo/make/topogen_settings.c, which parses each value and checks the
 * whole config; this file adds the first word (eval, compare, plan), the
 * usage text printed from the same table, --help, --version, and prints
 * the schema's refusals as usage errors. Flags take `--flag value` or
 * `--flag=value`.
 */
#include "topogen_cli.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_flags.h"
#include "cm_mixing.h"
#include "cm_status.h"
#include "topogen_config.h"
#include "topogen_settings.h"

/* the schema's command bits, short */
#define GEN TOPOGEN_M_GEN
#define EVAL TOPOGEN_M_EVAL
#define PLAN TOPOGEN_M_PLAN
#define ALL TOPOGEN_M_ALL
#define F_WEIGHTS TOPOGEN_F_WEIGHTS

/* The usage of one mode (ALL: every flag, topogen --help). */
static void usage(FILE *fp, int mode)
{
    if (mode == EVAL)
        fputs("usage: topogen eval FILE [--weights RULE] [--json] "
              "[--simulate ROUNDS]\n"
              "                    [--net NET | --platform P.XML [--ranks R] "
              "[--hosts H]\n"
              "                    [--params P] [--allreduce ALG]] "
              "[OPTIONS]\n\n"
              "Report on a topology file; its flags:\n", fp);
    else if (mode == PLAN)
        fputs("usage: topogen plan -n N [-d D] --net NET | --platform P.XML "
              "[--hosts S]\n"
              "                    [--params P] [--partition P] [--batch B] "
              "[--epochs E]\n"
              "                    [--target ACC] [--eval-every K] "
              "[--results DIR[,DIR...]]\n"
              "                    [--compress C] [--fragments P[:T]] "
              "[--extrapolate]\n"
              "                    [--labels COUNTS] [--json]\n\n"
              "What to run on that network: every schedule (all-reduce, "
              "local SGD, DiLoCo,\n"
              "D-PSGD, D^2 and GT on the graphs topogen builds) ranked by "
              "its time to the\n"
              "target accuracy: steps (measured in the committed runs, or "
              "predicted by a\n"
              "model fitted to them) x modelled time per step; each row "
              "with its basis,\n"
              "the dpsgd-train and topogen commands; its flags:\n", fp);
    else if (mode == GEN + 8)
        fputs("usage: topogen compare [-n N] [-d D] [--seed S] [--gamma G] "
              "[search flags]\n\n"
              "SLEM, n_eff and messages of every kind at -n, -d (no "
              "network; `topogen plan`\n"
              "ranks by modelled time on a network); the generation "
              "flags it takes:\n", fp);
    else
        fputs("usage: topogen [-n N] [-d D] [--kind KIND] [--weights RULE] "
              "[OPTIONS] [-o FILE]\n"
              "       topogen eval FILE [--weights RULE] [--json] "
              "[--simulate ROUNDS]\n"
              "                    [OPTIONS]\n"
              "       topogen plan -n N [-d D] --net NET [OPTIONS]\n"
              "       topogen compare [-n N] [-d D] [OPTIONS]\n"
              "       topogen repair FILE --remove LIST -o NEW [OPTIONS]\n"
              "       topogen platform --net KIND -n N [--seed S] -o P.xml\n"
              "(`topogen eval --help`, `topogen plan --help`, `topogen "
              "compare --help`,\n"
              "`topogen repair --help` and `topogen platform --help` print "
              "their flags\nalone)\n\n", fp);
    fputs("Flags take `--flag value` or `--flag=value`.\n", fp);
    int want = mode == GEN + 8 ? GEN : mode;
    size_t nf;
    const topogen_flag *flags = topogen_flags(&nf);
    for (size_t k = 0; k < nf; k++) {
        const topogen_flag *f = &flags[k];
        if (!(f->modes & want))
            continue;
        char lhs[48];
        snprintf(lhs, sizeof lhs, "%s%s%s%s%s", f->name,
                 f->alias ? ", " : "", f->alias ? f->alias : "",
                 f->meta ? " " : "", f->meta ? f->meta : "");
        char text[512];
        snprintf(text, sizeof text, "%s%s%s%s", f->help,
                 f->type == F_WEIGHTS ? ": " : "",
                 f->type == F_WEIGHTS ? cm_weight_rule_list() : "",
                 f->type == F_WEIGHTS ? ", fdla (optimal SLEM, may be "
                                        "negative), neff (optimal n_eff at "
                                        "--gamma, certified), neff-alpha "
                                        "(best W = I - alpha L for n_eff)"
                                      : "");
        /* word-wrap the help at 79 columns, indented under itself */
        fprintf(fp, "  %-20s", lhs);
        size_t col = 22;
        for (const char *w = text; *w;) {
            size_t len = strcspn(w, " ");
            if (col + 1 + len > 79) {
                fprintf(fp, "\n%22s", "");
                col = 22;
            }
            fprintf(fp, " %.*s", (int)len, w);
            col += 1 + len;
            w += len;
            while (*w == ' ')
                w++;
        }
        fputc('\n', fp);
    }
}

int topogen_usage_error(const char *msg)
{
    fprintf(stderr, "topogen: %s\nTry 'topogen --help'.\n", msg);
    return EXIT_USAGE;
}

/* The schema's last refusal as a usage error. */
static int status_to_usage(void)
{
    return topogen_usage_error(cm_last_error());
}

/* The command a mistyped first word probably meant ("evaluate", "eva",
 * "comapre"), or NULL. */
static const char *near_command(const char *w)
{
    static const char *const cmds[] = {"eval", "compare"};
    size_t lw = strlen(w);
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        size_t lc = strlen(cmds[k]);
        if ((lw > lc && strncmp(w, cmds[k], lc) == 0) ||
            (lw >= 3 && lw < lc && strncmp(cmds[k], w, lw) == 0) ||
            cm_flags_distance(w, lw, cmds[k], lc, 2) <= 2)
            return cmds[k];
    }
    return NULL;
}

int topogen_parse_args(int argc, char **argv, topogen_config *c)
{
    static const struct {
        const char *word;
        topogen_command command;
    } commands[] = {{"eval", TOPOGEN_EVAL},
                    {"compare", TOPOGEN_COMPARE},
                    {"plan", TOPOGEN_PLAN}};
    int i = 1;
    for (size_t k = 0; argc > 1 && k < sizeof commands / sizeof *commands;
         k++)
        if (strcmp(argv[1], commands[k].word) == 0) {
            c->command = commands[k].command;
            i = 2;
        }
    int eval = c->command == TOPOGEN_EVAL;
    if (eval)
        c->format = CM_FORMAT_AUTO;
    const int mode = c->command == TOPOGEN_PLAN ? PLAN : eval ? EVAL : GEN;
    if (c->command == TOPOGEN_GENERATE && argc > 1 && argv[1][0] != '-' &&
        near_command(argv[1])) {
        char msg[512];
        snprintf(msg, sizeof msg, "unknown command '%s' (did you mean "
                 "'%s'?)", argv[1], near_command(argv[1]));
        return topogen_usage_error(msg);
    }
    cm_flag_iter it = {i, NULL, NULL, NULL, NULL};
    for (;;) {
        int done = 0;
        if (cm_flags_next(topogen_flag_table(), argc, argv, eval && !c->file,
                          &it, &done) != CM_OK)
            return status_to_usage();
        if (done)
            break;
        if (it.arg) {
            c->file = it.arg;
            continue;
        }
        const topogen_flag *f = it.row;
        cm_status st = topogen_flag_mode_check(f, c->command);
        if (st == CM_OK)
            st = topogen_setting_parse(c, f, it.value);
        if (st == CM_EIO || st == CM_EFORMAT) { /* a bad file: exit 1 */
            fprintf(stderr, "topogen: %s\n", cm_last_error());
            return EXIT_FAILURE;
        }
        if (st != CM_OK)
            return status_to_usage();
        if (c->help) {
            usage(stdout, c->command == TOPOGEN_COMPARE ? GEN + 8
                          : eval || c->command == TOPOGEN_PLAN ? mode
                                                               : ALL);
            return 0;
        }
        if (c->version) {
            printf("topogen %s\n", TOPOGEN_VERSION);
            return 0;
        }
    }
    if (eval && !c->file)
        return topogen_usage_error("eval: missing FILE");
    return topogen_config_finish(c) == CM_OK ? -1 : status_to_usage();
}

const char *topogen_flag_value(int argc, char **argv, int *i,
                               const char *name, const char *alias)
{
    const char *a = argv[*i];
    size_t l = strlen(name);
    if (strncmp(a, name, l) == 0 && a[l] == '=')
        return a + l + 1;
    if (strcmp(a, name) != 0 && !(alias && strcmp(a, alias) == 0))
        return NULL;
    if (*i + 1 >= argc)
        return "";
    return argv[++*i];
}

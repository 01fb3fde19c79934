/* topogen_settings: the settings schema of topogen (part of topo/make/).
 * One table, one row per flag, says each setting's name, type, field of
 * topogen_config, bounds, the commands that take it, whether the file header
 * records it, and its help text. From it come the value parsers (text or
 * typed), the checks of a whole config, and the header's settings line (the
 * table and the line: topogen_schema.c; the parsers: topogen_settings.c; the
 * checks: topogen_check.c). The command line (topo/cli/) walks argv over the
 * same table and prints the usage from it; the library (topo/api/) sets its
 * fields through the typed setters. Nothing here prints: a refused value is
 * CM_EINVAL with the message the command line prints.
 */
#ifndef TOPOGEN_SETTINGS_H
#define TOPOGEN_SETTINGS_H

#include <stddef.h>

#include "cm_flags.h"
#include "cm_status.h"
#include "topogen_config.h"

/* The commands a setting belongs to (bits of topogen_flag.modes). */
enum { TOPOGEN_M_GEN = 1, TOPOGEN_M_EVAL = 2, TOPOGEN_M_PLAN = 4,
       TOPOGEN_M_ALL = 7 };

/* A setting's value type. */
typedef enum {
    TOPOGEN_F_SIZE, TOPOGEN_F_U64, TOPOGEN_F_SECONDS, TOPOGEN_F_KIND,
    TOPOGEN_F_WEIGHTS, TOPOGEN_F_OBJECTIVE, TOPOGEN_F_INIT, TOPOGEN_F_FORMAT,
    TOPOGEN_F_PATH, TOPOGEN_F_FLAG, TOPOGEN_F_SOLVER, TOPOGEN_F_NET,
    TOPOGEN_F_GAMMA, TOPOGEN_F_LABELS, TOPOGEN_F_REAL, TOPOGEN_F_INTER,
    TOPOGEN_F_CWEIGHTS, TOPOGEN_F_ALLREDUCE, TOPOGEN_F_DIR, TOPOGEN_F_TARGET,
    TOPOGEN_F_PARTITION, TOPOGEN_F_PLATFORM, TOPOGEN_F_WORD
} topogen_ftype;

/* One row of the schema. */
typedef struct {
    const char *name;   /* "--kind" */
    const char *alias;  /* e.g. "-q", or NULL */
    topogen_ftype type;
    size_t off;         /* offset of the field in topogen_config */
    int modes;          /* TOPOGEN_M_* bits */
    size_t lo, hi;      /* TOPOGEN_F_SIZE bounds */
    int header;         /* which headers record it (topogen_schema.c) */
    const char *meta;   /* value name in the usage, or NULL */
    const char *help;   /* usage text */
} topogen_flag;

/* The schema: *count rows. */
const topogen_flag *topogen_flags(size_t *count);

/* The schema as cm_flags walks it (names, aliases, switches). */
const cm_flag_table *topogen_flag_table(void);

/* The row named name (canonical name), or NULL. */
const topogen_flag *topogen_flag_find(const char *name);

/* CM_OK when command takes f, else CM_EINVAL with the message ("--json:
 * only 'topogen eval FILE' takes it", "...: not a flag of 'topogen
 * plan'"). */
cm_status topogen_flag_mode_check(const topogen_flag *f,
                                  topogen_command command);

/* Parses value v of setting f into c (v "" for a switch) and records that
 * it was given (n_given, d_given, hetero_given, weights_given, ...).
 * CM_EINVAL with the message naming the flag. Strings in c point into v. */
cm_status topogen_setting_parse(topogen_config *c, const topogen_flag *f,
                                const char *v);

/* Typed setters for the library: a count or a real number into the
 * setting named name, with the bounds and messages of the text parser;
 * the value does not count as given on a command line. */
cm_status topogen_setting_size(topogen_config *c, const char *name,
                               size_t x);
cm_status topogen_setting_real(topogen_config *c, const char *name,
                               double x);

/* The checks of a whole config once every setting is in (combinations,
 * sizes, each kind's own checks), and what they resolve (--directed
 * selects the directed learned kind, plan's target). CM_OK, or CM_EINVAL
 * with the first message, in the order the command line has always
 * given them. No heavy work. */
cm_status topogen_config_finish(topogen_config *c);

/* The settings that change the graph as one command line into buf (cap
 * bytes, truncated): "-n 64 -d 4 --kind learned ...", every value
 * resolved, so that `topogen SETTINGS` re-creates the file byte for byte.
 * Call after the search's defaults are resolved. */
void topogen_settings_line(const topogen_config *c, char *buf, size_t cap);

#endif

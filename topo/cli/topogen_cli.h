/* topogen_cli: topogen's command line: argv walked over the settings
 * schema (topo/make/topogen_settings.h) into a topogen_config, the usage
 * text printed from the same table, and usage errors printed on stderr
 * (part of topogen's main: it prints and returns exit statuses).
 */
#ifndef TOPOGEN_CLI_H
#define TOPOGEN_CLI_H

#include "topogen_config.h"

/* Exit status of a usage error (1: a runtime failure). */
#define EXIT_USAGE 2

/* Parses argv (`topogen [FLAGS]`, `topogen eval FILE [FLAGS]`, `topogen
 * compare|plan [FLAGS]`) into c, which holds the defaults, and checks it
 * (topogen_config_finish). Returns -1 to go on; else the exit status to
 * return: 0 after printing --help or --version on stdout, EXIT_USAGE
 * after one message naming the flag on stderr, EXIT_FAILURE after one
 * naming a file a flag reads (--platform P.xml, --net P.xml). The strings in c point
 * into argv. */
int topogen_parse_args(int argc, char **argv, topogen_config *c);

/* Prints "topogen: MSG" and the --help hint on stderr; EXIT_USAGE. */
int topogen_usage_error(const char *msg);

/* For the subcommands that walk their own flags (platform, repair): at
 * argv[*i], `NAME VALUE`, `NAME=VALUE` or `ALIAS VALUE` (alias may be
 * NULL). Returns the value (a pointer into argv; *i moved past a separate
 * value), "" when NAME is the last argument, or NULL when argv[*i] is
 * another flag. */
const char *topogen_flag_value(int argc, char **argv, int *i,
                               const char *name, const char *alias);

#endif

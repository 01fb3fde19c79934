/* topogen_repair: `topogen repair FILE --remove LIST -o NEW`, a topology
 * without lost workers (tg_repair.h), weighted by the file's rule. Part of
 * topogen's main: prints and returns exit statuses.
 */
#ifndef TOPOGEN_REPAIR_H
#define TOPOGEN_REPAIR_H

/* argv[0] is "repair". Returns the exit status: 0, 1 (bad or unreadable
 * file, a disconnected result, unwritable output), 2 (bad flag). */
int topogen_repair_main(int argc, char **argv);

#endif

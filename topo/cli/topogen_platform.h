/* topogen_platform: `topogen platform --net KIND -n N [--seed S] -o P.xml`,
 * a SimGrid platform file (cm_platform.h) for smpirun. Part of topogen's
 * main: prints and returns exit statuses.
 */
#ifndef TOPOGEN_PLATFORM_H
#define TOPOGEN_PLATFORM_H

/* argv[0] is "platform". Returns the exit status: 0, 1 (unwritable
 * output), 2 (bad flag). */
int topogen_platform_main(int argc, char **argv);

#endif

/* topogen_progress: progress lines and SIGINT/SIGTERM for topogen's
 * search (part of topogen's main; see topogen_progress.c). */
#ifndef TOPOGEN_PROGRESS_H
#define TOPOGEN_PROGRESS_H

#include <signal.h>

#include "tg_search.h"

/* A tg_search progress callback: the share done, restart, move, T,
 * energies, seconds and the estimated time left on stderr. ctx points to
 * an int: 1 when stderr is a terminal (then one line is rewritten in
 * place, and the int becomes 2 while a line is pending: print a newline
 * before anything else), 0 for plain lines. */
void topogen_progress(void *ctx, const tg_progress *p);

/* Installs SIGINT and SIGTERM handlers that record the signal number in a
 * flag and returns the flag (0 until a signal arrives), for
 * tg_search_opts.stop. */
const volatile sig_atomic_t *topogen_catch_signals(void);

#endif

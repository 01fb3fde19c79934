/* topogen_progress.c: what a long search shows and how it is stopped
 * (part of topogen's main: it prints and installs signal handlers).
 *
 * Progress: one line rewritten in place on a terminal (carriage return,
 * clear to end of line), plain lines otherwise, so logs stay readable.
 * Signals: SIGINT and SIGTERM set a flag that the search polls once per
 * move; it then returns its best graph, which topogen writes with
 * `interrupted=1` in the header before exiting with 128 + the signal.
 */
#include "topogen_progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Progress on stderr: one line rewritten in place on a terminal, plain
 * lines otherwise (logs). ctx points to an int: 1 on a terminal, set to 2
 * once a line is pending there. */
void topogen_progress(void *ctx, const tg_progress *p)
{
    int *tty = ctx;
    char eta[32] = "?";
    if (isfinite(p->eta))
        snprintf(eta, sizeof eta, "%.0f s", ceil(p->eta));
    /* the whole search, not the restart that happened to report: with
     * restarts in parallel the line would alternate between them */
    fprintf(stderr, "%stopogen: %3.0f%% %zu restarts (%zu running) moves "
            "%zu/%zu T=%.2e best=%.5f %.1f s, ~%s left%s",
            *tty ? "\r" : "", 100.0 * p->fraction, p->restarts, p->running,
            p->moves, p->restarts * p->iters, p->temperature, p->best,
            p->seconds, eta, *tty ? "\033[K" : "\n");
    if (*tty) {
        *tty = 2;
        fflush(stderr);
    }
}

/* SIGINT/SIGTERM during a search: the signal number, polled by the search
 * (which then returns its best graph so far). */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

const volatile sig_atomic_t *topogen_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return &stop_signal;
}

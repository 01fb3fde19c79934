/* cm_status.c: the last-error buffer behind cm_error(). One thread-local
 * buffer of fixed size; messages longer than it are truncated, never
 * allocated, so reporting an out-of-memory error cannot itself fail. */
#include "cm_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CM_ERRBUF 1024

/* Truncating a long message is the intended behaviour. (GCC's warning;
 * clang, which builds the fuzzers, has no such group.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static _Thread_local char errbuf[CM_ERRBUF];

cm_status cm_error(cm_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, sizeof errbuf, fmt, ap);
    va_end(ap);
    return code;
}

cm_status cm_error_prefix(cm_status code, const char *fmt, ...)
{
    char old[CM_ERRBUF], pre[CM_ERRBUF];
    va_list ap;
    memcpy(old, errbuf, sizeof old);
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    if (old[0])
        snprintf(errbuf, sizeof errbuf, "%s: %s", pre, old);
    else
        snprintf(errbuf, sizeof errbuf, "%s", pre);
    return code;
}

const char *cm_last_error(void) { return errbuf; }

void cm_error_clear(void) { errbuf[0] = '\0'; }

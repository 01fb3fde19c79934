/* cm_status: the project-wide status codes and the last-error message.
 *
 * Every fallible function of src/, topo/ and train/ returns a cm_status and,
 * on failure, leaves one sentence-case message (naming the file, line or
 * flag at fault) in a per-thread buffer that the main() functions print.
 * Library code never prints or exits.
 */
#ifndef CM_STATUS_H
#define CM_STATUS_H

typedef enum {
    CM_OK = 0,     /* success */
    CM_EINVAL,     /* bad argument or flag value */
    CM_ENOMEM,     /* allocation failed */
    CM_EIO,        /* open/read/write/rename failed */
    CM_EFORMAT,    /* malformed input file */
    CM_ETOPO,      /* well-formed topology that breaks a rule (asymmetric,
                      not stochastic, disconnected, does not mix) */
    CM_ENUMERIC,   /* numerical failure (eigensolver, NaN) */
    CM_EMPI,       /* MPI error or disagreement between ranks */
    CM_EINTERNAL   /* broken invariant: a bug */
} cm_status;

/* Sets the last-error message (printf format) and returns code, so that
 * `return cm_error(CM_EIO, "cannot open %s", p);` reads as one statement. */
cm_status cm_error(cm_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefixes the current last-error message with more context:
 * "ctx: old message". Returns code. */
cm_status cm_error_prefix(cm_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The last message set by cm_error on this thread ("" when none).
 * Borrowed: valid until the next cm_error on this thread. */
const char *cm_last_error(void);

/* Clears the last-error message. */
void cm_error_clear(void);

#endif

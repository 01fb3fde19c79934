/* dt_log.c: CSV rows in a growing buffer, flushed with cm_atomic after
 * every row (a few kB per run: rewriting it whole is cheaper than any
 * crash-recovery logic). */
#include "dt_log.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cm_atomic.h"

static cm_status log_printf(dt_log *lg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static cm_status log_printf(dt_log *lg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return cm_error(CM_EINTERNAL, "log formatting failed");
    if (lg->len + (size_t)n + 1 > lg->cap) {
        size_t cap = 2 * (lg->len + (size_t)n + 1) + 256;
        char *b = realloc(lg->buf, cap);
        if (!b)
            return cm_error(CM_ENOMEM, "out of memory for the log");
        lg->buf = b;
        lg->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(lg->buf + lg->len, lg->cap - lg->len, fmt, ap);
    va_end(ap);
    lg->len += (size_t)n;
    return CM_OK;
}

static cm_status log_flush(dt_log *lg)
{
    cm_afile f;
    cm_status s = cm_atomic_open(&f, lg->path);
    if (s != CM_OK)
        return s;
    if (fwrite(lg->buf, 1, lg->len, f.fp) != lg->len) {
        return cm_atomic_fail(&f);
    }
    return cm_atomic_commit(&f);
}

cm_status dt_log_open(dt_log *lg, const char *path)
{
    return dt_log_open_model(lg, path, 0);
}

cm_status dt_log_open_model(dt_log *lg, const char *path, int model)
{
    memset(lg, 0, sizeof *lg);
    if (!path || !*path)
        return CM_OK;
    cm_afile probe; /* can we create files there? nothing is left behind */
    cm_status s = cm_atomic_open(&probe, path);
    if (s != CM_OK)
        return cm_error_prefix(s, "--log");
    cm_atomic_abort(&probe);
    lg->lock.fd = -1;
    struct stat sb; /* a device or FIFO (--log /dev/null) is not locked:
                       LOG.lock would be created beside it */
    if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode)) {
        size_t len = strlen(path);
        char *lock_path = malloc(len + 6), *what = malloc(len + 8);
        if (!lock_path || !what) {
            free(lock_path);
            free(what);
            return cm_error(CM_ENOMEM, "out of memory");
        }
        memcpy(lock_path, path, len);
        memcpy(lock_path + len, ".lock", 6);
        snprintf(what, len + 8, "--log %s", path); /* as --summary's */
        s = cm_lock_acquire(&lg->lock, lock_path, what);
        free(lock_path);
        free(what);
        if (s != CM_OK)
            return s;
    }
    if (!(lg->path = strdup(path))) {
        cm_lock_release(&lg->lock);
        return cm_error(CM_ENOMEM, "out of memory");
    }
    lg->model = model != 0;
    s = log_printf(lg, "%s\n", model ? DT_LOG_HEADER_MODEL : DT_LOG_HEADER);
    if (s != CM_OK)
        dt_log_close(lg);
    return s;
}

cm_status dt_log_append(dt_log *lg, const dt_log_row *r)
{
    if (!lg->path)
        return CM_OK;
    /* empty fields when not measured (NaN) */
    char loss[32] = "", local[32] = "", global[32] = "";
    if (!isnan(r->train_loss))
        snprintf(loss, sizeof loss, "%.6f", r->train_loss);
    if (!isnan(r->test_acc_local_mean))
        snprintf(local, sizeof local, "%.6f", r->test_acc_local_mean);
    char lr[32] = "", tloss[32] = "", model[40] = "";
    if (!isnan(r->lr))
        snprintf(lr, sizeof lr, "%.6g", r->lr);
    if (!isnan(r->test_loss))
        snprintf(tloss, sizeof tloss, "%.6f", r->test_loss);
    if (!isnan(r->train_loss_global))
        snprintf(global, sizeof global, "%.6f", r->train_loss_global);
    if (lg->model)
        snprintf(model, sizeof model, ",%.3f", r->model_s);
    cm_status s = log_printf(lg, "%.6g,%zu,%.3f,%s,%.6f,%s,%.6g,%llu,"
                             "%s,%s,%s%s\n",
                             r->epoch, r->step, r->wall_s, loss,
                             r->test_acc, local, r->consensus,
                             (unsigned long long)r->bytes_sent, lr, tloss,
                             global, model);
    if (s != CM_OK)
        return s;
    return log_flush(lg);
}

void dt_log_close(dt_log *lg)
{
    if (!lg)
        return;
    if (lg->path)
        cm_lock_release(&lg->lock);
    free(lg->path);
    free(lg->buf);
    memset(lg, 0, sizeof *lg);
}

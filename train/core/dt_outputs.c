/* dt_outputs.c: same-file checks by device and inode (or by the resolved
 * directory and the name for files that do not exist yet), and the locks
 * of the outputs written at the end of a run. */
#include "dt_outputs.h"

#include "cm_atomic.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The resolved directory of path plus its last component, in buf (PATH_MAX
 * + NAME_MAX); path itself when its directory does not resolve. */
static void entry_name(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char dir[PATH_MAX];
    char real[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (*base && realpath(dir, real))
        snprintf(buf, n, "%s/%s", real, base);
    else
        snprintf(buf, n, "%s", path);
}

int dt_outputs_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) {
        if (S_ISCHR(sa.st_mode) || S_ISFIFO(sa.st_mode) ||
            S_ISSOCK(sa.st_mode))
            return 0; /* /dev/null twice: not a file */
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    }
    if (ea || eb)
        return 0;
    char na[PATH_MAX + 256], nb[PATH_MAX + 256];
    entry_name(a, na, sizeof na);
    entry_name(b, nb, sizeof nb);
    return strcmp(na, nb) == 0;
}

typedef struct {
    const char *flag;
    const char *path;
} named_path;

cm_status dt_outputs_check(const dt_config *cfg)
{
    const named_path out[] = {
        {"--log", cfg->log_path}, {"--summary", cfg->summary},
        {"--save-model", cfg->save_model},
        {"--write-partition", cfg->write_partition},
        {"--checkpoint", cfg->ckpt_dir}};
    const named_path in[] = {
        {"--topology", cfg->topology}, {"--init-model", cfg->init_model},
        {"--eval-model", cfg->eval_model}};
    const size_t n_out = sizeof out / sizeof out[0];
    const size_t n_in = sizeof in / sizeof in[0];
    for (size_t i = 0; i < n_out; i++) {
        if (!out[i].path[0])
            continue;
        for (size_t j = 0; j < n_in; j++)
            if (in[j].path[0] && dt_outputs_same_file(out[i].path,
                                                      in[j].path))
                return cm_error(CM_EINVAL, "%s %s: the same file as %s %s: "
                                "the run would overwrite its own input",
                                out[i].flag, out[i].path, in[j].flag,
                                in[j].path);
        for (size_t j = 0; j < i; j++)
            if (out[j].path[0] && dt_outputs_same_file(out[i].path,
                                                       out[j].path))
                return cm_error(CM_EINVAL, "%s %s: the same file as %s %s: "
                                "give each output a file of its own",
                                out[i].flag, out[i].path, out[j].flag,
                                out[j].path);
    }
    return CM_OK;
}

void dt_outputs_init(dt_outputs *o)
{
    for (size_t k = 0; k < DT_OUTPUT_LOCKS; k++) {
        o->lock[k].fd = -1;
        o->lock[k].path = NULL;
    }
}

cm_status dt_outputs_lock(dt_outputs *o, const dt_config *cfg)
{
    const char *paths[DT_OUTPUT_LOCKS] = {cfg->summary, cfg->save_model,
                                          cfg->write_partition};
    const char *flags[DT_OUTPUT_LOCKS] = {"--summary", "--save-model",
                                          "--write-partition"};
    dt_outputs_init(o);
    for (size_t k = 0; k < DT_OUTPUT_LOCKS; k++) {
        struct stat sb;
        if (!paths[k][0] ||
            (stat(paths[k], &sb) == 0 && !S_ISREG(sb.st_mode)))
            continue; /* a device: nothing to lock beside it */
        if (cm_atomic_probe(paths[k]) != CM_OK) {
            cm_error_clear();
            continue; /* not writable: the run's own check says so */
        }
        size_t len = strlen(paths[k]);
        char *lock_path = malloc(len + 6);
        char *what = malloc(len + 32);
        if (!lock_path || !what) {
            free(lock_path);
            free(what);
            dt_outputs_unlock(o);
            return cm_error(CM_ENOMEM, "out of memory");
        }
        memcpy(lock_path, paths[k], len);
        memcpy(lock_path + len, ".lock", 6);
        snprintf(what, len + 32, "%s %s", flags[k], paths[k]);
        cm_status s = cm_lock_acquire(&o->lock[k], lock_path, what);
        free(lock_path);
        free(what);
        if (s != CM_OK) {
            dt_outputs_unlock(o);
            return s;
        }
    }
    return CM_OK;
}

void dt_outputs_unlock(dt_outputs *o)
{
    for (size_t k = 0; k < DT_OUTPUT_LOCKS; k++)
        if (o->lock[k].fd >= 0)
            cm_lock_release(&o->lock[k]);
    dt_outputs_init(o);
}

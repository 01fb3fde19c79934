/* dt_cifar.c: the CIFAR-10 binary format (Krizhevsky 2009): each file is a
 * sequence of 3073-byte records, one label byte (0..9) then 3x32x32 pixels
 * (R plane, G plane, B plane: already NCHW). The training split is
 * data_batch_1.bin .. data_batch_5.bin, the test split test_batch.bin, in
 * DIR or in DIR/cifar-10-batches-bin (as the archive unpacks). A file whose
 * size is not a whole number of records is reported as truncated.
 */
#include "dt_readers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REC_PIX 3072
#define REC_LEN (REC_PIX + 1)
#define MAX_FILES 5

typedef struct {
    size_t n_files;
    char path[MAX_FILES][4096];
    size_t records[MAX_FILES];
} cifar_files;

/* Finds the split's files and their record counts. */
static cm_status cifar_find(const char *dir, dt_split sp, cifar_files *cf)
{
    char sub[4096];
    struct stat st;
    const char *root = dir;
    int len = snprintf(sub, sizeof sub, "%s/cifar-10-batches-bin", dir);
    if (len < 0 || (size_t)len >= sizeof sub)
        return cm_error(CM_EINVAL, "data directory path too long: %s", dir);
    if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
        root = sub;
    cf->n_files = sp == DT_SPLIT_TRAIN ? MAX_FILES : 1;
    for (size_t k = 0; k < cf->n_files; k++) {
        if (sp == DT_SPLIT_TRAIN)
            len = snprintf(cf->path[k], sizeof cf->path[k],
                           "%s/data_batch_%zu.bin", root, k + 1);
        else
            len = snprintf(cf->path[k], sizeof cf->path[k],
                           "%s/test_batch.bin", root);
        if (len < 0 || (size_t)len >= sizeof cf->path[k])
            return cm_error(CM_EINVAL, "data directory path too long: %s",
                            dir);
        if (stat(cf->path[k], &st) != 0)
            return cm_error(CM_EIO, "missing data file %s", cf->path[k]);
        if (st.st_size <= 0 || st.st_size % REC_LEN != 0)
            return cm_error(CM_EFORMAT, "%s: truncated: %lld bytes is not a "
                            "whole number of %d-byte CIFAR-10 records",
                            cf->path[k], (long long)st.st_size, REC_LEN);
        cf->records[k] = (size_t)st.st_size / REC_LEN;
    }
    return CM_OK;
}

cm_status dt_cifar_shape(const char *dir, dt_split sp, dt_shape *sh)
{
    cifar_files cf;
    cm_status s = cifar_find(dir, sp, &cf);
    if (s != CM_OK)
        return s;
    sh->n = 0;
    for (size_t k = 0; k < cf.n_files; k++)
        sh->n += cf.records[k];
    sh->c = 3;
    sh->h = sh->w = 32;
    return CM_OK;
}

/* Streams the records of all files; pixels are read only for wanted
 * records (others are skipped with fseek) unless labels_only. */
static cm_status cifar_walk(const char *dir, dt_split sp, const uint8_t *want,
                            dt_visit_fn f, void *ctx, uint8_t *labels)
{
    cifar_files cf;
    FILE *fp = NULL;
    unsigned char rec[REC_LEN];
    cm_status s = cifar_find(dir, sp, &cf);
    if (s != CM_OK)
        return s;
    size_t i = 0;
    for (size_t k = 0; k < cf.n_files; k++) {
        if (!(fp = fopen(cf.path[k], "rb"))) {
            s = cm_error(CM_EIO, "cannot open %s: %s", cf.path[k],
                         strerror(errno));
            goto cleanup;
        }
        for (size_t r = 0; r < cf.records[k]; r++, i++) {
            int need = labels ? 0 : (!want || want[i]);
            size_t len = need ? REC_LEN : 1;
            if (fread(rec, 1, len, fp) != len) {
                s = cm_error(CM_EIO, "%s: read error at record %zu",
                             cf.path[k], r);
                goto cleanup;
            }
            if (rec[0] > 9) {
                s = cm_error(CM_EFORMAT, "%s: label %u of record %zu is "
                             "outside 0..9", cf.path[k], rec[0], r);
                goto cleanup;
            }
            if (labels)
                labels[i] = rec[0];
            if (!need) {
                if (fseek(fp, REC_PIX, SEEK_CUR) != 0) {
                    s = cm_error(CM_EIO, "%s: seek error", cf.path[k]);
                    goto cleanup;
                }
                continue;
            }
            if ((s = f(ctx, i, rec + 1, rec[0])) != CM_OK)
                goto cleanup;
        }
        fclose(fp);
        fp = NULL;
    }
cleanup:
    if (fp)
        fclose(fp);
    return s;
}

cm_status dt_cifar_scan(const char *dir, dt_split sp, const uint8_t *want,
                        dt_visit_fn f, void *ctx)
{
    return cifar_walk(dir, sp, want, f, ctx, NULL);
}

cm_status dt_cifar_labels(const char *dir, dt_split sp, uint8_t *labels)
{
    return cifar_walk(dir, sp, NULL, NULL, NULL, labels);
}

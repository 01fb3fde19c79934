/* cm_idlist.c: "3,7,10-12" lists of ids (see cm_idlist.h). Strict: a
 * typo must not silently remove other workers, so every character is
 * accounted for and an id given twice is refused.
 */
#include "cm_idlist.h"

#include "cm_topo.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Reads digits at *p into *v (no sign, no blanks); 0 when none. */
static int read_id(const char **p, size_t *v)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return 0;
    uint64_t x = 0;
    while (*s >= '0' && *s <= '9') {
        if (x > (UINT64_MAX - 9) / 10)
            return 0;
        x = 10 * x + (uint64_t)(*s - '0');
        s++;
    }
    if (x > SIZE_MAX / 2)
        return 0;
    *v = (size_t)x;
    *p = s;
    return 1;
}

cm_status cm_idlist_parse(const char *s, size_t n, const char *flag,
                          size_t **ids, size_t *count)
{
    *ids = NULL;
    *count = 0;
    size_t cap = 0, k = 0, *v = NULL;
    const char *p = s;
    if (!*p)
        return cm_error(CM_EINVAL, "%s '': expected ids such as 48-63 or "
                        "3,7,10-12", flag);
    for (;;) {
        size_t a, b;
        if (!read_id(&p, &a))
            goto syntax;
        b = a;
        if (*p == '-') {
            p++;
            if (!read_id(&p, &b))
                goto syntax;
            if (b < a) {
                free(v);
                return cm_error(CM_EINVAL, "%s '%s': the range %zu-%zu runs "
                                "backwards", flag, s, a, b);
            }
        }
        if (*p != ',' && *p != '\0')
            goto syntax;
        if (n && b >= n) {
            free(v);
            return cm_error(CM_EINVAL, "%s '%s': id %zu is not below n = %zu "
                            "(ids run from 0 to %zu)", flag, s, b, n, n - 1);
        }
        if (b >= CM_TOPO_MAX_NODES || k + (b - a + 1) > CM_TOPO_MAX_NODES) {
            free(v);
            return cm_error(CM_EINVAL, "%s '%s': %s (a topology has at most "
                            "%d nodes)", flag, s, b >= CM_TOPO_MAX_NODES
                            ? "an id beyond the largest node id"
                            : "more ids than nodes", CM_TOPO_MAX_NODES);
        }
        if (k + (b - a + 1) > cap) {
            size_t nc = 2 * cap + (b - a + 1) + 16;
            size_t *nv = realloc(v, nc * sizeof *nv);
            if (!nv) {
                free(v);
                return cm_error(CM_ENOMEM, "out of memory for %s", flag);
            }
            v = nv;
            cap = nc;
        }
        for (size_t x = a;; x++) {
            v[k++] = x;
            if (x == b)
                break;
        }
        if (*p == '\0')
            break;
        p++; /* ',' */
    }
    qsort(v, k, sizeof *v, cmp_size);
    for (size_t i = 1; i < k; i++)
        if (v[i] == v[i - 1]) {
            size_t d = v[i];
            free(v);
            return cm_error(CM_EINVAL, "%s '%s': id %zu is given twice", flag,
                            s, d);
        }
    *ids = v;
    *count = k;
    return CM_OK;
syntax:
    free(v);
    return cm_error(CM_EINVAL, "%s '%s': expected ids and ranges separated "
                    "by commas, such as 48-63 or 3,7,10-12 (0-based, no "
                    "blanks); stopped at '%s'", flag, s, *p ? p : "the end");
}

char *cm_idlist_format(const size_t *ids, size_t count, char *buf,
                       size_t cap)
{
    size_t at = 0;
    if (!cap)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < count;) {
        size_t j = i;
        while (j + 1 < count && ids[j + 1] == ids[j] + 1)
            j++;
        char item[64];
        int len = j > i ? snprintf(item, sizeof item, "%s%zu-%zu",
                                   i ? "," : "", ids[i], ids[j])
                        : snprintf(item, sizeof item, "%s%zu", i ? "," : "",
                                   ids[i]);
        if (len < 0 || at + (size_t)len >= cap)
            break;
        memcpy(buf + at, item, (size_t)len + 1);
        at += (size_t)len;
        i = j + 1;
    }
    return buf;
}

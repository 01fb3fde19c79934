/* cm_flags.c: the command-line scanner of both programs (see cm_flags.h).
 * Flag names are looked up by a linear scan of the program's table (a few
 * dozen rows); a miss computes the edit distance to every name and alias
 * with the two-row Wagner-Fischer recurrence.
 */
#include "cm_flags.h"

#include <string.h>

#define MAX_DIST 2
#define MAX_LEN 64

static const void *row_at(const cm_flag_table *t, size_t k)
{
    return (const char *)t->rows + k * t->size;
}

static const char *name_at(const cm_flag_table *t, size_t k)
{
    return *(const char *const *)(const void *)((const char *)row_at(t, k) +
                                                t->name_off);
}

static const char *alias_at(const cm_flag_table *t, size_t k)
{
    if (t->alias_off == CM_FLAGS_NO_ALIAS)
        return NULL;
    return *(const char *const *)(const void *)((const char *)row_at(t, k) +
                                                t->alias_off);
}

static int same(const char *name, const char *word, size_t len)
{
    return name && strlen(name) == len && strncmp(name, word, len) == 0;
}

/* The row whose name or alias is word[0..len); NULL when none. The last
 * matching row wins (a table never has two). */
static const void *lookup(const cm_flag_table *t, const char *word,
                          size_t len)
{
    const char *canon = NULL;
    for (size_t k = 0; k < t->n_aliases && !canon; k++)
        if (same(t->aliases[k][0], word, len))
            canon = t->aliases[k][1];
    if (canon) {
        word = canon;
        len = strlen(canon);
    }
    const void *hit = NULL;
    for (size_t k = 0; k < t->n; k++)
        if (same(name_at(t, k), word, len) || same(alias_at(t, k), word, len))
            hit = row_at(t, k);
    return hit;
}

size_t cm_flags_distance(const char *a, size_t la, const char *b, size_t lb,
                         size_t cap)
{
    if (la > MAX_LEN || lb > MAX_LEN)
        return cap + 1;
    size_t prev[MAX_LEN + 1], cur[MAX_LEN + 1];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        size_t low = cur[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del
                                                                      : ins);
            low = cur[j] < low ? cur[j] : low;
        }
        if (low > cap)
            return cap + 1;
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb] > cap ? cap + 1 : prev[lb];
}

static void consider(const char *name, const char *word, size_t len,
                     const char **best, size_t *best_d)
{
    if (!name)
        return;
    size_t d = cm_flags_distance(word, len, name, strlen(name), MAX_DIST);
    if (d < *best_d && 2 * d < len) {
        *best = name;
        *best_d = d;
    }
}

const char *cm_flags_suggest(const cm_flag_table *t, const char *word,
                             size_t len)
{
    const char *best = NULL;
    size_t best_d = MAX_DIST + 1;
    for (size_t k = 0; k < t->n; k++) {
        consider(name_at(t, k), word, len, &best, &best_d);
        consider(alias_at(t, k), word, len, &best, &best_d);
    }
    for (size_t k = 0; k < t->n_aliases; k++)
        consider(t->aliases[k][0], word, len, &best, &best_d);
    return best;
}

cm_status cm_flags_next(const cm_flag_table *t, int argc, char *const *argv,
                        int allow_positional, cm_flag_iter *it, int *done)
{
    it->row = NULL;
    it->name = it->value = it->arg = NULL;
    *done = it->i >= argc;
    if (*done)
        return CM_OK;
    const char *a = argv[it->i++];
    if (a[0] != '-' || strcmp(a, "-") == 0) {
        if (!allow_positional)
            return cm_error(CM_EINVAL, "unexpected argument '%s'", a);
        it->arg = a;
        return CM_OK;
    }
    const char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const void *row = lookup(t, a, len);
    if (!row) {
        const char *near = cm_flags_suggest(t, a, len);
        if (near)
            return cm_error(CM_EINVAL, "unknown flag '%.*s' (did you mean "
                            "'%s'?)", (int)len, a, near);
        return cm_error(CM_EINVAL, "unknown flag '%.*s'", (int)len, a);
    }
    it->row = row;
    it->name = *(const char *const *)(const void *)((const char *)row +
                                                    t->name_off);
    if (t->is_switch(row)) {
        if (eq)
            return cm_error(CM_EINVAL, "%s: takes no value", it->name);
        return CM_OK;
    }
    if (eq) {
        it->value = eq + 1;
    } else if (it->i < argc) {
        it->value = argv[it->i++];
    } else {
        return cm_error(CM_EINVAL, "%s: missing value", it->name);
    }
    return CM_OK;
}

/* cm_flags: the one command-line scanner of both programs. Each program
 * keeps its own flag table (rows of its own struct: name, value kind, the
 * field it sets, ranges, help); cm_flags reads the names out of those rows
 * through a cm_flag_table descriptor and walks argv: it matches
 * `--flag value`, `--flag=value` and switches, and answers every mistake
 * in one wording for both programs:
 *     unknown flag '--epoch' (did you mean '--epochs'?)
 *     unexpected argument 'foo'
 *     --quiet: takes no value
 *     --epochs: missing value
 * The suggestion is the table's name (or alias) nearest by edit distance
 * (Levenshtein, at most 2 edits and under half the typed name's length).
 * Values are the caller's to parse. Nothing here prints.
 */
#ifndef CM_FLAGS_H
#define CM_FLAGS_H

#include <stddef.h>

#include "cm_status.h"

#define CM_FLAGS_NO_ALIAS ((size_t)-1)

/* A program's flag table, described so cm_flags can read its rows. */
typedef struct {
    const void *rows;     /* the table: n rows of `size` bytes */
    size_t n, size;
    size_t name_off;      /* offset of the row's `const char *` name */
    size_t alias_off;     /* offset of a `const char *` alias (may be NULL
                             in a row), or CM_FLAGS_NO_ALIAS */
    const char *const (*aliases)[2]; /* extra {alias, name} pairs, or NULL */
    size_t n_aliases;
    int (*is_switch)(const void *row); /* 1: the flag takes no value */
} cm_flag_table;

/* Scanning state: set i = 1 (after the program name, or past a
 * subcommand) and call cm_flags_next until it reports done. */
typedef struct {
    int i;              /* next argv index */
    const void *row;    /* the matched row; NULL for a positional arg */
    const char *name;   /* the row's name (canonical, not the alias) */
    const char *value;  /* the flag's value; NULL for a switch */
    const char *arg;    /* a positional argument (row == NULL) */
} cm_flag_iter;

/* The next flag or positional argument of argv into it, advancing it->i;
 * *done = 1 when argv is exhausted. A word is positional when it does not
 * start with '-' or is "-" itself; positionals are returned only when
 * allow_positional, else refused ("unexpected argument"). CM_EINVAL with
 * the messages above. O(n_flags * len) per word (O(len^2) per name for a
 * suggestion). */
cm_status cm_flags_next(const cm_flag_table *t, int argc, char *const *argv,
                        int allow_positional, cm_flag_iter *it, int *done);

/* The table's name or alias nearest to word (the first len bytes) by
 * edit distance, NULL when none is within reach (see above). O(n len^2). */
const char *cm_flags_suggest(const cm_flag_table *t, const char *word,
                             size_t len);

/* Levenshtein distance between a[0..la) and b[0..lb), capped at cap + 1
 * (for la, lb <= 64; longer strings count as cap + 1). O(la lb). */
size_t cm_flags_distance(const char *a, size_t la, const char *b, size_t lb,
                         size_t cap);

#endif

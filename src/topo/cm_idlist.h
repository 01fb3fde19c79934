/* cm_idlist: a list of node (worker) ids as given on a command line,
 * "48-63", "3,7,10-12": comma-separated ids and inclusive ranges, in any
 * order, 0-based. Shared by topogen repair --remove and dpsgd-train
 * --drop-workers, so both read one LIST the same way and print it back in
 * one canonical form.
 */
#ifndef CM_IDLIST_H
#define CM_IDLIST_H

#include <stddef.h>

#include "cm_status.h"

/* Parses s into ids (malloc'd, ascending, each id once; *ids NULL and
 * *count 0 on error; the caller frees). Every id must be < n (n = 0: no
 * bound). CM_EINVAL naming flag ("--remove '4-x': ...") for empty items,
 * non-digits, a reversed range "5-3", an id repeated, or an id >= n
 * ("worker 70 is beyond the 64 nodes of FILE" wording is the caller's:
 * the message says "id 70 is not below n = 64"), an id or a count of
 * ids beyond CM_TOPO_MAX_NODES. CM_ENOMEM. O(k log k) for k ids. */
cm_status cm_idlist_parse(const char *s, size_t n, const char *flag,
                          size_t **ids, size_t *count);

/* The canonical text of ascending, distinct ids: runs of two or more
 * consecutive ids as "a-b", joined by commas ("3,7,10-12"), into buf
 * (cap bytes; truncated, still NUL-terminated). Returns buf. O(count). */
char *cm_idlist_format(const size_t *ids, size_t count, char *buf,
                       size_t cap);

#endif

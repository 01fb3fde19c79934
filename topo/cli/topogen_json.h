/* topogen_json: the `topogen eval --json` object, built with jansson and
 * printed as one compact line (keys in the order added).
 *
 * Numbers: a finite integral value is written as a JSON integer (19, not
 * 19.0), any other finite value with 17 significant digits (it reads back
 * bit for bit), a non-finite one as null.
 */
#ifndef TOPOGEN_JSON_H
#define TOPOGEN_JSON_H

#include <stddef.h>

#include <jansson.h>

/* o[key] = v (rules above). Out of memory sets *bad. */
void topogen_json_num(json_t *o, const char *key, double v, int *bad);

/* o[key] = v as an integer. */
void topogen_json_int(json_t *o, const char *key, size_t v, int *bad);

/* o[key] = s (bytes that are not UTF-8 become '?'). */
void topogen_json_str(json_t *o, const char *key, const char *s, int *bad);

/* o[key] = [v_0, ..., v_{n-1}] as integers, or as numbers (rules above). */
void topogen_json_ints(json_t *o, const char *key, const size_t *v, size_t n,
                       int *bad);
void topogen_json_nums(json_t *o, const char *key, const double *v, size_t n,
                       int *bad);

/* o[key] = v, taking v's reference (v NULL sets *bad). */
void topogen_json_set(json_t *o, const char *key, json_t *v, int *bad);

/* Adds the members of a JSON object text written without its braces
 * ("\"a\":1,\"b\":{...}," — a trailing comma allowed) to o; *bad on a
 * parse failure. */
void topogen_json_members(json_t *o, const char *members, int *bad);

/* Prints o on one line to stdout and releases it (a NULL o or *bad: an
 * out-of-memory message on stderr). Returns 0, or -1 when nothing could
 * be printed. */
int topogen_json_print(json_t *o, int bad);

#endif

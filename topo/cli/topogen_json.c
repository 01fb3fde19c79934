/* topogen_json.c: jansson helpers of `topogen eval --json` (see
 * topogen_json.h). */
#include "topogen_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *num(double v)
{
    if (!isfinite(v))
        return json_null();
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

void topogen_json_set(json_t *o, const char *key, json_t *v, int *bad)
{
    *bad |= !o || !v || json_object_set_new(o, key, v) != 0;
}

void topogen_json_num(json_t *o, const char *key, double v, int *bad)
{
    topogen_json_set(o, key, num(v), bad);
}

void topogen_json_int(json_t *o, const char *key, size_t v, int *bad)
{
    topogen_json_set(o, key, json_integer((json_int_t)v), bad);
}

void topogen_json_str(json_t *o, const char *key, const char *s, int *bad)
{
    json_t *j = json_string(s);
    if (!j) { /* not UTF-8 (a path): keep the ASCII */
        char *c = strdup(s);
        for (char *p = c; p && *p; p++)
            if ((unsigned char)*p >= 0x80)
                *p = '?';
        j = c ? json_string(c) : NULL;
        free(c);
    }
    topogen_json_set(o, key, j, bad);
}

void topogen_json_ints(json_t *o, const char *key, const size_t *v, size_t n,
                       int *bad)
{
    json_t *a = json_array();
    for (size_t k = 0; a && k < n; k++)
        *bad |= json_array_append_new(a, json_integer((json_int_t)v[k]));
    topogen_json_set(o, key, a, bad);
}

void topogen_json_nums(json_t *o, const char *key, const double *v, size_t n,
                       int *bad)
{
    json_t *a = json_array();
    for (size_t k = 0; a && k < n; k++)
        *bad |= json_array_append_new(a, num(v[k]));
    topogen_json_set(o, key, a, bad);
}

int topogen_json_print(json_t *o, int bad)
{
    char *text = o && !bad ? json_dumps(o, JSON_COMPACT |
                                               JSON_REAL_PRECISION(17))
                           : NULL;
    json_decref(o);
    if (!text) {
        fprintf(stderr, "topogen: out of memory for the JSON report\n");
        return -1;
    }
    puts(text);
    free(text);
    return 0;
}

void topogen_json_members(json_t *o, const char *members, int *bad)
{
    size_t len = strlen(members);
    char *s = malloc(len + 3);
    if (!s) {
        *bad = 1;
        return;
    }
    s[0] = '{';
    memcpy(s + 1, members, len);
    while (len && (s[len] == ',' || s[len] == ' ' || s[len] == '\n'))
        len--; /* s[1..len] holds the members: drop a trailing comma */
    s[len + 1] = '}';
    s[len + 2] = '\0';
    json_t *m = json_loads(s, 0, NULL);
    free(s);
    *bad |= !m || json_object_update(o, m) != 0;
    json_decref(m);
}

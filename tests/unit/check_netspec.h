/* check_netspec.h: what the network-model suites (check_netmodel.c,
 * check_net3.c) share: a table of --net specs that cm_net_parse refuses,
 * and a platform file written to a temporary name, read and removed.
 * Static functions: each test file that includes it gets its own copy. */
#ifndef CHECK_NETSPEC_H
#define CHECK_NETSPEC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_net.h"

/* A --net spec that cm_net_parse refuses, and a piece of its message. */
typedef struct {
    const char *spec, *msg;
} net_bad_spec;

/* Every spec of bad[0..n) is refused (CM_EINVAL) with a message that
 * holds its msg and names --net. */
static inline void net_refuses(const net_bad_spec *bad, size_t n)
{
    cm_net net;
    for (size_t k = 0; k < n; k++) {
        ck_assert_int_eq(cm_net_parse(bad[k].spec, &net), CM_EINVAL);
        ck_assert_msg(strstr(cm_last_error(), bad[k].msg) &&
                      strstr(cm_last_error(), "--net"),
                      "'%s': %s", bad[k].spec, cm_last_error());
    }
}

/* A new temporary file open for writing; path is its template
 * ("/tmp/NAME_XXXXXX.xml", filled in: the 4 characters after the X's
 * stay). The caller closes it and reads it with net_read_tmp. */
static inline FILE *net_tmp_xml(char *path)
{
    int fd = mkstemps(path, 4);
    ck_assert_int_ge(fd, 0);
    return fdopen(fd, "w");
}

/* Reads the platform file path into n with reader (cm_net_parse or
 * cm_net_parse_platform), removes the file, then asserts the read
 * succeeded. */
static inline void net_read_tmp(const char *path,
                                cm_status (*reader)(const char *, cm_net *),
                                cm_net *n)
{
    cm_status st = reader(path, n);
    unlink(path);
    ck_assert_int_eq(st, CM_OK);
}

#endif

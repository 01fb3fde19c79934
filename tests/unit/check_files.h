/* check_files.h: the temporary files of the reader suites (check_seq,
 * check_topodir, check_topofile, check_topo_doc, check_topogen_graph and
 * mpi_check_comm): text written to a fresh file, and a topology file read
 * and validated as dpsgd-train does. Static functions: each test file
 * that includes it gets its own copy (and its own path buffer). */
#ifndef CHECK_FILES_H
#define CHECK_FILES_H

#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_mixing.h"
#include "cm_topo.h"

/* Writes len bytes of text to a fresh file made from the mkstemp
 * template tmpl (e.g. "/tmp/check_seq_XXXXXX", under 64 characters);
 * returns its path, valid until the next call from the same test file.
 * The caller removes the file. */
static inline const char *tmp_text(const char *tmpl, const char *text,
                                   size_t len)
{
    static char path[64];
    strcpy(path, tmpl);
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq((int)write(fd, text, len), (int)len);
    close(fd);
    return path;
}

/* Reads and validates a topology file, as dpsgd-train does; t is
 * destroyed on error. */
static inline cm_status load_topo(cm_topo *t, const char *path)
{
    cm_status st = cm_topo_read(t, path);
    if (st == CM_OK)
        st = cm_topo_validate(t, path);
    if (st != CM_OK)
        cm_topo_destroy(t);
    return st;
}

#endif

/* cm_topo_write.c: the topology file's writer, undirected and directed
 * (format in cm_topo.h). Above the storage (cm_topo.c) and the directed
 * builder (cm_topo_dir.c), so neither calls up into the other: the writer
 * reads a built cm_topo and prints its header comment and its lines in the
 * storage's canonical order, each weight with %.17g (it reads back to the
 * same double). cm_topo_save writes through cm_atomic (temporary file +
 * rename), so a failed write leaves no half-written file.
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_topo_header.h"
#include "cm_topo_rec.h"

void cm_topo_write_comment(FILE *fp, const char *comment)
{
    for (const char *p = comment; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > 0)
            fprintf(fp, "%s%.*s\n", *p == '#' ? "" : "# ", (int)len, p);
        p += len + (nl ? 1 : 0);
    }
}

/* ---- directed ------------------------------------------------------- */

/* The comment lines of a directed t (cm_topo_write's rules), plus a line
 * `# directed=1 n=N` (and `kind=epidemic s=S local=L`) when the comment
 * lacks those tokens, so the file reads back as directed (the header
 * writer's bare token line, cm_topo_header_format). CM_ENOMEM. */
static cm_status write_header_directed(const cm_topo *t, FILE *fp,
                                       const char *comment)
{
    int has_dir = comment && strstr(comment, "directed=1");
    int has_n = 0;
    if (comment) { /* an n= token at the start or after a blank */
        for (const char *p = strstr(comment, "n="); p; p = strstr(p + 1, "n="))
            if (p == comment || p[-1] == ' ' || p[-1] == '\t' ||
                p[-1] == '#' || p[-1] == '\n')
                has_n = 1;
    }
    int has_kind = comment && strstr(comment, "kind=epidemic");
    if (!has_dir || !has_n || (cm_topo_is_epidemic(t) && !has_kind)) {
        cm_topo_header h; /* the bare token line (no generator) */
        cm_topo_header_init(&h);
        h.n = t->n;
        h.epidemic = cm_topo_is_epidemic(t) && !has_kind;
        h.epi_s = t->epi_s;
        h.epi_local = t->epi_local;
        char *line = cm_topo_header_format(&h);
        if (!line)
            return CM_ENOMEM;
        fprintf(fp, "%s\n", line);
        free(line);
    }
    cm_topo_write_comment(fp, comment);
    return CM_OK;
}

/* The arcs of a directed t after its header. */
static cm_status write_arcs(const cm_topo *t, FILE *fp)
{
    if (!cm_topo_is_epidemic(t))
        for (size_t i = 0; i < t->n; i++) {
            double row = 0.0; /* W_ii as the reader recomputes it */
            for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
                row += t->adj_w[p];
            if (t->self[i] != 1.0 - row)
                fprintf(fp, "%zu %zu %.17g\n", i, i, t->self[i]);
            for (size_t p = t->out_off[i]; p < t->out_off[i + 1]; p++)
                fprintf(fp, "%zu %zu %.17g\n", i, t->out_adj[p], t->out_w[p]);
        }
    if (ferror(fp))
        return cm_error(CM_EIO, "write error");
    return CM_OK;
}

/* ---- any topology --------------------------------------------------- */

cm_status cm_topo_write(const cm_topo *t, FILE *fp, const char *comment)
{
    if (t->directed) {
        cm_status st = write_header_directed(t, fp, comment);
        return st == CM_OK ? write_arcs(t, fp) : st;
    }
    cm_topo_write_comment(fp, comment);
    for (size_t i = 0; i < t->n; i++) {
        if (t->self) { /* only a W_ii the reader would not recompute */
            double row = 0.0;
            for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
                row += t->adj_w[p];
            if (t->self[i] != 1.0 - row)
                fprintf(fp, "%zu %zu %.17g\n", i, i, t->self[i]);
        }
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
            if (t->adj[p] < i)
                continue;
            if (t->adj_w)
                fprintf(fp, "%zu %zu %.17g\n", i, t->adj[p], t->adj_w[p]);
            else
                fprintf(fp, "%zu %zu\n", i, t->adj[p]);
        }
    }
    if (ferror(fp))
        return cm_error(CM_EIO, "write error");
    return CM_OK;
}

cm_status cm_topo_save(const cm_topo *t, const char *path,
                       const char *comment)
{
    if (strcmp(path, "-") == 0) {
        cm_status st = cm_topo_write(t, stdout, comment);
        if (st == CM_OK && fflush(stdout) != 0)
            st = cm_error(CM_EIO, "write error on standard output");
        return st;
    }
    cm_afile f;
    cm_status st = cm_atomic_open(&f, path);
    if (st != CM_OK)
        return st;
    st = cm_topo_write(t, f.fp, comment);
    if (st != CM_OK)
        return cm_atomic_fail(&f);
    return cm_atomic_commit(&f);
}

/* cm_topo_header: what a topology file's `#` header says, read once, and
 * the one writer of that header (cm_topo_header_format).
 *
 * The reader (cm_topo_read_ex, cm_topo_seq_read_ex with
 * cm_topo_read_opts.header set) fills this struct while it reads the
 * graph, so a program that needs the header (the trainer's notices and
 * clique averaging, topogen eval) takes it from here instead of opening
 * the file again. Lines it knows:
 *
 *   # topogen 2 n=N kind=K directed=1 s=S local=L ...   tokens: n, kind,
 *                       directed, and for kind=epidemic s (or d) and
 *                       local (or epidemic=local|oracle)
 *   # settings: -n 64 -d 4 ...     the flags that made the file
 *   # labels: dataset=... seed=...  the partition it was learned for
 *                                   (cm_labels_identity_get reads a key)
 *   # cliques: c_0 c_1 ... c_{n-1} each node's D-Cliques clique
 *   any other comment line          a note
 *
 * The header is the comment lines before the first edge line (before the
 * first `# round` section of a sequence).
 *
 * Rules (a file that breaks one is refused naming file and line, exit 1):
 * a key given twice with different values (n=, s=, d=, local=,
 * directed=); local= other than 0 or 1 and s= that is not a count in an
 * epidemic header; a `# cliques:` line with other than n clique ids below
 * n, or a second one.
 */
#ifndef CM_TOPO_HEADER_H
#define CM_TOPO_HEADER_H

#include <stddef.h>

#include "cm_status.h"

typedef struct {
    char kind[32];       /* kind=K of the header ("" when none) */
    int directed;        /* directed=1 seen */
    int epidemic;        /* kind=epidemic */
    size_t epi_s;        /* epidemic: peers per node per round (s=, d=) */
    int epi_local;       /* epidemic: 1 EL-Local, 0 EL-Oracle */
    int weighted;        /* the file gave the weights W_ij (every round
                            of a sequence does) */
    char *settings;      /* `# settings:` text after the colon, or NULL */
    char *labels;        /* `# labels:` identity (key=value words), or NULL */
    size_t *cliques;     /* [n_cliques] each node's clique, or NULL */
    size_t n_cliques;    /* ids on the `# cliques:` line */
    size_t cliques_line; /* its 1-based line (0: none) */
    char *notes;         /* every other comment line, '\n'-separated, or
                            NULL */
    char *text;          /* the header verbatim: its comment lines ('#'
                            included, line ends dropped), '\n'-separated,
                            or NULL */
    int closed;          /* the reader's: 1 once the first edge line is
                            read (later comments are not header) */
    /* what the writer puts on the first line; the reader leaves them
     * empty (the graph carries n) */
    const char *generator; /* "topogen 2" (NULL: the bare line a directed
                              file needs, `directed=1 n=N ...`) */
    size_t n, d;         /* nodes, degree (n=, d=) */
    const char *tokens;  /* the line's other key=value words, or NULL */
    size_t labels_at;    /* note lines written before the labels line */
} cm_topo_header;

/* Sets every field to empty. */
void cm_topo_header_init(cm_topo_header *h);

/* Frees what h owns and re-initializes it. Accepts NULL. */
void cm_topo_header_destroy(cm_topo_header *h);

/* Takes one comment line (the text after '#', NUL-terminated, not
 * modified) at line `line` of path into h: settings, labels, cliques
 * (parsed, range-checked later by cm_topo_header_check) and notes; the
 * token line's kind=. CM_EFORMAT "path:line: ..." on a second or
 * malformed `# cliques:` line; CM_ENOMEM. O(length of the line). */
cm_status cm_topo_header_line(cm_topo_header *h, const char *text,
                              const char *path, size_t line);

/* The checks that need the node count n, once the graph is read: a
 * `# cliques:` line holds exactly n ids, each below n. CM_EFORMAT naming
 * path and the line. O(n). */
cm_status cm_topo_header_check(const cm_topo_header *h, size_t n,
                               const char *path);

/* The header h describes as comment text (cm_topo_write's comment): a
 * malloc'ed string of '\n'-separated lines, each starting with '#', no
 * final line end; NULL with CM_ENOMEM set. The lines, in this order:
 *
 *   # GENERATOR n=N d=D kind=K [directed=1] [s=S local=L epidemic=E]
 *     [TOKENS]                    the token line (epidemic: kind=epidemic)
 *   # settings: SETTINGS          when settings is set
 *   # NOTE                        the first labels_at notes
 *   # labels: LABELS              when labels is set
 *   # cliques: c_0 ... c_{n-1}    when cliques is set
 *   # NOTE                        the other notes
 *
 * Without a generator the token line is `# directed=1 n=N` (and `
 * kind=epidemic s=S local=L`), the least a directed file needs. A note
 * that starts with '#' is written as it is. The strings of h are only
 * read: a producer may point them at its own buffers (and then not
 * destroy h). O(length of the text). */
char *cm_topo_header_format(const cm_topo_header *h);

#endif

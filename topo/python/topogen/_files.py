"""topogen._files: the topology file format in pure Python and NumPy.

Reads and writes topogen's edge lists (one round, or a time-varying
sequence of `# round R` sections; ncol is the same lines without
comments), directed files (header token directed=1: a line `a b w` is
the arc a -> b, W_ba = w) and epidemic files (kind=epidemic s=S
local=L: no arcs, a graph per round), with the rules of the C reader
(src/cm_topo_read.c, cm_topo_seq.c, cm_topo_dir.c): 0-based ids, or
1-based when no id is 0 and no n= is declared; self weights implied,
W_ii = 1 - sum_{j != i} W_ij summed in ascending j (the C order, so the
bits are the C reader's); `i i w` lines set W_ii. Checks are the
trainer's (src/cm_mixing.c cm_topo_validate_slem, cm_topo_seq_validate),
with its messages. GraphML and GML are read by libtopogen.
"""
import math
import os
import re

import numpy as np

ROW_TOL = 1e-9           # CM_TOPO_ROW_TOL
SEQ_EIG_TOL = 1e-9       # CM_TOPO_SEQ_EIG_TOL
DENSE_MAX = 4096         # CM_MIXING_DENSE_MAX
ID_MAX = 999999


class FileError(ValueError):
    """A malformed file (TOPOGEN_EFORMAT) or a W that breaks a rule
    (TOPOGEN_ETOPO): str() names the file and line."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _fmt_g(x, p=12):
    return "%.*g" % (p, x)


class Round:
    """One round's W in sparse form: entries (rows[k], cols[k]) = w[k],
    j != i, sorted by (row, col); self[i] = W_ii. directed: W need not be
    symmetric. w is None for an unweighted round."""

    def __init__(self, n, rows, cols, w, self_w, directed):
        self.n = n
        self.rows = np.asarray(rows, dtype=np.int64)
        self.cols = np.asarray(cols, dtype=np.int64)
        self.w = None if w is None else np.asarray(w, dtype=np.float64)
        self.self = None if self_w is None else np.asarray(
            self_w, dtype=np.float64)
        self.directed = directed
        self.ptr = np.zeros(n + 1, dtype=np.int64)
        np.add.at(self.ptr, self.rows + 1, 1)
        np.cumsum(self.ptr, out=self.ptr)

    @property
    def edges(self):
        """Undirected edges, or arcs when directed."""
        return len(self.rows) if self.directed else len(self.rows) // 2

    def degree(self):
        return np.diff(self.ptr)

    def row_sums(self):
        """sum_{j != i} W_ij in ascending j, sequentially (C's order)."""
        if self.w is None:
            return np.zeros(self.n)
        deg = self.degree()
        s = np.zeros(self.n)
        for k in range(int(deg.max()) if self.n and len(deg) else 0):
            live = np.nonzero(deg > k)[0]
            s[live] += self.w[self.ptr[live] + k]
        return s

    def dense(self):
        W = np.zeros((self.n, self.n))
        W[self.rows, self.cols] = self.w
        W[np.arange(self.n), np.arange(self.n)] = self.self
        return W

    def neighbours(self, i):
        a, b = self.ptr[i], self.ptr[i + 1]
        return self.cols[a:b], (None if self.w is None else self.w[a:b])


def _tokens(line):
    """key=value tokens of a comment line."""
    out = {}
    for tok in line.lstrip("#").split():
        k, eq, v = tok.partition("=")
        if eq:
            out[k] = v
    return out


_WEIGHT = re.compile(r"""^\{\s*(?:['"]weight['"]\s*:\s*([^,}\s]+)\s*)?\}$""")


def _number(s, path, line, what):
    try:
        x = float(s)
    except ValueError:
        raise FileError(4, "%s:%d: bad %s '%s'" % (path, line, what, s))
    if not math.isfinite(x):
        raise FileError(4, "%s:%d: %s %s is not finite" % (path, line,
                                                           what, s))
    return x


def _node(s, path, line):
    if not s.isdigit():
        raise FileError(4, "%s:%d: bad node id '%s' (a non-negative "
                        "integer)" % (path, line, s))
    v = int(s)
    if v > ID_MAX:
        raise FileError(4, "%s:%d: node id %d is beyond the limit of %d" % (
            path, line, v, ID_MAX))
    return v


def _records(lines, path):
    """(a, b, w or None, line) of the data lines [(lineno, text)]."""
    recs = []
    for no, text in lines:
        text = text.split("#", 1)[0].strip()
        if not text:
            continue
        f = text.split(None, 2)
        if len(f) < 2:
            raise FileError(4, "%s:%d: expected `i j` or `i j w`, got '%s'"
                            % (path, no, text))
        a, b = _node(f[0], path, no), _node(f[1], path, no)
        w = None
        if len(f) == 3:
            rest = f[2].strip()
            m = _WEIGHT.match(rest)
            if m:
                w = None if m.group(1) is None else _number(
                    m.group(1), path, no, "weight")
            elif len(rest.split()) == 1:
                w = _number(rest, path, no, "weight")
            else:
                raise FileError(4, "%s:%d: expected `i j` or `i j w`, got "
                                "'%s'" % (path, no, text))
        recs.append((a, b, w, no))
    return recs


def _build(recs, path, n_decl, n_line, directed, shift_ok):
    """A Round from records, the C reader's rules."""
    weighted = bool(recs) and recs[0][2] is not None
    for a, b, w, no in recs:
        if (w is not None) != weighted:
            raise FileError(4, "%s:%d: weight %s, but line %d %s (weights "
                            "must be all present or all absent)" % (
                                path, no, "missing" if weighted else "given",
                                recs[0][3],
                                "has one" if weighted else "has none"))
    if not recs and n_decl is None:
        raise FileError(4, "%s: no %s found (empty topology file)" % (
            path, "arcs" if directed else "edges"))
    shifted = 0
    if shift_ok and n_decl is None and recs and all(
            a != 0 and b != 0 for a, b, _, _ in recs):
        shifted = 1
    mx = -1
    norm = []
    for a, b, w, no in recs:
        a, b = a - shifted, b - shifted
        if not directed and a > b:
            a, b = b, a
        norm.append((a, b, w, no))
        mx = max(mx, a, b)
    n = n_decl if n_decl is not None else mx + 1
    for a, b, w, no in norm:
        if max(a, b) >= n:
            raise FileError(4, "%s:%d: node id %d is beyond the node count "
                            "n=%d declared on line %d" % (
                                path, no, max(a, b) + shifted, n, n_line))
    if n == 0:
        raise FileError(4, "%s: declares n=0 nodes" % path)
    norm.sort(key=lambda r: (r[0], r[1], r[3]))
    selfw = np.full(n, np.nan) if weighted else None
    entries = {}
    prev = None
    for a, b, w, no in norm:
        if prev and prev[0] == a and prev[1] == b:
            if weighted and prev[2] != w:
                if a == b:
                    raise FileError(4, "%s:%d: self weight of node %d is "
                                    "%.17g, but line %d gives %.17g" % (
                                        path, no, a, w, prev[3], prev[2]))
                raise FileError(4, "%s:%d: edge %d-%d has weight %.17g, but "
                                "line %d gives %.17g (W must be symmetric)"
                                % (path, no, a, b, w, prev[3], prev[2]))
            continue
        prev = (a, b, w, no)
        if a == b:
            if not weighted:
                raise FileError(4, "%s:%d: self-loop %d %d without a weight "
                                "(self lines are only for weighted files)"
                                % (path, no, a, b))
            selfw[a] = w
            continue
        if directed:
            entries[(b, a)] = w       # arc a -> b: W_ba
        else:
            entries[(a, b)] = w
            entries[(b, a)] = w
    keys = sorted(entries)
    rows = [k[0] for k in keys]
    cols = [k[1] for k in keys]
    if weighted:
        r = Round(n, rows, cols, [entries[k] for k in keys], None, directed)
        implied = 1.0 - r.row_sums()
        r.self = np.where(np.isnan(selfw), implied, selfw)
    elif directed:  # uniform receiver weights: 1 / (in-degree + 1)
        r = Round(n, rows, cols, np.zeros(len(rows)), None, directed)
        d = r.degree().astype(np.float64)
        r.w = 1.0 / (d[r.rows] + 1.0)
        r.self = 1.0 / (d + 1.0)
    else:
        r = Round(n, rows, cols, None, None, directed)
    r.shifted = shifted
    return r


class Parsed:
    """What a file holds: rounds, n, header lines, directed, epidemic
    (s, local) or None."""

    def __init__(self, rounds, n, header, directed, epidemic):
        self.rounds, self.n, self.header = rounds, n, header
        self.directed, self.epidemic = directed, epidemic


def detect(data):
    """'graphml', 'gml' or 'edgelist' from the first non-blank byte."""
    s = data.lstrip()
    if s.startswith(b"<"):
        return "graphml"
    if s[:1].isalpha():
        return "gml"
    return "edgelist"


def parse_edgelist(data, path, ncol=False):
    """Parsed of an edge list or sequence (bytes)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    header, sections, cur = [], [], None
    hdr_tok, hdr_line = {}, {}
    for no, line in enumerate(lines, 1):
        if line.endswith("\r"):
            line = line[:-1]
        if "\r" in line:
            raise FileError(4, "%s:%d: a carriage return inside the line "
                            "(CR line endings? convert with tr '\\r' "
                            "'\\n')" % (path, no))
        s = line.strip()
        if s.startswith("#") and s.lstrip("#").split()[:1] == ["round"]:
            f = s.lstrip("#").split()
            if len(f) < 2 or not f[1].isdigit():
                raise FileError(4, "%s:%d: malformed round header (expected "
                                "`# round R`, R = 0, 1, ...)" % (path, no))
            cur = (int(f[1]), no, _tokens(s), [])
            sections.append(cur)
            continue
        if cur is None:
            if s.startswith("#"):
                header.append(line)
                for k, v in _tokens(s).items():
                    hdr_tok.setdefault(k, v)
                    hdr_line.setdefault(k, no)
            elif s:
                cur = (None, 0, {}, [])
                sections.append(cur)
                cur[3].append((no, line))
            continue
        cur[3].append((no, line))
    directed = hdr_tok.get("directed") == "1"
    if "directed" in hdr_tok and hdr_tok["directed"] not in ("0", "1"):
        raise FileError(4, "%s:%d: bad directed=... (must be 0 or 1)" % (
            path, hdr_line["directed"]))

    def n_of(tok, line):
        if "n" not in tok:
            return None
        v = tok["n"]
        if not v.isdigit() or int(v) > ID_MAX + 1:
            raise FileError(4, "%s:%d: bad n=%s" % (path, line, v))
        return int(v)

    n_head = n_of(hdr_tok, hdr_line.get("n", 0))
    epidemic = None
    if hdr_tok.get("kind") == "epidemic":
        s_ = hdr_tok.get("s", "")
        loc = hdr_tok.get("local", "0")
        if not s_.isdigit() or loc not in ("0", "1"):
            raise FileError(4, "%s:%d: an epidemic header needs s=S (S >= 1)"
                            " and local=0 or local=1" % (path, hdr_line.get(
                                "kind", 1)))
        if any(sec[3] and _records(sec[3], path) for sec in sections):
            recs = [r for sec in sections for r in _records(sec[3], path)]
            raise FileError(4, "%s:%d: an epidemic topology (kind=epidemic) "
                            "lists no arcs: each round's graph is drawn from "
                            "the run's seed" % (path, recs[0][3]))
        if n_head is None:
            raise FileError(4, "%s: an epidemic topology needs its node "
                            "count (n=N in the header)" % path)
        s_ = int(s_)
        if n_head < 2 or not 1 <= s_ <= n_head - 1:
            raise FileError(4, "%s:%d: epidemic s=%d needs 1 <= s <= n - 1 "
                            "= %d" % (path, hdr_line["s"], s_,
                                      max(n_head - 1, 0)))
        return Parsed([], n_head, header, True, (s_, int(loc)))
    if not sections or sections[0][0] is None:
        data_lines = sections[0][3] if sections else []
        if len(sections) > 1:
            raise FileError(4, "%s:%d: data line before the first `# round`"
                            " section" % (path, data_lines[0][0]))
        r = _build(_records(data_lines, path), path, n_head,
                   hdr_line.get("n", 0), directed, True)
        return Parsed([r], r.n, header, directed, None)
    if directed:
        raise FileError(4, "%s: a directed file holds one round" % path)
    period = hdr_tok.get("period")
    if period is not None:
        if not period.isdigit():
            raise FileError(4, "%s:%d: bad period=... (a positive integer)"
                            % (path, hdr_line["period"]))
        if int(period) == 0:
            raise FileError(4, "%s:%d: period=0: a sequence needs at least "
                            "one round" % (path, hdr_line["period"]))
        if int(period) != len(sections):
            raise FileError(4, "%s:%d: period=%s, but the file has %d "
                            "rounds" % (path, hdr_line["period"], period,
                                        len(sections)))
    rounds, n = [], None
    for k, (rno, line, tok, body) in enumerate(sections):
        if rno != k:
            raise FileError(4, "%s:%d: round %d where round %d was expected"
                            % (path, line, rno, k))
        nr = n_of(tok, line)
        if nr is None:
            nr = n_head
        r = _build(_records(body, path), path, nr, line, False, False)
        if n is not None and r.n != n:
            raise FileError(4, "%s:%d: round %d has %d nodes, but round 0 "
                            "has %d" % (path, line, k, r.n, n))
        if r.w is None:
            raise FileError(4, "%s:%d: round %d has no weights (every round "
                            "of a sequence is weighted)" % (path, line, k))
        r.line = line
        n = r.n
        rounds.append(r)
    return Parsed(rounds, n, header, False, None)


# ---- the trainer's checks (src/cm_mixing.c, cm_topo_seq.c) -------------

def _components(r, reverse=False):
    """Labels of the components reached along W's nonzeros."""
    n = r.n
    adj = [[] for _ in range(n)]
    a, b = (r.cols, r.rows) if reverse else (r.rows, r.cols)
    for x, y in zip(a.tolist(), b.tolist()):
        adj[x].append(y)
    comp = [-1] * n
    c = 0
    for s in range(n):
        if comp[s] >= 0:
            continue
        stack = [s]
        comp[s] = c
        while stack:
            x = stack.pop()
            for y in adj[x]:
                if comp[y] < 0:
                    comp[y] = c
                    stack.append(y)
        c += 1
    return comp, c


def _check_stochastic(r, name):
    if r.directed:
        return _check_doubly(r, name)
    s = r.self + r.row_sums()
    bad = np.nonzero(~(np.abs(s - 1.0) <= ROW_TOL))[0]
    if len(bad):
        i = int(bad[0])
        raise FileError(5, "%s: row %d of W sums to %s, not 1 (within %g): "
                        "W 1 = 1 is required" % (name, i, _fmt_g(s[i]),
                                                  ROW_TOL))


def _check_doubly(r, name):
    rs = r.self + r.row_sums()
    cs = r.self.copy()
    np.add.at(cs, r.cols, r.w)
    for i in range(r.n):
        if not abs(rs[i] - 1.0) <= ROW_TOL:
            raise FileError(5, "%s: node %d receives %s in total (row %d of "
                            "W, its self weight included), not 1 (within "
                            "%g): W must be doubly stochastic" % (
                                name, i, _fmt_g(rs[i]), i, ROW_TOL))
        if not abs(cs[i] - 1.0) <= ROW_TOL:
            raise FileError(5, "%s: node %d gives %s in total (its self "
                            "weight plus the weights its receivers give it: "
                            "column %d of W), not 1 (within %g): W must be "
                            "doubly stochastic" % (name, i, _fmt_g(cs[i]), i,
                                                   ROW_TOL))


def _need_dense(n, what):
    if n > DENSE_MAX:
        raise FileError(1, "%s of a %d-node graph: above %d nodes the "
                        "check needs libtopogen's sparse eigensolver "
                        "(install libtopogen: `make install`, or set "
                        "TOPOGEN_LIBRARY)" % (what, n, DENSE_MAX))


def slem(r):
    """||W - 11^T/n||_2 of round r (dense)."""
    _need_dense(r.n, "SLEM")
    W = r.dense() - 1.0 / r.n
    if r.directed:
        return float(np.linalg.norm(W, 2))
    ev = np.linalg.eigvalsh(W)
    return float(max(abs(ev[0]), abs(ev[-1])))


def validate(parsed, path):
    """The trainer's checks of a weighted file, with its messages."""
    if parsed.epidemic:
        return
    rs = parsed.rounds
    if len(rs) == 1:
        return validate_round(rs[0], path)
    for k, r in enumerate(rs):
        name = "%s: round %d (line %d)" % (path, k, r.line)
        _check_stochastic(r, name)
        _need_dense(r.n, "spectrum")
        ev = np.linalg.eigvalsh(r.dense())
        lo, hi = ev[0], ev[-1]
        if hi > 1.0 + SEQ_EIG_TOL or lo < -1.0 - SEQ_EIG_TOL:
            raise FileError(5, "%s: W has the eigenvalue %s, outside [-1, 1] "
                            "(gossip with it would amplify disagreement)" % (
                                name, _fmt_g(hi if hi > 1.0 + SEQ_EIG_TOL
                                             else lo, 6)))
    n = parsed.n
    P = np.eye(n)
    for r in rs:
        P = r.dense() @ P
    pn = float(np.linalg.norm(P - 1.0 / n, 2))
    if not pn < 1.0 - SEQ_EIG_TOL:
        raise FileError(5, "%s: the sequence does not mix: the product of "
                        "its %d rounds has ||W_%d ... W_0 - 11^T/n||_2 = %s "
                        "(must be below 1; is the union of the rounds' "
                        "graphs connected?)" % (path, len(rs), len(rs) - 1,
                                               _fmt_g(pn, 6)))


def validate_round(r, path):
    if r.n <= 1:
        return
    if r.directed:
        _check_doubly(r, path)
        for rev in (False, True):
            comp, c = _components(r, rev)
            if c > 1:
                miss = comp.index(next(x for x in comp if x != 0))
                raise FileError(5, "%s: the directed graph is not strongly "
                                "connected (node %d is not reached %s node 0)"
                                % (path, miss,
                                   "from" if rev else "by arcs into"))
        nonneg = bool(np.all(r.w >= 0.0))
        diag = bool(np.any(r.self > 0.0))
        if nonneg and diag and r.n > DENSE_MAX:
            return
        s = slem(r)
        if not (nonneg and diag) and not s < 1.0 - 1e-12:
            raise FileError(5, "%s: W does not mix: ||W - 11^T/n||_2 is %s "
                            "(must be below 1 when W has negative weights or "
                            "no positive self weight)" % (path, _fmt_g(s, 6)))
        return
    deg = r.degree()
    zero = np.nonzero(deg == 0)[0]
    if len(zero):
        raise FileError(5, "%s: node %d has no edges (the graph is "
                        "disconnected)" % (path, int(zero[0])))
    comp, c = _components(r)
    if c > 1:
        reached = comp.count(0)
        miss = next(i for i, x in enumerate(comp) if x != 0)
        raise FileError(5, "%s: the graph is disconnected (%d components; "
                        "node 0 reaches %d of %d nodes; node %d is not "
                        "reached)" % (path, c, reached, r.n, miss))
    if r.w is None:
        return
    _check_stochastic(r, path)
    if r.n > DENSE_MAX:
        if np.all(r.self > 0) and np.all(r.w >= 0):
            return
        _need_dense(r.n, "SLEM")
    s = slem(r)
    if not s < 1.0 - 1e-12:
        raise FileError(5, "%s: W does not mix: its second-largest eigenvalue"
                        " modulus ||W - 11^T/n||_2 is %s (must be below 1)%s"
                        % (path, _fmt_g(s, 6),
                           "; W has negative edge weights, which are allowed "
                           "only while it mixes" if np.any(r.w < 0) else ""))


# ---- weights (pure rules; laplacian and fdla need the library's bits) --

def set_weights(r, rule):
    """A new weighted undirected Round of r's graph with rule mh or
    maxdeg (pure), or laplacian (dense numpy spectrum: the library's
    weights may differ in the last bits)."""
    deg = r.degree().astype(np.float64)
    if rule == "mh":
        w = 1.0 / (1.0 + np.maximum(deg[r.rows], deg[r.cols]))
    elif rule == "maxdeg":
        w = np.full(len(r.rows), 1.0 / (1.0 + deg.max()))
    elif rule == "laplacian":
        _need_dense(r.n, "laplacian weights")
        L = np.diag(deg)
        L[r.rows, r.cols] = -1.0
        ev = np.linalg.eigvalsh(L)
        w = np.full(len(r.rows), 2.0 / (ev[1] + ev[-1]))
    else:
        raise ValueError("unknown weight rule '%s' (expected laplacian, mh, "
                         "maxdeg; fdla needs libtopogen)" % rule)
    out = Round(r.n, r.rows, r.cols, w, None, False)
    out.self = 1.0 - out.row_sums()
    return out


# ---- writer (src/cm_topo.c cm_topo_write, cm_topo_seq_save) ------------

def _comment_lines(header):
    out = []
    for line in header:
        if line:
            out.append(line if line.startswith("#") else "# " + line)
    return out


def _round_lines(r, out):
    rs = r.row_sums()
    for i in range(r.n):
        a, b = r.ptr[i], r.ptr[i + 1]
        if r.self is not None and r.self[i] != 1.0 - rs[i]:
            out.append("%d %d %.17g" % (i, i, r.self[i]))
        if r.directed:
            continue
        for p in range(a, b):
            j = r.cols[p]
            if j < i:
                continue
            out.append("%d %d %.17g" % (i, j, r.w[p]) if r.w is not None
                       else "%d %d" % (i, j))
    if r.directed:  # arcs a -> b by sender, ascending receiver
        order = np.lexsort((r.rows, r.cols))
        for k in order:
            out.append("%d %d %.17g" % (r.cols[k], r.rows[k], r.w[k]))


def write_text(rounds, n, header, directed, epidemic, ncol=False):
    """The edge-list text of rounds (a list of Round)."""
    out = []
    if not ncol:
        hdr = _comment_lines(header)
        if directed:
            joined = "\n".join(hdr)
            has_n = re.search(r"(^|[\s#])n=", joined) is not None
            if ("directed=1" not in joined or not has_n or
                    (epidemic and "kind=epidemic" not in joined)):
                extra = "# directed=1 n=%d" % n
                if epidemic and "kind=epidemic" not in joined:
                    extra += " kind=epidemic s=%d local=%d" % epidemic
                out.append(extra)
        elif len(rounds) == 1 and not re.search(r"(^|[\s#])n=",
                                                 "\n".join(hdr)):
            out.append("# n=%d" % n)
        out.extend(hdr)
    if epidemic:
        return "\n".join(out) + "\n" if out else ""
    if len(rounds) == 1:
        _round_lines(rounds[0], out)
    else:
        for k, r in enumerate(rounds):
            out.append("# round %d n=%d" % (k, n))
            _round_lines(r, out)
    return "\n".join(out) + "\n" if out else ""


def atomic_write(path, data):
    """Writes data (str) to path through a temporary file and rename;
    "-" is stdout."""
    if path == "-":
        import sys
        sys.stdout.write(data)
        sys.stdout.flush()
        return
    import tempfile
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.",
                               dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(data)
        os.chmod(tmp, 0o644 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m

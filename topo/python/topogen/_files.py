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

try:
    import numpy as np
except ImportError:  # the builders and eval work without it
    np = None

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

    def compensated_rows(self):
        """W_ii + sum_{j != i} W_ij, Kahan-compensated from W_ii in
        ascending j (cm_topo_check_stochastic's sum)."""
        s = self.self.copy()
        c = np.zeros(self.n)
        deg = self.degree()
        for k in range(int(deg.max()) if self.n and len(self.rows) else 0):
            live = np.nonzero(deg > k)[0]
            y = self.w[self.ptr[live] + k] - c[live]
            u = s[live] + y
            c[live] = (u - s[live]) - y
            s[live] = u
        return s

    def dense(self):
        W = np.zeros((self.n, self.n))
        W[self.rows, self.cols] = self.w
        W[np.arange(self.n), np.arange(self.n)] = self.self
        return W

    def neighbours(self, i):
        a, b = self.ptr[i], self.ptr[i + 1]
        return self.cols[a:b], (None if self.w is None else self.w[a:b])


MAX_NODES = 1000000      # CM_TOPO_MAX_NODES
_SPACE = " \t\n\v\f\r"


def _isprint_or_space(c):
    return " " <= c <= "~" or c in _SPACE


def _strtoull_digits(s):
    """(value, rest) of the leading decimal digits of s."""
    k = 0
    while k < len(s) and s[k].isdigit() and s[k] in "0123456789":
        k += 1
    return int(s[:k]) if k else None, s[k:]


def _strtod(s):
    """(value, rest) as C's strtod: the longest number prefix of s
    (after leading whitespace), or (None, s)."""
    m = _FLOAT.match(s)
    if not m or not m.group(1):
        return None, s
    txt = m.group(1)
    try:
        if txt.lower().lstrip("+-").startswith("0x"):
            return float.fromhex(txt), s[m.end():]
        return float(txt), s[m.end():]
    except ValueError:
        return None, s


_FLOAT = re.compile(r"\s*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|"
                    r"\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?|"
                    r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|"
                    r"inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?))",
                    re.IGNORECASE)


def _parse_id(tok):
    if tok.startswith("-"):
        return None, "negative node id"
    if not tok[:1].isdigit() or not tok[:1] in "0123456789":
        return None, "node id is not a non-negative integer"
    v, rest = _strtoull_digits(tok)
    if rest:
        return None, "node id is not a non-negative integer"
    if v >= MAX_NODES:
        return None, "node id too large (ids run from 0 to 999999)"
    return v, None


def _parse_weight(tok):
    v, rest = _strtod(tok)
    if v is None or rest:
        return None, "weight is not a number"
    if not math.isfinite(v):
        return None, "weight is not finite"
    return v, None


def _parse_nx_dict(rest):
    """(weight or None, error or None) of a networkx attribute dict."""
    p = rest.lstrip(_SPACE)
    if not p.startswith("{"):
        return None, "malformed attribute dictionary"
    p = p[1:].lstrip(_SPACE)
    w = None
    if p.startswith("}"):
        p = p[1:]
    else:
        if not (p.startswith("'weight'") or p.startswith('"weight"')):
            return None, "only a 'weight' attribute is understood"
        p = p[8:].lstrip(_SPACE)
        if not p.startswith(":"):
            return None, "malformed attribute dictionary"
        v, after = _strtod(p[1:])
        if v is None or not math.isfinite(v):
            return None, "weight is not a finite number"
        p = after.lstrip(_SPACE)
        if not p.startswith("}"):
            return None, "only a 'weight' attribute is understood"
        p = p[1:]
        w = v
    if p.lstrip(_SPACE):
        return None, "trailing text after the attribute dictionary"
    return w, None


def _epi_bad(h, lineno, why):
    """epi_bad of cm_topo_read.c: the first bad epidemic key, refused when
    the file is kind=epidemic."""
    if not h.bad_line:
        h.bad_line, h.bad_why = lineno, why


def _epi_set(h, key, v, lineno, twice):
    """epi_set of cm_topo_read.c: a repeated key must agree."""
    if key in h.set_keys and getattr(h, key) != v:
        _epi_bad(h, lineno, twice)
    setattr(h, key, v)
    h.set_keys.add(key)


class _Head:
    def __init__(self):
        self.directed = self.epidemic = self.s = self.local = self.d = 0
        self.bad_line, self.bad_why, self.set_keys = 0, None, set()
        self.line = 0
        self.n = None
        self.n_line = 0


def _scan_comment(text, h, lineno):
    """scan_comment of cm_topo_read.c: 0, or -1 bad n=, -2 contradicting
    n=, -3 bad directed=."""
    for tok in re.split(r"[ \t]+", text):
        if not tok:
            continue
        if tok.startswith("directed="):
            v, rest = _strtoull_digits(tok[9:])
            if v is None or rest or v > 1:
                return -3
            h.directed = v
            h.line = h.line or lineno
            continue
        if tok == "kind=epidemic":
            h.epidemic = 1
            h.line = h.line or lineno
            continue
        if tok.startswith("s="):
            v, rest = _strtoull_digits(tok[2:])
            if v is not None and not rest and v <= MAX_NODES:
                _epi_set(h, "s", v, lineno, "s= given twice with different "
                         "values")
            else:
                _epi_bad(h, lineno, "bad s=... (the peers each node sends "
                         "to per round: a positive integer)")
            continue
        if (tok.startswith("local=") or tok == "epidemic=local" or
                tok == "epidemic=oracle"):
            if tok[0] == "e":
                v = int(tok[9] == "l")
            else:
                v, rest = _strtoull_digits(tok[6:])
                if v is None or rest or v > 1:
                    _epi_bad(h, lineno, "bad local=... (must be 0, "
                             "EL-Oracle, or 1, EL-Local)")
                    continue
            _epi_set(h, "local", v, lineno, "local= (or epidemic=) given "
                     "twice with different values")
            continue
        if tok.startswith("d="):
            v, rest = _strtoull_digits(tok[2:])
            if v is not None and not rest and v <= MAX_NODES:
                _epi_set(h, "d", v, lineno, "d= given twice with different "
                         "values")
            continue
        if not tok.startswith("n="):
            continue
        v, rest = _strtoull_digits(tok[2:])
        if v is None or rest or v > MAX_NODES:
            return -1
        if h.n is not None and h.n != v:
            return -2
        if h.n is None:
            h.n_line = lineno
        h.n = v
    return 0


def _read_stream(lines, path, first_line, base_auto):
    """cm_topo_read_stream on edge-list lines (str, latin-1 decoded bytes):
    a Round, or ("epidemic", n, s, local)."""
    h = _Head()
    recs = []
    for k, line in enumerate(lines):
        no = first_line + k + 1
        if "\0" in line:
            raise FileError(4, "%s:%d: binary data (NUL byte); not a topology "
                            "text file" % (path, no))
        line = line.rstrip("\r\n")
        if "\r" in line:
            raise FileError(4, "%s:%d: carriage return inside a line: CR-only "
                            "line endings (old Mac style) are not read; "
                            "convert them to newlines (tr '\\r' '\\n')" % (
                                path, no))
        p = line.lstrip(_SPACE)
        if not p:
            continue
        if p[0] == "#":
            rc = _scan_comment(p[1:], h, no)
            if rc == -3:
                raise FileError(4, "%s:%d: bad directed=... (must be 0 or 1)"
                                % (path, no))
            if rc == -1:
                raise FileError(4, "%s:%d: bad node count in n=... (must be "
                                "an integer from 0 to %d)" % (path, no,
                                                              MAX_NODES))
            if rc == -2:
                raise FileError(4, "%s:%d: n=... contradicts the node count "
                                "declared on line %d" % (path, no, h.n_line))
            continue
        for c in p:
            if not _isprint_or_space(c):
                raise FileError(4, "%s:%d: unexpected control or non-ASCII "
                                "byte 0x%02x; not a topology text file" % (
                                    path, no, ord(c)))
        f, rest, q = [], None, p
        while q and len(f) < 3:
            q = q.lstrip(_SPACE)
            if not q:
                break
            if len(f) == 2 and q[0] == "{":
                rest = q
                break
            m = re.match(r"[^ \t\n\v\f\r]+", q)
            f.append(m.group(0))
            q = q[m.end():]
            if q:
                q = q[1:]
        if rest is None and q.lstrip(_SPACE):
            raise FileError(4, "%s:%d: too many fields (expected `i j` or "
                            "`i j w`)" % (path, no))
        if len(f) < 2:
            raise FileError(4, "%s:%d: missing field (expected `i j` or "
                            "`i j w`)" % (path, no))
        a, why = _parse_id(f[0])
        if why is None:
            b, why = _parse_id(f[1])
        if why:
            raise FileError(4, "%s:%d: %s" % (path, no, why))
        w = None
        if rest is not None:
            w, why = _parse_nx_dict(rest)
            if why:
                raise FileError(4, "%s:%d: %s" % (path, no, why))
        elif len(f) == 3:
            w, why = _parse_weight(f[2])
            if why:
                raise FileError(4, "%s:%d: %s" % (path, no, why))
        recs.append((a, b, w, no))
    if h.epidemic and h.bad_line:
        raise FileError(4, "%s:%d: %s" % (path, h.bad_line, h.bad_why))
    if h.epidemic and h.s == 0:
        h.s = h.d
    if h.epidemic and h.s == 0:
        raise FileError(4, "%s:%d: kind=epidemic needs s=S (or d=S: the "
                        "number of peers each node sends to per round)" % (
                            path, h.line))
    if h.epidemic:
        if recs:
            raise FileError(4, "%s:%d: an epidemic topology (kind=epidemic) "
                            "lists no arcs: each round's graph is drawn from "
                            "the run's seed" % (path, recs[0][3]))
        if h.n is None:
            raise FileError(4, "%s: an epidemic topology needs its node count "
                            "(n=N in the header)" % path)
        if h.n < 2 or h.s > h.n - 1:
            raise FileError(4, "%s:%d: epidemic s=%d needs 1 <= s <= n - 1 = "
                            "%d" % (path, h.n_line, h.s, max(h.n - 1, 0)))
        return ("epidemic", h.n, h.s, h.local)
    if h.directed:
        return _build_directed(recs, path, h.n, h.n_line, base_auto)
    return _build(recs, path, h.n, h.n_line, base_auto)


def _weighted_of(recs, path):
    weighted = bool(recs) and recs[0][2] is not None
    for a, b, w, no in recs:
        if (w is not None) != weighted:
            raise FileError(4, "%s:%d: weight %s, but line %d %s (weights "
                            "must be all present or all absent)" % (
                                path, no, "missing" if weighted else "given",
                                recs[0][3],
                                "has one" if weighted else "has none"))
    return weighted


def _build(recs, path, n_decl, n_line, base_auto):
    """cm_topo_from_recs: an undirected Round."""
    recs = [(min(a, b), max(a, b), w, no) for a, b, w, no in recs]
    if not recs and n_decl is None:
        raise FileError(4, "%s: no edges found (empty topology file)" % path)
    weighted = _weighted_of(recs, path)
    shifted = 0
    if base_auto and n_decl is None and recs and all(a != 0
                                                     for a, _, _, _ in recs):
        recs = [(a - 1, b - 1, w, no) for a, b, w, no in recs]
        shifted = 1
    n = n_decl if n_decl is not None else (
        max(b for _, b, _, _ in recs) + 1 if recs else 0)
    for a, b, w, no in recs:
        if b >= n:
            raise FileError(4, "%s:%d: node id %d is beyond the node count "
                            "n=%d declared on line %d" % (
                                path, no, b + shifted, n, n_line))
    if n == 0:
        raise FileError(4, "%s: declares n=0 nodes" % path)
    recs.sort(key=lambda r: (r[0], r[1], r[3]))
    selfw = np.full(n, np.nan) if weighted else None
    entries = {}
    prev = None
    for r in recs:
        a, b, w, no = r
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
        prev = r
        if a == b:
            if not weighted:
                raise FileError(4, "%s:%d: self-loop %d %d without a weight "
                                "(self lines are only for weighted files)"
                                % (path, no, a, b))
            selfw[a] = w
            continue
        entries[(a, b)] = w
        entries[(b, a)] = w
    keys = sorted(entries)
    rows = [k[0] for k in keys]
    cols = [k[1] for k in keys]
    if weighted:
        r = Round(n, rows, cols, [entries[k] for k in keys], None, False)
        implied = 1.0 - r.row_sums()
        r.self = np.where(np.isnan(selfw), implied, selfw)
    else:
        r = Round(n, rows, cols, None, None, False)
    r.shifted = shifted
    return r


def _build_directed(recs, path, n_decl, n_line, base_auto):
    """cm_topo_from_arc_recs: a directed Round (arc a -> b: W_ba)."""
    if not recs and n_decl is None:
        raise FileError(4, "%s: no arcs found (empty topology file)" % path)
    weighted = _weighted_of(recs, path)
    shifted = 0
    if base_auto and n_decl is None and recs and all(
            a != 0 and b != 0 for a, b, _, _ in recs):
        recs = [(a - 1, b - 1, w, no) for a, b, w, no in recs]
        shifted = 1
    n = n_decl if n_decl is not None else (
        max(max(a, b) for a, b, _, _ in recs) + 1 if recs else 0)
    for a, b, w, no in recs:
        if max(a, b) >= n:
            raise FileError(4, "%s:%d: node id %d is beyond the node count "
                            "n=%d declared on line %d" % (
                                path, no, max(a, b) + shifted, n, n_line))
    if n == 0:
        raise FileError(4, "%s: declares n=0 nodes" % path)
    recs = sorted(recs, key=lambda r: (r[0], r[1], r[3]))
    arcs, selfs = {}, {}
    for k, (a, b, w, no) in enumerate(recs):
        if k and recs[k - 1][0] == a and recs[k - 1][1] == b:
            if a == b:
                raise FileError(4, "%s:%d: second self weight of node %d "
                                "(line %d gives one)" % (path, no, a,
                                                         recs[k - 1][3]))
            raise FileError(4, "%s:%d: duplicate arc %d -> %d (line %d lists "
                            "it)" % (path, no, a, b, recs[k - 1][3]))
        if a == b:
            if not weighted:
                raise FileError(4, "%s:%d: self-loop %d %d without a weight "
                                "(self lines are only for weighted files)"
                                % (path, no, a, b))
            selfs[a] = w
            continue
        arcs[(b, a)] = w
    keys = sorted(arcs)
    rows = [k[0] for k in keys]
    cols = [k[1] for k in keys]
    r = Round(n, rows, cols, np.zeros(len(rows)), None, True)
    if weighted:
        r.w = np.array([arcs[k] for k in keys], dtype=np.float64)
        r.self = 1.0 - r.row_sums()
        for i, w in selfs.items():
            r.self[i] = w
    else:
        d = r.degree().astype(np.float64)
        r.w = 1.0 / (d[r.rows] + 1.0)
        r.self = 1.0 / (d + 1.0)
    r.shifted = shifted
    try:
        _check_doubly(r, path)
    except FileError as e:
        raise FileError(4, str(e))
    return r


class Parsed:
    """What a file holds: rounds, n, header lines, directed, epidemic
    (s, local) or None."""

    def __init__(self, rounds, n, header, directed, epidemic):
        self.rounds, self.n, self.header = rounds, n, header
        self.directed, self.epidemic = directed, epidemic


def detect(data):
    """'graphml', 'gml' or 'edgelist' from the first non-blank byte after
    a UTF-8 byte-order mark, as cm_topo_read.c's detect()."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    s = data.lstrip()
    if s.startswith(b"<"):
        return "graphml"
    if s[:1].isalpha():
        return "gml"
    return "edgelist"


def _round_header(line):
    """round_header of cm_topo_seq.c: R, -1 (malformed) or None."""
    m = re.match(r"[ \t]*#[ \t]*round(.*)$", line, re.S)
    if not m:
        return None
    rest = m.group(1)
    if rest and rest[0] not in _SPACE:
        return None
    rest = rest.lstrip(" \t")
    v, after = _strtoull_digits(rest)
    if v is None or v > 1000000000 or (after and after[0] not in _SPACE):
        return -1
    return v


def _comment_token(line, key):
    """comment_token of cm_topo_seq.c: value, -1 (malformed) or None."""
    for m in re.finditer(re.escape(key), line):
        q = m.start()
        if q > 0 and line[q - 1] not in _SPACE:
            continue
        v, _ = _strtoull_digits(line[m.end():])
        if v is None or v > 1000000000:
            return -1
        return v
    return None


def parse_edgelist(data, path, ncol=False):
    """Parsed of an edge list or sequence (bytes), as cm_topo_seq_read_ex
    reads it."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith(b"\xef"):
        raise FileError(4, "%s:1: unexpected non-ASCII byte 0xef that does "
                        "not start a UTF-8 byte-order mark; not a topology "
                        "text file" % path)
    # topogen ends every edge list with a line end: one without was cut
    if data and not data.endswith(b"\n") and data.startswith(b"# topogen "):
        raise FileError(4, "%s:%d: the file ends inside a line: a file "
                        "topogen wrote ends with a line end, so this one is "
                        "truncated (copy or write it again)" % (
                            path, data.count(b"\n") + 1))
    text = data.decode("latin-1")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    secs, period, pline, n_head = [], None, 0, None
    for no, line in enumerate(lines, 1):
        r = _round_header(line)
        if r == -1:
            raise FileError(4, "%s:%d: malformed round header (expected "
                            "`# round R`, R = 0, 1, ...)" % (path, no))
        if r is not None:
            secs.append((no - 1, r))
        elif not secs:
            q = line.lstrip(_SPACE)
            if q.startswith("#"):
                v = _comment_token(q[1:], "period=")
                if v == -1:
                    raise FileError(4, "%s:%d: bad period=... (a positive "
                                    "integer)" % (path, no))
                if v is not None:
                    period, pline = v, no
                v = _comment_token(q[1:], "n=")
                if v is not None and v != -1:
                    n_head = v
    header = []
    for line in lines[:secs[0][0] if secs else len(lines)]:
        if line.lstrip(_SPACE).startswith("#"):
            header.append(line.rstrip("\r"))
        elif line.strip(_SPACE):
            break
    if pline and period == 0:
        raise FileError(4, "%s:%d: period=0: a sequence needs at least one "
                        "round" % (path, pline))
    if pline and period != (len(secs) or 1):
        raise FileError(4, "%s:%d: period=%d, but the file has %d `# round` "
                        "section%s" % (path, pline, period, len(secs),
                                       "" if len(secs) == 1 else "s"))
    if not secs:
        r = _read_stream(lines, path, 0, True)
        if isinstance(r, tuple):
            return Parsed([], r[1], header, True, (r[2], r[3]))
        return Parsed([r], r.n, header, r.directed, None)
    for no, line in enumerate(lines[:secs[0][0]], 1):
        q = line.lstrip(_SPACE)
        if q and q[0] != "#":
            raise FileError(4, "%s:%d: data line before the first `# round` "
                            "header (line %d)" % (path, no, secs[0][0] + 1))
    rounds = []
    for k, (start, rno) in enumerate(secs):
        if rno != k:
            raise FileError(4, "%s:%d: round %d where round %d was expected "
                            "(sections go 0, 1, ..., period-1)" % (
                                path, start + 1, rno, k))
        end = secs[k + 1][0] if k + 1 < len(secs) else len(lines)
        try:
            r = _read_stream(lines[start:end], path, start, False)
        except FileError as e:
            raise FileError(e.status, "round %d: %s" % (k, e))
        if isinstance(r, tuple) and len(secs) == 1:
            return Parsed([], r[1], header, True, (r[2], r[3]))
        if isinstance(r, tuple):
            raise FileError(4, "%s:%d: round %d: an epidemic round in a "
                            "sequence" % (path, start + 1, k))
        if rounds and r.n != rounds[0].n:
            raise FileError(4, "%s:%d: round %d has %d nodes, but round 0 "
                            "(line %d) has %d (every round must have the "
                            "same n)" % (path, start + 1, k, r.n,
                                         secs[0][0] + 1, rounds[0].n))
        if n_head and r.n != n_head:
            raise FileError(4, "%s:%d: round %d has %d nodes, but the file "
                            "header declares n=%d" % (path, start + 1, k,
                                                      r.n, n_head))
        if len(secs) > 1 and r.w is None:
            raise FileError(4, "%s:%d: round %d has no weights (every round "
                            "of a sequence needs its W: `i j w` lines)" % (
                                path, start + 1, k))
        r.line = start + 1
        rounds.append(r)
    return Parsed(rounds, rounds[0].n, header,
                  any(r.directed for r in rounds), None)


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
    s = r.compensated_rows()
    bad = np.nonzero(~(np.abs(s - 1.0) <= ROW_TOL))[0]
    if len(bad):
        i = int(bad[0])
        raise FileError(5, "%s: row %d of W sums to %s, not 1 (within %g): "
                        "W 1 = 1 is required" % (name, i, _fmt_g(s[i]),
                                                  ROW_TOL))


def _check_doubly(r, name):
    """cm_topo_check_doubly: compensated row and column sums, node by node
    (row i, then column i)."""
    rs = r.compensated_rows()
    order = np.lexsort((r.rows, r.cols))       # out-lists: by sender
    t = Round(r.n, r.cols[order], r.rows[order], r.w[order], r.self, True)
    cs = t.compensated_rows()
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
    """cm_topo_write's lines of one round: per node i ascending, its
    `i i w` line when W_ii is not what the reader recomputes, then its
    edges i < j (undirected) or its arcs i -> j (directed: W_ji)."""
    rs = r.row_sums()
    if r.directed:
        order = np.lexsort((r.rows, r.cols))   # by sender, then receiver
        senders, receivers, ws = r.cols[order], r.rows[order], r.w[order]
        starts = np.searchsorted(senders, np.arange(r.n + 1))
    for i in range(r.n):
        if r.self is not None and r.self[i] != 1.0 - rs[i]:
            out.append("%d %d %.17g" % (i, i, r.self[i]))
        if r.directed:
            for k in range(starts[i], starts[i + 1]):
                out.append("%d %d %.17g" % (i, receivers[k], ws[k]))
            continue
        for p in range(r.ptr[i], r.ptr[i + 1]):
            j = r.cols[p]
            if j < i:
                continue
            out.append("%d %d %.17g" % (i, j, r.w[p]) if r.w is not None
                       else "%d %d" % (i, j))


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

"""topogen._seq: the finite-time exact sequences of topo/kinds/tg_seq.c
in pure Python: Base-(k+1) (Takezawa et al. 2023; `--kind base -d k`)
and the one-peer exponential graph (base 2), built as the C code builds
them (the same rounds, edges, weights and self weights, subtracted in
the same order), and the header's product norm computed as
src/spectra/cm_topo_seq.c computes it (the product row by row, then
the system's BLAS dgemm through ctypes, then cm_eigen's eigenvalues as
topogen/_linalg.py ports them), so the
file is `topogen --kind base -n N -d K`'s byte for byte. Dense: n <=
4,096 (the C code's dense limit; beyond it libtopogen).
"""
import ctypes
import ctypes.util
import math

from . import _build, _linalg

MAX_FACTORS = 64
DENSE_MAX = 4096


class _Round:
    """rb of tg_seq.c: edges in insertion order, self weights 1 - the
    weights subtracted one by one."""

    def __init__(self, n):
        self.n = n
        self.edges = []
        self.self_w = [1.0] * n

    def edge(self, i, j, w):
        self.edges.append((i, j, w))
        self.self_w[i] -= w
        self.self_w[j] -= w


def _smooth_factors(N, b):
    f = []
    x = b
    while x >= 2 and N > 1:
        while N % x == 0 and len(f) < MAX_FACTORS:
            f.append(x)
            N //= x
        x -= 1
    return f if N == 1 else None


def _hhc_round(r, nodes, N, f, l):
    stride = 1
    for q in range(l):
        stride *= f[q]
    w = 1.0 / f[l]
    for x in range(N):
        if (x // stride) % f[l] != 0:
            continue
        for u in range(f[l]):
            for v in range(u + 1, f[l]):
                r.edge(nodes[x + u * stride], nodes[x + v * stride], w)


def _base_digits(N, b):
    p = 0
    while b ** (p + 1) <= N:
        p += 1
    d = {"a": [], "p": [], "size": [], "start": []}
    rest, at = N, 0
    while True:
        bp = b ** p
        if rest >= bp:
            a = rest // bp
            d["a"].append(a)
            d["p"].append(p)
            d["size"].append(a * bp)
            d["start"].append(at)
            at += a * bp
            rest -= a * bp
        if p == 0 or rest == 0:
            break
        p -= 1
    d["L"] = len(d["a"])
    f = _smooth_factors(d["size"][0], b)
    d["h"] = len(f) if f is not None else None
    return d


def _simple_len(N, b):
    f = _smooth_factors(N, b)
    if f is not None:
        return len(f)
    d = _base_digits(N, b)
    return d["h"] + 1 + d["p"][0]


def _simple_round(r, nodes, N, b, t):
    f = _smooth_factors(N, b)
    if f is not None:
        if t < len(f):
            _hhc_round(r, nodes, N, f, t)
        return
    d = _base_digits(N, b)
    L, h = d["L"], d["h"]
    for l in range(L):
        v = nodes[d["start"][l]:]
        if t < h:
            g = _smooth_factors(d["size"][l], b)
            if t < len(g):
                _hhc_round(r, v, d["size"][l], g, t)
        elif t == h + l and l + 1 < L:
            sl = d["size"][l]
            S = sum(d["size"][l:])
            bp = b ** d["p"][l]
            used = 0
            c = sl / S
            for q in range(l + 1, L):
                for x in range(d["size"][q]):
                    for j in range(d["a"][l]):
                        r.edge(nodes[d["start"][q] + x], v[j * bp + used],
                               c / d["a"][l])
                    used += 1
        elif t > h + l and l + 1 < L and t - h - l - 1 < d["p"][l]:
            bp = b ** d["p"][l]
            ff = [b] * d["p"][l]
            for j in range(d["a"][l]):
                _hhc_round(r, v[j * bp:], bp, ff, t - h - l - 1)


def rounds(kind, n, d):
    """The rounds of tg_seq_build: a list of _Round."""
    b = 2 if kind == "one-peer-exp" else d + 1
    smooth, rough = 1, n
    x = 2
    while x <= b and x <= n:
        while rough % x == 0:
            rough //= x
            smooth *= x
        x += 1
    len_simple = _simple_len(n, b)
    product = False
    r1 = r2 = 0
    f = None
    if smooth > 1 and rough > 1:
        r1 = _simple_len(rough, b)
        f = _smooth_factors(smooth, b)
        r2 = len(f)
        product = r1 + r2 <= len_simple
    period = r1 + r2 if product else len_simple
    out = []
    for t in range(period):
        r = _Round(n)
        if not product:
            _simple_round(r, list(range(n)), n, b, t)
        elif t < r1:
            nodes = list(range(n))
            for blk in range(smooth):
                _simple_round(r, nodes[blk * rough:], rough, b, t)
        else:
            for j in range(rough):
                nodes = [blk * rough + j for blk in range(smooth)]
                _hhc_round(r, nodes, smooth, f, t - r1)
        out.append(r)
    return out


def _csr(r):
    """(ascending neighbour lists, {(i, j): w}) of a round."""
    adj = [[] for _ in range(r.n)]
    wm = {}
    for i, j, w in r.edges:
        if (i, j) in wm:
            raise ValueError("duplicate edge %d-%d" % (min(i, j), max(i, j)))
        adj[i].append(j)
        adj[j].append(i)
        wm[(i, j)] = wm[(j, i)] = w
    for a in adj:
        a.sort()
    return adj, wm


_blas = None


def _dgemm_tn(p, n):
    """b = p^T p (row-major n x n), cblas_dgemm as cm_topo_seq_norm calls
    it, on one OpenBLAS thread."""
    global _blas
    if _blas is None:
        _blas = False
        for name in ("libblas.so.3", ctypes.util.find_library("blas"),
                     ctypes.util.find_library("openblas")):
            if not name:
                continue
            try:
                lib = ctypes.CDLL(name)
                lib.cblas_dgemm
                _blas = lib
                break
            except (OSError, AttributeError):
                continue
    if not _blas:
        return None  # the caller's pure-Python product
    c_d = ctypes.c_double
    a = (c_d * (n * n))(*[x for row in p for x in row])
    b = (c_d * (n * n))()
    th = None
    try:
        th = (_blas.openblas_get_num_threads, _blas.openblas_set_num_threads)
    except AttributeError:
        pass
    old = th[0]() if th else None
    if th and old != 1:
        th[1](1)
    try:
        _blas.cblas_dgemm(101, 112, 111, n, n, n, c_d(1.0), a, n, a, n,
                          c_d(0.0), b, n)
    finally:
        if th and old != 1:
            th[1](old)
    return [list(b[i * n:(i + 1) * n]) for i in range(n)]


def product_norm(rs, n):
    """||W_{P-1} ... W_0 - 11^T/n||_2 as cm_topo_seq_norm computes it."""
    if n <= 1:
        return 0.0
    p = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    for r in rs:
        adj, wm = _csr(r)
        q = []
        for i in range(n):
            pi = p[i]
            s = r.self_w[i]
            qi = [s * x for x in pi]
            for k in adj[i]:
                wk = wm[(i, k)]
                pj = p[k]
                for j in range(n):
                    qi[j] += wk * pj[j]
            q.append(qi)
        p = q
    m = -1.0 / n
    p = [[x + m for x in row] for row in p]
    b = _dgemm_tn(p, n)
    if b is None:  # no BLAS: the same sums, not the same last bits
        b = [[math.fsum(p[k][i] * p[k][j] for k in range(n))
              for j in range(n)] for i in range(n)]
    ev = _linalg.eigvalsh(b, n)
    return math.sqrt(max(ev[n - 1], 0.0))


def seq_file(kind, n, d=4, seed=1):
    """The text `topogen --kind base|one-peer-exp -n N -d D --seed S`
    writes."""
    if n < 2 or n > _build.MAX_BUILD:
        raise _build.BuildError("-n: %s needs 2 <= n <= %d (got %d)" % (
            kind, _build.MAX_BUILD, n))
    if kind == "one-peer-exp" and n & (n - 1):
        raise _build.BuildError(
            "-n: one-peer-exp needs n a power of two (got %d; --kind base "
            "-d 1 averages exactly for any n)" % n)
    if kind == "base" and (d < 1 or d >= n):
        raise _build.BuildError("-d: base needs a per-round degree 1 <= d < "
                                "n (got %d)" % d)
    if n > DENSE_MAX:
        raise _build.BuildError("-n: %d nodes: the Python package builds "
                                "sequences up to %d (the product norm is "
                                "dense); libtopogen goes further" % (
                                    n, DENSE_MAX))
    rs = rounds(kind, n, d)
    dmax, messages, bodies = 0, 0.0, []
    for r in rs:
        adj, wm = _csr(r)
        dmax = max(dmax, max((len(a) for a in adj), default=0))
        messages += 2.0 * len(r.edges) / n
        lines = []
        for i in range(n):
            row = 0.0
            for j in adj[i]:
                row += wm[(i, j)]
            if r.self_w[i] != 1.0 - row:
                lines.append("%d %d %.17g" % (i, i, r.self_w[i]))
            lines += ["%d %d %.17g" % (i, j, wm[(i, j)]) for j in adj[i]
                      if j > i]
        bodies.append(lines)
    norm = product_norm(rs, n)
    exact = 1 if norm <= 1e-12 else 0
    head = ["# topogen 2 n=%d d=%d kind=%s period=%d seed=%d version=%s" % (
                n, dmax, kind, len(rs), seed, _build.VERSION),
            "# settings: -n %d%s --kind %s --seed %d --format edgelist"
            % (n, "" if kind == "one-peer-exp" else " -d %d" % d, kind,
               seed),
            "# product_norm=%.3g exact=%d messages_per_period=%.4g" % (
                norm, exact, messages),
            "# one `# round R` section per round, `i j W_ij` lines; W_ii = "
            "1 - sum_j W_ij"]
    out = list(head)
    for t, lines in enumerate(bodies):
        if len(rs) > 1:
            out.append("# round %d n=%d" % (t, n))
        out += lines
    return "\n".join(out) + "\n", len(rs)

"""topogen._build: the graphs that need no search, in pure Python (no
numpy, no libtopogen), written as the CLI writes them: `ring(8)` gives
the bytes of `topogen --kind ring -n 8 --seed 1`.

What is the CLI's bit for bit, and why:
- the edges: the same constructions (topo/graph/tg_graph.c: circulants,
  lattices, the complete graph; topo/kinds/tg_seq.c: one-peer
  exponential), sorted as cm_topo_from_edges sorts them;
- random regular (`--kind random`): the C code seeds igraph's generator
  with one draw of its own (src/base/cm_rng.c, reproduced in
  topogen/_rng.py) and calls igraph's Viger-Latapy sampler. Here the
  same call goes to the system's libigraph through ctypes, so the graph
  is the CLI's wherever the same igraph is installed (Debian's
  libigraph3). Without libigraph the draw is a different one (a random
  cyclic order for d = 2, else degree-preserving edge swaps from the
  ring lattice driven by cm_rng), connected and d-regular but not the
  CLI's graph; the file's header then says so in a line of its own;
- weights: mh and maxdeg are exact arithmetic; laplacian needs
  lambda_2 and lambda_n of the Laplacian, computed as the C code
  computes them (topogen/_linalg.py: a port of cm_eigen's Householder
  reduction, then the system's LAPACK dsterf), below 2,048 nodes (from
  there the C code uses a sparse Lanczos solver: the same weights to
  ~1e-12, not the same last bits);
- the header: the same lines and number formats (%.4f, %.17g).
"""
import ctypes
import ctypes.util
import math
import os

from . import _linalg
from ._rng import Rng

VERSION = "2.1"
MAX_BUILD = 1 << 20
SPARSE_FROM = 2048


class BuildError(ValueError):
    """A size or degree a construction refuses (the CLI's message)."""


# ---- graphs: n and a sorted list of edges (i, j), i < j ----------------

def _simple(n, pairs):
    """Sorted distinct edges (i < j) without self-loops (igraph_simplify
    then cm_topo_from_edges)."""
    es = set()
    for i, j in pairs:
        if i != j:
            es.add((i, j) if i < j else (j, i))
    return sorted(es)


def _circulant(n, shifts):
    return _simple(n, ((i, (i + s) % n) for s in shifts for i in range(n)))


def torus_side(n):
    best = 0
    a = 3
    while a * a <= n:
        if n % a == 0 and n // a >= 3:
            best = a
        a += 1
    return best


def _check(kind, n, d):
    """tg_kind_check's refusals, with its messages."""
    nmin = 2 if kind in ("ring", "complete", "hypercube",
                         "exponential-sym") else 3
    if n < nmin:
        raise BuildError("-n: %d nodes is too few (a %s graph needs n >= %d)"
                         % (n, "exponential" if kind == "exponential-sym"
                            else kind, nmin))
    if n > MAX_BUILD:
        raise BuildError("-n: %d nodes is too many (at most %d, the file "
                         "format's limit)" % (n, MAX_BUILD))
    if kind in ("random", "rrl"):
        if d < 2:
            raise BuildError("-d: degree %d is too small for a connected %s "
                             "graph (need d >= 2)" % (d, kind))
        if d >= n:
            raise BuildError("-d: degree %d must be below the node count n "
                             "= %d" % (d, n))
        if (n * d) % 2:
            raise BuildError("-n/-d: n*d = %d*%d is odd; a d-regular graph "
                             "needs n*d even" % (n, d))
    if kind == "hypercube" and n & (n - 1):
        raise BuildError("-n: a hypercube needs n a power of two, not %d" % n)
    if kind == "torus" and not torus_side(n):
        raise BuildError("-n: a torus needs n = a*b with a, b >= 3; %d cannot "
                         "be factored so" % n)


def edges(kind, n, d=4, seed=1):
    """(edges, note) of a static kind: ring, torus, hypercube,
    exponential-sym, complete, rrl, random. note is None, or the header
    line of a random graph drawn without igraph."""
    _check(kind, n, d)
    if kind == "ring":
        return _circulant(n, [1]), None
    if kind == "exponential-sym":
        sh, s = [], 1
        while s < n:
            sh.append(s)
            s <<= 1
        return _circulant(n, sh), None
    if kind == "rrl":
        sh = list(range(1, d // 2 + 1)) + ([n // 2] if d % 2 else [])
        return _circulant(n, sh), None
    if kind == "complete":
        return [(i, j) for i in range(n) for j in range(i + 1, n)], None
    if kind == "hypercube":
        b = n.bit_length() - 1
        return _simple(n, ((i, i ^ (1 << k)) for i in range(n)
                           for k in range(b))), None
    if kind == "torus":  # igraph's square lattice [n/a, a], periodic
        a = torus_side(n)
        d0, d1 = n // a, a
        pairs = []
        for v in range(n):
            x0, x1 = v % d0, v // d0
            pairs.append((v, (x0 + 1) % d0 + d0 * x1))
            pairs.append((v, x0 + d0 * ((x1 + 1) % d1)))
        return _simple(n, pairs), None
    if kind == "random":
        rng = Rng(seed, 0)
        seed31 = rng.u64() >> 33
        es = _igraph_random_regular(n, d, seed31)
        if es is not None:
            return es, None
        return _swap_random_regular(n, d, rng), (
            "drawn by topogen's Python package without libigraph: a "
            "connected %d-regular graph, not the one `topogen --kind random "
            "--seed %d` draws" % (d, seed))
    raise BuildError("--kind: unknown kind '%s'" % kind)


# ---- random regular through the system's igraph ----------------------

_ig = None


def _igraph():
    global _ig
    if _ig is not None:
        return _ig or None
    _ig = False
    if os.environ.get("TOPOGEN_NO_IGRAPH"):
        return None
    for name in ("libigraph.so.3", ctypes.util.find_library("igraph")):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            ver = ctypes.c_char_p()
            lib.igraph_version(ctypes.byref(ver), None, None, None)
            if not ver.value.startswith(b"0.10."):
                continue  # the calls below are 0.10's
        except (OSError, AttributeError):
            continue
        lib.igraph_rng_default.restype = ctypes.c_void_p
        lib.igraph_set_error_handler.restype = ctypes.c_void_p
        lib.igraph_set_error_handler.argtypes = [ctypes.c_void_p]
        lib.igraph_set_warning_handler.restype = ctypes.c_void_p
        lib.igraph_set_warning_handler.argtypes = [ctypes.c_void_p]
        lib.igraph_ecount.restype = ctypes.c_int64
        _ig = lib
        return lib
    return None


def _igraph_random_regular(n, d, seed31):
    """tg_igraph.c's random_regular_locked (n <= 100,000: Viger-Latapy)
    through ctypes, or None without libigraph 0.10."""
    lib = _igraph()
    if lib is None or n > 100000:
        return None
    vec = ctypes.c_int64 * 3       # igraph_vector_int_t: three pointers
    deg, el = vec(), vec()
    g = (ctypes.c_char * 1024)()   # igraph_t (about 200 bytes)
    ignore = ctypes.cast(lib.igraph_error_handler_ignore, ctypes.c_void_p)
    old = lib.igraph_set_error_handler(ignore)
    oldw = lib.igraph_set_warning_handler(ctypes.cast(
        lib.igraph_warning_handler_ignore, ctypes.c_void_p))
    try:
        if lib.igraph_rng_seed(ctypes.c_void_p(lib.igraph_rng_default()),
                               ctypes.c_uint64(seed31)):
            return None
        if lib.igraph_vector_int_init(ctypes.byref(deg), ctypes.c_int64(n)):
            return None
        try:
            lib.igraph_vector_int_fill(ctypes.byref(deg), ctypes.c_int64(d))
            if lib.igraph_degree_sequence_game(g, ctypes.byref(deg), None,
                                               ctypes.c_int(1)):  # VL
                raise ArithmeticError("igraph_degree_sequence_game failed")
        finally:
            lib.igraph_vector_int_destroy(ctypes.byref(deg))
        try:
            if lib.igraph_simplify(g, ctypes.c_bool(True),
                                   ctypes.c_bool(True), None):
                raise ArithmeticError("igraph_simplify failed")
            if lib.igraph_vector_int_init(ctypes.byref(el),
                                          ctypes.c_int64(0)):
                raise MemoryError("igraph vector")
            try:
                if lib.igraph_get_edgelist(g, ctypes.byref(el),
                                           ctypes.c_bool(False)):
                    raise ArithmeticError("igraph_get_edgelist failed")
                m = lib.igraph_ecount(g)
                arr = ctypes.cast(ctypes.c_void_p(el[0]),
                                  ctypes.POINTER(ctypes.c_int64))
                pairs = [(arr[2 * k], arr[2 * k + 1]) for k in range(m)]
            finally:
                lib.igraph_vector_int_destroy(ctypes.byref(el))
        finally:
            lib.igraph_destroy(g)
    finally:
        lib.igraph_set_error_handler(ctypes.c_void_p(old))
        lib.igraph_set_warning_handler(ctypes.c_void_p(oldw))
    return _simple(n, pairs)


def _connected(n, adj):
    seen = [False] * n
    seen[0] = True
    stack, k = [0], 1
    while stack:
        for j in adj[stack.pop()]:
            if not seen[j]:
                seen[j] = True
                k += 1
                stack.append(j)
    return k == n


def _swap_random_regular(n, d, rng):
    """A connected d-regular graph from cm_rng without igraph: for d = 2
    a random cyclic order; else the ring lattice, then 10 m accepted
    degree-preserving swaps (a-b, c-e -> a-c, b-e, simple graphs only),
    repeated until connected."""
    if d == 2:
        order = list(range(n))
        rng.shuffle(order)
        return _simple(n, ((order[k], order[(k + 1) % n])
                           for k in range(n)))
    es = edges("rrl", n, d)[0]
    m = len(es)
    eu = [e[0] for e in es]
    ev = [e[1] for e in es]
    adj = [set() for _ in range(n)]
    for a, b in es:
        adj[a].add(b)
        adj[b].add(a)
    for _round in range(100):
        done, tries = 0, 0
        while done < 10 * m and tries < 1000 * m:
            tries += 1
            k1, k2 = rng.below(m), rng.below(m)
            a, b, c, e = eu[k1], ev[k1], eu[k2], ev[k2]
            if rng.below(2):
                c, e = e, c
            if len({a, b, c, e}) < 4 or c in adj[a] or e in adj[b]:
                continue
            adj[a].discard(b), adj[b].discard(a)
            adj[c].discard(e), adj[e].discard(c)
            adj[a].add(c), adj[c].add(a), adj[b].add(e), adj[e].add(b)
            eu[k1], ev[k1], eu[k2], ev[k2] = a, c, b, e
            done += 1
        if _connected(n, adj):
            break
    return _simple(n, zip(eu, ev))


# ---- weights ---------------------------------------------------------

def csr(n, es):
    """Neighbour lists in ascending order (cm_topo's CSR)."""
    adj = [[] for _ in range(n)]
    for i, j in es:
        adj[i].append(j)
        adj[j].append(i)
    for a in adj:
        a.sort()
    return adj


def laplacian_extremes(n, adj):
    """(lambda_2, lambda_n) of the Laplacian, as cm_topo_laplacian_extremes
    computes them below 2,048 nodes (dense: cm_eigen's path)."""
    if n <= 1:
        return 0.0, 0.0
    L = _linalg.dense(n)
    for i in range(n):
        L[i][i] = float(len(adj[i]))
        for j in adj[i]:
            L[i][j] = -1.0
    ev = _linalg.eigvalsh(L, n)
    return ev[1], ev[n - 1]


def weigh(n, es, rule):
    """(edge weights in es order, self weights, alpha-or-None, (l2, ln))
    of rule laplacian, mh or maxdeg (cm_topo_set_weights)."""
    adj = csr(n, es)
    deg = [len(a) for a in adj]
    lap = laplacian_extremes(n, adj)
    if rule == "laplacian":
        s = lap[0] + lap[1]
        alpha = 2.0 / s if s > 0.0 else 0.0

        def wf(i, j):
            return alpha
    elif rule == "maxdeg":
        alpha = 1.0 / (max(deg) + 1)

        def wf(i, j):
            return alpha
    elif rule == "mh":
        alpha = None

        def wf(i, j):
            return 1.0 / (1 + max(deg[i], deg[j]))
    else:
        raise BuildError("--weights: unknown weight rule '%s' (expected "
                         "laplacian, mh, maxdeg; fdla needs libtopogen)" % rule)
    w = [wf(i, j) for i, j in es]
    selfw = []
    for i in range(n):
        row = 0.0
        for j in adj[i]:
            row += wf(i, j)
        selfw.append(1.0 - row)
    return w, selfw, adj, lap


def dense_w(n, adj, wmap, selfw):
    """W - 11^T/n as cm_topo_slem fills it (a list of rows)."""
    a = _linalg.dense(n, -1.0 / n)
    for i in range(n):
        row = a[i]
        row[i] += selfw[i]
        for j in adj[i]:
            row[j] += wmap(i, j)
    return a


def slem_of(n, adj, wmap, selfw):
    if n <= 1:
        return 0.0
    ev = _linalg.eigvalsh(dense_w(n, adj, wmap, selfw), n)
    return max(abs(ev[0]), abs(ev[n - 1]))


# ---- files -----------------------------------------------------------

# the static kinds whose degree n fixes (topogen_kind_fixes_degree)
FIXED_DEGREE = ("ring", "torus", "hypercube", "exponential-sym", "complete")


def _g17(x):
    return "%.17g" % x


def static_file(kind, n, d, seed, rule="laplacian", d_given=False):
    """The text of the file `topogen --kind KIND -n N -d D --seed S
    --weights RULE` writes, for a static kind (d_given: -d was given, as
    topogen_config_finish checks it)."""
    es, note = edges(kind, n, d, seed)
    w, selfw, adj, (l2, ln) = weigh(n, es, rule)
    # the kinds that fix their degree (topogen_kind_fixes_degree): -d
    # refused unless it is that degree, and left out of the settings
    fixed = kind in FIXED_DEGREE
    implied = len(adj[0]) if n else 0
    if d_given and fixed and implied != d:
        raise BuildError("-d %d: --kind %s on %d nodes has degree %d "
                         "(implied by the kind): leave -d out" % (
                             d, kind, n, implied))
    wm = {}
    for (i, j), x in zip(es, w):
        wm[(i, j)] = wm[(j, i)] = x
    slem = slem_of(n, adj, lambda i, j: wm[(i, j)], selfw)
    dmax = max((len(a) for a in adj), default=0)
    lines = ["# topogen 2 n=%d d=%d kind=%s objective=ratio weights=%s "
             "seed=%d version=%s" % (n, dmax, kind, rule, seed, VERSION),
             "# settings: -n %d%s --kind %s --weights %s --seed %d "
             "--format edgelist" % (n, "" if fixed else " -d %d" % d, kind,
                                    rule, seed),
             "# lambda2=%.4f lambdan=%.4f slem=%.4f" % (l2, ln, slem),
             "# one `i j W_ij` line per edge; W_ii = 1 - sum_j W_ij"]
    if note:
        lines.append("# " + note)
    for i in range(n):  # the C writer: a self weight only when it differs
        row = 0.0
        for j in adj[i]:
            row += wm[(i, j)]
        if selfw[i] != 1.0 - row:
            lines.append("%d %d %s" % (i, i, _g17(selfw[i])))
    lines += ["%d %d %s" % (i, j, _g17(x)) for (i, j), x in zip(es, w)]
    return "\n".join(lines) + "\n"

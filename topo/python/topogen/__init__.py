"""topogen: learned topologies for decentralized SGD, in Python.

Pure Python and NumPy for the files and the matrices; libtopogen
(topo/api/topogen.h, through ctypes) for learning and measures. Nodes
are always in order 0..n-1 and self weights are filled, whatever the
file's format or the order its edges come in (reading an edge list with
networkx and calling nx.to_numpy_array on it permutes W: see
topo/python/README.md).

    import topogen
    t = topogen.load("topo.txt")        # edge list, ncol, time-varying
                                        # sequences, directed, epidemic
                                        # (GraphML, GML: libtopogen)
    t.W                                 # numpy (n, n), rows sum to 1
    t.neighbours(3)                     # [j != 3 with an edge 3-j]
    t.to_networkx()                     # DiGraph with self-loops, node
                                        # order 0..n-1 (BlueFog's
                                        # set_topology)
    t.save("copy.txt")
    t = topogen.learn(16, 4)            # libtopogen: what
                                        # `topogen -n 16 -d 4` writes
    t.eval()                            # libtopogen: slem, lambda2, ...

topogen.torch holds the torch.distributed side (Gossip, GossipAverager).

Without libtopogen, learn(), eval(), fdla weights and GraphML/GML raise
topogen.LibraryNotFoundError naming what to install; everything else
works. Where the library is looked for: topogen/_lib.py (TOPOGEN_LIBRARY
overrides).

Threads: libtopogen serialises its calls (one at a time per process), so
calls from several Python threads are safe and wait for each other.
"""
import ctypes
import os
import tempfile
import threading

try:
    import numpy as np
except ImportError:  # ring(), random_regular(), eval(), save() work
    np = None     # without it; load(), .W and topogen.torch need it

from . import _files
from ._files import FileError
from ._lib import LibraryNotFoundError, available as library_available

__all__ = ["Topology", "TopogenError", "LibraryNotFoundError", "learn",
           "load", "label_counts", "version", "library_available", "ring",
           "torus", "hypercube", "exponential", "complete", "ring_lattice",
           "random_regular", "one_peer_exp", "base", "dcliques", "build",
           "eval"]
__version__ = "2.1"

_STATUS = ["ok", "invalid argument", "out of memory", "i/o error",
           "malformed file", "invalid topology", "numerical failure",
           "error", "internal error", "interrupted"]
EINTR = 9


class TopogenError(RuntimeError):
    """A topogen failure: str() is the message (the library's or the
    file reader's, naming the file and line), .status its code (topogen.h's
    topogen_status: 1 invalid argument, 3 i/o, 4 malformed file, 5 a W
    that breaks a rule, ...)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class _IOError(TopogenError, OSError):
    pass


def _getlib(what):
    from ._lib import lib
    return lib(what)


def _check(status, lib=None):
    if status != 0:
        lib = lib or _getlib("topogen")
        msg = lib.topogen_last_error().decode("utf-8", "replace")
        if status == EINTR:
            raise KeyboardInterrupt(msg)
        if status == 3:  # TOPOGEN_EIO: also an OSError for callers
            raise _IOError(status, msg)
        raise TopogenError(status, msg)


def _path(p, what="path"):
    """A str path from str, bytes or os.PathLike."""
    if isinstance(p, (bytes, bytearray)):
        return os.fsdecode(bytes(p))
    if isinstance(p, (str, os.PathLike)):
        return os.fspath(p)
    raise TypeError("%s: expected a str, bytes or os.PathLike, not %s" % (
        what, type(p).__name__))


def _b(s):
    if s is None:
        return None
    if isinstance(s, (bytes, bytearray)):
        return bytes(s)
    return os.fsencode(s) if isinstance(s, os.PathLike) else str(s).encode()


def version():
    """The topogen file format's generator version ("2.1"): libtopogen's
    when it is installed, else this package's."""
    if not library_available():
        return __version__
    return _getlib("topogen.version()").topogen_version().decode()


def _index(t, what):
    if isinstance(t, bool) or (np is not None and isinstance(t, np.bool_)) \
            or not hasattr(t, "__index__"):
        raise TypeError("%s: an integer, not %s" % (what, type(t).__name__))
    if t < 0:
        raise ValueError("%s: %d is negative" % (what, t))
    return int(t)


class Topology:
    """A topology: P >= 1 rounds (P = 1: a static graph) of a weighted
    graph on nodes 0..n-1; round t of gossip uses W of round t mod P. An
    epidemic topology (kind=epidemic) has no fixed W: each round's graph
    is drawn from the run's seed (topogen.torch.Gossip draws it). Made by
    learn() or load()."""

    def __init__(self, parsed, raw=None, settings=None, built=None):
        self._parsed = parsed
        self._raw = raw            # a learned or built file's exact bytes
        self._settings = settings  # learn()'s words, for GraphML/GML
        self._built = built        # a builder's graph (topogen/_kinds.py)

    @property
    def _p(self):
        """The parsed file (topogen/_files.py; numpy), parsed on first use
        for a built topology."""
        if self._parsed is None:
            if np is None:
                raise ImportError(
                    "topogen: this needs numpy (pip install numpy, or "
                    "`pip install dpsgd-topogen[numpy]`); without it the "
                    "builders, save() and eval() work")
            self._parsed = _files_parse_bytes(self._raw, "<built>")
        return self._parsed

    @_p.setter
    def _p(self, parsed):
        self._parsed = parsed
        self._built = None

    @property
    def n(self):
        """Nodes (workers)."""
        return self._built.n if self._built else self._p.n

    @property
    def rounds(self):
        """Rounds per period P (1 for a static topology, 0 for
        epidemic)."""
        return self._built.rounds if self._built else len(self._p.rounds)

    @property
    def directed(self):
        """True when W need not be symmetric (a directed file)."""
        return self._built.directed if self._built else self._p.directed

    @property
    def epidemic(self):
        """None, or {'s': S, 'local': L} of an epidemic topology (each
        node sends to S peers drawn per round; local=1: EL-Local, else
        EL-Oracle, an S-regular digraph)."""
        e = self._p.epidemic
        return None if e is None else {"s": e[0], "local": e[1]}

    @property
    def header(self):
        """The header comment of the topology's file ("" when none)."""
        return "\n".join(self._p.header)

    def _round(self, t):
        t = _index(t, "round")
        if self._p.epidemic:
            raise ValueError("an epidemic topology (kind=epidemic s=%d) has "
                             "no fixed W: each round's graph is drawn from "
                             "the run's seed (topogen.torch.Gossip(..., "
                             "seed=...) draws it)" % self._p.epidemic[0])
        return self._p.rounds[t % len(self._p.rounds)]

    def edges(self, t=0):
        """Edges of round t (arcs when directed)."""
        return self._round(t).edges

    def mixing(self, t=0):
        """W of round t mod P (t >= 0): a float64 (n, n) numpy array in
        node order 0..n-1, W[i, j] the weight node i gives to j's value,
        self weights on the diagonal, each row summing to 1."""
        return self._round(t).dense()

    @property
    def W(self):
        """W of round 0 (the W of a static topology), (n, n)."""
        return self.mixing(0)

    @property
    def Ws(self):
        """W of every round, a (P, n, n) array."""
        return np.stack([self.mixing(t) for t in range(self.rounds)])

    def neighbours(self, i, t=0):
        """The nodes j != i that node i mixes with in round t (directed:
        receives from), ascending."""
        r = self._round(t)
        i = _index(i, "node")
        if i >= r.n:
            raise ValueError("node %d: the topology has %d nodes" % (i, r.n))
        return [int(j) for j in r.neighbours(i)[0]]

    neighbors = neighbours

    def weights_of(self, i, t=0):
        """(W_ii, [(j, W_ij) for the neighbours j of i]) in round t."""
        r = self._round(t)
        i = _index(i, "node")
        cols, w = r.neighbours(i)
        return float(r.self[i]), [(int(j), float(x)) for j, x in
                                  zip(cols, w)]

    def to_networkx(self, t=0):
        """Round t as a networkx DiGraph on nodes 0..n-1 (added in that
        order), with an edge j -> i of weight W[i, j] for every W[i, j] !=
        0, self-loops included: nx.to_numpy_array(G) is W transposed (W
        itself when symmetric), and BlueFog's GetRecvWeights(G, i) gives
        (W[i, i], {j: W[i, j]}), what bf.set_topology(G) expects."""
        import networkx as nx
        r = self._round(t)
        g = nx.DiGraph()
        g.add_nodes_from(range(r.n))
        edges = [(int(j), int(i), float(w)) for i, j, w in
                 zip(r.rows, r.cols, r.w) if w != 0]
        edges += [(i, i, float(r.self[i])) for i in range(r.n)
                  if r.self[i] != 0]
        edges.sort(key=lambda e: (e[1], e[0]))
        g.add_weighted_edges_from(edges)
        return g

    # ---- files ---------------------------------------------------------

    def _text(self, ncol=False):
        return _files.write_text(self._p.rounds, self.n, self._p.header,
                                 self.directed, self._p.epidemic, ncol)

    def save(self, path, format=None):
        """Writes the topology (atomically) as edgelist (default, with its
        header), ncol, graphml or gml (libtopogen; one undirected round);
        "-" is stdout."""
        path = _path(path)
        fmt = format or "edgelist"
        if fmt == "edgelist" and self._raw is not None:
            _files.atomic_write(path, self._raw.decode())
        elif fmt in ("edgelist", "ncol"):
            if fmt == "ncol" and (self.directed or self.rounds != 1):
                raise TopogenError(1, "format: ncol holds one undirected "
                                   "round (write an edge list)")
            _files.atomic_write(path, self._text(fmt == "ncol"))
        elif fmt in ("graphml", "gml"):
            if self.directed:
                raise TopogenError(1, "format %s: a directed topology is "
                                   "written as an edge list (GraphML/GML "
                                   "would read back as another W)" % fmt)
            if self.rounds != 1:
                raise TopogenError(1, "format: a time-varying topology is "
                                   "written as an edge list (one section "
                                   "per round)")
            with self._handle("save(format=%r)" % fmt) as (lib, h):
                _check(lib.topogen_write(h, _b(path), _b(fmt)), lib)
        else:
            raise TopogenError(1, "format: unknown format '%s' (expected "
                               "edgelist, ncol, graphml or gml)" % fmt)

    class _Handle:
        def __init__(self, topo, what):
            self.topo, self.what, self.h = topo, what, None

        def __enter__(self):
            lib = _getlib(self.what)
            with tempfile.TemporaryDirectory() as d:
                f = os.path.join(d, "t.txt")
                if self.topo._raw is not None:
                    with open(f, "wb") as fp:
                        fp.write(self.topo._raw)
                else:
                    _files.atomic_write(f, self.topo._text())
                h = ctypes.c_void_p()
                _check(lib.topogen_read(_b(f), b"edgelist", ctypes.byref(h)),
                       lib)
            self.h = h.value
            self.lib = lib
            return lib, self.h

        def __exit__(self, *exc):
            self.lib.topogen_free(self.h)

    def _handle(self, what):
        return Topology._Handle(self, what)

    # ---- library calls -------------------------------------------------

    def eval(self, t=0, gamma=None):
        """Measures of round t, named and meant as `topogen eval --json`
        names them: n, edges, min_degree, max_degree, components,
        diameter, lambda2 and lambdan (of the Laplacian, as the CLI),
        slem (||W - 11^T/n||_2 of W as given), spectral_gap (1 - slem),
        slem_best_laplacian, rounds_1e-3, neff (n_eff at gamma, default
        0.951), neff_per_message; lambda2_w and lambdan_w are W's own
        second largest and smallest eigenvalues. With libtopogen also
        period, period_norm, period_rounds and messages (and the older
        names m, dmin, dmax, slem_best, rounds, lambda2_l, lambdan_l).
        Without libtopogen a static undirected topology is measured in
        pure Python (topogen/_measure.py, up to 4,096 nodes); other kinds
        need the library. O(n^3)."""
        t = _index(t, "round")
        g = 0.951 if gamma is None else float(gamma)
        if not library_available():
            return self._eval_pure(t, g)
        from ._lib import Measures
        with self._handle("Topology.eval()") as (lib, h):
            m = Measures()
            lib.topogen_measures_init(ctypes.byref(m))
            m.gamma = g
            _check(lib.topogen_measure(h, t, ctypes.byref(m)), lib)
        out = {k: getattr(m, k) for k, _ in Measures._fields_
               if k != "size"}
        out["lambda2_w"], out["lambdan_w"] = out["lambda2"], out["lambdan"]
        out["lambda2"], out["lambdan"] = out["lambda2_l"], out["lambdan_l"]
        import math as _m
        out.update({"edges": m.m, "min_degree": m.dmin,
                    "max_degree": m.dmax, "spectral_gap": 1.0 - m.slem,
                    "slem_best_laplacian": m.slem_best,
                    "rounds_1e-3": _m.inf if m.rounds == _m.inf
                    else int(m.rounds), "neff_per_message":
                    m.neff / m.messages if m.messages else m.neff})
        return out

    def _eval_pure(self, t, gamma):
        from . import _measure
        b = self._built
        if b is not None and b.rounds == 1 and b.adj is not None:
            return _measure.measure(b.n, b.adj, b.weight, b.self_w, gamma)
        if self.directed or self.rounds != 1 or self._p.epidemic:
            _getlib("Topology.eval() of a directed or time-varying topology")
        r = self._round(t)
        adj = [sorted(int(j) for j in r.neighbours(i)[0])
               for i in range(r.n)]
        W = r.dense()
        return _measure.measure(r.n, adj, lambda i, j: float(W[i, j]),
                                [float(x) for x in r.self], gamma)

    def set_weights(self, rule):
        """Replaces the weights of a static undirected topology by a rule:
        laplacian, mh, maxdeg, fdla. With libtopogen the weights are its
        bits (those of `topogen eval F --weights RULE`); without it mh and
        maxdeg are the same, laplacian may differ in the last bits (numpy's
        eigensolver), fdla needs the library."""
        if self.directed or self.rounds != 1:
            raise TopogenError(1, "weights: a rule applies to a static "
                               "undirected topology")
        rule = str(rule)
        if library_available():
            with self._handle("set_weights") as (lib, h):
                _check(lib.topogen_set_weights(h, _b(rule)), lib)
                with tempfile.TemporaryDirectory() as d:
                    f = os.path.join(d, "t.txt")
                    _check(lib.topogen_write(h, _b(f), b"edgelist"), lib)
                    p = _parse(f, "edgelist")
            self._p = p
        else:
            if rule == "fdla":
                _getlib("fdla weights")
            try:
                self._p.rounds = [_files.set_weights(self._p.rounds[0],
                                                     rule)]
                self._p.header = ["# n=%d weights=%s (topogen python)" % (
                    self.n, rule)]
            except ValueError as e:
                raise TopogenError(1, "weights: %s" % e)
        self._raw = None
        self._built = None
        return self

    def __reduce__(self):
        # pickled as its edge-list text (exact: %.17g), e.g. for
        # torch.multiprocessing.spawn
        data = self._raw if self._raw is not None else self._text().encode()
        return (_unpickle, (data,))

    def __repr__(self):
        if self._built:
            return "<topogen.Topology n=%d rounds=%d>" % (self.n, self.rounds)
        if self._p.epidemic:
            return "<topogen.Topology n=%d epidemic s=%d>" % (
                self.n, self._p.epidemic[0])
        return "<topogen.Topology n=%d rounds=%d%s>" % (
            self.n, self.rounds, " directed" if self.directed else "")


def _unpickle(data):
    return Topology(_files_parse_bytes(data, "<pickle>"),
                    raw=data if data.startswith(b"#") else None)


def _files_parse_bytes(data, name):
    try:
        return _files.parse_edgelist(data, name)
    except FileError as e:
        raise TopogenError(e.status, str(e))


def _parse(path, format):
    """Parsed of path in format (edgelist, ncol, graphml, gml, or None:
    detected); GraphML/GML through libtopogen."""
    if path == "-":
        import sys
        data = sys.stdin.buffer.read()
    else:
        try:
            if os.path.isdir(path):
                raise IsADirectoryError(21, "is a directory")
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise _IOError(3, "cannot open topology file %s: %s" % (
                path, e.strerror))
    fmt = format or "auto"
    if fmt == "auto":
        fmt = _files.detect(data)
    if fmt in ("edgelist", "ncol"):
        return _files_parse_bytes(data, path)
    if fmt not in ("graphml", "gml"):
        raise TopogenError(1, "format: unknown format '%s' (expected auto, "
                           "edgelist, ncol, graphml or gml)" % fmt)
    lib = _getlib("reading %s (%s)" % (fmt, path))
    h = ctypes.c_void_p()
    _check(lib.topogen_read(_b(path), _b(fmt), ctypes.byref(h)), lib)
    try:
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "t.txt")
            weighted = lib.topogen_is_weighted(h)
            if weighted:
                _check(lib.topogen_write(h, _b(f), b"edgelist"), lib)
            else:  # an unweighted graph: its edges, no header
                _check(lib.topogen_write(h, _b(f), b"ncol"), lib)
            with open(f, "rb") as fp:
                data = fp.read()
            if not weighted:  # its node count, as the C reader keeps it
                data = b"# n=%d\n" % lib.topogen_nodes(h) + data
            p = _files_parse_bytes(data, path)
    finally:
        lib.topogen_free(h)
    p.header = []
    return p


def load(path, format=None, weights=None, check=True):
    """Reads a topology file: an edge list (topogen's, networkx's
    write_edgelist, 1-based lists, ncol), a time-varying sequence, a
    directed or an epidemic file (pure Python), or GraphML/GML
    (libtopogen); format: None/auto (detected), edgelist, ncol, graphml,
    gml. A file without weights gets `weights` (default laplacian, as
    dpsgd-train does); weights= on a weighted file replaces them.
    check=True refuses what dpsgd-train refuses (rows not summing to 1,
    asymmetric, disconnected, W that does not mix, a sequence whose
    product does not mix), with its message (TopogenError, status 4 or
    5)."""
    path = _path(path)
    if np is None:
        raise ImportError("topogen.load() needs numpy (pip install numpy, or "
                          "the wheel's [numpy] extra): it checks W as "
                          "dpsgd-train does")
    p = _parse(path, format)
    t = Topology(p)
    single = len(p.rounds) == 1 and not p.directed
    if weights is not None and not single:
        raise TopogenError(1, "weights: a rule applies to a static "
                           "undirected topology")
    if single and p.rounds[0].n > 1 and check and p.rounds[0].w is None:
        _files.validate_round(p.rounds[0], path)  # connected first
    if single and (weights is not None or p.rounds[0].w is None):
        t.set_weights(weights or "laplacian")
    if check:
        _validate(t, path)
    return t


def _validate(t, path):
    """The trainer's checks in numpy; above the dense limit, where numpy
    cannot decide, libtopogen's sparse ones when it is there."""
    try:
        _files.validate(t._p, path)
    except FileError as e:
        if e.status != 1 or not library_available():
            raise TopogenError(e.status, str(e))
        with t._handle("the check of a large W") as (lib, h):
            st = lib.topogen_validate(h)
            if st:
                msg = lib.topogen_last_error().decode("utf-8", "replace")
                if msg.startswith("topology"):
                    msg = path + msg[len("topology"):]
                raise TopogenError(st, msg)


# How long Ctrl-C waits for the library to see its stop flag before
# learn() raises anyway (the call then ends on its thread, which frees
# its result; the library's mutex makes the next call wait for it).
STOP_WAIT = 0.5


def _learn_call(lib, o):
    """topogen_learn(o) on a thread of its own, polled, so that Ctrl-C
    (KeyboardInterrupt in the main thread) sets the call's stop flag and
    is raised within STOP_WAIT + a poll period (0.05 s), whatever the
    library is doing: the search checks the flag between moves, but a
    phase that does not (a large sparse eigensolve) is left to finish on
    its thread, which then frees what it made."""
    stop = ctypes.c_int(0)
    o.stop = ctypes.pointer(stop)
    h = ctypes.c_void_p()
    res = {}
    lock = threading.Lock()

    def run():
        st = lib.topogen_learn(ctypes.byref(o), ctypes.byref(h))
        msg = lib.topogen_last_error() if st != 0 else None
        with lock:
            res["st"], res["msg"], res["done"] = st, msg, True
            if res.get("abandoned") and h.value:
                lib.topogen_free(h)
                h.value = None

    th = threading.Thread(target=run, name="topogen.learn", daemon=True)
    th.start()
    try:
        while th.is_alive():
            th.join(0.05)
    except KeyboardInterrupt:
        stop.value = 1
        import time
        end = time.monotonic() + STOP_WAIT
        # our own flag: after a join that the signal interrupted,
        # Thread.is_alive() may say False while the call still runs
        while not res.get("done") and time.monotonic() < end:
            time.sleep(0.01)
        with lock:
            if res.get("done"):
                if h.value:
                    lib.topogen_free(h)
            else:
                res["abandoned"] = True
        raise
    if res["st"] != 0:
        msg = res["msg"].decode("utf-8", "replace")
        if res["st"] == EINTR:
            raise KeyboardInterrupt(msg)
        if res["st"] == 3:
            raise _IOError(3, msg)
        raise TopogenError(res["st"], msg)
    return h.value


def label_counts(labels, classes=None):
    """Per-worker class counts, an (n, classes) int64 array: labels is a
    list (one entry per worker, in worker order) of 1-D integer label
    arrays or tensors (class ids 0..classes-1); classes defaults to the
    largest label + 1. The result goes to learn(labels=...)."""
    arrs = []
    for k, y in enumerate(labels):
        if hasattr(y, "detach"):
            y = y.detach().cpu().numpy()
        y = np.asarray(y)
        if y.ndim != 1 or (y.size and not np.issubdtype(y.dtype,
                                                         np.integer)):
            raise ValueError("label_counts: worker %d: expected a 1-D "
                             "integer array of class ids" % k)
        if y.size and y.min() < 0:
            raise ValueError("label_counts: worker %d: negative class id %d"
                             % (k, int(y.min())))
        arrs.append(y)
    if not arrs:
        raise ValueError("label_counts: no workers")
    top = max((int(y.max()) + 1 for y in arrs if y.size), default=0)
    if classes is None:
        classes = top
    if top > classes:
        raise ValueError("label_counts: class id %d but classes=%d" % (
            top - 1, classes))
    return np.stack([np.bincount(y, minlength=classes) for y in arrs]
                    ).astype(np.int64)


def _counts_rows(counts, n):
    """counts= as a list of rows of non-negative ints, checked: one row
    per worker (n rows), every row as long as the first. One ValueError
    line naming what is wrong otherwise."""
    if hasattr(counts, "detach"):
        counts = counts.detach().cpu().numpy()
    if np is not None and isinstance(counts, np.ndarray):
        if counts.ndim != 2:
            raise ValueError("learn(counts=...): a %d-D array; expected an "
                             "(n, classes) matrix of counts, one row per "
                             "worker" % counts.ndim)
        if counts.size and not np.issubdtype(counts.dtype, np.integer):
            raise ValueError("learn(counts=...): %s counts; expected "
                             "integers" % counts.dtype)
        counts = counts.tolist()
    try:
        rows = [list(r) for r in counts]
    except TypeError:
        raise ValueError("learn(counts=...): expected an (n, classes) matrix "
                         "of counts (one row per worker) or a counts file, "
                         "not %s" % type(counts).__name__)
    if len(rows) != n:
        raise ValueError("learn(counts=...): %d rows for n = %d workers (one "
                         "row of class counts per worker)" % (len(rows), n))
    for k, r in enumerate(rows):
        if len(r) != len(rows[0]):
            raise ValueError("learn(counts=...): row %d has %d counts, row 0 "
                             "has %d (every worker counts the same classes)"
                             % (k, len(r), len(rows[0])))
        for c in r:
            if isinstance(c, bool) or not hasattr(c, "__index__") or \
                    c.__index__() < 0:
                raise ValueError("learn(counts=...): row %d holds %r; counts "
                                 "are non-negative integers" % (k, c))
    if not rows or not rows[0]:
        raise ValueError("learn(counts=...): no classes")
    return [[c.__index__() for c in r] for r in rows]


def _labels_rows(labels, n):
    """labels= (per-worker label arrays) as counts rows, or a str path
    (a counts file) as is. Anything that could be read two ways is
    refused."""
    if isinstance(labels, (str, bytes, os.PathLike)):
        return _path(labels, "labels")
    if hasattr(labels, "ndim") and getattr(labels, "ndim") != 1:
        raise ValueError(
            "learn(labels=...): a %d-D array is ambiguous (the workers' "
            "label arrays stacked, or a counts matrix?): pass the label "
            "arrays as a list, labels=[y_0, ..., y_%d], or class counts as "
            "counts=COUNTS" % (labels.ndim, n - 1))
    if hasattr(labels, "ndim") or not isinstance(labels, (list, tuple)):
        raise ValueError("learn(labels=...): a list of the %d workers' label "
                         "arrays (labels=[y_0, ..., y_%d]) or a counts file, "
                         "not %s (class counts: counts=COUNTS)" % (
                             n, n - 1, type(labels).__name__))
    if len(labels) != n:
        raise ValueError("learn(labels=...): %d label arrays for n = %d "
                         "workers (one per worker, in worker order)" % (
                             len(labels), n))
    ys = []
    for k, y in enumerate(labels):
        if hasattr(y, "detach"):
            y = y.detach().cpu().tolist()
        elif hasattr(y, "tolist"):
            if getattr(y, "ndim", 1) != 1:
                raise ValueError("learn(labels=...): worker %d's labels are "
                                 "a %d-D array; expected 1-D class ids" % (
                                     k, y.ndim))
            y = y.tolist()
        try:
            y = list(y)
        except TypeError:
            raise ValueError("learn(labels=...): worker %d: %s is not an "
                             "array of class ids" % (k, type(y).__name__))
        for c in y:
            if isinstance(c, bool) or not hasattr(c, "__index__") or \
                    c.__index__() < 0:
                raise ValueError("learn(labels=...): worker %d holds %r; "
                                 "class ids are non-negative integers" % (
                                     k, c))
        ys.append([c.__index__() for c in y])
    k = max((max(y) + 1 for y in ys if y), default=0)
    if k == 0:
        raise ValueError("learn(labels=...): no labels")
    rows = []
    for y in ys:
        r = [0] * k
        for c in y:
            r[c] += 1
        rows.append(r)
    return rows


def _labels_file(labels, counts, n, d):
    """The counts file for learn(): labels= (a counts file, or the
    workers' label arrays) or counts= (a counts file or matrix), never
    both."""
    if labels is not None and counts is not None:
        raise ValueError("learn(): labels= (the workers' label arrays) or "
                         "counts= (their class counts), not both")
    if counts is not None and isinstance(counts, (str, bytes, os.PathLike)):
        return _path(counts, "counts")
    rows = (_counts_rows(counts, n) if counts is not None
            else _labels_rows(labels, n))
    if isinstance(rows, str):
        return rows
    f = os.path.join(d, "counts.txt")
    with open(f, "w") as fp:
        for row in rows:
            fp.write(" ".join(str(x) for x in row) + "\n")
    return f


_OPTION_FLAGS = {"init": "--init", "eigensolver": "--eigensolver",
                 "iters": "--iters", "restarts": "--restarts",
                 "candidates": "--candidates", "threads": "--threads",
                 "groups": "--groups", "max_cross": "--max-cross",
                 "t0": "--t0", "t1": "--t1", "time_limit": "--time-limit",
                 "no_screen": "--no-screen", "gamma": "--gamma",
                 "hetero_weight": "--hetero-weight"}


def learn(n=64, d=4, kind=None, weights=None, objective=None, seed=1,
          labels=None, flags=(), counts=None, **options):
    """Learns (kind "learned", the default) or builds a topology with
    libtopogen; the result's file is byte for byte what
    `topogen -n N -d D ...` writes: every value goes through topogen's
    own flag parser (its kinds, objectives, weight rules, checks and
    messages: learn(0, 4) is refused as `topogen -n 0` is). Options by
    their flag's name: init, eigensolver, iters, restarts, candidates,
    threads, groups, max_cross, t0, t1, time_limit, no_screen, gamma,
    hetero_weight; any other flag as words in flags, e.g.
    flags=["--directed"]. Data-aware search (`topogen --labels`, the
    same file): labels=[y_0, ..., y_{n-1}], the n workers' label arrays
    or tensors (class ids), or counts=COUNTS, an (n, classes) matrix of
    class counts (label_counts(...) makes one); either may be a counts
    file path. A 2-D array given as labels= is refused (stacked label
    arrays or counts? it cannot tell), as are a wrong number of rows,
    ragged count rows and negative or fractional values, each with one
    line naming it. kind: learned, rrl, ring, torus,
    hypercube, exponential-sym, random, complete, one-peer-exp, base,
    perm, exp-directed, epidemic, ... (`topogen --help`). Ctrl-C stops
    the search and raises KeyboardInterrupt at once."""
    from ._lib import LearnOpts
    n_ok = not isinstance(n, bool) and hasattr(n, "__index__") and \
        n.__index__() > 0
    with tempfile.TemporaryDirectory() as d_:  # checked before the library
        if (labels is not None or counts is not None) and n_ok:
            _labels_file(labels, counts, n.__index__(), d_)
    lib = _getlib("topogen.learn()")
    words = ["-n", str(n), "-d", str(d), "--seed", str(seed)]
    for flag, v in (("--kind", kind), ("--weights", weights),
                    ("--objective", objective)):
        if v is not None:
            words += [flag, str(v)]
    for k, v in options.items():
        if k not in _OPTION_FLAGS:
            raise TypeError("learn(): unknown option %r" % k)
        if k == "no_screen":
            if v:
                words.append("--no-screen")
        else:
            words += [_OPTION_FLAGS[k], repr(v) if isinstance(v, float)
                      else str(v)]
    if isinstance(flags, (str, bytes)):
        raise TypeError("learn(): flags is a list of words, e.g. "
                        "['--directed']")
    with tempfile.TemporaryDirectory() as d_:
        if (labels is not None or counts is not None) and n_ok:
            words += ["--labels", _labels_file(labels, counts,
                                               n.__index__(), d_)]
        words += [os.fsdecode(_b(f)) for f in flags]
        o = LearnOpts()
        lib.topogen_learn_opts_init(ctypes.byref(o))
        o.n = o.d = 0
        arr = (ctypes.c_char_p * (len(words) + 1))(*[_b(w) for w in words])
        o.flags = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
        h = _learn_call(lib, o)
    try:
        with tempfile.TemporaryDirectory() as d_:
            f = os.path.join(d_, "t.txt")
            _check(lib.topogen_write(h, _b(f), b"edgelist"), lib)
            with open(f, "rb") as fp:
                raw = fp.read()
        shape = (lib.topogen_nodes(h), lib.topogen_rounds(h),
                 bool(lib.topogen_is_directed(h)))
    finally:
        lib.topogen_free(h)
    if np is None:  # parsed when asked (W needs numpy); save() works
        from ._kinds import _Built
        return Topology(None, raw=raw, built=_Built(
            shape[0], shape[1], directed=shape[2]))
    return Topology(_files_parse_bytes(raw, "<learned>"), raw=raw)


# the builders and eval in pure Python (no libtopogen, no numpy)
from ._kinds import (ring, torus, hypercube, exponential, complete,  # noqa
                     ring_lattice, random_regular, one_peer_exp, base,
                     dcliques,
                     build, eval)

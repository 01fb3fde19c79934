"""topogen: learned topologies for decentralized SGD, in Python.

A thin ctypes layer over libtopogen (topo/api/topogen.h); it needs only
the library and numpy. Nodes are always in order 0..n-1 and self weights
are filled, whatever the file's format or the order its edges come in
(reading an edge list with networkx and calling nx.to_numpy_array on it
permutes W: see topo/python/README.md).

    import topogen
    t = topogen.learn(16, 4)            # what `topogen -n 16 -d 4` writes
    t = topogen.load("topo.txt")        # edge list, ncol, GraphML, GML,
                                        # time-varying sequences
    t.W                                 # numpy (n, n), rows sum to 1
    t.neighbours(3)                     # [j != 3 with an edge 3-j]
    t.to_networkx()                     # DiGraph with self-loops, node
                                        # order 0..n-1 (BlueFog's
                                        # set_topology)
    t.eval()                            # slem, lambda2, lambdan, ...
    t.save("topo.graphml", "graphml")

topogen.torch holds the torch.distributed gossip (Gossip).

The library is found next to this package (installed: PREFIX/lib beside
PREFIX/lib/python3/dist-packages; in the source tree: bin/), else by its
soname libtopogen.so.1 through the dynamic loader; TOPOGEN_LIBRARY (a
path) overrides both.
"""
import ctypes
import os

import numpy as np

__all__ = ["Topology", "TopogenError", "learn", "load", "version"]

_SONAME = "libtopogen.so.1"


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("TOPOGEN_LIBRARY")
    if env:
        return ctypes.CDLL(env)
    for c in (os.path.join(here, "..", "..", "..", _SONAME),
              os.path.join(here, "..", "..", "..", "bin", _SONAME)):
        if os.path.exists(c):
            return ctypes.CDLL(os.path.realpath(c))
    return ctypes.CDLL(_SONAME)


_lib = _find_library()
_sz = ctypes.c_size_t
_dbl = ctypes.c_double
_str = ctypes.c_char_p


class _LearnOpts(ctypes.Structure):
    _fields_ = [("size", _sz), ("n", _sz), ("d", _sz), ("kind", _str),
                ("weights", _str), ("objective", _str), ("init", _str),
                ("eigensolver", _str), ("seed", ctypes.c_uint64),
                ("iters", _sz), ("restarts", _sz), ("candidates", _sz),
                ("threads", _sz), ("groups", _sz), ("max_cross", _sz),
                ("t0", _dbl), ("t1", _dbl), ("time_limit", _dbl),
                ("no_screen", ctypes.c_int),
                ("flags", ctypes.POINTER(ctypes.c_char_p))]


class _Measures(ctypes.Structure):
    _fields_ = [("size", _sz), ("n", _sz), ("m", _sz), ("dmin", _sz),
                ("dmax", _sz), ("components", _sz), ("diameter", _dbl),
                ("lambda2_l", _dbl), ("lambdan_l", _dbl), ("slem", _dbl),
                ("lambda2", _dbl), ("lambdan", _dbl), ("slem_best", _dbl),
                ("rounds", _dbl), ("period", _sz), ("period_norm", _dbl),
                ("period_rounds", _dbl), ("gamma", _dbl), ("neff", _dbl),
                ("messages", _dbl)]


_H = ctypes.c_void_p
_PH = ctypes.POINTER(ctypes.c_void_p)
_PD = ctypes.POINTER(ctypes.c_double)
_PS = ctypes.POINTER(ctypes.c_size_t)
for _name, _res, _args in [
        ("topogen_last_error", _str, []),
        ("topogen_version", _str, []),
        ("topogen_learn_opts_init", None, [ctypes.POINTER(_LearnOpts)]),
        ("topogen_learn", ctypes.c_int, [ctypes.POINTER(_LearnOpts), _PH]),
        ("topogen_read", ctypes.c_int, [_str, _str, _PH]),
        ("topogen_write", ctypes.c_int, [_H, _str, _str]),
        ("topogen_free", None, [_H]),
        ("topogen_nodes", _sz, [_H]),
        ("topogen_rounds", _sz, [_H]),
        ("topogen_is_directed", ctypes.c_int, [_H]),
        ("topogen_is_weighted", ctypes.c_int, [_H]),
        ("topogen_edges", _sz, [_H, _sz]),
        ("topogen_header", _str, [_H]),
        ("topogen_set_weights", ctypes.c_int, [_H, _str]),
        ("topogen_neighbours", ctypes.c_int,
         [_H, _sz, _sz, _PS, _PD, _sz, _PS]),
        ("topogen_mixing_matrix", ctypes.c_int, [_H, _sz, _PD]),
        ("topogen_measures_init", None, [ctypes.POINTER(_Measures)]),
        ("topogen_measure", ctypes.c_int,
         [_H, _sz, ctypes.POINTER(_Measures)])]:
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args

_STATUS = ["ok", "invalid argument", "out of memory", "i/o error",
           "malformed file", "invalid topology", "numerical failure",
           "error", "internal error"]


class TopogenError(RuntimeError):
    """A libtopogen failure: str() is the library's message, .status its
    code (topogen.h's topogen_status)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _check(status):
    if status != 0:
        msg = _lib.topogen_last_error().decode("utf-8", "replace")
        if status == 3:  # TOPOGEN_EIO: also an OSError for callers
            raise _IOError(status, msg)
        raise TopogenError(status, msg)


class _IOError(TopogenError, OSError):
    pass


def _b(s):
    return None if s is None else os.fsencode(s) if isinstance(
        s, os.PathLike) else str(s).encode()


def version():
    """The topogen version written into file headers ("2.1")."""
    return _lib.topogen_version().decode()


class Topology:
    """A topology: P >= 1 rounds (P = 1: a static graph) of a weighted
    graph on nodes 0..n-1. Round t of gossip uses W of round t mod P.
    Made by learn() or load()."""

    def __init__(self, handle):
        self._h = handle

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h and _lib is not None:
            _lib.topogen_free(h)

    @property
    def n(self):
        """Nodes (workers)."""
        return _lib.topogen_nodes(self._h)

    @property
    def rounds(self):
        """Rounds per period P (1 for a static topology)."""
        return _lib.topogen_rounds(self._h)

    @property
    def directed(self):
        """True when W need not be symmetric (a directed file)."""
        return bool(_lib.topogen_is_directed(self._h))

    @property
    def header(self):
        """The header comment of the topology's file ("" when none)."""
        return _lib.topogen_header(self._h).decode("utf-8", "replace")

    def edges(self, t=0):
        """Edges of round t (arcs when directed)."""
        return _lib.topogen_edges(self._h, t)

    def mixing(self, t=0):
        """W of round t mod P: a float64 (n, n) numpy array in node order
        0..n-1, W[i, j] the weight node i gives to j's value, self weights
        on the diagonal, each row summing to 1."""
        n = self.n
        w = np.empty((n, n), dtype=np.float64)
        _check(_lib.topogen_mixing_matrix(
            self._h, t, w.ctypes.data_as(_PD)))
        return w

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
        cnt = ctypes.c_size_t(0)
        _check(_lib.topogen_neighbours(self._h, t, i, None, None, 0,
                                       ctypes.byref(cnt)))
        ids = (ctypes.c_size_t * max(cnt.value, 1))()
        _check(_lib.topogen_neighbours(self._h, t, i, ids, None, cnt.value,
                                       ctypes.byref(cnt)))
        return [int(ids[k]) for k in range(cnt.value)]

    neighbors = neighbours

    def to_networkx(self, t=0):
        """Round t as a networkx DiGraph on nodes 0..n-1 (added in that
        order), with an edge j -> i of weight W[i, j] for every W[i, j] !=
        0, self-loops included: nx.to_numpy_array(G) is W transposed (W
        itself when symmetric), and BlueFog's GetRecvWeights(G, i) gives
        (W[i, i], {j: W[i, j]}), what bf.set_topology(G) expects."""
        import networkx as nx
        w = self.mixing(t)
        g = nx.DiGraph()
        g.add_nodes_from(range(self.n))
        rows, cols = np.nonzero(w)
        g.add_weighted_edges_from(
            (int(j), int(i), float(w[i, j])) for i, j in zip(rows, cols))
        return g

    def eval(self, t=0, gamma=None):
        """Measures of round t (and of the period): a dict with n, m,
        dmin, dmax, components, diameter, slem, lambda2 and lambdan (of
        W), lambda2_l and lambdan_l (of the Laplacian), slem_best,
        rounds (to shrink disagreement by 1e-3), period, period_norm,
        period_rounds, neff (n_eff at gamma, default 0.951) and messages
        (per node and round). Directed: slem is ||W - J||_2 and the
        eigenvalue fields are nan. O(n^3)."""
        m = _Measures()
        _lib.topogen_measures_init(ctypes.byref(m))
        if gamma is not None:
            m.gamma = gamma
        _check(_lib.topogen_measure(self._h, t, ctypes.byref(m)))
        return {k: getattr(m, k) for k, _ in _Measures._fields_
                if k != "size"}

    def set_weights(self, rule):
        """Replaces the weights by a rule: laplacian, mh, maxdeg, fdla."""
        _check(_lib.topogen_set_weights(self._h, _b(rule)))
        return self

    def save(self, path, format=None):
        """Writes the topology (atomically) as edgelist (default, with its
        header), ncol, graphml or gml; "-" is stdout."""
        _check(_lib.topogen_write(self._h, _b(path), _b(format)))

    def __reduce__(self):
        # pickled as its edge-list file (exact: %.17g), e.g. for
        # torch.multiprocessing.spawn
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.txt")
            self.save(path)
            with open(path, "rb") as f:
                return (_unpickle, (f.read(),))

    def __repr__(self):
        return "<topogen.Topology n=%d rounds=%d%s>" % (
            self.n, self.rounds, " directed" if self.directed else "")


def learn(n=64, d=4, kind=None, weights=None, objective=None, seed=1,
          flags=(), **options):
    """Learns (kind "learned", the default) or builds a topology with
    topogen's settings; the result's file is byte for byte what
    `topogen -n N -d D ...` writes (the options go through topogen's own
    flag parser: every kind, objective and weight rule it has). Further
    options by their flag's name: init, eigensolver, iters, restarts,
    candidates, threads, groups, max_cross, t0, t1, time_limit,
    no_screen; any other flag as words in flags, e.g.
    flags=["--directed", "--gamma", "0.9"]. kind: learned, rrl, ring,
    torus, hypercube, exponential-sym, random, complete, one-peer-exp,
    base, perm, exp-directed, epidemic, ... (`topogen --help`)."""
    o = _LearnOpts()
    _lib.topogen_learn_opts_init(ctypes.byref(o))
    o.n, o.d, o.seed = n, d, seed
    o.kind, o.weights, o.objective = _b(kind), _b(weights), _b(objective)
    words = (ctypes.c_char_p * (len(flags) + 1))(*[_b(f) for f in flags])
    o.flags = ctypes.cast(words, ctypes.POINTER(ctypes.c_char_p))
    names = {k for k, _ in _LearnOpts._fields_} - {"size", "flags"}
    for k, v in options.items():
        if k not in names:
            raise TypeError("learn(): unknown option %r" % k)
        setattr(o, k, _b(v) if k in ("init", "eigensolver") else v)
    h = ctypes.c_void_p()
    _check(_lib.topogen_learn(ctypes.byref(o), ctypes.byref(h)))
    return Topology(h.value)


def _unpickle(data):
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.txt")
        with open(path, "wb") as f:
            f.write(data)
        return load(path)


def load(path, format=None, weights=None):
    """Reads a topology file in any format (detected unless format is
    given: edgelist, ncol, graphml, gml), one round or a time-varying
    sequence. A file without weights gets `weights` (default laplacian,
    as dpsgd-train does); weights= on a weighted file replaces them."""
    h = ctypes.c_void_p()
    _check(_lib.topogen_read(_b(path), _b(format), ctypes.byref(h)))
    t = Topology(h.value)
    if weights is not None or not _lib.topogen_is_weighted(t._h):
        t.set_weights(weights or "laplacian")
    return t

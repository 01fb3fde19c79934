"""topogen._kinds: the public builders (topogen.ring, ...) and
topogen.eval, pure Python over topogen/_build.py and _measure.py: no
libtopogen, no numpy. Each builder's file (Topology.save) is what
`topogen --kind KIND -n N -d D --seed S --weights RULE` writes, byte for
byte (topogen/_build.py says where and why; tests/python/check_wheel.py
compares them with bin/topogen).
"""
import os

from . import _build

DENSE_MAX = 4096


class _Built:
    """A builder's graph: n, rounds, ascending neighbour lists, the
    weight of each edge and the self weights (static kinds)."""

    def __init__(self, n, rounds, adj=None, wmap=None, self_w=None,
                 directed=False):
        self.n, self.rounds, self.directed = n, rounds, directed
        self.adj, self.wmap, self.self_w = adj, wmap, self_w

    def weight(self, i, j):
        return self.wmap[(i, j)]


def _count(x, what):
    if isinstance(x, bool) or not hasattr(x, "__index__"):
        raise TypeError("%s: an integer, not %s" % (what, type(x).__name__))
    return x.__index__()


def _static(kind, n, d, seed, weights, d_given=False):
    from . import Topology, TopogenError, learn, library_available
    n, d, seed = _count(n, "n"), _count(d, "d"), _count(seed, "seed")
    if n > DENSE_MAX:  # the header's spectra (and laplacian weights)
        if library_available():  # need the C code's sparse solver
            return learn(n, d, kind=kind, seed=seed, weights=weights)
        raise TopogenError(1, "-n: %d nodes: the Python package computes "
                           "spectra densely, up to %d nodes; above, "
                           "topogen.build uses libtopogen (make install; "
                           "topogen.library_available() says whether it "
                           "is found)" % (n, DENSE_MAX))
    if seed < 0 or seed >= 1 << 64:
        raise TopogenError(1, "--seed: expected an integer in [0, 2^64), "
                           "got %d" % seed)
    try:
        text = _build.static_file(kind, n, d, seed, str(weights), d_given)
    except _build.BuildError as e:
        raise TopogenError(1, str(e))
    # the graph from the text (cheap; the file is the one contract)
    adj = [[] for _ in range(n)]
    wmap = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        i, j, w = line.split()
        i, j, w = int(i), int(j), float(w)
        if i != j:
            adj[i].append(j)
            adj[j].append(i)
            wmap[(i, j)] = wmap[(j, i)] = w
    for a in adj:
        a.sort()
    self_w = []
    for i in range(n):
        row = 0.0
        for j in adj[i]:
            row += wmap[(i, j)]
        self_w.append(1.0 - row)
    return Topology(None, raw=text.encode(),
                    built=_Built(n, 1, adj, wmap, self_w))


def ring(n, weights="laplacian", seed=1):
    """The cycle 0-1-...-(n-1)-0 (n >= 2); `topogen --kind ring`."""
    return _static("ring", n, 4, seed, weights)


def torus(n, weights="laplacian", seed=1):
    """The 2-D torus a x b, n = a b with a, b >= 3 (a the largest such
    side <= sqrt(n)); `topogen --kind torus`."""
    return _static("torus", n, 4, seed, weights)


def hypercube(n, weights="laplacian", seed=1):
    """The hypercube on n = 2^k nodes; `topogen --kind hypercube`."""
    return _static("hypercube", n, 4, seed, weights)


def exponential(n, weights="laplacian", seed=1):
    """The symmetric exponential graph i ~ i +- 2^k (2^k < n);
    `topogen --kind exponential-sym`."""
    return _static("exponential-sym", n, 4, seed, weights)


def complete(n, weights="laplacian", seed=1):
    """The complete graph (W = 11^T/n up to rounding with laplacian
    weights); `topogen --kind complete`."""
    return _static("complete", n, 4, seed, weights)


def ring_lattice(n, d, weights="laplacian", seed=1):
    """i ~ i + 1..d/2 (and i + n/2 for odd d); `topogen --kind rrl`."""
    return _static("rrl", n, d, seed, weights)


def random_regular(n, d, seed=1, weights="laplacian"):
    """A connected random d-regular graph; `topogen --kind random -n N -d
    D --seed S`. The CLI draws it with igraph's Viger-Latapy sampler
    seeded from its own generator: with the system's libigraph 0.10
    (Debian's libigraph3) this is the same call and the same graph;
    without it a different connected d-regular graph, whose header says
    so (topogen/_build.py)."""
    return _static("random", n, d, seed, weights)


def _sequence(kind, n, d, seed):
    from . import Topology, TopogenError
    from . import _seq
    n, d, seed = _count(n, "n"), _count(d, "d"), _count(seed, "seed")
    try:
        text, period = _seq.seq_file(kind, n, d, seed)
    except _build.BuildError as e:
        raise TopogenError(1, str(e))
    return Topology(None, raw=text.encode(), built=_Built(n, period))


def one_peer_exp(n, seed=1, _d=4):
    """The one-peer exponential sequence (n = 2^k): round l pairs i and
    i + 2^l with weights 1/2; the product of the k rounds is exactly
    11^T/n. `topogen --kind one-peer-exp`."""
    return _sequence("one-peer-exp", n, _d, seed)


def base(n, k=1, seed=1):
    """Base-(k+1) (Takezawa et al. 2023): a periodic sequence with at
    most k peers per node and round whose product over the period is
    exactly 11^T/n, for any n (n <= 4,096 here); `topogen --kind base
    -n N -d K`, byte for byte (topogen/_seq.py)."""
    return _sequence("base", n, k, seed)


def dcliques(counts=None, labels=None, seed=1, inter="small-world",
             weights="mh"):
    """D-Cliques (Bellet et al. 2022) from the workers' class counts:
    cliques whose pooled labels are close to the global mix, sparsely
    linked (inter: small-world, ring or fractal; weights: mh or equal,
    the CLI's --clique-weights). counts= an (n, classes) matrix or a
    counts file; labels= the workers' label arrays. With a counts file
    the result is byte for byte `topogen --kind dcliques --labels FILE
    --seed S --inter I --clique-weights W` (topogen/_dcliques.py). The
    file's `# cliques:` line is what dpsgd-train --algorithm clique-avg
    reads. Pure Python: O(steps (n/q)^2 K) with steps = 1000 + 20 n."""
    from . import Topology, TopogenError, _counts_rows, _labels_rows
    from . import _dcliques
    if (counts is None) == (labels is None):
        raise ValueError("dcliques(): counts= (class counts: a matrix or a "
                         "counts file) or labels= (the workers' label "
                         "arrays), one of them")
    seed = _count(seed, "seed")
    if isinstance(counts, (str, bytes, os.PathLike)):
        src = os.fsdecode(counts)
        if not os.path.isfile(src):
            raise TopogenError(3, "cannot open %s: No such file or "
                               "directory" % src)
    else:
        given = counts if counts is not None else labels
        try:
            n = len(given)
        except TypeError:
            n = 0
        try:
            src = (_counts_rows(counts, n) if counts is not None
                   else _labels_rows(labels, n))
        except ValueError as e:  # the same checks as learn()'s
            raise ValueError(str(e).replace("learn(", "dcliques(", 1))
    try:
        text, n, nb, wmap, self_w = _dcliques.dcliques_file(
            src, seed, inter, weights)
    except ValueError as e:
        raise TopogenError(4 if isinstance(src, str) else 1, str(e))
    return Topology(None, raw=text.encode(),
                    built=_Built(n, 1, nb, wmap, self_w))


def build(kind, n, d=None, seed=1, weights="laplacian"):
    """Any kind by its CLI name: ring, torus, hypercube, exponential-sym,
    complete, rrl, random, one-peer-exp, base in pure Python (dcliques:
    topogen.dcliques); every other kind (stl-fw, perm, epidemic,
    learned, ...) through
    libtopogen's learn(), which says how to install it when it is
    missing. d: the degree of rrl and random (default 4, as the CLI's
    -d); given for another kind it is what `-d` is to the CLI (the
    settings line; refused where the kind implies another degree)."""
    given = d is not None
    d = 4 if d is None else d
    if kind in ("ring", "torus", "hypercube", "exponential-sym", "complete",
                "rrl", "random"):
        return _static(kind, n, d, seed, weights, given)
    if kind == "one-peer-exp" and given and d != 1:
        from . import TopogenError  # one peer a round, as the CLI says
        raise TopogenError(1, "-d %d: --kind one-peer-exp on %d nodes has "
                           "degree 1 (implied by the kind): leave -d out"
                           % (d, n))
    if kind in ("one-peer-exp", "base"):
        return _sequence(kind, n, d, seed)
    if kind == "dcliques":
        raise ValueError("build(): D-Cliques need the workers' class counts:"
                         " topogen.dcliques(counts=...)")
    from . import learn
    return learn(n, d, kind=kind, seed=seed, weights=weights)


def eval(topology, gamma=0.951):
    """The figures of `topogen eval --json` for a Topology or a file path
    (lambda2 and lambdan of the Laplacian, slem of W as given,
    spectral_gap = 1 - slem, neff at gamma, ...): Topology.eval(), pure
    Python without libtopogen for a static undirected topology."""
    from . import Topology, load
    if not isinstance(topology, Topology):
        if isinstance(topology, (str, bytes, os.PathLike)):
            topology = load(topology)
        else:
            raise TypeError("eval: a topogen.Topology or a file path, not %s"
                            % type(topology).__name__)
    return topology.eval(gamma=gamma)

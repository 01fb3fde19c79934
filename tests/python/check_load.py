"""check_load.py: topogen.load(f).W equals an independent reading of f.

The independent reading is networkx's, with the node-order recipe of
docs/topo/files.md ("Topology files"): nodelist=range(n), self weights
refilled as W_ii = 1 - sum_{j != i} W_ij. Files: topogen's edge list,
ncol, GraphML and GML of a learned graph; networkx's own
write_weighted_edgelist of it with the edges shuffled (so first
appearance is not node order, the trap); a 1-based edge list; an older
file with explicit `i i w` lines; a time-varying sequence, section by
section; directed files (perm, exp-directed) against networkx's DiGraph;
and an unweighted edge list (laplacian weights, compared with W = I -
alpha L from numpy). Also: learn() writes topogen's bytes, neighbours()
and to_networkx() agree with W. Exits 1 with a message on the first
mismatch.

usage: check_load.py BIN TMPDIR
"""
import os
import random
import subprocess
import sys

import networkx as nx
import numpy as np

import topogen

BIN, TMP = sys.argv[1], sys.argv[2]
failed = []


def check(cond, what):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failed.append(what)


def topogen_cli(*args):
    out = os.path.join(TMP, "f%d.txt" % len(os.listdir(TMP)))
    subprocess.run([os.path.join(BIN, "topogen"), "-q", "-o", out] +
                   [str(a) for a in args], check=True)
    return out


def header_n(path):
    for line in open(path):
        if not line.startswith("#"):
            break
        for tok in line.split():
            if tok.startswith("n="):
                return int(tok[2:])
    return None


def recipe(g, n):
    """The README's recipe: W in node order with self weights filled."""
    w = nx.to_numpy_array(g, nodelist=range(n), weight="weight")
    np.fill_diagonal(w, 0.0)
    np.fill_diagonal(w, 1.0 - w.sum(axis=1))
    return w


def same(a, b, tol=1e-15):
    return a.shape == b.shape and np.abs(a - b).max() <= tol


# 1. learn() gives topogen's file, byte for byte
lf = topogen_cli("-n", 24, "-d", 3, "--iters", 3000, "--seed", 7)
t = topogen.learn(24, 3, iters=3000, seed=7)
t.save(os.path.join(TMP, "lib.txt"))
check(open(lf).read() == open(os.path.join(TMP, "lib.txt")).read(),
      "learn(24, 3, iters=3000, seed=7) writes topogen's bytes")
W = topogen.load(lf).W
n = 24

# 2. every format against networkx with the recipe
g = nx.read_weighted_edgelist(lf, nodetype=int)
check(same(W, recipe(g, header_n(lf))), "edgelist: load().W == networkx")
naive = nx.to_numpy_array(g)
check(not same(naive, W - np.diag(np.diag(W)), 1e-9),
      "edgelist: the naive nx.to_numpy_array(g) is permuted (the trap)")
nf = topogen_cli("-n", 24, "-d", 3, "--iters", 3000, "--seed", 7,
                 "--format", "ncol")
check(same(topogen.load(nf).W, recipe(nx.read_weighted_edgelist(
    nf, nodetype=int), n)), "ncol: load().W == networkx")
gm = topogen_cli("-n", 24, "-d", 3, "--iters", 3000, "--seed", 7,
                 "--format", "graphml")
gx = nx.read_graphml(gm)
gx = nx.relabel_nodes(gx, {v: int(v.lstrip("n")) for v in gx.nodes})
check(same(topogen.load(gm).W, recipe(gx, n)), "graphml: load().W == networkx")
gl = topogen_cli("-n", 24, "-d", 3, "--iters", 3000, "--seed", 7,
                 "--format", "gml")
gg = nx.read_gml(gl, label="id")
check(same(topogen.load(gl).W, recipe(gg, n)), "gml: load().W == networkx")

# networkx's own writer, edges shuffled: first appearance != node order
edges = list(g.edges(data=True))
random.Random(3).shuffle(edges)
h = nx.Graph()
h.add_edges_from(edges)
sf = os.path.join(TMP, "nx.txt")
nx.write_weighted_edgelist(h, sf)
first = []
for line in open(sf):
    for v in map(int, line.split()[:2]):
        if v not in first:
            first.append(v)
check(first != sorted(first), "the shuffled file lists nodes out of order")
check(same(topogen.load(sf).W, recipe(nx.read_weighted_edgelist(
    sf, nodetype=int), n), 1e-15), "networkx-written, shuffled: load().W "
      "== networkx (node order 0..n-1)")
check(same(topogen.load(sf).W, W, 1e-15), "networkx-written: same W as "
      "topogen's file")

# 1-based ids, and explicit self weights (older files)
of = os.path.join(TMP, "one.txt")
with open(of, "w") as f:
    for u, v, d in g.edges(data=True):
        f.write("%d %d %.17g\n" % (u + 1, v + 1, d["weight"]))
check(same(topogen.load(of).W, W, 1e-15), "1-based edge list: load().W "
      "== W of the 0-based file")
xf = os.path.join(TMP, "self.txt")
with open(xf, "w") as f:
    f.write("# n=%d\n" % n)
    for i in range(n):
        f.write("%d %d %.17g\n" % (i, i, W[i, i]))
    for u, v, d in g.edges(data=True):
        f.write("%d %d %.17g\n" % (u, v, d["weight"]))
gs = nx.read_weighted_edgelist(xf, nodetype=int)
check(same(topogen.load(xf).W, recipe(gs, n), 1e-15), "explicit `i i w` "
      "lines: load().W == networkx")

# 3. a time-varying sequence, section by section
for kind, k, d in (("one-peer-exp", 16, ()), ("base", 12, ("-d", 2))):
    qf = topogen_cli("-n", k, *d, "--kind", kind)
    q = topogen.load(qf)
    sections, cur = [], None
    for line in open(qf):
        if line.startswith("# round "):
            cur = []
            sections.append(cur)
        elif cur is not None and not line.startswith("#") and line.strip():
            cur.append(line)
    ok = q.rounds == len(sections) > 1
    for r, lines in enumerate(sections):
        gr = nx.parse_edgelist(lines, nodetype=int, data=(("weight", float),))
        ok = ok and same(q.mixing(r), recipe(gr, k))
        ok = ok and same(q.Ws[r], q.mixing(r + q.rounds), 0)
    check(ok, "%s n=%d: %d rounds, each load().mixing(t) == networkx" %
          (kind, k, len(sections)))

# 3b. directed files (arc i j w: j takes w of i's model, W_ji = w), read
# by networkx as a DiGraph: W = A^T in node order, self weights refilled
for kind, args in (("perm", ["-d", 2]), ("exp-directed", [])):
    df = topogen_cli("-n", 12, "--kind", kind, *args)
    dt = topogen.load(df)
    dg = nx.read_weighted_edgelist(df, nodetype=int, create_using=nx.DiGraph)
    want = recipe(nx.DiGraph(nx.to_numpy_array(dg, nodelist=range(12)).T),
                  12)
    check(dt.directed and same(dt.W, want) and not same(dt.W, dt.W.T, 1e-9),
          "directed %s: load().W == networkx DiGraph's A^T (not symmetric)"
          % kind)
    lt = topogen.learn(12, *(a for a in args[1:]), kind=kind)
    lt.save(os.path.join(TMP, "dlib.txt"))
    check(open(df).read() == open(os.path.join(TMP, "dlib.txt")).read(),
          "learn(kind=%r) writes topogen's bytes" % kind)
    check(list(dt.neighbours(0)) == sorted(dg.predecessors(0)),
          "directed %s: neighbours(i) are the nodes i receives from" % kind)
    bg = dt.to_networkx()
    check(same(nx.to_numpy_array(bg), dt.W.T) and
          all(bg[j][0]["weight"] == dt.W[0, j] for j in bg.predecessors(0)),
          "directed %s: to_networkx() has j -> i of weight W_ij (BlueFog's "
          "GetRecvWeights)" % kind)

# 4. an unweighted file gets laplacian weights, W = I - alpha L
uf = os.path.join(TMP, "plain.txt")
nx.write_edgelist(nx.Graph(g.edges()), uf, data=False)
A = nx.to_numpy_array(nx.read_edgelist(uf, nodetype=int), nodelist=range(n))
L = np.diag(A.sum(1)) - A
ev = np.linalg.eigvalsh(L)
Wl = np.eye(n) - 2.0 / (ev[1] + ev[-1]) * L
check(same(topogen.load(uf).W, Wl, 1e-12), "unweighted: load().W == I - "
      "alpha L (laplacian weights)")

# 5. neighbours, to_networkx, eval
tl = topogen.load(lf)
check(all(tl.neighbours(i) == sorted(g.neighbors(i)) for i in range(n)),
      "neighbours(i) == networkx's, ascending")
dg = tl.to_networkx()
check(list(dg.nodes) == list(range(n)) and same(nx.to_numpy_array(dg), W.T)
      and all(dg.has_edge(i, i) for i in range(n)),
      "to_networkx(): node order 0..n-1, self-loops, to_numpy_array == W^T")
e = tl.eval()
ew = np.linalg.eigvalsh(W)
check(abs(e["slem"] - max(abs(ew[0]), abs(ew[-2]))) < 1e-10 and
      abs(e["lambda2_w"] - ew[-2]) < 1e-10 and
      abs(e["lambdan_w"] - ew[0]) < 1e-10,
      "eval(): slem, lambda2_w, lambdan_w == numpy's eigenvalues of W")
el = np.linalg.eigvalsh(np.diag((W != 0).sum(1) - 1.0) - (W != 0) +
                        np.eye(n))
check(abs(e["lambda2"] - el[1]) < 1e-10 and abs(e["lambdan"] - el[-1]) < 1e-10,
      "eval(): lambda2, lambdan are the Laplacian's, as `topogen eval`")
import topogen._measure as _m  # noqa: E402
p = tl._eval_pure(0, 0.951)
check(all(abs(p[k] - e[k]) < 1e-10 for k in ("lambda2", "lambdan", "slem",
                                              "neff")),
      "eval without libtopogen == with it (lambda2, lambdan, slem, neff)")

if failed:
    print("check_load: %d FAILED" % len(failed))
    sys.exit(1)
print("check_load: all passed")

"""read_topo.py: read a topogen file with networkx AND python-igraph, as a
user would, and check what they see: the degree sequence, the weights and
the SLEM of the mixing matrix they imply (W_ii = 1 - sum_j W_ij).

    python3 tests/python/read_topo.py FORMAT FILE D SLEM

FORMAT is edgelist, ncol, graphml or gml; D the expected degree of every
node; SLEM the value `topogen eval --json` printed. Exits non-zero with a
message on the first mismatch. Run by tests/cli/topogen.sh with Debian's python3
(packages python3-networkx, python3-igraph, python3-numpy, python3-scipy).
"""
import sys
import warnings

import igraph
import networkx as nx
import numpy as np


def slem_of(n, edges):
    """SLEM of W built from (i, j, w) with implied self weights."""
    w = np.zeros((n, n))
    for i, j, x in edges:
        w[i, j] = w[j, i] = x
    w += np.diag(1.0 - w.sum(axis=1))
    ev = np.linalg.eigvalsh(w - np.ones((n, n)) / n)
    return max(abs(ev[0]), abs(ev[-1]))


def check(tool, n, degrees, edges, d, slem, tol):
    if any(k != d for k in degrees):
        sys.exit(f"{tool}: degrees {sorted(set(degrees))}, expected all {d}")
    if any(i == j for i, j, _ in edges):
        sys.exit(f"{tool}: sees a self-loop")
    if len(edges) != n * d // 2:
        sys.exit(f"{tool}: {len(edges)} edges, expected {n * d // 2}")
    got = slem_of(n, edges)
    if abs(got - slem) > tol:
        sys.exit(f"{tool}: SLEM {got!r}, topogen eval says {slem!r}")


def main():
    warnings.simplefilter("ignore", FutureWarning)
    fmt, path, d, slem = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        float(sys.argv[4])
    # igraph writes GraphML/GML weights with 15 digits; ours are exact
    tol = 1e-9 if fmt in ("edgelist", "ncol") else 1e-6

    # networkx
    if fmt in ("edgelist", "ncol"):
        g = nx.read_weighted_edgelist(path, nodetype=int)
    elif fmt == "graphml":
        g = nx.read_graphml(path)
    else:
        g = nx.read_gml(path, label="id")
    g = nx.convert_node_labels_to_integers(g, ordering="sorted")
    n = g.number_of_nodes()
    lap = nx.laplacian_matrix(g, weight=None).toarray()
    if any(lap[i, i] != d for i in range(n)):
        sys.exit("networkx: Laplacian diagonal is not the degree")
    check("networkx", n, [k for _, k in g.degree()],
          [(i, j, float(x["weight"])) for i, j, x in g.edges(data=True)],
          d, slem, tol)

    # python-igraph
    if fmt in ("edgelist", "ncol"):
        if fmt == "edgelist":  # igraph's ncol reader takes no comments
            with open(path) as f:
                body = "".join(l for l in f if not l.startswith("#"))
            tmp = path + ".nocomment"
            with open(tmp, "w") as f:
                f.write(body)
            path = tmp
        h = igraph.Graph.Read_Ncol(path, names=True, weights=True,
                                   directed=False)
        ids = [int(x) for x in h.vs["name"]]
        edges = [(ids[e.source], ids[e.target], e["weight"]) for e in h.es]
    else:
        h = (igraph.Graph.Read_GraphML(path) if fmt == "graphml"
             else igraph.Graph.Read_GML(path))
        edges = [(e.source, e.target, e["weight"]) for e in h.es]
    check("igraph", h.vcount(), h.degree(), edges, d, slem, tol)
    print(f"read_topo: {fmt}: networkx and igraph agree (n={n}, d={d})")


main()

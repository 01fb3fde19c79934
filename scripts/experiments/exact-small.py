#!/usr/bin/python3
"""exact-small.py: topogen's default learned graph against the exhaustive
optimum for small n.

For every (n, d) with n <= NMAX (default 12), n d even and 3 <= d <= n - 3,
nauty's `geng -c -d D -D D N` lists every connected d-regular graph on n
nodes up to isomorphism; the best SLEM with optimal constant Laplacian
weights, (ln - l2) / (ln + l2), over all of them is the optimum of
topogen's default objective (ratio: max l2/ln). Then the default
`topogen -n N -d D` runs and `topogen eval --json` gives its SLEM. One
table row per (n, d): graphs enumerated, the optimum, topogen's SLEM, and
whether topogen found it (within 1e-9). Needs nauty (geng), python3-numpy
and python3-networkx.

  scripts/experiments/exact-small.py [NMAX] > data/small-optima.tsv
  BIN=bin (where topogen is)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import warnings

import networkx as nx
import numpy as np

warnings.simplefilter("ignore", FutureWarning)
here = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("BIN", os.path.join(here, "..", "..", "bin"))
# Debian installs geng as nauty-geng
GENG = "nauty-geng" if shutil.which("nauty-geng") else "geng"
NMAX = int(sys.argv[1]) if len(sys.argv) > 1 else 12


def geng(n, d):
    out = subprocess.run([GENG, "-q", "-c", "-d%d" % d, "-D%d" % d, str(n)],
                         check=True, capture_output=True).stdout
    return [line for line in out.split(b"\n") if line]


def slem_of(g6):
    g = nx.from_graph6_bytes(g6)
    ev = np.linalg.eigvalsh(nx.laplacian_matrix(g).toarray().astype(float))
    l2, ln = ev[1], ev[-1]
    return (ln - l2) / (ln + l2)


def topogen_slem(n, d, tmp):
    path = os.path.join(tmp, "g.txt")
    subprocess.run([os.path.join(BIN, "topogen"), "-n", str(n), "-d", str(d),
                    "-q", "-o", path], check=True)
    out = subprocess.run([os.path.join(BIN, "topogen"), "eval", path,
                          "--json"], check=True, capture_output=True).stdout
    return json.loads(out)["slem"]


def main():
    print("# n\td\tgraphs\toptimum_slem\ttopogen_slem\tfound")
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(6, NMAX + 1):
            for d in range(3, n - 2):
                if n * d % 2:
                    continue
                gs = geng(n, d)
                best = min(slem_of(g) for g in gs)
                got = topogen_slem(n, d, tmp)
                print("%d\t%d\t%d\t%.12f\t%.12f\t%s" %
                      (n, d, len(gs), best, got,
                       "yes" if got <= best + 1e-9 else "no"), flush=True)


if __name__ == "__main__":
    main()

"""fuzz_reader.py: the pure Python reader (topogen/_files.py) against
libtopogen's (topogen_read) on mutated topology files.

Seeds: a learned file, a time-varying sequence, a directed file, an
unweighted and a 1-based list, an epidemic header. Each case applies 1-3
random mutations (a byte changed, inserted or deleted; a line deleted,
duplicated or swapped; a number replaced by an edge value: -1, 0, 1e308,
nan, 1000000, a huge id; a token such as n=, period=, directed=1,
`# round 0`) and reads the result with both. Both must accept or both
refuse; when both accept, the rounds' W must be equal bit for bit (and
n, the round count, directedness). Syntax and row sums only, as
topogen_read checks (connectivity and mixing are load()'s extra checks).

usage: fuzz_reader.py BIN TMPDIR [CASES] [SEED]  (default 400 cases, seed 1)
"""
import ctypes
import os
import random
import subprocess
import sys

import numpy as np

import topogen
from topogen import _files
from topogen import _lib as L

BIN, TMP = sys.argv[1], sys.argv[2]
CASES = int(sys.argv[3]) if len(sys.argv) > 3 else 400
rnd = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
lib = L.lib()
BIG = 2000


def cli(*args):
    out = os.path.join(TMP, "seed%d.txt" % len(os.listdir(TMP)))
    subprocess.run([os.path.join(BIN, "topogen"), "-q", "-o", out] +
                   [str(a) for a in args], check=True)
    with open(out, "rb") as f:
        return f.read()


SEEDS = [cli("-n", 8, "-d", 3), cli("-n", 8, "--kind", "base", "-d", 1),
         cli("-n", 6, "--kind", "perm", "-d", 2),
         cli("-n", 8, "--kind", "epidemic", "-d", 2),
         b"0 1\n1 2\n2 3\n3 0\n", b"1 2 0.5\n2 3 0.5\n3 1 0.25\n",
         b"# n=4\n0 1 0.5\n1 1 0.5\n2 3 0.5\n0 0 0.5\n"]
TOKENS = [b"-1", b"0", b"1e308", b"nan", b"1000000", b"99999999999999999999",
          b"0.5", b"n=3", b"n=9", b"period=2", b"directed=1", b"# round 0",
          b"# round 1 n=8", b"kind=epidemic s=2", b"{'weight': 0.5}", b"{}",
          b"\r", b"#", b" ", b"\t"]


def mutate(data):
    lines = data.split(b"\n")
    op = rnd.randrange(7)
    if op == 0 and data:
        k = rnd.randrange(len(data))
        return data[:k] + bytes([rnd.randrange(256)]) + data[k + 1:]
    if op == 1:
        k = rnd.randrange(len(data) + 1)
        return data[:k] + rnd.choice(TOKENS) + data[k:]
    if op == 2 and data:
        k = rnd.randrange(len(data))
        return data[:k] + data[k + 1:]
    if op == 3 and len(lines) > 1:
        del lines[rnd.randrange(len(lines))]
    elif op == 4 and lines:
        k = rnd.randrange(len(lines))
        lines.insert(k, lines[k])
    elif op == 5 and len(lines) > 1:
        a, b = rnd.randrange(len(lines)), rnd.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
    elif lines:
        k = rnd.randrange(len(lines))
        f = lines[k].split(b" ")
        f[rnd.randrange(len(f))] = rnd.choice(TOKENS)
        lines[k] = b" ".join(f)
    return b"\n".join(lines)


def c_read(path):
    h = ctypes.c_void_p()
    if lib.topogen_read(path.encode(), b"edgelist", ctypes.byref(h)) != 0:
        return None, lib.topogen_last_error().decode("utf-8", "replace")
    try:
        n, P = lib.topogen_nodes(h), lib.topogen_rounds(h)
        if n > BIG:  # a huge n= or id: no dense W
            return ("big", n, P), None
        w = np.empty((n, n))
        if (lib.topogen_mixing_matrix(
                h, 0, w.ctypes.data_as(ctypes.POINTER(ctypes.c_double))) and
                b"epidemic" in lib.topogen_last_error()):
            return ("epidemic", n, P), None
        if not lib.topogen_is_weighted(h):
            return ("unweighted", n, P), None
        Ws = []
        for r in range(P):
            w = np.empty((n, n))
            st = lib.topogen_mixing_matrix(
                h, r, w.ctypes.data_as(ctypes.POINTER(ctypes.c_double)))
            if st != 0:  # epidemic
                return ("epidemic", n, P), None
            Ws.append(w)
        return ("W", n, P, bool(lib.topogen_is_directed(h)), Ws), None
    finally:
        lib.topogen_free(h)


def py_read(path):
    try:
        with open(path, "rb") as f:
            p = _files.parse_edgelist(f.read(), path)
        if p.epidemic:
            return ("epidemic", p.n, 0), None
        for r in p.rounds:
            if r.w is not None:
                _files._check_stochastic(r, path)
        if p.n > BIG:
            return ("big", p.n, len(p.rounds)), None
        if p.rounds[0].w is None:
            return ("unweighted", p.n, len(p.rounds)), None
        for k, r in enumerate(p.rounds):
            _files._check_stochastic(r, path)
        return ("W", p.n, len(p.rounds), p.directed,
                [r.dense() for r in p.rounds]), None
    except _files.FileError as e:
        return None, str(e)


def same(a, b):
    if a[0] != b[0] or a[1] != b[1]:
        return False
    if a[0] in ("epidemic", "big"):
        return True
    if a[2] != b[2]:
        return False
    if a[0] == "W":
        return a[3] == b[3] and all(np.array_equal(x, y) for x, y in
                                    zip(a[4], b[4]))
    return True


bad = 0
accepted = 0
for case in range(CASES):
    data = rnd.choice(SEEDS)
    for _ in range(rnd.randint(1, 3)):
        data = mutate(data)
    path = os.path.join(TMP, "case.txt")
    with open(path, "wb") as f:
        f.write(data)
    (c, cm), (p, pm) = c_read(path), py_read(path)
    ok = (c is None and p is None) or (c is not None and p is not None and
                                       same(c, p))
    accepted += c is not None
    if not ok:
        bad += 1
        if bad <= 8:
            with open(os.path.join(TMP, "mismatch-%d.txt" % case), "wb") as f:
                f.write(data)
            print("MISMATCH case %d: C %s | Python %s\n  file: %r" % (
                case, cm or c[0], pm or (p and p[0]), data[:300]))
print("fuzz_reader: %d cases, %d accepted by libtopogen, %d mismatches" % (
    CASES, accepted, bad))

# GraphML and GML after a UTF-8 byte-order mark and blank lines (issue 44:
# the Python reader refused them; --format graphml refused what auto
# read): detected (auto) and named, both readers accept or refuse alike,
# with the same n; some cases mutated.
FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "fixtures")
XSEEDS = []
for name in ("ring8-networkx.graphml", "ring8-igraph.graphml",
             "ring8-networkx.gml", "ring8-igraph.gml"):
    with open(os.path.join(FIX, name), "rb") as f:
        XSEEDS.append((name.rsplit(".", 1)[1], f.read()))
PREFIX = [b"", b"\xef\xbb\xbf", b"\n\n", b"\xef\xbb\xbf\n \n", b" \t\r\n",
          b"\xef\xbb"]


def c_n(path, fmt):
    h = ctypes.c_void_p()
    if lib.topogen_read(path.encode(), fmt.encode(), ctypes.byref(h)) != 0:
        return None, lib.topogen_last_error().decode("utf-8", "replace")
    n = lib.topogen_nodes(h)
    lib.topogen_free(h)
    return n, None


def py_n(path, fmt):
    try:
        return topogen._parse(path, fmt).n, None
    except topogen.TopogenError as e:
        return None, str(e)


xbad = xacc = 0
XCASES = max(CASES // 4, 24)
for case in range(XCASES):
    kind, data = XSEEDS[case % len(XSEEDS)]
    data = PREFIX[(case // len(XSEEDS)) % len(PREFIX)] + data
    if case >= 2 * len(PREFIX) * len(XSEEDS) and rnd.random() < 0.5:
        data = mutate(data)
    path = os.path.join(TMP, "xcase." + kind)
    with open(path, "wb") as f:
        f.write(data)
    for fmt in ("auto", kind):
        (c, cm), (p, pm) = c_n(path, fmt), py_n(path, fmt)
        xacc += c is not None
        if c != p:
            xbad += 1
            if xbad <= 8:
                print("MISMATCH %s case %d (%s): C %s | Python %s\n  file: "
                      "%r" % (kind, case, fmt, cm or c, pm or p, data[:120]))
    if case < len(PREFIX) * len(XSEEDS) and PREFIX[case // len(XSEEDS)] != \
            b"\xef\xbb" and c_n(path, kind)[0] != 8:
        xbad += 1
        print("REFUSED %s with prefix %r (%s): %s" % (
            kind, PREFIX[case // len(XSEEDS)], fmt, c_n(path, kind)[1]))
print("fuzz_reader: %d GraphML/GML cases (BOM, blank lines), %d reads "
      "accepted by libtopogen, %d mismatches" % (XCASES, xacc, xbad))
bad += xbad
sys.exit(1 if bad else 0)

"""topogen._dcliques: D-Cliques (Bellet, Kermarrec, Lavoie 2022) from
per-worker class counts, in pure Python, draw for draw and operation for
operation as topo/kinds/tg_dcliques.c (its stream "dclq" of cm_rng, the
same greedy swaps, links and weights), so that the file is the one
`topogen --kind dcliques --labels FILE --seed S` writes, byte for byte;
the header's heterogeneity is topo/measure/tg_hetero.c's and the slem
cm_eigen's (topogen/_linalg.py).
"""
import math
import os

from . import _build, _linalg
from ._rng import Rng

DC_STREAM = 0x64636c71  # "dclq"
INTERS = ("small-world", "ring", "fractal")


def read_counts(path):
    """(identity, rows) of a counts file as cm_labels_read reads it: the
    first line `# labels 1 IDENTITY` names it, other comments and blank
    lines are skipped, one line of non-negative integer counts per
    worker. ValueError naming the file and line otherwise."""
    rows, identity, first = [], "", True
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for lineno, raw in enumerate(lines, 1):
        line = raw.decode("utf-8", "replace")
        p = line.lstrip(" \t")
        if p.startswith("#"):  # the identity: the first line only
            if first and p == line and line.startswith("# labels 1 "):
                identity = line[len("# labels 1 "):].split("\r")[0]
            first = False
            continue
        first = False
        if p.strip("\r") == "":
            continue
        row = []
        for tok in p.rstrip("\r").split():
            if not tok.isdigit():
                raise ValueError("%s:%d: expected a non-negative integer "
                                 "count, got '%.20s'" % (path, lineno, tok))
            row.append(int(tok))
        if rows and len(row) != len(rows[0]):
            raise ValueError("%s:%d: %d counts, but the first worker's line "
                             "has %d" % (path, lineno, len(row), len(rows[0])))
        if sum(row) == 0:
            raise ValueError("%s:%d: worker %d has no images" % (
                path, lineno, len(rows)))
        rows.append(row)
    return identity, rows


def _skew(cnt, tot, g):
    d = 0.0
    for c in range(len(g)):
        d += abs(cnt[c] / tot - g[c])
    return 0.5 * d


def build(rows, inter="small-world", equal_clique=False, seed=1,
          steps=None):
    """tg_dcliques_build: (edges, weights, self weights, cliques, result
    dict) of the counts rows (n x K)."""
    n, K = len(rows), len(rows[0])
    if n < 2:
        raise ValueError("dcliques: at least 2 workers (got %d)" % n)
    if steps is None:
        steps = 1000 + 20 * n
    q = max((n + K - 1) // K, 1)
    count = [[float(x) for x in r] for r in rows]
    g = [0.0] * K
    all_ = 0.0
    for i in range(n):
        for c in range(K):
            g[c] += count[i][c]
            all_ += count[i][c]
    for c in range(K):
        g[c] /= all_
    r = Rng(seed, DC_STREAM)
    perm = list(range(n))
    r.shuffle(perm)
    clique = [0] * n
    for p in range(n):
        clique[perm[p]] = p * q // n
    cnt = [[0.0] * K for _ in range(q)]
    tot = [0.0] * q
    for i in range(n):
        C = clique[i]
        for c in range(K):
            cnt[C][c] += count[i][c]
            tot[C] += count[i][c]
    skew_start = 0.0
    for C in range(q):
        skew_start += _skew(cnt[C], tot[C], g) / q
    moff = [0] * (q + 1)
    for i in range(n):
        moff[clique[i] + 1] += 1
    for C in range(q):
        moff[C + 1] += moff[C]
    mem = [0] * n
    fill = moff[:q]
    for i in range(n):
        mem[fill[clique[i]]] = i
        fill[clique[i]] += 1
    swaps = 0
    st = 0
    while st < steps and q > 1:
        st += 1
        A = r.below(q)
        B = r.below(q - 1)
        B += B >= A
        base = _skew(cnt[A], tot[A], g) + _skew(cnt[B], tot[B], g)
        cand = []
        for xa in range(moff[A], moff[A + 1]):
            a = mem[xa]
            for xb in range(moff[B], moff[B + 1]):
                b = mem[xb]
                ta, tb = tot[A], tot[B]
                ca, cb = [0.0] * K, [0.0] * K
                for c in range(K):
                    x, y = count[a][c], count[b][c]
                    ca[c] = cnt[A][c] - x + y
                    cb[c] = cnt[B][c] - y + x
                    ta += y - x
                    tb += x - y
                if _skew(ca, ta, g) + _skew(cb, tb, g) < base - 1e-12:
                    cand.append((xa, xb))
        if not cand:
            continue
        xa, xb = cand[r.below(len(cand))]
        a, b = mem[xa], mem[xb]
        mem[xa], mem[xb] = b, a
        for c in range(K):
            x, y = count[a][c], count[b][c]
            cnt[A][c] += y - x
            cnt[B][c] += x - y
            tot[A] += y - x
            tot[B] += x - y
        clique[a], clique[b] = B, A
        swaps += 1
    skew = 0.0
    for C in range(q):
        skew += _skew(cnt[C], tot[C], g) / q
    fill = moff[:q]
    for i in range(n):
        mem[fill[clique[i]]] = i
        fill[clique[i]] += 1
    adj = set()
    eu, ev = [], []

    def add_edge(a, b):
        if a == b or (a, b) in adj:
            return
        eu.append(a)
        ev.append(b)
        adj.add((a, b))
        adj.add((b, a))

    for C in range(q):
        for x in range(moff[C], moff[C + 1]):
            for y in range(x + 1, moff[C + 1]):
                add_edge(mem[x], mem[y])
    inter_deg = [0] * n
    linked = set()
    res = {"inter_edges": 0}

    def link(A, B):
        if A == B or (A, B) in linked:
            return
        linked.add((A, B))
        linked.add((B, A))
        best = None
        for x in range(moff[A], moff[A + 1]):
            for y in range(moff[B], moff[B + 1]):
                a, b = mem[x], mem[y]
                if (a, b) in adj:
                    continue
                if best is None or inter_deg[a] + inter_deg[b] < \
                        inter_deg[best[0]] + inter_deg[best[1]]:
                    best = (a, b)
        if best is None:
            return
        add_edge(*best)
        inter_deg[best[0]] += 1
        inter_deg[best[1]] += 1
        res["inter_edges"] += 1

    def least_linked(A, blk):
        best, best_sum = A, None
        C = A
        while C < A + blk and C < q:
            s = sum(inter_deg[mem[x]] for x in range(moff[C], moff[C + 1]))
            if best_sum is None or s < best_sum:
                best_sum, best = s, C
            C += 1
        return best

    if q > 1:
        if inter == "ring":
            for C in range(q):
                if q == 2 and C == 1:
                    break
                link(C, (C + 1) % q)
        elif inter == "small-world":
            off = 1
            while off < q:
                for C in range(q):
                    link(C, (C + off) % q)
                off *= 2
        else:
            fan = K if K > 1 else 2
            blk = 1
            while blk < q:
                for start in range(0, q, blk * fan):
                    for x in range(fan):
                        for y in range(x + 1, fan):
                            A, B = start + x * blk, start + y * blk
                            if B >= q:
                                continue
                            link(least_linked(A, blk), least_linked(B, blk))
                blk *= fan
    es = _build._simple(n, zip(eu, ev))
    nb = _build.csr(n, es)
    deg = [len(a) for a in nb]
    cw = []
    for C in range(q):
        ec = max((inter_deg[mem[x]] for x in range(moff[C], moff[C + 1])),
                 default=0)
        cw.append(1.0 / (moff[C + 1] - moff[C] + ec))
    wmap = {}
    for a, b in es:
        A, B = clique[a], clique[b]
        if equal_clique:
            w = cw[A] if A == B else min(cw[A], cw[B])
        else:
            w = 1.0 / (1 + max(deg[a], deg[b]))
        wmap[(a, b)] = wmap[(b, a)] = w
    self_w = []
    for i in range(n):
        row = 0.0
        for j in nb[i]:
            row += wmap[(i, j)]
        self_w.append(1.0 - row)
    res.update(q=q, skew=skew, skew_start=skew_start, swaps=swaps)
    return es, nb, wmap, self_w, clique, res


def heterogeneity(rows, nb, wmap, self_w):
    """tg_hetero_topo's H = (1/n) ||(W - J) Pi||_F^2."""
    n, K = len(rows), len(rows[0])
    pi = []
    for r in rows:
        s = 0.0
        for x in r:
            s += float(x)
        pi.append([float(x) / s if s > 0.0 else 0.0 for x in r])
    pibar = [0.0] * K
    for i in range(n):
        for c in range(K):
            pibar[c] += pi[i][c]
    for c in range(K):
        pibar[c] /= n
    h = 0.0
    for i in range(n):
        r = [self_w[i] * pi[i][c] for c in range(K)]
        for j in nb[i]:
            w = wmap[(i, j)]
            pj = pi[j]
            for c in range(K):
                r[c] += w * pj[c]
        sq = 0.0
        for c in range(K):
            d = r[c] - pibar[c]
            sq += d * d
        h += sq
    return h / n


def dcliques_file(counts, seed=1, inter="small-world", weights="mh"):
    """The text `topogen --kind dcliques --labels FILE --seed S --inter I
    --clique-weights W` writes. counts: a counts file (then byte for
    byte the CLI's) or rows of counts (the header then says
    file=<array>)."""
    if inter not in INTERS:
        raise ValueError("--inter: unknown '%s' (expected ring, "
                         "small-world or fractal)" % inter)
    if weights not in ("mh", "equal"):
        raise ValueError("--clique-weights: unknown '%s' (expected mh or "
                         "equal)" % weights)
    if isinstance(counts, (str, os.PathLike)):
        fname = os.fspath(counts)
        identity, rows = read_counts(fname)
    else:
        fname, identity, rows = "<array>", "", counts
    n = len(rows)
    es, nb, wmap, self_w, clique, res = build(
        rows, inter, weights == "equal", seed)
    h = heterogeneity(rows, nb, wmap, self_w)
    slem = _build.slem_of(n, nb, lambda i, j: wmap[(i, j)], self_w) \
        if n <= 4096 else math.nan
    dmax = max(len(a) for a in nb)
    lines = ["# topogen 2 n=%d d=%d kind=dcliques inter=%s weights=%s "
             "seed=%d version=%s" % (n, dmax, inter, "equal-clique" if
                                     weights == "equal" else "mh", seed,
                                     _build.VERSION),
             "# settings: -n %d -d 4 --kind dcliques --seed %d --format "
             "edgelist --labels %s --inter %s --clique-weights %s" % (
                 n, seed, fname, inter, weights),
             "# labels: %s file=%s" % (identity or "unnamed", fname),
             "# cliques: " + " ".join(str(c) for c in clique),
             "# cliques=%d inter_edges=%d skew=%.6f (start %.6f) "
             "heterogeneity=%.6f slem=%.4f" % (
                 res["q"], res["inter_edges"], res["skew"],
                 res["skew_start"], h, slem),
             "# one `i j W_ij` line per edge; W_ii = 1 - sum_j W_ij"]
    lines += ["%d %d %s" % (a, b, "%.17g" % wmap[(a, b)]) for a, b in es]
    return "\n".join(lines) + "\n", n, nb, wmap, self_w

"""topogen._measure: `topogen eval`'s figures of a static undirected
weighted topology without libtopogen (pure Python; the eigenvalues from
topogen/_linalg.py, cm_eigen's path as the C code). The keys and meanings
are those of `topogen eval --json`: lambda2 and lambdan are the
Laplacian's second smallest and largest eigenvalues, slem is ||W -
11^T/n||_2 of W as written, neff the effective number of neighbours of
Vogels et al. (closed form from W's eigenvalues, topo/measure/tg_neff.c).
Dense, O(n^3) time and O(n^2) memory: a few thousand nodes at most
(4,096, the C code's dense limit for n_eff).
"""
import math

from . import _build, _linalg

DENSE_MAX = 4096
DIAMETER_MAX = 2048


def _bfs_far(n, adj, s):
    dist = [-1] * n
    dist[s] = 0
    q = [s]
    for u in q:
        du = dist[u] + 1
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = du
                q.append(v)
    return dist


def rounds_1e3(slem):
    """tg_eval_rounds: least t with slem^t <= 1e-3 (inf when slem >= 1)."""
    if slem <= 1e-3:
        return 1.0 if slem > 0 else 0.0
    if slem >= 1.0:
        return math.inf
    return math.ceil(math.log(1e-3) / math.log(slem) - 1e-9)


def measure(n, adj, wget, selfw, gamma=0.951):
    """The dict of `topogen eval --json` (and spectral_gap = 1 - slem)
    for the graph adj (ascending neighbour lists), weights wget(i, j),
    self weights selfw."""
    if n > DENSE_MAX:
        raise ValueError("eval: %d nodes is too many for the dense "
                         "eigensolver of the Python package (at most %d; "
                         "`topogen eval` goes further)" % (n, DENSE_MAX))
    if not 0.0 < gamma < 1.0:
        raise ValueError("eval: gamma must be in (0, 1), not %r" % (gamma,))
    deg = [len(a) for a in adj]
    m = sum(deg) // 2
    comp, seen = 0, [False] * n
    for s in range(n):
        if not seen[s]:
            comp += 1
            for v, dv in enumerate(_bfs_far(n, adj, s)):
                if dv >= 0:
                    seen[v] = True
    diameter = math.inf if comp > 1 else 0.0
    if comp == 1 and n <= DIAMETER_MAX:
        diameter = float(max(max(_bfs_far(n, adj, s)) for s in range(n)))
    elif comp == 1:
        diameter = None
    l2, ln = _build.laplacian_extremes(n, adj)
    ev = _linalg.eigvalsh(_build.dense_w(n, adj, wget, selfw), n) if n > 1 \
        else [0.0]
    slem = max(abs(ev[0]), abs(ev[-1])) if n > 1 else 0.0
    wd = _linalg.dense(n)
    for i in range(n):
        wd[i][i] = selfw[i]
        for j in adj[i]:
            wd[i][j] = wget(i, j)
    mu = _linalg.eigvalsh(wd, n)
    tr = 0.0
    for x in mu:
        m2 = x * x
        den = 1.0 - gamma * m2
        if not den > 0.0:
            tr = math.inf
            break
        tr += m2 / den
    neff = n / ((1.0 - gamma) * tr) if n else 0.0
    msgs = 2.0 * m / n if n else 0.0
    return {"n": n, "edges": m, "min_degree": min(deg) if deg else 0,
            "max_degree": max(deg) if deg else 0, "components": comp,
            "diameter": diameter, "lambda2": l2, "lambdan": ln,
            "slem": slem, "spectral_gap": 1.0 - slem,
            "slem_best_laplacian": (ln - l2) / (ln + l2) if ln + l2 > 0
            else 0.0,
            "rounds_1e-3": rounds_1e3(slem), "gamma": gamma, "neff": neff,
            "neff_per_message": neff / msgs if msgs else neff}

"""topogen._linalg: eigenvalues of a dense symmetric matrix, computed as
the C code computes them (src/spectra/cm_eigen.c, cm_eigen_sym_work
with CM_EIGEN_VALUES), so that the Laplacian weights
alpha = 2 / (lambda_2 + lambda_n) of a file are the CLI's bit for bit.

The C path, and this port of it (same operations, same order: the C is
built with -std=c11, i.e. no FMA contraction, and Python floats are
IEEE doubles, so the same order gives the same bits):
- dsyev's scaling: a matrix whose largest entry (lower triangle of the
  C's column-major array, i.e. the upper triangle a[i][j], j >= i, of
  the rows given here) is below sqrt(DBL_MIN / eps) or above its
  inverse is multiplied by sigma first, the eigenvalues by 1 / sigma
  after;
- the project's own Householder tridiagonalization (`tridiagonalize`,
  `reflector`, `norm_scaled`, `update_axpy`, `col_axpy`), whose dot
  products are cm_dlin_dot's: eight lanes (index i into lane i mod 8,
  each lane summed in index order from 0.0), combined as
  ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7)); `hypot` is libm's
  (through ctypes, as the C calls it; math.hypot, CPython's own
  algorithm, only if libm cannot be loaded);
- LAPACK dsterf on the tridiagonal (scalar code, no BLAS kernel), from
  the system's liblapack through ctypes (the library `topogen` links).
Nothing in it depends on OpenBLAS's run-time kernel choice
(OPENBLAS_CORETYPE) or thread count.

With numpy the reduction runs on numpy arrays, elementwise operations
only (each element rounded as the scalar code rounds it) and sequential
accumulations in the C's order (never numpy's dot/sum/matmul, which
reorder sums); without numpy on lists. O(n^3) either way, measured on
a Laplacian (n nodes, degree ~4) on a heavily loaded 2-core machine,
Debian's python3.11, numpy 1.24 (the C code, same machine: 0.05 s,
0.8 s, 8.6 s):
    n =         200      1000     2000
    numpy       0.2 s    8.5 s    59 s
    lists       0.9 s    82 s     960 s
(one run each; with other jobs on the same cores the numpy n = 2000
run took 170 s, the C code's 11 s).

Fallbacks, NOT bit-identical to the CLI: without LAPACK,
numpy.linalg.eigvalsh (LAPACK dsyevd of numpy's own build: the same
eigenvalues to a few ulps), else a pure-Python cyclic Jacobi (n <=
JACOBI_MAX, a few ulps). `backend()` says which one is in use.

Matrices are lists of rows (or anything indexable as a[i][j], numpy
arrays included); results are ascending lists of floats.
"""
import ctypes
import ctypes.util
import math
import os
import sys

JACOBI_MAX = 400

_lapack = None
_tried = False
_hypot = None


def _load_lapack():
    """LAPACK's dsterf_ from the system's liblapack (None: not found)."""
    global _lapack, _tried
    if _tried:
        return _lapack
    _tried = True
    if os.environ.get("TOPOGEN_NO_LAPACK"):  # tests: force the fallbacks
        return None
    names = ["liblapack.so.3", ctypes.util.find_library("lapack"),
             ctypes.util.find_library("openblas")]
    for name in names:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            f = lib.dsterf_
        except (OSError, AttributeError):
            continue
        f.restype = None
        f.argtypes = [ctypes.POINTER(ctypes.c_int),
                      ctypes.POINTER(ctypes.c_double),
                      ctypes.POINTER(ctypes.c_double),
                      ctypes.POINTER(ctypes.c_int)]
        _lapack = f
        return f
    return None


def _load_hypot():
    """libm's hypot (the C code's); math.hypot when libm is not found."""
    global _hypot
    if _hypot is None:
        _hypot = math.hypot
        for name in ("libm.so.6", ctypes.util.find_library("m")):
            if not name:
                continue
            try:
                f = ctypes.CDLL(name).hypot
            except (OSError, AttributeError):
                continue
            f.restype = ctypes.c_double
            f.argtypes = [ctypes.c_double, ctypes.c_double]
            _hypot = f
            break
    return _hypot


def _numpy():
    if os.environ.get("TOPOGEN_NO_NUMPY"):
        return None
    try:
        import numpy
        return numpy
    except ImportError:
        return None


def backend():
    """"lapack" (the C code's path: the port of its reduction, then the
    system's dsterf through ctypes), "numpy" or "python"."""
    if _load_lapack() is not None:
        return "lapack"
    return "numpy" if _numpy() is not None else "python"


# ---- cm_dlin / cm_eigen, scalar (lists) --------------------------------

def _dot8(x, y):
    """cm_dlin_dot(len(x), x, y): lane l sums x[i] y[i], i = l mod 8, in
    index order from 0.0; the lanes combined in cm_dlin_dot's order."""
    n = len(x)
    s = [0.0] * 8
    for lane in range(min(n, 8)):
        acc = 0.0
        for a, b in zip(x[lane::8], y[lane::8]):
            acc += a * b
        s[lane] = acc
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))


def _norm_scaled(x):
    """norm_scaled: ||x||_2 scaled by the largest |x_i|."""
    big = 0.0
    for t in x:
        t = abs(t)
        if t > big:  # fmax (no NaN here: a NaN matrix fails in dsterf)
            big = t
    if not big > 0.0 or not math.isfinite(big):
        return big
    s, inv = 0.0, 1.0 / big
    for t in x:
        t = t * inv
        s += t * t
    return big * math.sqrt(s)


def _reflector(x):
    """reflector(m, x, v, &beta) for the list x (m = len(x) >= 1):
    (tau, v[0..m-1] with v[0] = 1, beta)."""
    alpha = x[0]
    xnorm = _norm_scaled(x[1:])
    if xnorm == 0.0:
        return 0.0, [1.0] + [0.0] * (len(x) - 1), alpha
    b = -math.copysign(_load_hypot()(alpha, xnorm), alpha)
    scal = 1.0 / (alpha - b)
    return (b - alpha) / b, [1.0] + [t * scal for t in x[1:]], b


def _tridiag_py(cols, n):
    """tridiagonalize (values only) on cols[j] = the C's column j from its
    diagonal (a[j][j:] of the rows): (d[n], e[n-1])."""
    d, e = [0.0] * n, [0.0] * (n - 1)
    d[0] = cols[0][0]
    tk, v, e[0] = _reflector(cols[0][1:])
    w = [0.0] * (n - 1)
    if tk != 0.0:
        for j in range(n - 1):
            col, vj = cols[j + 1], v[j]
            if len(col) > 1:
                w[j + 1:] = [p + c * vj for p, c in zip(w[j + 1:], col[1:])]
            w[j] += col[0] * vj + _dot8(col[1:], v[j + 1:])
    for k in range(n - 1):
        m = n - k - 1
        sub = cols[k + 1]
        if tk != 0.0:
            w = [t * tk for t in w]
            al = -0.5 * tk * _dot8(w, v)
            w = [t + al * s for t, s in zip(w, v)]
            w0, v0 = w[0], v[0]
            sub[:] = [c - (s * w0 + t * v0) for c, s, t in zip(sub, v, w)]
        d[k + 1] = sub[0]
        if m == 1:
            break
        tn, vn, e[k + 1] = _reflector(sub[1:])
        vn = vn[:m - 1]
        acc = [0.0] * (m - 1)
        for j in range(1, m):
            col = cols[k + 1 + j]
            vnj = vn[j - 1]
            if tk != 0.0:
                vj, wj = v[j], w[j]
                col[:] = [c - (s * wj + t * vj)
                          for c, s, t in zip(col, v[j:], w[j:])]
                f = vnj if tn != 0.0 else 0.0
                acc[j - 1:] = [p + c * f for p, c in zip(acc[j - 1:], col)]
            elif tn != 0.0:
                acc[j - 1:] = [p + c * vnj
                               for p, c in zip(acc[j - 1:], col)]
            if tn != 0.0:
                acc[j - 1] += _dot8(col[1:], vn[j:])
        tk, v, w = tn, vn, acc
    return d, e


# ---- the same, numpy arrays ---------------------------------------------

def _dot8_np(np, x, y):
    p = x * y
    s = [0.0] * 8
    for lane in range(min(len(p), 8)):
        # sequential from 0.0 (cumsum is a running sum; numpy's sum is not)
        s[lane] = float(np.cumsum(np.concatenate(([0.0], p[lane::8])))[-1])
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))


def _norm_scaled_np(np, x):
    if len(x) == 0:
        return 0.0
    big = float(np.max(np.abs(x)))
    if not big > 0.0 or not math.isfinite(big):
        return big
    t = x * (1.0 / big)
    return big * math.sqrt(float(np.cumsum(t * t)[-1]))


def _reflector_np(np, x):
    alpha = float(x[0])
    xnorm = _norm_scaled_np(np, x[1:])
    v = np.zeros(len(x))
    v[0] = 1.0
    if xnorm == 0.0:
        return 0.0, v, alpha
    b = -math.copysign(_load_hypot()(alpha, xnorm), alpha)
    v[1:] = x[1:] * (1.0 / (alpha - b))
    return (b - alpha) / b, v, b


def _product_np(np, a, v, diag_apart):
    """The product p = A v that tridiagonalize accumulates, A = a (the
    whole m x m symmetric block), in the C's order: p[r] = (running sum
    over columns c <= r of A[r, c] v[c], from 0.0) + the 8-lane dot of
    A[r+1:, r] with v[r+1:]. diag_apart (step 0): the running sum stops
    at c < r and p[r] += A[r, r] v[r] + dot instead."""
    m = len(v)
    q = a * v[:, None]  # q[c, r] = A[c, r] v[c] = A[r, c] v[c]
    run = np.zeros(m)
    last = m if not diag_apart else m - 1
    for c in range(last):
        lo = c if not diag_apart else c + 1
        run[lo:] += q[c, lo:]
    # lanes: g[cls, r] = running sum over c > r, c = cls mod 8, from 0.0
    # (entries c <= r masked as +0.0: they come first, 0.0 + 0.0 = 0.0)
    g = np.zeros((8, m))
    below = np.tri(8, 8, -1, dtype=bool)  # [cc, rr]: cc > rr
    for b0 in range(0, m, 8):
        b1 = min(b0 + 8, m)
        t = b1 - b0
        if b0:
            g[:t, :b0] += q[b0:b1, :b0]
        g[:t, b0:b1] += np.where(below[:t, :t], q[b0:b1, b0:b1], 0.0)
    r = np.arange(m)
    s = g[(r[None, :] + 1 + np.arange(8)[:, None]) % 8, r[None, :]]
    dot = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))
    if diag_apart:
        return run + (np.diagonal(q) + dot)
    return run + dot


def _tridiag_np(np, a, n):
    """tridiagonalize on the symmetric n x n array a (overwritten)."""
    d, e = [0.0] * n, [0.0] * (n - 1)
    d[0] = float(a[0, 0])
    tk, v, e[0] = _reflector_np(np, a[0, 1:])
    if tk != 0.0:
        w = _product_np(np, a[1:, 1:], v, True)
    else:
        w = np.zeros(n - 1)
    for k in range(n - 1):
        m = n - k - 1
        sub = a[k + 1:, k + 1:]
        if tk != 0.0:
            w = w * tk
            w = w + (-0.5 * tk * _dot8_np(np, w, v)) * v
            t = np.multiply.outer(w, v)  # t[j, r] = w[j] v[r]
            sub -= t + t.T  # v[r] w[j] + w[r] v[j]: + commutes exactly
        d[k + 1] = float(sub[0, 0])
        if m == 1:
            break
        tn, vn, e[k + 1] = _reflector_np(np, sub[0, 1:])
        if tn != 0.0:
            w = _product_np(np, sub[1:, 1:], vn, False)
        else:
            w = np.zeros(m - 1)
        tk, v = tn, vn
    return d, e


def _sym_eigenvalues(a, n):
    """cm_eigen_sym_work(CM_EIGEN_VALUES, n, a, ...) of the rows a."""
    f = _load_lapack()
    if n == 1:
        return [float(a[0][0])]
    np = _numpy()
    # the C reads the lower triangle of its column-major array, element
    # (i, j), i >= j, at a[j * n + i]: a[j][i] of the rows (j <= i)
    if np is not None:
        m = np.array(a, dtype=np.float64, copy=True)
        low = np.tril_indices(n, -1)
        m[low] = m.T[low]
        anrm = float(np.max(np.abs(m))) if n else 0.0
    else:
        cols = [[float(a[j][i]) for i in range(j, n)] for j in range(n)]
        anrm = 0.0
        for col in cols:
            for t in col:
                t = abs(t)
                if t > anrm:
                    anrm = t
    smlnum = sys.float_info.min / sys.float_info.epsilon
    rmin, rmax = math.sqrt(smlnum), math.sqrt(1.0 / smlnum)
    sigma = 1.0
    if anrm > 0.0 and anrm < rmin:
        sigma = rmin / anrm
    elif anrm > rmax:
        sigma = rmax / anrm
    if np is not None:
        if sigma != 1.0:
            m *= sigma
        d, e = _tridiag_np(np, m, n)
    else:
        if sigma != 1.0:
            cols = [[t * sigma for t in col] for col in cols]
        d, e = _tridiag_py(cols, n)
    c_d, c_int = ctypes.c_double, ctypes.c_int
    dd, ee, info = (c_d * n)(*d), (c_d * n)(*(e + [0.0])), c_int(0)
    f(ctypes.byref(c_int(n)), dd, ee, ctypes.byref(info))
    if info.value != 0:
        raise ArithmeticError("LAPACK dsterf failed (info = %d) on a %d x %d "
                              "tridiagonal" % (info.value, n, n))
    w = list(dd)
    if sigma != 1.0:
        inv = 1.0 / sigma
        w = [t * inv for t in w]
    return w


def _jacobi(a, n):
    """Cyclic Jacobi on a copy of a (symmetric): its eigenvalues."""
    if n > JACOBI_MAX:
        raise ImportError(
            "topogen: the eigenvalues of a %d-node matrix need numpy or the "
            "system's LAPACK (liblapack.so.3); neither was found, and the "
            "pure-Python solver stops at %d nodes: pip install numpy" % (
                n, JACOBI_MAX))
    m = [[float(a[i][j]) for j in range(n)] for i in range(n)]
    for _sweep in range(100):
        off = 0.0
        for i in range(n):
            mi = m[i]
            for j in range(i + 1, n):
                off += mi[j] * mi[j]
        scale = sum(m[i][i] * m[i][i] for i in range(n)) + off
        if off <= 1e-30 * max(scale, 1e-300):
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                apq = m[p][q]
                if apq == 0.0:
                    continue
                theta = (m[q][q] - m[p][p]) / (2.0 * apq)
                t = math.copysign(1.0, theta) / (
                    abs(theta) + math.sqrt(theta * theta + 1.0))
                c = 1.0 / math.sqrt(t * t + 1.0)
                s = t * c
                for k in range(n):  # columns p, q
                    mk = m[k]
                    akp, akq = mk[p], mk[q]
                    mk[p] = c * akp - s * akq
                    mk[q] = s * akp + c * akq
                mp, mq = m[p], m[q]
                for k in range(n):  # rows p, q
                    apk, aqk = mp[k], mq[k]
                    mp[k] = c * apk - s * aqk
                    mq[k] = s * apk + c * aqk
                m[p][q] = m[q][p] = 0.0
    return sorted(m[i][i] for i in range(n))


def dense(n, fill=0.0):
    """An n x n matrix of fill: a numpy array when numpy is there (the
    same float64 arithmetic, less memory), else a list of rows."""
    np = _numpy()
    if np is not None:
        return np.full((n, n), fill)
    return [[fill] * n for _ in range(n)]


def eigvalsh(a, n):
    """The n eigenvalues of the symmetric n x n matrix a, ascending (the
    CLI's bits when backend() is "lapack")."""
    if n == 0:
        return []
    if _load_lapack() is not None:
        return _sym_eigenvalues(a, n)
    np = _numpy()
    if np is not None:
        return [float(x) for x in np.linalg.eigvalsh(np.array(
            [list(a[i]) for i in range(n)], dtype=float), UPLO="L")]
    return _jacobi(a, n)

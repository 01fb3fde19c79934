"""topogen._linalg: eigenvalues of a dense symmetric matrix, computed as
the C code computes them (src/spectra/cm_eigen.c: LAPACK dsyev, jobz
"N", uplo "L", workspace max(3n, the optimal size LAPACK reports)), so
that the Laplacian weights alpha = 2 / (lambda_2 + lambda_n) of a file
are the CLI's bit for bit.

Where LAPACK comes from, first hit wins: the system's liblapack (through
ctypes, the library `topogen` links: the same bits when it is the same
library and the same OPENBLAS_CORETYPE), then numpy.linalg.eigvalsh
(LAPACK dsyevd, whose eigenvalue-only path is dsytrd + dsterf as dsyev's
is, but not necessarily the same LAPACK build), then a pure-Python
cyclic Jacobi (n <= JACOBI_MAX: exact to a few ulps, not the CLI's last
bits). `backend()` says which one is in use.

Matrices are lists of rows (or anything indexable as a[i][j]); results
are ascending lists of floats.
"""
import ctypes
import ctypes.util
import math
import os

JACOBI_MAX = 400

_lapack = None
_tried = False
_threads = None


def _load_lapack():
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
            f = lib.dsyev_
        except (OSError, AttributeError):
            continue
        f.restype = None
        _lapack = f
        global _threads
        try:  # topogen runs OpenBLAS on one thread (openblas_set_num_threads)
            _threads = (lib.openblas_get_num_threads,
                        lib.openblas_set_num_threads)
        except AttributeError:
            _threads = None
        return f
    return None


def _numpy():
    if os.environ.get("TOPOGEN_NO_NUMPY"):
        return None
    try:
        import numpy
        return numpy
    except ImportError:
        return None


def backend():
    """"lapack" (the system's, through ctypes), "numpy" or "python"."""
    if _load_lapack() is not None:
        return "lapack"
    return "numpy" if _numpy() is not None else "python"


def _dsyev(a, n):
    f = _load_lapack()
    c_int, c_d = ctypes.c_int, ctypes.c_double
    jobz, uplo = ctypes.c_char(b"N"), ctypes.c_char(b"L")
    N, info = c_int(n), c_int(0)
    one = ctypes.c_size_t(1)
    # the workspace query of cm_eigen_lwork: 3n unless LAPACK asks more
    q, qa, qw, lw = c_d(0.0), c_d(0.0), c_d(0.0), c_int(-1)
    lda = c_int(max(n, 1))
    f(ctypes.byref(jobz), ctypes.byref(uplo), ctypes.byref(N),
      ctypes.byref(qa), ctypes.byref(lda), ctypes.byref(qw), ctypes.byref(q),
      ctypes.byref(lw), ctypes.byref(info), one, one)
    lwork = 3 * n
    if info.value == 0 and q.value > lwork and q.value <= 2 ** 31 - 1:
        lwork = int(q.value)
    np = _numpy()
    if np is not None:  # row-major as the C code holds it: a[i * n + j]
        arr = np.array(a, dtype=np.float64, order="C", copy=True)
        buf = arr.ctypes.data_as(ctypes.POINTER(c_d))
    else:
        buf = (c_d * (n * n))()
        k = 0
        for i in range(n):
            row = a[i]
            for j in range(n):
                buf[k] = row[j]
                k += 1
    w = (c_d * n)()
    work = (c_d * lwork)()
    info = c_int(0)
    # one OpenBLAS thread, as the CLI runs it (topo/cli/topogen.c): its
    # threaded kernels sum in another order (other last bits)
    old = _threads[0]() if _threads else None
    if _threads and old != 1:
        _threads[1](1)
    try:
        f(ctypes.byref(jobz), ctypes.byref(uplo), ctypes.byref(N), buf,
          ctypes.byref(N), w, work, ctypes.byref(c_int(lwork)),
          ctypes.byref(info), one, one)
    finally:
        if _threads and old != 1:
            _threads[1](old)
    if info.value != 0:
        raise ArithmeticError("LAPACK dsyev failed (info = %d) on a %d x %d "
                              "matrix" % (info.value, n, n))
    return list(w)


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
    """The n eigenvalues of the symmetric n x n matrix a, ascending."""
    if n == 0:
        return []
    if _load_lapack() is not None:
        return _dsyev(a, n)
    np = _numpy()
    if np is not None:
        return [float(x) for x in np.linalg.eigvalsh(np.array(
            [list(a[i]) for i in range(n)], dtype=float), UPLO="L")]
    return _jacobi(a, n)

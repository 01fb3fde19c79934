"""topogen._lib: the ctypes binding of libtopogen (topo/api/topogen.h),
loaded on first use. Only learn(), eval(), set_weights() with the
library's bits, fdla weights and GraphML/GML files need it; reading and
writing edge lists, W and topogen.torch are pure Python/NumPy.

Where the library is looked for, first hit wins: the path in
TOPOGEN_LIBRARY; libtopogen.so.1 next to the package as `make install`
lays it out (PREFIX/lib beside PREFIX/lib/python3/dist-packages) or in
the source tree's bin/; then the dynamic loader (LD_LIBRARY_PATH,
ldconfig's cache: `make install PREFIX=/usr/local`).
"""
import ctypes
import os

SONAME = "libtopogen.so.1"
_sz = ctypes.c_size_t
_dbl = ctypes.c_double
_str = ctypes.c_char_p


class LearnOpts(ctypes.Structure):
    _fields_ = [("size", _sz), ("n", _sz), ("d", _sz), ("kind", _str),
                ("weights", _str), ("objective", _str), ("init", _str),
                ("eigensolver", _str), ("seed", ctypes.c_uint64),
                ("iters", _sz), ("restarts", _sz), ("candidates", _sz),
                ("threads", _sz), ("groups", _sz), ("max_cross", _sz),
                ("t0", _dbl), ("t1", _dbl), ("time_limit", _dbl),
                ("no_screen", ctypes.c_int),
                ("flags", ctypes.POINTER(ctypes.c_char_p)),
                ("stop", ctypes.POINTER(ctypes.c_int))]


class Measures(ctypes.Structure):
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
_SIGS = [
    ("topogen_last_error", _str, []),
    ("topogen_version", _str, []),
    ("topogen_learn_opts_init", None, [ctypes.POINTER(LearnOpts)]),
    ("topogen_learn", ctypes.c_int, [ctypes.POINTER(LearnOpts), _PH]),
    ("topogen_read", ctypes.c_int, [_str, _str, _PH]),
    ("topogen_write", ctypes.c_int, [_H, _str, _str]),
    ("topogen_free", None, [_H]),
    ("topogen_nodes", _sz, [_H]),
    ("topogen_rounds", _sz, [_H]),
    ("topogen_is_directed", ctypes.c_int, [_H]),
    ("topogen_is_weighted", ctypes.c_int, [_H]),
    ("topogen_set_weights", ctypes.c_int, [_H, _str]),
    ("topogen_mixing_matrix", ctypes.c_int, [_H, _sz, _PD]),
    ("topogen_measures_init", None, [ctypes.POINTER(Measures)]),
    ("topogen_measure", ctypes.c_int, [_H, _sz, ctypes.POINTER(Measures)]),
    ("topogen_validate", ctypes.c_int, [_H]),
]

_lib = None
_tried = None


class LibraryNotFoundError(ImportError):
    """libtopogen is not installed (or not where it is looked for)."""


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("TOPOGEN_LIBRARY")
    if env:
        return [env], True
    out = []
    for c in (os.path.join(here, "..", "..", "..", SONAME),
              os.path.join(here, "..", "..", "..", "bin", SONAME)):
        if os.path.exists(c):
            out.append(os.path.realpath(c))
    return out + [SONAME], False


def lib(what="this call"):
    """The loaded library, or LibraryNotFoundError naming what to do."""
    global _lib, _tried
    if _lib is not None:
        return _lib
    cands, forced = _candidates()
    errors = []
    for c in cands:
        try:
            h = ctypes.CDLL(c)
            break
        except OSError as e:
            errors.append(str(e))
    else:
        raise LibraryNotFoundError(
            "topogen: %s needs libtopogen (%s), which was not found (%s). "
            "Build and install it from the topogen source tree: `make && "
            "make install PREFIX=...` (then PREFIX/lib on LD_LIBRARY_PATH, "
            "or ldconfig), or set TOPOGEN_LIBRARY to the library's path. "
            "Reading and writing edge-list files, Topology.W and "
            "topogen.torch work without it." % (
                what, SONAME, "; ".join(errors) if forced or len(errors) < 3
                else errors[-1]))
    for name, res, args in _SIGS:
        f = getattr(h, name, None)
        if f is None:
            raise LibraryNotFoundError(
                "topogen: the libtopogen found (%s) lacks %s: it is older "
                "than this Python package; install the library from the "
                "same source tree" % (c, name))
        f.restype = res
        f.argtypes = args
    _lib = h
    return h


def available():
    """True when libtopogen loads."""
    try:
        lib()
        return True
    except LibraryNotFoundError:
        return False

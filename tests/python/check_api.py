"""check_api.py: libtopogen through the Python package, and the library's
own C API through ctypes (issues 33 and 34).

  - the pure Python reader gives libtopogen's W bit for bit (learned,
    ring, base, perm, exp-directed files and the GraphML/GML fixtures),
    and its writer libtopogen's bytes (learned, perm, one-peer-exp, a
    directed file with self lines, an explicit self weight);
  - learn(labels=COUNTS) writes `topogen --labels COUNTS`'s file byte
    for byte; an (n, classes) array and label_counts(...) of per-worker
    label tensors give the same W; the C API does too;
  - refusals with the command line's messages: learn(0, 4), learn(16, 0),
    seed=-1, flags=['-o', F], --labels of a missing file; mixing(-1);
    load(b"path") reads; an epidemic file loads (no W: a clear error);
  - a W that does not mix: Python's message equals topogen_validate's;
  - C API: a directed topology written as GraphML/GML is refused;
    set_weights then write keeps n (reads back); NULL handles give
    TOPOGEN_EINVAL (no segfault);
  - no signal handler: the process's caught-signal mask (SigCgt in
    /proc/self/status) is the same before and after a directed learn;
  - two threads learning 20-node graphs at once, 4 times, each give the
    serial file;
  - Ctrl-C: SIGINT to a process inside learn(1024, 4), learn(4096, 4)
    (undirected) and
    learn(64, 2, --directed) raises KeyboardInterrupt within a second,
    and the next learn in that process gives the normal file.

usage: check_api.py BIN TMPDIR
"""
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np

import topogen
from topogen import _lib as L

# a shell's background job (and a CI runner may start one) has SIGINT
# ignored, and then Python installs no KeyboardInterrupt handler: the
# Ctrl-C checks below need it
signal.signal(signal.SIGINT, signal.default_int_handler)

BIN, TMP = sys.argv[1], sys.argv[2]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
failed = []


def check(cond, what):
    print("%s: %s" % ("ok" if cond else "FAIL", what))
    if not cond:
        failed.append(what)


def cli(*args):
    out = os.path.join(TMP, "c%d.txt" % len(os.listdir(TMP)))
    subprocess.run([os.path.join(BIN, "topogen"), "-q", "-o", out] +
                   [str(a) for a in args], check=True)
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def saved(t):
    p = os.path.join(TMP, "s%d.txt" % len(os.listdir(TMP)))
    t.save(p)
    return read(p)


lib = L.lib()


def lib_w(path):
    h = ctypes.c_void_p()
    assert lib.topogen_read(path.encode(), None, ctypes.byref(h)) == 0
    n = lib.topogen_nodes(h)
    w = np.empty((n, n))
    assert lib.topogen_mixing_matrix(
        h, 0, w.ctypes.data_as(ctypes.POINTER(ctypes.c_double))) == 0
    lib.topogen_free(h)
    return w


# the pure reader == libtopogen's, bit for bit
for args in (["-n", 32, "-d", 4], ["-n", 16, "--kind", "ring"],
             ["-n", 12, "--kind", "perm", "-d", 2],
             ["-n", 16, "--kind", "exp-directed"]):
    f = cli(*args)
    check(np.array_equal(topogen.load(f).W, lib_w(f)),
          "pure load == libtopogen: topogen %s" % " ".join(map(str, args)))
# the pure writer == libtopogen's, byte for byte, on read files
d3 = os.path.join(TMP, "d3.txt")
with open(d3, "w") as fp:
    fp.write("# directed=1 n=3\n0 0 0.5\n0 1 0.5\n1 2 0.5\n1 1 0.5\n"
             "2 0 0.5\n")
selfw = os.path.join(TMP, "selfw.txt")
with open(selfw, "w") as fp:
    fp.write("# n=4\n0 0 0.25000000000000006\n0 1 0.5\n1 2 0.25\n"
             "2 3 0.25\n3 0 0.25\n")
for f in (cli("-n", 16, "-d", 4), cli("-n", 12, "--kind", "perm", "-d", 2),
          cli("-n", 8, "--kind", "one-peer-exp"), d3, selfw):
    h = ctypes.c_void_p()
    assert lib.topogen_read(f.encode(), None, ctypes.byref(h)) == 0
    cf, pf = f + ".c", f + ".py"
    assert lib.topogen_write(h, cf.encode(), None) == 0
    lib.topogen_free(h)
    topogen.load(f, check=False).save(pf)
    check(read(cf) == read(pf), "save() == topogen_write byte for byte: %s"
          % os.path.basename(f))

seq = cli("-n", 12, "--kind", "base", "-d", 2)
t = topogen.load(seq)
check(t.rounds > 1 and all(np.allclose(t.mixing(r).sum(1), 1)
                           for r in range(t.rounds)),
      "pure load of a base sequence (%d rounds)" % t.rounds)
for fx in ("ring8-networkx.graphml", "ring8-igraph.gml"):
    p = os.path.join(ROOT, "tests", "fixtures", fx)
    check(np.array_equal(topogen.load(p).W, topogen.load(
        os.path.join(ROOT, "tests", "fixtures", "ring8.txt")).W),
          "GraphML/GML through libtopogen: %s == ring8.txt" % fx)

check(saved(topogen.learn(16, 4, seed=5, restarts=2)) ==
      read(cli("-n", 16, "-d", 4, "--seed", 5, "--restarts", 2)),
      "learn(16, 4, seed=5, restarts=2) == topogen's file")

# labels: byte for byte with the command line
rng = np.random.default_rng(3)
counts = np.zeros((16, 10), dtype=np.int64)
for i in range(16):  # two dominant classes per worker
    counts[i, (2 * i) % 10] = 300
    counts[i, (2 * i + 1) % 10] = 200
    counts[i] += rng.integers(0, 20, 10)
cf = os.path.join(TMP, "counts.txt")
with open(cf, "w") as fp:
    for row in counts:
        fp.write(" ".join(map(str, row)) + "\n")
ref = cli("-n", 16, "-d", 4, "--labels", cf)
plain = cli("-n", 16, "-d", 4)
tl = topogen.learn(16, 4, labels=cf)
check(saved(tl) == read(ref), "learn(labels=FILE) == topogen --labels FILE "
      "byte for byte")
check(read(ref) != read(plain), "the data-aware file differs from the "
      "plain learned one")
ta = topogen.learn(16, 4, counts=counts)
check(np.array_equal(ta.W, tl.W), "learn(counts=array) gives the same W")
labs = [np.repeat(np.arange(10), row) for row in counts]
tb = topogen.learn(16, 4, labels=[rng.permutation(y) for y in labs])
check(np.array_equal(tb.W, tl.W), "learn(labels=[per-worker label arrays]) "
      "gives the same W")


def one_line(fn, want, what):
    """fn raises ValueError: one line, containing want."""
    try:
        fn()
        check(False, what + ": not refused")
    except ValueError as e:
        m = str(e)
        check(want in m and "\n" not in m, "%s refused in one line: %s" % (
            what, m))


eq = [np.full(50, i % 10) for i in range(16)]  # equal-length label arrays
one_line(lambda: topogen.learn(16, 4, labels=np.stack(eq)), "ambiguous",
         "labels=2-D array (equal-length label arrays stacked)")
one_line(lambda: topogen.learn(16, 4, labels=counts), "ambiguous",
         "labels=counts matrix")
one_line(lambda: topogen.learn(16, 4, counts=[[1, 2], [3]] * 8),
         "row 1 has 1 counts, row 0 has 2", "ragged counts")
one_line(lambda: topogen.learn(8, 4, counts=counts[:7]),
         "7 rows for n = 8 workers", "a 7-row counts array for 8 workers")
one_line(lambda: topogen.learn(8, 4, labels=eq[:7]),
         "7 label arrays for n = 8 workers", "7 label arrays for 8 workers")
one_line(lambda: topogen.learn(16, 4, counts=counts.astype(float)),
         "float64 counts", "fractional counts")
one_line(lambda: topogen.learn(16, 4, labels=[[-1, 2]] * 16),
         "worker 0 holds -1", "a negative class id")
one_line(lambda: topogen.learn(16, 4, labels=eq, counts=counts),
         "not both", "labels= and counts= together")
try:
    import torch
    labs = [torch.from_numpy(y) for y in labs]
except ImportError:
    pass
check(np.array_equal(topogen.label_counts(labs, 10), counts),
      "label_counts(per-worker label tensors) == the counts")

# refusals, with the command line's messages


def refused(fn, want, what, exc=topogen.TopogenError):
    try:
        fn()
    except exc as e:
        check(want in str(e), "%s refused: %s" % (what, e))
        return
    check(False, "%s NOT refused" % what)


refused(lambda: topogen.learn(0, 4), "-n: expected a positive", "learn(0, 4)")
refused(lambda: topogen.learn(16, 0), "-d: expected a positive",
        "learn(16, 0)")
refused(lambda: topogen.learn(16, 4, seed=-1), "--seed: expected",
        "seed=-1")
refused(lambda: topogen.learn(16, 4, flags=["-o", "x.txt"]),
        "not an option of the library", "flags=['-o', ...]")
refused(lambda: topogen.learn(16, 4, labels=os.path.join(TMP, "none")),
        "none", "labels= a missing file")
refused(lambda: topogen.learn(16, 4, bogus=1), "unknown option",
        "learn(bogus=1)", TypeError)
refused(lambda: topogen.load(plain).mixing(-1), "negative", "mixing(-1)",
        ValueError)
check(np.array_equal(topogen.load(plain.encode()).W, topogen.load(plain).W),
      "load(b'path') reads the file")
ep = cli("-n", 16, "-d", 2, "--kind", "epidemic")
te = topogen.load(ep)
check(te.epidemic == {"s": 2, "local": 0} and te.n == 16,
      "an epidemic file loads (%r)" % te)
refused(lambda: te.W, "epidemic", "W of an epidemic topology", ValueError)
h = ctypes.c_void_p()
check(lib.topogen_read(ep.encode(), None, ctypes.byref(h)) == 0 and
      lib.topogen_validate(h) == 0, "C: topogen_validate passes an epidemic "
      "file")
lib.topogen_free(h)
te2 = topogen.learn(16, 2, kind="epidemic")
check(saved(te2) == read(ep), "learn(kind='epidemic') == topogen's file")

# a W that does not mix: the same message from Python and the C API
bad = os.path.join(TMP, "eig2.txt")
with open(bad, "w") as fp:
    fp.write("0 1 1.5\n")
try:
    topogen.load(bad)
    pymsg = "NOT REFUSED"
except topogen.TopogenError as e:
    pymsg = str(e)
h = ctypes.c_void_p()
check(lib.topogen_read(bad.encode(), None, ctypes.byref(h)) == 0,
      "topogen_read reads eig2.txt (syntax only)")
st = lib.topogen_validate(h)
cmsg = lib.topogen_last_error().decode()
lib.topogen_free(h)
check(st == 5 and pymsg.split(": ", 1)[1] == cmsg.split(": ", 1)[1],
      "eigenvalue -2: Python and topogen_validate agree: %s" % pymsg)

# C API: directed GraphML refused, set_weights keeps n, NULL safe
o = L.LearnOpts()
lib.topogen_learn_opts_init(ctypes.byref(o))
words = (ctypes.c_char_p * 7)(b"-n", b"12", b"-d", b"2", b"--kind", b"perm",
                             None)
o.flags = ctypes.cast(words, ctypes.POINTER(ctypes.c_char_p))
h = ctypes.c_void_p()
check(lib.topogen_learn(ctypes.byref(o), ctypes.byref(h)) == 0, "C: learn "
      "perm")
for fmt in (b"graphml", b"gml"):
    out = os.path.join(TMP, "d." + fmt.decode())
    st = lib.topogen_write(h, out.encode(), fmt)
    check(st == 1 and not os.path.exists(out), "C: directed %s refused (%s)"
          % (fmt.decode(), lib.topogen_last_error().decode()))
lib.topogen_free(h)
lib.topogen_learn_opts_init(ctypes.byref(o))
o.n, o.d = 16, 4
h = ctypes.c_void_p()
check(lib.topogen_learn(ctypes.byref(o), ctypes.byref(h)) == 0, "C: learn")
check(lib.topogen_set_weights(h, b"mh") == 0, "C: set_weights mh")
out = os.path.join(TMP, "mh.txt")
check(lib.topogen_write(h, out.encode(), None) == 0, "C: write")
lib.topogen_free(h)
check(b"n=16" in read(out) and topogen.load(out).n == 16,
      "C: set_weights then write keeps n=16 (reads back)")
cnt = ctypes.c_size_t(0)
check(lib.topogen_neighbours(None, 0, 0, None, None, 0,
                             ctypes.byref(cnt)) == 1,
      "C: topogen_neighbours(NULL) is TOPOGEN_EINVAL")
check(lib.topogen_mixing_matrix(None, 0, None) == 1,
      "C: topogen_mixing_matrix(NULL) is TOPOGEN_EINVAL")
check(lib.topogen_nodes(None) == 0, "C: topogen_nodes(NULL) is 0")


# no signal handler left behind
def sigcgt():
    for line in open("/proc/self/status"):
        if line.startswith("SigCgt:"):
            return line.split()[1]


before = sigcgt()
topogen.learn(16, 2, flags=["--directed"], iters=300)
check(sigcgt() == before, "no signal handler installed by a directed learn "
      "(SigCgt %s)" % before)

# two threads at once
serial = {s: saved(topogen.learn(20, 4, seed=s)) for s in (1, 2)}
bad_runs = 0
for rep in range(4):
    res = {}

    def go(s):
        try:
            res[s] = saved(topogen.learn(20, 4, seed=s))
        except Exception as e:  # noqa: BLE001 - reported below
            res[s] = repr(e).encode()

    ths = [threading.Thread(target=go, args=(s,)) for s in (1, 2)]
    for x in ths:
        x.start()
    for x in ths:
        x.join()
    bad_runs += any(res[s] != serial[s] for s in (1, 2))
check(bad_runs == 0, "two threads learning at once give the serial files "
      "(4 runs, %d differ)" % bad_runs)

# Ctrl-C within a second
CHILD = r"""
import signal, sys, time, topogen
# a shell's background job starts with SIGINT ignored, and Python then
# installs no KeyboardInterrupt handler: the test needs Ctrl-C's own
signal.signal(signal.SIGINT, signal.default_int_handler)
for args in ((1024, 4, {}), (64, 2, {"flags": ["--directed"]}),
             (4096, 4, {})):
    n, d, kw = args
    print("start", flush=True)
    t0 = time.time()
    try:
        topogen.learn(n, d, iters=10**8, **kw)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted %.3f" % (time.time() - t0), flush=True)
t = topogen.learn(16, 4)
t.save(sys.argv[1])
print("done", flush=True)
"""
after = os.path.join(TMP, "after.txt")
p = subprocess.Popen([sys.executable, "-c", CHILD, after],
                     stdout=subprocess.PIPE, text=True)
# a child that misses its SIGINT would search on (iters 10^8): end it
# after 120 s, so the check fails instead of hanging
reaper = threading.Timer(120, p.kill)
reaper.daemon = True
reaper.start()
lags = []
for k in range(3):
    line = p.stdout.readline().strip()
    time.sleep(1.5)
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    line = p.stdout.readline().strip()
    lags.append((line, time.time() - t0))
rest = p.stdout.read()
p.wait(timeout=60)
reaper.cancel()
for (line, lag), what in zip(lags, ("learned n=1024", "directed n=64",
                                   "learned n=4096")):
    check(line.startswith("interrupted") and lag < 1.0,
          "Ctrl-C in learn (%s): %s, returned %.2f s after SIGINT" % (
              what, line, lag))
check("done" in rest and p.returncode == 0 and
      read(after) == read(cli("-n", 16, "-d", 4)),
      "the next learn in that process gives topogen's file")

# a library phase that does not look at the stop flag (3 s here): Ctrl-C
# still returns within a second, and the call's result is freed when it
# ends on its thread
import _thread  # noqa: E402
import ctypes  # noqa: E402
import threading  # noqa: E402


class DeafLib:
    freed = []

    def topogen_learn(self, o, href):
        time.sleep(3.0)
        href._obj.value = 1234
        return 0

    def topogen_free(self, h):
        self.freed.append(h.value if hasattr(h, "value") else h)

    def topogen_last_error(self):
        return b""


fired = []
threading.Timer(0.3, lambda: (fired.append(time.time()),
                              _thread.interrupt_main())).start()
try:
    topogen._learn_call(DeafLib(), topogen._lib.LearnOpts())
    check(False, "Ctrl-C in a deaf library phase raises KeyboardInterrupt")
except KeyboardInterrupt:
    lag = time.time() - fired[0]
    check(lag < 1.0, "Ctrl-C while the library ignores its stop flag: "
          "KeyboardInterrupt %.2f s after it (STOP_WAIT %.1f s)" % (
              lag, topogen.STOP_WAIT))
time.sleep(3.5)
check(DeafLib.freed == [1234], "the abandoned call's result is freed when "
      "it ends (%r)" % DeafLib.freed)

if failed:
    print("check_api: %d FAILED" % len(failed))
    sys.exit(1)
print("check_api: all passed")

"""check_wheel.py BIN OUTDIR [numpy|nonumpy]: the pip-installed wheel
(dpsgd-topogen) without libtopogen: the builders' files are bin/topogen's
byte for byte, topogen.eval gives `topogen eval --json`'s figures, the
fallbacks (no libigraph, no LAPACK) stay honest, refusals carry the CLI's
messages. Run by tests/python/module.sh in fresh venvs of the PATH's
python3 (no numpy there) and of Debian's (numpy seen).
"""
import json
import os
import subprocess
import sys

import topogen

BIN, OUT, NP = sys.argv[1], sys.argv[2], sys.argv[3]
TOPOGEN = os.path.join(BIN, "topogen")
os.makedirs(OUT, exist_ok=True)
fails = passes = 0


def check(ok, what):
    global fails, passes
    if ok:
        passes += 1
    else:
        fails += 1
        print("FAIL:", what)


def cli(*args):
    r = subprocess.run([TOPOGEN] + [str(a) for a in args],
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def same_file(t, args, name):
    f = os.path.join(OUT, name)
    t.save(f)
    with open(f) as fp:
        mine = fp.read()
    rc, theirs, err = cli(*args)
    check(rc == 0 and mine == theirs, "%s: file == `topogen %s`" % (
        name, " ".join(map(str, args))))
    return f


check(not topogen.library_available(), "libtopogen is not reachable")
check(topogen.__file__.find("site-packages") >= 0,
      "topogen imported from the installed wheel (%s)" % topogen.__file__)
try:
    import numpy  # noqa: F401
    have_np = True
except ImportError:
    have_np = False
check(have_np == (NP == "numpy"), "numpy present: %s (expected %s)" % (
    have_np, NP))

# the two: ring(8) and random_regular(64, 4, seed=1)
f8 = same_file(topogen.ring(8), ["--kind", "ring", "-n", 8], "ring8.txt")
frr = same_file(topogen.random_regular(64, 4, seed=1),
                ["--kind", "random", "-n", 64, "-d", 4, "--seed", 1],
                "rr64.txt")

# a sweep of kinds, sizes, weights and seeds
cases = [(k, n, None, 1, w) for w in ("laplacian", "mh", "maxdeg")
         for k, n in (("ring", 2), ("ring", 7), ("ring", 30),
                      ("torus", 12), ("torus", 49), ("hypercube", 16),
                      ("exponential-sym", 11), ("complete", 6))]
cases += [("rrl", n, d, 1, "laplacian") for n, d in ((10, 3), (24, 6))]
cases += [("random", n, d, s, "laplacian") for n, d, s in (
    (10, 3, 5), (32, 2, 2), (40, 5, 9), (100, 6, 3), (200, 4, 123456789))]
for kind, n, d, seed, w in cases:
    t = topogen.build(kind, n, d, seed=seed, weights=w)
    same_file(t, ["--kind", kind, "-n", n] + (["-d", d] if d else []) +
              ["--seed", seed, "--weights", w], "%s-%d-%s-%d-%s.txt" % (
                  kind, n, d, seed, w))
same_file(topogen.build("ring", 9, 2), ["--kind", "ring", "-n", 9, "-d", 2],
          "ring9-d2.txt")
# a kind that fixes its degree: another d refused with the CLI's message
for kind, n, d in (("hypercube", 8, 4), ("one-peer-exp", 8, 2),
                   ("ring", 9, 4), ("complete", 6, 4), ("torus", 12, 3)):
    try:
        topogen.build(kind, n, d)
        check(False, "%s -d %d on %d nodes refused" % (kind, d, n))
    except topogen.TopogenError as e:
        rc, out, err = cli("--kind", kind, "-n", n, "-d", d)
        check(rc == 2 and str(e) in err,
              "%s -d %d: the CLI's refusal (%s / %s)" % (kind, d, e, err))
same_file(topogen.build("one-peer-exp", 8, 1),
          ["--kind", "one-peer-exp", "-n", 8, "-d", 1], "ope8-d1.txt")
for n in (2, 4, 16, 128):
    same_file(topogen.one_peer_exp(n), ["--kind", "one-peer-exp", "-n", n],
              "ope%d.txt" % n)
for n, k in ((6, 2), (7, 1), (10, 3), (37, 2), (100, 4)):
    same_file(topogen.base(n, k), ["--kind", "base", "-n", n, "-d", k],
              "base%d-%d.txt" % (n, k))

# D-Cliques from a counts file (with an identity line), a matrix, labels
cf = os.path.join(OUT, "counts.txt")
rows = [[(7 * i + 3 * c) % 11 * ((i + c) % 3 != 0) + (c == i % 4)
         for c in range(4)] for i in range(18)]
with open(cf, "w") as fp:
    fp.write("# labels 1 dataset=synthetic partition=skewed workers=18\n")
    fp.writelines(" ".join(map(str, r)) + "\n" for r in rows)
for inter, w, seed in (("small-world", "mh", 1), ("ring", "equal", 4),
                       ("fractal", "mh", 9)):
    same_file(topogen.dcliques(counts=cf, seed=seed, inter=inter,
                               weights=w),
              ["--kind", "dcliques", "--labels", cf, "--seed", seed,
               "--inter", inter, "--clique-weights", w],
              "dcliques-%s-%s-%d.txt" % (inter, w, seed))
body = topogen.dcliques(counts=cf)._raw.split(b"\n# one")[1]
labs = [[c for c in range(4) for _ in range(r[c])][::-1] for r in rows]
check(topogen.dcliques(counts=rows)._raw.split(b"\n# one")[1] == body and
      topogen.dcliques(labels=labs)._raw.split(b"\n# one")[1] == body,
      "dcliques(counts=matrix) and (labels=arrays) == from the file")
for bad, want in ((dict(counts=rows[:1] * 1), "at least 2 workers"),
                  (dict(counts=[[1, 2], [3]]), "row 1 has 1 counts"),
                  (dict(labels=[[0, 1]], counts=rows), "one of them")):
    try:
        topogen.dcliques(**bad)
        check(False, "dcliques(%r) refused" % bad)
    except (ValueError, topogen.TopogenError) as e:
        check(want in str(e), "dcliques refuses: %s" % e)

# eval == `topogen eval --json` (the same lambda2: the Laplacian's)
for f, t in ((f8, topogen.ring(8)), (frr, topogen.random_regular(64, 4))):
    rc, out, err = cli("eval", "--json", f)
    ref = json.loads(out)
    e = topogen.eval(t)
    for k in ("n", "edges", "min_degree", "max_degree", "components",
              "diameter", "rounds_1e-3"):
        check(e[k] == ref[k], "eval %s: %s == %s" % (k, e[k], ref[k]))
    for k in ("lambda2", "lambdan", "slem", "slem_best_laplacian", "neff",
              "neff_per_message"):
        check(abs(e[k] - ref[k]) <= 1e-12 * max(1.0, abs(ref[k])),
              "eval %s: %r == %r" % (k, e[k], ref[k]))
    check(abs(e["spectral_gap"] - (1 - ref["slem"])) < 1e-12,
          "eval spectral_gap = 1 - slem")

# refusals: the CLI's messages
for call, args in ((lambda: topogen.ring(1), ["--kind", "ring", "-n", 1]),
                   (lambda: topogen.random_regular(7, 3),
                    ["--kind", "random", "-n", 7, "-d", 3]),
                   (lambda: topogen.torus(14), ["--kind", "torus", "-n", 14]),
                   (lambda: topogen.one_peer_exp(6),
                    ["--kind", "one-peer-exp", "-n", 6]),
                   (lambda: topogen.base(5, 5), ["--kind", "base", "-n", 5,
                                                 "-d", 5])):
    rc, out, err = cli(*args)
    try:
        call()
        check(False, "refused: %s" % args)
    except topogen.TopogenError as e:
        check(rc == 2 and ("topogen: %s" % e) in err,
              "refused as the CLI: %r in %r" % (str(e), err))

# without numpy: what needs it says so
if not have_np:
    try:
        topogen.ring(8).W
        check(False, ".W without numpy raises")
    except ImportError as e:
        check("numpy" in str(e), ".W without numpy names numpy: %s" % e)
    # nor torch: topogen.torch says what it needs
    try:
        import topogen.torch  # noqa: F401
        check(False, "import topogen.torch without torch raises")
    except ImportError as e:
        check("topogen.torch needs PyTorch" in str(e),
              "import topogen.torch without torch names PyTorch: %s" % e)

# a file topogen wrote, cut inside a line: refused as the CLI refuses it
with open(f8, "rb") as fp:
    cut = fp.read()[:-3]
fcut = os.path.join(OUT, "ring8-cut.txt")
with open(fcut, "wb") as fp:
    fp.write(cut)
rc, out, err = cli("eval", fcut)
if have_np:
    try:
        topogen.load(fcut)
        check(False, "a cut file is refused")
    except topogen.TopogenError as e:
        check(rc == 1 and ("topogen: %s" % e) in err and
              "ends inside a line" in str(e),
              "a cut file refused as the CLI: %r in %r" % (str(e), err))

# the fallbacks, each in a process of its own
code = r'''
import sys, topogen
from topogen import _linalg
t = topogen.random_regular(64, 4, seed=1)
t2 = topogen.random_regular(64, 4, seed=1)
t.save(sys.argv[1])
print(_linalg.backend(), t._raw == t2._raw)
'''
env = dict(os.environ, TOPOGEN_NO_IGRAPH="1")
fb = os.path.join(OUT, "rr-noigraph.txt")
r = subprocess.run([sys.executable, "-c", code, fb], env=env,
                   capture_output=True, text=True)
check(r.returncode == 0 and r.stdout.split()[1] == "True",
      "no libigraph: random_regular draws (deterministic) %s" % r.stderr)
with open(fb) as fp:
    lines = fp.read().splitlines()
with open(frr) as fp:
    cli_lines = fp.read().splitlines()
adj = {}
for ln in lines:
    if not ln.startswith("#"):
        i, j, _ = ln.split()
        adj.setdefault(int(i), set()).add(int(j))
        adj.setdefault(int(j), set()).add(int(i))
seen, stack = {0}, [0]
while stack:
    for j in adj[stack.pop()]:
        if j not in seen:
            seen.add(j)
            stack.append(j)
check(len(adj) == 64 and all(len(a) == 4 for a in adj.values()) and
      len(seen) == 64, "no libigraph: a connected 4-regular graph")
check(any("without libigraph" in ln for ln in lines if ln.startswith("#"))
      and lines != cli_lines, "no libigraph: the header says it is not "
      "the CLI's graph")
env = dict(os.environ, TOPOGEN_NO_LAPACK="1", TOPOGEN_NO_NUMPY="1")
r = subprocess.run([sys.executable, "-c", "import topogen, sys; "
                    "from topogen import _linalg; "
                    "topogen.ring(8).save(sys.argv[1]); "
                    "print(_linalg.backend())",
                    os.path.join(OUT, "r8-jacobi.txt")], env=env,
                   capture_output=True, text=True)
with open(os.path.join(OUT, "r8-jacobi.txt")) as fp:
    wj = float(fp.read().splitlines()[4].split()[2])
with open(f8) as fp:
    wc = float(fp.read().splitlines()[4].split()[2])
check(r.stdout.strip() == "python" and abs(wj - wc) < 4e-16,
      "no LAPACK, no numpy: Jacobi's weight %r within 4e-16 of %r" % (wj, wc))

print("check_wheel (%s): %d passed, %d failed" % (NP, passes, fails))
sys.exit(1 if fails else 0)

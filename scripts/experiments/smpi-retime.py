#!/usr/bin/python3
"""smpi-retime.py [--no-figures] OUT [RUNS...]: the committed slow-network runs re-timed
by SimGrid's SMPI (issue 45).

OUT is the folder of scripts/experiments/smpi-retime.sh: OUT/probes/CELL/
PROBE.{csv,json,log}, short runs of the real trainer (bin/dpsgd-train-smpi)
on a simulated platform (CELL = platform-tcp: wan, sites4, datacenter x
cm02, lv08). RUNS are folders of runs NAME-sS.{csv,json,failed} (default:
data/results-slow-network/runs, and every OUT/extra-runs/LABEL/: runs
of other experiments, copied there). A folder given as LABEL=DIR names
its runs' source (LABEL "committed" for the main runs).

A training trajectory does not depend on the network (docs/smpi.md: the
SMPI build gives the Open MPI build's CSV training columns), so a run's
simulated time to step T is the simulated cost of its own steps and
communications up to T, each priced by the probe of its pattern:

  time(T) = T x c_compute + (its gossip rounds, all-reduces, exact
            averages, warm-up averages up to T) x their costs
            + agreements(T) x c_agree + (evaluations before T) x c_skew

with, per probe of K steps (its last wall_s W, the trainer's `time per
rank` split: compute C, gossip in memory G, MPI communication M; read at
full precision from its summary JSON):
c_compute = (C + G) / K, c_comm = M / communications, c_agree = (W - C -
G - M) / agreements(K). agreements(T) = floor(T / 16) (DT_AGREE_EVERY) +
evaluations at steps <= T (the agreement before each) + evaluations at
steps < T (the divergence check after each); the evaluation itself is
outside wall_s, but the ranks leave it apart: c_skew per evaluation,
from a probe PATTERN-EE evaluated as the committed runs are, is what is
left of its W after its pattern's c_agree. A warm-up step of local SGD / DiLoCo averages the
parameters, agrees, then averages the momentum: 2 averages + 1 agreement.

Two pricings per cell:
  run   the trainer as it runs: all-reduce every step by SMPI's Open MPI
        selection (ar-ompi; ar-auto, SMPI's own default, if not
        measured), local SGD's and Gossip-PGA's exact averages by the
        trainer's gather-to-rank-0 and broadcast (probe exact);
  best  every all-reduce (gradients, local SGD's averages, warm-up, PGA's
        exact averages) at the cheapest algorithm measured in the cell
        (ar-*: auto, ompi, rdb, rab, direct, hierarchical); gossip as run.
GT's rounds are priced by its own probe (gt-GRAPH-sS: two arrays a peer).
A compressed average (--compress int8|int4, local SGD and DiLoCo) is the
trainer's all-reduce by ALG less what compression saves on the bare
operation, c(ar-ALG) - (q-none-ALG - q-FORM-ALG) (OUT/probes/CELL/
q-FORM-ALG.op: smpi-probe.c, one all-reduce of the compressed bytes; the
committed trainer probes ar-ALG are uncompressed, made when the trainer
moved dequantized floats: a probe made since, with --compress, already
sends the codes and must not be corrected again); under "run" it is the
trainer's exact average, bytes counted compressed.
Rounds in flight (--staleness D, d2 and dpsgd) and CHOCO-SGD's
compressed gossip (dpsgd --compress int8|int4): when the probes were made
the trainer's stale exchange blocked (its rounds are in flight since,
docs/train/staleness.md) and its CHOCO-SGD moved dequantized floats (its
rounds move their wire form since, int8/int4 codes and scales, top-k
values and indices: a probe of the trainer made
since with --compress already sends them and must not be corrected
again), so neither committed probe times the schedule itself. "run" prices them as the trainer runs
(the run's gossip probe: one blocking full-size round; bytes counted
compressed); "best" prices the schedule: the trainer's round less what
the schedule saves on a bare round (smpi-probe gossip on the graph,
OUT/probes/CELL/g-FORM-GRAPH-sS[-dD].op), c(round) - (g-none-G -
g-none-G-dD) with D + 1 rounds in flight (the steady state of posting
round c and waiting for round c - D; latency overlapped, bytes not, and
no compute overlapped, which on the WAN is 0.25% of a step), c(round) -
(g-none-G - g-FORM-G) at the compressed bytes. One link per host (wan,
datacenter) only: at 4 sites the trainer places workers by METIS and
the bare probe does not, so these rows are not priced there.
A probe measured at fewer hosts than the cell (ar-direct: the 256-host
all-to-all is 65,000 flows, too slow to simulate here) gives its
communication cost only, and is named in table.md.

Writes OUT/probes.tsv, OUT/per-run.tsv, OUT/table.md, OUT/time-vs-acc-CELL.png.
"""
import csv
import json
import math
import os
import re
import sys
import warnings

from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from figures import pyplot  # noqa: E402 (scripts/lib is not a package)

# gt-aware-H2's 3 seeds reach 85% at the same step (the same time): a
# Welch test against a constant sample, which scipy warns about
warnings.filterwarnings("ignore", message="Precision loss occurred in moment calculation")

TARGET = 0.85
AGREE_EVERY = 16
CELLS = ["wan-cm02", "wan-lv08", "sites4-cm02", "sites4-lv08", "datacenter-cm02", "datacenter-lv08"]
CELL_LABEL = {"wan": "WAN (256 hosts, 50 ms, 12.5 MB/s each)", "sites4": "4 sites x 64 (datacenter inside, one 50 ms, 12.5 MB/s uplink per site)",
              "datacenter": "datacenter (256 hosts, 25 us, 3 GB/s)"}
TCP_LABEL = {"cm02": "CM02, factors 1 (warm)", "lv08": "LV08, its factors (slow start)"}
AR_ALGS = ["ar-auto", "ar-ompi", "ar-rdb", "ar-rab", "ar-direct", "ar-hier"]
LENET = 61706  # LeNet's parameters: the array of every average and round
GOSSIP = ("d2-", "dpsgd-", "gt-")
GRAPHS = {"random": "random 4-regular", "aware": "data-aware learned", "learned": "learned (spectral)",
          "hosts": "host-aware learned (--groups 4)", "one-peer-exp": "one-peer exponential"}


def compress_bytes(form, n=LENET):
    """dt_compress_bytes: the bytes of n floats compressed by form (256
    values per float scale)"""
    blocks = (n + 255) // 256
    return {"none": 4 * n, "int8": n + 4 * blocks, "int4": (n + 1) // 2 + 4 * blocks}.get(form)


def die(msg):
    sys.stderr.write("smpi-retime.py: %s\n" % msg)
    sys.exit(1)


def read_rows(path):
    """(step, test_acc, wall_s) of every CSV row"""
    rows = []
    with open(path) as f:
        r = csv.DictReader(f)
        for x in r:
            try:
                rows.append((int(x["step"]), float(x["test_acc"]), float(x["wall_s"])))
            except (ValueError, KeyError):
                continue
    return rows


def agreements(T, eval_steps):
    return T // AGREE_EVERY + sum(1 for s in eval_steps if s <= T) + sum(1 for s in eval_steps if s < T)


def pattern_of(probe):
    """the evaluation-skew class of a probe: gossip, allreduce or exact"""
    if probe.startswith(GOSSIP):
        return "gossip"
    return "exact" if probe.startswith(("exact", "warm", "local")) else "allreduce"


def skew(P, pattern):
    """c_skew of the pattern in a cell's probes (exact falls back to
    allreduce's), 0.0 if not measured"""
    for pat in (pattern, "allreduce") if pattern == "exact" else (pattern,):
        xs = [x["c_skew"] for x in P.values() if x.get("pattern") == pat and "c_skew" in x]
        if xs:
            return sum(xs) / len(xs)
    return 0.0


def evals_before(T, eval_steps):
    return sum(1 for s in eval_steps if s < T)


def load_probes(out):
    """probes[cell][probe] = dict of costs"""
    probes = {}
    d = os.path.join(out, "probes")
    if not os.path.isdir(d):
        return probes
    for cell in sorted(os.listdir(d)):
        for f in sorted(os.listdir(os.path.join(d, cell))):
            if not f.endswith(".json"):
                continue
            pr = f[:-5]
            b = os.path.join(d, cell, pr)
            log = open(b + ".log").read()
            m = re.search(r"time per rank: compute ([0-9.]+) s  (?:gossip in-memory ([0-9.]+) s  )?"
                          r"(?:allreduce|gossip MPI) ([0-9.]+) s", log)
            if not m:
                die("%s.log: no 'time per rank' line" % b)
            sim = re.search(r"simulation: ([0-9.]+) s wall, ([0-9.]+) s user, ([0-9.]+) s system, ([0-9]+) kB", log)
            cfg = re.search(r"SMPI_CFG='([^']*)'", log)
            j = json.load(open(b + ".json"))
            res, st = j["result"], j["settings"]
            rows = read_rows(b + ".csv")
            K = rows[-1][0]
            # full precision from the summary (the CSV and the `time per
            # rank` line round to ms and 10 ms: too coarse in a datacenter)
            W = res["wall_s"]
            C = res["t_compute_s"] + res["t_gossip_mem_s"]
            M = res["t_gossip_mpi_s"]
            if abs(W - rows[-1][2]) > 0.0011 or abs(C - float(m.group(1)) - float(m.group(2) or 0)) > 0.011 or \
                    abs(M - float(m.group(3))) > 0.0051:
                die("%s: the summary's times (%g, %g, %g) are not the log's and CSV's" % (b, W, C, M))
            c = res["communications"]
            nc = c["gossip_rounds"] + c["exact_averages"] + c["gradient_allreduces"]
            na = agreements(K, [r[0] for r in rows])
            probes.setdefault(cell, {})[pr] = {
                "hosts": res["ranks"], "workers": res["workers"], "steps": K, "wall": W, "compute": C, "comm": M,
                "n_comm": nc, "c_compute": C / K, "c_comm": M / nc if nc else None,
                "c_agree": (W - C - M) / na, "bytes_comm": res["bytes_sent"] / nc if nc else 0.0,
                "cpu": float(sim.group(2)) + float(sim.group(3)) if sim else None,
                "rss_kB": int(sim.group(4)) if sim else None, "cfg": (cfg.group(1).strip() if cfg else ""),
                "batch": st["batch"], "evals": [r[0] for r in rows]}
    # -EE probes: the same pattern evaluated as the committed runs are;
    # the cost of an evaluation beyond its two agreements (the ranks leave
    # it apart, and the agreement after it waits for the last) per
    # evaluation before the probe's end: c_skew of the pattern
    for cell, ps in probes.items():
        for pr, x in ps.items():
            mm = re.match(r"(.*)-E[0-9]+$", pr)
            if not mm or mm.group(1) not in ps:
                continue
            base = ps[mm.group(1)]
            R = x["wall"] - x["compute"] - x["comm"]
            n_lt = sum(1 for e in x["evals"] if e < x["steps"])
            x["c_skew"] = (R - agreements(x["steps"], x["evals"]) * base["c_agree"]) / n_lt
            x["pattern"] = pattern_of(mm.group(1))
    return probes


def load_ops(out):
    """ops[cell][q-FORM-ALG] = one bare all-reduce of a LeNet array
    compressed by FORM, by ALG (scripts/experiments/smpi-probe.c under
    smpi-run.sh, OUT/probes/CELL/q-FORM-ALG.op): seconds per operation
    (the slowest rank's mean over REPS back to back), its bytes"""
    ops = {}
    d = os.path.join(out, "probes")
    if not os.path.isdir(d):
        return ops
    for cell in sorted(os.listdir(d)):
        for f in sorted(os.listdir(os.path.join(d, cell))):
            mm = re.match(r"q-(none|int8|int4)-(ompi|rdb|rab|direct|hier)\.op$", f)
            mg = re.match(r"g-(none|int8|int4)-([a-z]+-s[0-9]+)(?:-d([0-9]+))?\.op$", f)
            if not mm and not mg:
                continue
            b = os.path.join(d, cell, f)
            txt = open(b).read()
            hdr = re.search(r"-np ([0-9]+), SMPI_CFG='([^']*)', smpi-probe (\S+) (\S+) ([0-9]+) ([0-9]+)", txt)
            v = re.search(r"^probe_s ([0-9.eE+-]+)$", txt, re.M)
            sim = re.search(r"simulation: ([0-9.]+) s wall, ([0-9.]+) s user, ([0-9.]+) s system, ([0-9]+) kB", txt)
            if not hdr or not v:
                die("%s: no header or no probe_s line" % b)
            form, alg = (mm or mg).group(1), (mm.group(2) if mm else "gossip")
            if mg and (not hdr.group(3).startswith("gossip") or
                       int(hdr.group(3).partition(":")[2] or 0) != int(mg.group(3) or 0) or
                       os.path.basename(hdr.group(4)) != mg.group(2) + ".txt"):
                die("%s: not a gossip round of %s.txt with %s rounds in flight" % (b, mg.group(2), mg.group(3) or 0))
            if int(hdr.group(5)) != compress_bytes(form):
                die("%s: %s bytes, not %s's %d" % (b, hdr.group(5), form, compress_bytes(form)))
            ops.setdefault(cell, {})[f[:-3]] = {
                "hosts": int(hdr.group(1)), "cfg": hdr.group(2).strip(), "bytes": int(hdr.group(5)),
                "reps": int(hdr.group(6)), "c_comm": float(v.group(1)), "form": form, "alg": alg,
                "graph": mg.group(2) if mg else None, "depth": int(mg.group(3) or 0) if mg else 0,
                "cpu": float(sim.group(2)) + float(sim.group(3)) if sim else None,
                "rss_kB": int(sim.group(4)) if sim else None}
    return ops


def compressed_costs(P, Q, form):
    """[(probe, seconds, bytes)] of an all-reduce of the array compressed
    by form for every algorithm ALG with the trainer's probe ar-ALG and
    the bare operations q-none-ALG and q-FORM-ALG in the cell: the
    trainer's cost less what compression saves on the bare operation,
    c(ar-ALG) - (q-none-ALG - q-FORM-ALG) (the trainer moves dequantized
    floats, so it cannot time a compressed all-reduce itself; what the
    trainer spends beyond the bare operation, 2.5 ms of its 3.3 ms in the
    datacenter, is not the network's and is kept)"""
    out = []
    for a in ("ompi", "rdb", "rab", "direct", "hier"):
        z, q, t = Q.get("q-none-" + a), Q.get("q-%s-%s" % (form, a)), P.get("ar-" + a)
        if z and q and t and z["hosts"] == q["hosts"] == t["hosts"]:
            out.append(("q-%s-%s" % (form, a), t["c_comm"] - (z["c_comm"] - q["c_comm"]), q["bytes"]))
    return out


def schedule_of(j, name):
    """the run's schedule from its summary's settings"""
    s = j["settings"]
    topo = s.get("topology") or ""
    g = None
    if topo:
        base = os.path.basename(topo)
        mm = re.match(r"(random|aware|learned|hosts)-s([0-9]+)\.txt$", base)
        if mm:
            g = (mm.group(1), int(mm.group(2)))
        elif base.startswith("one-peer-exp"):
            g = ("one-peer-exp", 1)
        else:
            g = ("other:" + base, s.get("seed", 1))
    return {"mode": s["mode"], "H": s.get("average_every", 1) or 1, "S": s.get("local_after", 0) or 0,
            "K": s.get("global_every", 0) or 0, "outer": s.get("outer", "none"), "graph": g,
            "algorithm": s.get("algorithm"), "compress": s.get("compress") or "none",
            "staleness": s.get("staleness") or 0,
            # --fragments: "1" (whole arrays) or a count (Streaming DiLoCo)
            "fragments": 0 if str(s.get("fragments") or "1") in ("1", "0") else s["fragments"],
            "consensus_step": s.get("consensus_step", 1.0)}


def schedule_from_name(name, seed):
    """a .failed run (no summary): the committed grammar of results-slow-network.sh"""
    parts = name.split("-")
    o = {"mode": "gossip", "H": 1, "S": 0, "K": 0, "outer": "none", "graph": None, "algorithm": parts[0],
         "compress": "none", "staleness": 0, "fragments": 0}
    rest = parts[1:]
    if parts[0] in ("allreduce", "local", "diloco"):
        o["mode"] = "allreduce"
        if parts[0] != "allreduce":
            o["S"] = 58
        if parts[0] == "diloco":
            o["outer"] = "nesterov:0.7,0.9"
    else:
        g = rest[0]
        o["graph"] = ("one-peer-exp", 1) if g == "opexp" else (g, seed)
        rest = rest[1:]
    for x in rest:
        if x in ("int8", "int4"):
            o["compress"] = x
        mm = re.match(r"(H|pga|lr|S|stale)([0-9.]+)$", x)
        if mm and mm.group(1) == "stale":
            o["staleness"] = int(mm.group(2))
        if mm and mm.group(1) == "H":
            o["H"] = int(mm.group(2))
        elif mm and mm.group(1) == "pga":
            o["K"] = int(mm.group(2))
        elif mm and mm.group(1) == "S":
            o["S"] = int(mm.group(2))
    return o


def events(T, o):
    """(warm-up averages, plain averages or all-reduces, gossip rounds,
    exact averages) in steps [0, T): the schedule of train/core/dt_local.h"""
    if o["mode"] == "allreduce" and o["H"] == 1 and o["outer"] == "none" and o["S"] == 0:
        return 0, T, 0, 0
    warm = plain = rounds = exact = 0
    c = 0
    for t in range(T):
        if t < o["S"] or (t - o["S"] + 1) % o["H"] == 0:
            if o["mode"] == "allreduce":
                if t < o["S"]:
                    warm += 1
                else:
                    plain += 1
            else:
                c += 1
                if o["K"] and c % o["K"] == 0:
                    exact += 1
                else:
                    rounds += 1
    if o["mode"] == "allreduce" and o["H"] == 1 and o["S"] == 0:
        return 0, T, 0, 0
    return warm, plain, rounds, exact


def gossip_probe(cell_probes, o, plat):
    """the probe of the run's gossip round: its own graph file if probed;
    else the same kind at seed 1; on one-link-per-host platforms (wan,
    datacenter) any 4-regular graph's (every host sends and receives 4
    arrays on its own link)"""
    g, seed = o["graph"]
    if o.get("algorithm") == "gt":  # its round sends [x | c + hbar]: its own probes
        alg, names = "gt", ["gt-%s-s%d" % (g, seed)]
    elif g == "one-peer-exp":
        alg, names = None, ["dpsgd-opexp"]
    else:
        alg, names = "d2", ["d2-%s-s%d" % (g, seed), "dpsgd-%s-s%d" % (g, seed)]
    if alg:
        names += ["%s-%s-s1" % (alg, g)] + (["%s-aware-s1" % alg, "%s-random-s1" % alg] if plat != "sites4" else [])
    return next((n for n in names if n in cell_probes), None)


def cost_table(P):
    """(probes, the reference probe for compute and agreements of
    all-reduce runs, [(all-reduce probe, its cost, its bytes)])"""
    hosts = max(x["hosts"] for x in P.values())
    ref = next((P[x] for x in ("ar-ompi", "ar-auto") if x in P and P[x]["hosts"] == hosts), None)
    ars = [(x, P[x]["c_comm"], P[x]["bytes_comm"]) for x in AR_ALGS if x in P]
    return P, ref, ars


def price_with(P, plat, o, T, eval_steps, pricing, parts=None, Q=None):
    """(simulated seconds to step T, payload bytes per worker, the probes
    that priced it) or (None, None, why not); parts (a dict) gets the
    seconds of compute, comm, agree and skew; Q: the cell's bare
    compressed all-reduces (load_ops)"""
    def done(t, by, used, comp, comm, agree, sk):
        if parts is not None:
            parts.update(compute=comp, comm=comm, agree=agree, skew=sk)
        return t, by, used
    P, ref, ars = cost_table(P)
    if o["fragments"]:
        return None, None, "fragments not probed"
    form = o["compress"]
    if form != "none" and compress_bytes(form) is None:
        return None, None, "top-k not probed"
    warm, plain, rounds, exact = events(T, o)
    ex = P.get("exact")
    run_ar = next((x for x in ("ar-ompi", "ar-auto") if x in P), None)
    best_ar = min(ars, key=lambda a: a[1]) if ars else None
    if o["mode"] == "allreduce":
        if o["H"] == 1 and o["S"] == 0 and o["outer"] == "none":  # gradient all-reduce every step
            if ref is None or run_ar is None:
                return None, None, "no all-reduce probe"
            # each algorithm's probe is a whole trainer run: its own
            # compute and agreements (a blocking all-reduce leaves the
            # ranks skewed, and the next agreement waits for the last);
            # a probe at fewer hosts gives its all-reduce only, the rest
            # from the 256-host probe of SMPI's default selection (the
            # setting it ran under)
            hosts = max(x["hosts"] for x in P.values())
            opts = []
            algs = ([run_ar] if pricing == "run" else [pricing] if pricing in P
                    else [a[0] for a in ars])
            for x in algs:
                src = P[x] if P[x]["hosts"] == hosts else P.get("ar-auto", ref)
                pp = (T * src["c_compute"], plain * P[x]["c_comm"], agreements(T, eval_steps) * src["c_agree"],
                      evals_before(T, eval_steps) * skew(P, "allreduce"))
                opts.append((sum(pp), plain * P[x]["bytes_comm"], x, pp))
            t, by, used, pp = min(opts)
            return done(t, by, used, *pp)
        if ex is None:
            return None, None, "no exact-average probe"
        used, c, b = "exact", ex["c_comm"], ex["bytes_comm"]
        if pricing == "best" and best_ar and best_ar[1] < c:
            used, c, b = best_ar
        # the parameter average (the pseudo-gradients' under --compress);
        # a warm-up step adds the momentum's, always uncompressed
        cq, bq = c, b
        if form != "none":
            # run: the trainer's average of the dequantized floats, bytes
            # counted compressed; best: the cheapest compressed all-reduce
            bq = compress_bytes(form)
            if pricing == "best":
                qs = compressed_costs(P, Q or {}, form)
                if not qs:
                    return None, None, "no %s all-reduce probe" % form
                qn, cq, bq = min(qs, key=lambda a: a[1])
                used = qn + ("+" + used if warm else "")
        pp = (T * ex["c_compute"], warm * (c + cq) + plain * cq,
              (agreements(T, eval_steps) + warm) * ex["c_agree"], evals_before(T, eval_steps) * skew(P, "exact"))
        return done(sum(pp), warm * (b + bq) + plain * bq, used, *pp)
    gp = gossip_probe(P, o, plat) if o["graph"] else None
    if gp is None:
        return None, None, ("GT's round (two arrays) not probed" if o.get("algorithm") == "gt"
                            else "gossip graph not probed")
    g = P[gp]
    cx, bx, used = 0.0, 0.0, gp
    cr, br = g["c_comm"], g["bytes_comm"]
    D = o["staleness"]
    if D or form != "none":  # rounds in flight, CHOCO-SGD: see the docstring
        if plat == "sites4":
            return None, None, "%s not priced at 4 sites" % ("rounds in flight" if D else "compressed gossip")
        if form != "none":
            br = g["bytes_comm"] * compress_bytes(form) / (4.0 * LENET)
        if pricing == "best":
            Q = Q or {}
            gr = "%s-s%d" % o["graph"]
            sav = "g-int8-%s" % gr if not D else "g-none-%s-d%d" % (gr, D)
            sav = sav.replace("int8", form)
            names = [(gr, sav)]
            if plat != "sites4" and o["graph"][0] in ("random", "aware", "learned", "hosts"):
                # one link per host: any 4-regular graph's round
                names += [("aware-s1", sav.replace(gr, "aware-s1"))]
            hit = next(((g0, s0) for g0, s0 in names if "g-none-" + g0 in Q and s0 in Q), None)
            if hit is None:
                return None, None, "no bare round %s (smpi-probe)" % sav
            z, q = Q["g-none-" + hit[0]], Q[hit[1]]
            cr = g["c_comm"] - (z["c_comm"] - q["c_comm"])
            used += " - (g-none-%s - %s)" % (hit[0], hit[1])
    if exact:
        if ex is None:
            return None, None, "no exact-average probe"
        cx, bx = ex["c_comm"], ex["bytes_comm"]
        if pricing == "best" and best_ar and best_ar[1] < cx:
            cx, bx = best_ar[1], best_ar[2]
            used += "+" + best_ar[0]
        else:
            used += "+exact"
    pp = (T * g["c_compute"], rounds * cr + exact * cx, agreements(T, eval_steps) * g["c_agree"],
          evals_before(T, eval_steps) * skew(P, "gossip"))
    return done(sum(pp), rounds * br + exact * bx, used, *pp)


def same_graph(path, topo_dir):
    """the committed topology file (random-s1.txt, ...) with the same
    edges as path, or None"""
    def body(f):
        try:
            return [ln for ln in open(f).read().splitlines() if ln and not ln.startswith("#")]
        except OSError:
            return None
    b = body(path)
    if b is None or not os.path.isdir(topo_dir):
        return None
    for f in sorted(os.listdir(topo_dir)):
        if f.endswith(".txt") and body(os.path.join(topo_dir, f)) == b:
            return f
    return None


def check(out, probes, topo_dir, lines):
    """the re-timing against whole simulated runs: every run under
    OUT/check64/e2e/probes/CELL (priced from OUT/check64/probes/CELL) and
    OUT/full/CELL (priced from OUT's own probes): the trainer's simulated
    wall_s at each evaluation against the re-timed one ("run" pricing)"""
    sets = [("64 hosts, 58 steps end to end (check64/e2e)",
             os.path.join(out, "check64", "e2e", "probes"), load_probes(os.path.join(out, "check64"))),
            ("256 hosts, 12 epochs (full/: a whole SMPI run)", os.path.join(out, "full"), probes)]
    worst = []
    for title, d, P in sets:
        if not os.path.isdir(d):
            continue
        lines.append("| check | cell | run | steps | simulated wall_s (trainer) | re-timed | error | at 85%: trainer / re-timed |")
        lines.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for cell in sorted(os.listdir(d)):
            if cell not in P:
                continue
            for f in sorted(os.listdir(os.path.join(d, cell))):
                if not f.endswith(".json"):
                    continue
                b = os.path.join(d, cell, f[:-5])
                j = json.load(open(b + ".json"))
                o = schedule_of(j, f[:-5])
                if o["graph"] and o["graph"][0].startswith("other:"):
                    # the run's graph, copied beside it (NAME.topo.txt),
                    # else where the run read it
                    tf = b + ".topo.txt"
                    g = same_graph(tf if os.path.exists(tf) else j["settings"]["topology"], topo_dir)
                    mm = re.match(r"(random|aware|learned|hosts)-s([0-9]+)\.txt$", g or "")
                    if not mm:
                        lines.append("| %s | %s | %s | - | - | - | graph not identified | - |" % (title, cell, f[:-5]))
                        continue
                    o["graph"] = (mm.group(1), int(mm.group(2)))
                rows = read_rows(b + ".csv")
                ev = [r[0] for r in rows]
                plat = cell.split("-")[0]
                errs = []
                for st, _, w in rows[1:]:
                    t, _, _ = price_with(P[cell], plat, o, st, ev, "run")
                    if t is not None and w > 0:
                        errs.append((st, w, t, (t - w) / w))
                if not errs:
                    continue
                st, w, t, e = errs[-1]
                s85 = next((r for r in rows if r[1] >= TARGET), None)
                at = "-"
                if s85:
                    t85 = price_with(P[cell], plat, o, s85[0], ev, "run")[0]
                    at = "%.2f / %.2f s (%+.1f%%)" % (s85[2], t85, 100 * (t85 - s85[2]) / s85[2])
                mx = max(errs, key=lambda x: abs(x[3]))
                worst.append(abs(mx[3]))
                lines.append("| %s | %s | %s | %d | %.2f | %.2f | %+.1f%% (largest over the %d evaluations: %+.1f%% at step %d) | %s |" % (
                    title, cell, f[:-5], st, w, t, 100 * e, len(errs), 100 * mx[3], mx[0], at))
        lines.append("")
    return worst


def main():
    args = [a for a in sys.argv[1:]]
    figures = "--no-figures" not in args
    args = [a for a in args if a != "--no-figures"]
    if not args or args[0].startswith("-"):
        print(__doc__)
        sys.exit(0 if args and args[0] in ("-h", "--help") else 2)
    out = args[0]
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    sources = []
    default = ["committed=" + os.path.join(root, "data", "results-slow-network", "runs")]
    extra = os.path.join(out, "extra-runs")
    if os.path.isdir(extra):
        default += ["%s=%s" % (x, os.path.join(extra, x)) for x in sorted(os.listdir(extra))]
    for a in args[1:] or default:
        lab, _, d = a.partition("=") if "=" in a else ("committed", "", a)
        sources.append((lab, d))
    probes = load_probes(out)
    ops = load_ops(out)
    # probes at fewer hosts (OUT/hostsN: the direct all-reduce): their
    # communication cost only, named "PROBE@HOSTS" and the direct one
    # also as the cell's ar-direct (the most hosts measured)
    for small in sorted((os.path.join(out, x) for x in os.listdir(out) if re.match(r"hosts[0-9]+$", x)),
                        key=lambda x: int(x.rsplit("hosts", 1)[1])):  # the most hosts last
        if not os.path.isdir(os.path.join(small, "probes")):
            continue
        for cell, ps in load_probes(small).items():
            for pr, x in ps.items():
                probes.setdefault(cell, {})["%s@%d" % (pr, x["hosts"])] = x
                # only where each host has its own link (wan,
                # datacenter: a host sends and receives 2 (P-1)/P of the
                # array whatever P); at 4 sites an uplink carries its
                # site's share, 4x more at 256 hosts than at 64
                if pr == "ar-direct" and not cell.startswith("sites"):
                    probes[cell]["ar-direct"] = x
        # the bare direct all-reduces at the same hosts, for the same cells
        for cell, qs in load_ops(small).items():
            for pr, x in qs.items():
                if pr.endswith("-direct") and not cell.startswith("sites"):
                    ops.setdefault(cell, {})[pr] = x

    # probes.tsv
    with open(os.path.join(out, "probes.tsv"), "w") as f:
        f.write("cell\tprobe\thosts\tsteps\twall_s\tcompute_s\tcomm_s\tcommunications\tc_compute_s\tc_comm_s\tc_agree_s\t"
                "bytes_per_comm\tsim_cpu_s\tsim_max_rss_kB\tsmpi_cfg\n")
        for cell in sorted(probes):
            for pr, p in sorted(probes[cell].items()):
                f.write("%s\t%s\t%d\t%d\t%.3f\t%.4f\t%.3f\t%d\t%.6f\t%s\t%.4f\t%.0f\t%s\t%s\t%s\n" % (
                    cell, pr, p["hosts"], p["steps"], p["wall"], p["compute"], p["comm"], p["n_comm"], p["c_compute"],
                    "%.5f" % p["c_comm"] if p["c_comm"] is not None else "-", p["c_agree"], p["bytes_comm"],
                    "%.1f" % p["cpu"] if p["cpu"] is not None else "-", p["rss_kB"] or "-", p["cfg"] or "-"))
            # the bare (compressed) all-reduces: smpi-probe, REPS operations
            for pr, q in sorted(ops.get(cell, {}).items()):
                f.write("%s\t%s\t%d\t%d\t-\t-\t%.3f\t%d\t-\t%.5f\t-\t%d\t%s\t%s\t%s\n" % (
                    cell, pr, q["hosts"], q["reps"], q["reps"] * q["c_comm"], q["reps"], q["c_comm"], q["bytes"],
                    "%.1f" % q["cpu"] if q["cpu"] is not None else "-", q["rss_kB"] or "-", q["cfg"] or "-"))

    cells = [c for c in CELLS if c in probes]

    def costs(cell):
        """the cell's probes, the reference probe for compute and
        agreements of all-reduce runs, its all-reduce options"""
        return cost_table(probes[cell])

    def price(cell, o, T, eval_steps, pricing, parts=None):
        return price_with(probes[cell], cell.split("-")[0], o, T, eval_steps, pricing, parts, ops.get(cell, {}))

    # the runs
    runs = []
    for lab, d in sources:
        if not os.path.isdir(d):
            print("smpi-retime.py: %s: no folder %s (skipped)" % (lab, d))
            continue
        for f in sorted(os.listdir(d)):
            mm = re.match(r"(.*)-s([0-9]+)\.csv$", f)
            if not mm:
                continue
            name, seed = mm.group(1), int(mm.group(2))
            b = os.path.join(d, f[:-4])
            failed = os.path.exists(b + ".failed")
            if not failed and not os.path.exists(b + ".json"):
                continue
            rows = read_rows(b + ".csv")
            if not rows:
                continue
            if failed:
                o = schedule_from_name(name, seed)
            else:
                j = json.load(open(b + ".json"))
                o = schedule_of(j, name)
                st = j["result"]["steps_to_target"].get("0.85")
            if not failed:  # the schedule as parsed gives the summary's communications
                w_, p_, r_, e_ = events(j["result"]["steps"], o)
                c = j["result"]["communications"]
                # (since issue 41 the warm-up's momentum average is counted
                # as an average of its own: 2 per warm-up step)
                if r_ != c["gossip_rounds"] or c["exact_averages"] + c["gradient_allreduces"] not in (
                        w_ + p_ + e_, 2 * w_ + p_ + e_):
                    die("%s: the schedule gives %d rounds, %d averages; the summary %s" % (b, r_, w_ + p_ + e_, c))
            s85 = next((s for s, a, _ in rows if a >= TARGET), None)
            if not failed and st != s85:
                die("%s: steps to 85%% %s in the CSV, %s in the summary" % (b, s85, st))
            ev = [r[0] for r in rows]
            r = {"source": lab, "name": name, "seed": seed, "failed": failed, "final": rows[-1][1],
                 "s85": s85, "rows": rows, "o": o, "t": {}, "bytes": {}, "used": {}}
            for cell in cells:
                for pricing in ("run", "best"):
                    if s85 is None:
                        r["t"][(cell, pricing)] = None
                        continue
                    t, by, used = price(cell, o, s85, ev, pricing)
                    r["t"][(cell, pricing)] = t
                    r["bytes"][(cell, pricing)] = by
                    r["used"][(cell, pricing)] = used
            r["curve"] = lambda cell, pricing, o=o, ev=ev, rows=rows: [
                (price(cell, o, s, ev, pricing)[0], a) for s, a, _ in rows]
            runs.append(r)
    if not runs:
        die("no runs")

    def fmt(x, nd=None):
        if x is None:
            return "never"
        if nd is None:
            nd = 1 if abs(x) >= 10 else 2 if abs(x) >= 1 else 4 if abs(x) >= 0.01 else 5
        return "%.*f" % (nd, x)

    # per-run.tsv
    with open(os.path.join(out, "per-run.tsv"), "w") as f:
        cols = ["%s_%s_s" % (c.replace("-", "_"), p) for c in cells for p in ("run", "best")]
        f.write("setting\tseed\tsource\tfinal_acc\tsteps_to_85\t" + "\t".join(cols) + "\t" +
                "\t".join("%s_best_MB" % c.replace("-", "_") for c in cells) + "\n")
        for r in sorted(runs, key=lambda r: (r["source"], r["name"], r["seed"])):
            f.write("%s\t%d\t%s\t%.4f\t%s\t%s\t%s\n" % (
                r["name"], r["seed"], r["source"], r["final"], r["s85"] if r["s85"] is not None else "never",
                "\t".join(fmt(r["t"][(c, p)], 6) if r["t"].get((c, p)) is not None else
                          ("never" if r["s85"] is None else "n/a") for c in cells for p in ("run", "best")),
                "\t".join("%.2f" % (r["bytes"][(c, "best")] / 1e6) if r["bytes"].get((c, "best")) is not None
                          else ("never" if r["s85"] is None else "n/a") for c in cells)))

    # per setting
    by = {}
    for r in runs:
        by.setdefault((r["source"], r["name"]), []).append(r)

    def mean_sd(xs):
        m = sum(xs) / len(xs)
        return m, (math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else None)

    def is_ar(rs):
        return rs[0]["o"]["mode"] == "allreduce"

    def summary(key, cell, pricing):
        rs = by[key]
        ok = [r for r in rs if r["t"].get((cell, pricing)) is not None]
        return rs, ok, [r["t"][(cell, pricing)] for r in ok]

    def label(key):
        return key[1] if key[0] == "committed" else "%s (%s)" % (key[1], key[0])

    keys = sorted(by, key=lambda k: (k[0] != "committed", not is_ar(by[k]), k[1]))
    L = []
    L.append("# Slow-network runs re-timed by SMPI (issue 45)")
    L.append("")
    L.append("Simulated seconds to 85% test accuracy (mean ± sample std over the seeds that reached it; k/n when not all did), "
             "from the committed runs' trajectories and the per-pattern costs of short runs of the real trainer under "
             "`scripts/experiments/smpi-run.sh` (probes.tsv; README.md). **run**: the trainer as it runs (all-reduce every "
             "step by SMPI's Open MPI selection; local SGD's and PGA's exact averages by its gather-and-broadcast); "
             "**best**: every all-reduce and exact average at the cheapest all-reduce measured in the cell. "
             "MB: payload per worker to 85% (best pricing), as the trainer counts bytes. Welch: the setting's best-pricing "
             "times against the best all-reduce-based setting's (both 3 seeds, all reaching 85%).")
    L.append("")
    verdicts = {}
    for cell in cells:
        plat, tcp = cell.split("-")
        P, ref, ars = costs(cell)
        L.append("## %s, %s" % (CELL_LABEL[plat], TCP_LABEL[tcp]))
        L.append("")
        note = []
        for x in AR_ALGS + ["exact"] + sorted(x for x in P if x.startswith("ar-direct@")):
            if x in P and not (x.startswith("ar-direct@") and P.get("ar-direct") is P[x]):
                note.append("%s %s s%s" % (x, fmt(P[x]["c_comm"]), "" if P[x]["hosts"] == 256 else
                                           " (measured at %d hosts)" % P[x]["hosts"]))
        gps = sorted(x for x in P if x.startswith(GOSSIP) and "c_skew" not in P[x])
        note += ["round %s %s s" % (x, fmt(P[x]["c_comm"])) for x in gps]
        agr = [P[x]["c_agree"] for x in P if P[x]["hosts"] == 256]
        note.append("agreement %s-%s s" % (fmt(min(agr)), fmt(max(agr))) if agr else "")
        note.append("evaluation skew per evaluation: " + ", ".join(
            "%s %s s" % (pat, fmt(skew(P, pat))) if any(x.get("pattern") == pat for x in P.values())
            else "%s not measured (0)" % pat for pat in ("gossip", "allreduce", "exact")))
        L.append("Per communication: " + "; ".join(n for n in note if n) + ".")
        L.append("")
        Q = ops.get(cell, {})
        qn = []
        for form in ("int8", "int4"):
            for x, c, b in compressed_costs(P, Q, form):
                a = x.split("-")[2]
                qn.append("%s %s s (%d B; bare operation %s s, at full size %s s against the trainer's ar-%s %s s%s)" % (
                    x, fmt(c), b, fmt(Q[x]["c_comm"]), fmt(Q["q-none-" + a]["c_comm"]), a, fmt(P["ar-" + a]["c_comm"]),
                    "" if Q[x]["hosts"] == 256 else ", at %d hosts" % Q[x]["hosts"]))
        if qn:
            L.append("Compressed pseudo-gradient all-reduce: the trainer's all-reduce less what compression saves "
                     "on the bare operation (smpi-probe): " + "; ".join(qn) + ".")
            L.append("")
        L.append("| setting | seeds reaching 85% | final acc % | s to 85%, run | s to 85%, best | best priced by | MB to 85% | Welch vs best all-reduce-based (best) |")
        L.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
        # the best all-reduce-based and gossip settings (3 seeds, all reached)
        def best(pred, pricing):
            c = []
            for k in keys:
                rs, ok, ts = summary(k, cell, pricing)
                if pred(rs) and len(rs) >= 3 and len(ok) == len(rs):
                    c.append((sum(ts) / len(ts), k))
            return min(c) if c else None
        bar = best(is_ar, "best")
        bg = best(lambda rs: not is_ar(rs), "best")
        for k in keys:
            rs, ok, ts = summary(k, cell, "best")
            _, okr, tsr = summary(k, cell, "run")
            n = len(rs)
            fa = [r["final"] for r in rs]
            m, sd = mean_sd(fa)
            nf = sum(1 for r in rs if r["failed"])
            acc = "%.2f%s" % (100 * m, " ± %.2f" % (100 * sd) if sd is not None else "") + (" (%d diverged)" % nf if nf else "")
            reach = sum(1 for r in rs if r["s85"] is not None)

            def cellfmt(ts, ok):
                if not ts:
                    why = next((r["used"].get((cell, "best")) for r in rs if r["s85"] is not None), None)
                    return "never" if reach == 0 else "n/a (%s)" % why
                mm, ss = mean_sd(ts)
                return fmt(mm) + (" ± " + (fmt(ss) if ss > 1e-9 * abs(mm) else "0") if ss is not None else "") + ("" if len(ok) == n else " (%d/%d)" % (len(ok), n))
            mb = [r["bytes"][(cell, "best")] / 1e6 for r in ok]
            w = ""
            if bar and ts and len(ts) >= 2 and k != bar[1]:
                _, _, tb = summary(bar[1], cell, "best")
                t, p = stats.ttest_ind(ts, tb, equal_var=False)
                w = "%.2fx, p = %.2g" % (bar[0] / (sum(ts) / len(ts)), p)
            elif bar and k == bar[1]:
                w = "(the best all-reduce-based)"
            used = sorted(set(r["used"][(cell, "best")] for r in ok))
            L.append("| %s | %d/%d | %s | %s | %s | %s | %s | %s |" % (
                label(k), reach, n, acc, cellfmt(tsr, okr), cellfmt(ts, ok), ", ".join(used) or "-",
                ("%.1f" % (sum(mb) / len(mb))) if mb else "-", w))
        # the all-reduce every step at each algorithm measured
        ark = next((k for k in keys if k == ("committed", "allreduce-H1")), None)
        if ark:
            rs = by[ark]
            L.append("")
            L.append("All-reduce every step (allreduce-H1, %d seeds) at each algorithm measured: %s." % (len(rs), "; ".join(
                "%s %s" % (x, fmt(mean_sd([price(cell, r["o"], r["s85"], [q[0] for q in r["rows"]], x)[0] for r in rs])[0]))
                + (" ± %s s" % fmt(mean_sd([price(cell, r["o"], r["s85"], [q[0] for q in r["rows"]], x)[0] for r in rs])[1]))
                for x in AR_ALGS if x in P)))
        L.append("")
        if bar and bg:
            _, _, ta = summary(bar[1], cell, "best")
            _, _, tg = summary(bg[1], cell, "best")
            t, p = stats.ttest_ind(tg, ta, equal_var=False)
            allbest = min(bar, bg)
            verdicts[cell] = (bg, bar, p)
            L.append("Best gossip: %s %s s; best all-reduce-based: %s %s s; ratio (all-reduce / gossip) %.2fx, Welch p = %.2g. "
                     "Fastest overall: %s." % (label(bg[1]), fmt(bg[0]), label(bar[1]), fmt(bar[0]), bar[0] / bg[0], p,
                                               label(allbest[1])))
            for k in (bg[1], bar[1]):  # where the time goes (mean over seeds)
                acc = {}
                rs = [r for r in by[k] if r["s85"] is not None]
                for r in rs:
                    pp = {}
                    price(cell, r["o"], r["s85"], [x[0] for x in r["rows"]], "best", pp)
                    for q, v in pp.items():
                        acc[q] = acc.get(q, 0.0) + v / len(rs)
                L.append("%s's time to 85%%: compute %s s, communication %s s, failure agreements %s s, evaluation skew %s s." % (
                    label(k), fmt(acc["compute"]), fmt(acc["comm"]), fmt(acc["agree"]), fmt(acc["skew"])))
            # the same runs without what measuring them costs: the
            # agreement before and after each evaluation and the ranks'
            # skew after it (an evaluation every 14 steps here, far more
            # often than a user would), and then without any agreement
            # (the trainer's own every-16-step failure check too)
            rows = []
            for k in keys:
                rs = by[k]
                if k[0] != "committed" or len(rs) < 3 or any(r["s85"] is None for r in rs):
                    continue
                t0, t1 = [], []
                for r in rs:
                    pp = {}
                    t, _, _ = price(cell, r["o"], r["s85"], [], "best", pp)
                    if t is None:
                        break
                    t0.append(t)
                    t1.append(pp["compute"] + pp["comm"])
                if len(t0) == len(rs):
                    rows.append((sum(t0) / len(t0), sum(t1) / len(t1), k))
            if rows:
                L.append("Without the evaluations' agreements and skew (training only, the every-16-step agreement kept) "
                         "and, in brackets, compute and communication alone, mean of 3 seeds: " + "; ".join(
                             "%s %s s (%s s)" % (label(k), fmt(a), fmt(b)) for a, b, k in sorted(rows)) + ".")
            L.append("")
    C = ["## Validation: the re-timing against whole simulated runs", ""]
    worst = check(out, probes, os.path.join(root, "data", "results-slow-network", "topo"), C)
    if worst:
        C.append("Largest error of the re-timing at any evaluation of any checked run: %.1f%%." % (100 * max(worst)))
    else:
        C.append("No whole run to check against yet.")
    L += C + [""]
    open(os.path.join(out, "table.md"), "w").write("\n".join(L) + "\n")
    print("\n".join(L))

    # figures: one per cell, simulated time (best pricing) against accuracy
    if not figures:
        return
    plt = pyplot("smpi-retime.py", "figures")
    if plt is None:
        return
    fam_style = {"allreduce": ("0.0", "-", "o"), "local": ("0.35", "-", "s"), "diloco": ("0.55", "-", "^"),
                 "d2": ("0.15", "--", "D"), "dpsgd": ("0.6", ":", "v"), "gt": ("0.4", "-.", "P")}
    for cell in cells:
        fig, ax = plt.subplots(figsize=(8, 5))
        shown = [k for k in keys if k[0] == "committed" and len(by[k]) >= 3] + \
                [k for k in keys if k[0] != "committed" or len(by[k]) < 3]
        # the 3-seed settings, plus the fastest 1-seed setting of each
        # family that reached 85% (few enough lines to tell apart)
        main = [k for k in shown if len(by[k]) >= 3]
        extra = {}
        for k in shown:
            if len(by[k]) < 3:
                _, ok, ts = summary(k, cell, "best")
                fam = k[1].split("-")[0]
                if ts and (fam not in extra or min(ts) < extra[fam][0]):
                    extra[fam] = (min(ts), k)
        lines = main + [v[1] for v in extra.values()]
        markers = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p"]
        for i, k in enumerate(lines):
            rs = by[k]
            fam = k[1].split("-")[0]
            grey, ls, _ = fam_style.get(fam, ("0.4", "-.", "x"))
            n = min(len(r["rows"]) for r in rs)
            xs, ys = [], []
            curves = [r["curve"](cell, "best") for r in rs]  # once per run, not per point
            for idx in range(1, n):
                pts = [c[idx] for c in curves]
                if any(p[0] is None for p in pts):
                    break
                xs.append(sum(p[0] for p in pts) / len(pts))
                ys.append(100 * sum(p[1] for p in pts) / len(pts))
            if xs:
                ax.plot(xs, ys, ls, color=grey, marker=markers[i % len(markers)], markevery=max(1, len(xs) // 8),
                        ms=5, lw=1.4, label="%s (%d seed%s)" % (label(k), len(rs), "s" if len(rs) > 1 else ""))
        ax.axhline(85, color="0.5", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_ylim(70, 90)
        ax.set_xlabel("simulated seconds (SMPI, best pricing; log scale)")
        ax.set_ylabel("test accuracy (%, mean over seeds)")
        plat, tcp = cell.split("-")
        ax.set_title("%s\n%s: solid all-reduce based, dashed/dotted gossip" % (CELL_LABEL[plat], TCP_LABEL[tcp]), fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6.5, loc="lower right", ncol=1)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "time-vs-acc-%s.png" % cell), dpi=100)
        plt.close(fig)


if __name__ == "__main__":
    main()

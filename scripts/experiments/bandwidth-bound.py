#!/usr/bin/python3
"""bandwidth-bound.py [--no-figures] OUT: the 256-worker bandwidth-bound
cell of issue 45 (scripts/experiments/bandwidth-bound.sh with SEEDS set)
priced, tabulated and drawn.

OUT holds runs/NAME-lrLR-sS.{csv,json,failed} (dpsgd-train logs: the CNN
on Fashion-MNIST, N workers), topo/learned-sS.txt (the gossip graph of
seed S), prices-cm02.tsv and prices-lv08.tsv (SMPI seconds of one
communication on the home platform: kind, bytes, hosts, graph, seconds;
smpi-probe.c under smpi-run.sh --tcp cm02|lv08), compute.txt (seconds of
one worker's step on one core) and targets.txt (the test accuracies, the
first the main target). A run's simulated time to step k is

  k x t_c + (its communications before step k) x their SMPI price

with Streaming DiLoCo's fragment all-reduce credited its overlap,
max(0, T_fragment - T x t_c). Bytes are what one worker sends: 2 (n-1)/n B
per direct all-reduce, its graph's mean degree x B per gossip round (B
the array sent, compressed as the trainer counts it, dt_compress_bytes).

A run is NAME-lrLR-sS; its schedule is NAME without -HH (the period H)
and -SW or -wE (the warm-up: --local-after W with --warmup, or --warmup
E alone), which the pilot tunes with the learning rate. Under
--local-after W the first W steps average the parameters every step
(compressed under --compress) and, for the all-reduce-based schedules,
the momentum too (the full array): both priced.

The protocol (docs/train/tuning.md as far as the budget allowed): every
setting (H, warm-up, lr) of each schedule on seed 1 (the pilot), ranked:
a failed run last; else the highest target of targets.txt reached, the
least simulated time to it (the geometric mean of the CM02 and LV08
times: one ranking for both TCP settings), the highest final accuracy.
The settings run on seeds 1-3 are the confirmed ones; at each target
the table shows, per schedule, the confirmed setting fastest to it (the
geometric mean of its mean CM02 and LV08 times) among those whose every
seed reaches it. Writes OUT/pilot.tsv,
OUT/per-run.tsv, OUT/table.md and OUT/time-vs-acc.png (both TCP settings).
"""
import csv
import json
import math
import os
import re
import sys

from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from figures import pyplot  # noqa: E402 (scripts/lib is not a package)

TCPS = ["cm02", "lv08"]
FAMILY = {"allreduce": "all-reduce", "local": "local SGD", "diloco": "DiLoCo", "streaming": "Streaming DiLoCo",
          "d2": "D^2 / LED", "choco": "CHOCO-SGD"}
AR_BASED = ("allreduce", "local", "diloco", "streaming")
# the goal's reference: the best of DiLoCo (int8/int4), Streaming DiLoCo, local SGD
REFERENCE = ("local", "diloco", "streaming")


def die(msg):
    sys.stderr.write("bandwidth-bound.py: %s\n" % msg)
    sys.exit(1)


def family(name):
    return name.split("-")[0]


def compress_bytes(form, n):
    """dt_compress_bytes: int8 one byte a float, int4 half, a 4-byte scale per 256"""
    b = (n + 255) // 256
    return 4 * n if form == "none" else n + 4 * b if form == "int8" else (n + 1) // 2 + 4 * b


def read_prices(path):
    p = {}
    if not os.path.exists(path):
        return None
    for r in csv.DictReader(open(path), delimiter="\t"):
        p[(r["kind"], int(r["bytes"]), r["graph"])] = (float(r["seconds"]), int(r["hosts"]))
    return p


def short_why(why):
    """a failed run's reason in a few words"""
    m = re.search(r"diverged at epoch [0-9]+ \(step ([0-9]+)\)", why)
    if not m:
        return why.replace("dpsgd-train: ", "")[:60]
    kind = "NaN loss" if "NaN" in why else "consensus explosion" if "consensus" in why else "loss explosion"
    return "diverged at step %s (%s)" % (m.group(1), kind)


def frag_syncs(H, P, k, S=0):
    """fragment all-reduces in steps [0, k) after a warm-up of S steps
    (dt_frag_syncs)"""
    if k <= S:
        return 0
    u = k - S
    c = 0
    for p in range(P):
        o = (p + 1) * H // P % H
        c += u // H if o == 0 else ((u - o) // H + 1 if u >= o else 0)
    return c


def local_comms(H, S, k):
    """averages in steps [0, k): every step of the warm-up of S steps, then
    every H-th (dt_local_comms)"""
    return k if k <= S else S + (k - S) // H


def schedule_of(name):
    """the schedule a run name belongs to: the name without its -HH (the
    communication period) and -SW or -wE (the warm-up), which are settings the
    pilot tunes, like the learning rate"""
    return re.sub(r"-(S[0-9]+|w[0-9.]+)$", "", re.sub(r"-H[0-9]+", "", name))


def mean_degree(path, n):
    edges = 0
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            edges += 1
    return 2.0 * edges / n


class Run:
    def __init__(self, base, name, lr, seed):
        self.name, self.lr, self.seed = name, lr, seed
        self.sched = schedule_of(name)
        self.setting = "%s-lr%s" % (name, lr)
        self.failed = os.path.exists(base + ".failed")
        self.why = open(base + ".failed").read().strip() if self.failed else ""
        self.rows = []
        with open(base + ".csv") as f:
            for r in csv.DictReader(f):
                if r.get("test_acc"):
                    self.rows.append((int(r["step"]), float(r["test_acc"])))
        self.s = None
        if not self.failed:
            j = json.load(open(base + ".json"))
            self.s = j["settings"]
            self.steps = j["result"]["steps"]
            self.comms = j["result"]["communications"]
        # H and the warm-up: from the settings, else (a failed run) the name
        m = re.search(r"-H([0-9]+)", name)
        w = re.search(r"-S([0-9]+)$", name)
        self.H = (self.s.get("average_every") or 1) if self.s else int(m.group(1)) if m else \
            1 if self.sched == "allreduce" else 8
        self.S = (self.s.get("local_after") or 0) if self.s else int(w.group(1)) if w and self.sched != "allreduce" else 0
        self.warmup = (self.s.get("warmup") or 0) if self.s else None
        self.final = self.rows[-1][1] if self.rows and not self.failed else None

    def step_to(self, target):
        return next((k for k, a in self.rows if a >= target), None)


def main():
    args = sys.argv[1:]
    figures = "--no-figures" not in args
    args = [a for a in args if a != "--no-figures"]
    if len(args) != 1 or args[0].startswith("-"):
        sys.stdout.write(__doc__)
        sys.exit(0 if args and args[0] in ("-h", "--help") else 2)
    out = args[0]
    rdir = os.path.join(out, "runs")
    if not os.path.isdir(rdir):
        die("%s: no runs/ folder" % out)
    targets = [float(x) for x in open(os.path.join(out, "targets.txt")).read().split()]
    main_t = targets[0]
    tc = float(open(os.path.join(out, "compute.txt")).read())
    prices = {t: read_prices(os.path.join(out, "prices-%s.tsv" % t)) for t in TCPS}
    prices = {t: p for t, p in prices.items() if p}
    if not prices:
        die("%s: no prices-cm02.tsv or prices-lv08.tsv" % out)
    tcps = [t for t in TCPS if t in prices]

    runs = []
    for f in sorted(os.listdir(rdir)):
        m = re.match(r"(.+)-lr([0-9.]+)-s([0-9]+)\.csv$", f)
        if not m:
            continue
        b = os.path.join(rdir, f[:-4])
        if not os.path.exists(b + ".json") and not os.path.exists(b + ".failed"):
            continue  # in progress
        runs.append(Run(b, m.group(1), m.group(2), int(m.group(3))))
    if not runs:
        die("%s: no finished runs" % rdir)
    ok = [r for r in runs if r.s]
    n = ok[0].s["workers"] if ok else None
    n_params = None
    for r in ok:
        if n_params is None:
            n_params = json.load(open(os.path.join(rdir, "%s-lr%s-s%d.json" % (r.name, r.lr, r.seed))))["result"].get("params")
    n_params = n_params or 329962

    def graph_of(r):
        return "learned-s%d" % r.seed

    plat = {}

    def links(h):
        """(slowest up link, B/s; the longest path latency, s) of the first
        h hosts of OUT/homeN.xml (the platform of topogen platform --net
        home --seed 1: a prefix of it is the platform of fewer hosts)"""
        if h not in plat:
            x = open(os.path.join(out, "home%d.xml" % n)).read()
            ups = re.findall(r'_up" bandwidth="([0-9.]+)Bps" latency="([0-9.]+)s"', x)[:h]
            if len(ups) < h:
                die("home%d.xml: %d hosts, %d needed" % (n, len(ups), h))
            lat = sorted(float(u[1]) for u in ups)
            plat[h] = (min(float(u[0]) for u in ups), lat[-1] + lat[-2])
        return plat[h]

    def price(tcp, kind, nbytes, graph="-"):
        """SMPI seconds of one communication on N hosts; a direct
        all-reduce measured on h < N hosts is extrapolated: its two phases
        each send (P-1)/P of the array up the slowest home's link and wait
        the longest path latency, so T_N = T_h + 2 B ((N-1)/N / up_N -
        (h-1)/h / up_h) / bw_factor + 2 lat_factor (L_N - L_h), with
        smpi-run.sh's factors (CM02 1, 1; LV08 0.97, 13.01)"""
        key = (kind, nbytes, graph if kind == "gossip" else "-")
        if key not in prices[tcp]:
            die("prices-%s.tsv: no %s of %d bytes%s" % (tcp, kind, nbytes, " on " + graph if kind == "gossip" else ""))
        t, h = prices[tcp][key]
        if h != n:
            bwf, lf = (1.0, 1.0) if tcp == "cm02" else (0.97, 13.01)
            (un, ln), (uh, lh) = links(n), links(h)
            t += 2 * nbytes * ((n - 1) / n / un - (h - 1) / h / uh) / bwf + 2 * lf * (ln - lh)
        return t

    degs = {}

    def cost(r, k, tcp):
        """(simulated seconds, bytes a worker sent) of steps [0, k) of run r"""
        s = r.s
        H, S = r.H, r.S
        comp = s.get("compress") or "none"
        fam = family(r.name)
        ar = 2.0 * (n - 1) / n
        Bf = compress_bytes("none", n_params)
        if fam == "allreduce":
            return k * (tc + price(tcp, "direct", Bf)), k * ar * Bf
        # the warm-up of --local-after S: every step averages the
        # parameters (compressed under --compress) and, for the
        # all-reduce-based schedules, the momentum (the full array)
        w = min(k, S)
        if fam in ("local", "diloco"):
            B = compress_bytes(comp, n_params)
            c = local_comms(H, S, k)
            return (k * tc + c * price(tcp, "direct", B) + (w * price(tcp, "direct", Bf) if w else 0.0),
                    (c * B + w * Bf) * ar)
        if fam == "streaming":
            fp, ft = [int(x) for x in (str(s["fragments"]) + ":0").split(":")[:2]]
            B = compress_bytes(comp, (n_params + fp - 1) // fp)
            Bw = compress_bytes(comp, n_params)
            c = frag_syncs(H, fp, k, S)
            t = k * tc + c * max(0.0, price(tcp, "direct", B) - ft * tc)
            if w:
                t += w * (price(tcp, "direct", Bw) + price(tcp, "direct", Bf))
            return t, (c * B + w * (Bw + Bf)) * ar
        g = graph_of(r)
        if g not in degs:
            degs[g] = mean_degree(os.path.join(out, "topo", g + ".txt"), n)
        B = compress_bytes(comp, n_params)
        c = local_comms(H, S, k)
        return k * tc + c * price(tcp, "gossip", B, g), c * degs[g] * B

    # consistency: the schedule priced is the one the trainer ran
    for r in ok:
        c = r.comms
        k = r.steps
        H, S = r.H, r.S
        w = min(k, S)
        fam = family(r.name)
        if fam == "allreduce":
            if c["gradient_allreduces"] != k:
                die("%s: %d gradient all-reduces, the schedule gives %d" % (r.setting, c["gradient_allreduces"], k))
        elif fam in ("d2", "choco"):
            if c["gossip_rounds"] != local_comms(H, S, k):
                die("%s: %d gossip rounds, the schedule gives %d" % (r.setting, c["gossip_rounds"], local_comms(H, S, k)))
        elif fam == "streaming":
            fp = int(str(r.s["fragments"]).split(":")[0])
            fs = frag_syncs(H, fp, k, S)
            if c["fragment_averages"] != fs or c["exact_averages"] != fs + 2 * w:
                die("%s: %d fragment averages of %d, the schedule gives %d of %d" % (
                    r.setting, c["fragment_averages"], c["exact_averages"], fs, fs + 2 * w))
        elif fam in ("local", "diloco"):
            if c["exact_averages"] + c["gradient_allreduces"] != local_comms(H, S, k) + w:
                die("%s: %s averages, the schedule gives %d" % (r.setting, c, local_comms(H, S, k) + w))

    def fmt(x):
        return "never" if x is None else "%.1f" % x if x >= 10 else "%.2f" % x

    def mean_sd(xs):
        m = sum(xs) / len(xs)
        return m, (math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else None)

    def tcol(tcp, t):
        return "%s_s_to_%d" % (tcp, round(100 * t))

    # pilot: seed 1, every setting (H, warm-up, lr) of each schedule
    by_sched = {}
    for r in runs:
        by_sched.setdefault(r.sched, {}).setdefault((r.name, r.lr), {})[r.seed] = r

    def gtime(r, k):
        """the geometric mean over the TCP settings of the time to step k"""
        return math.exp(sum(math.log(cost(r, k, tp)[0]) for tp in tcps) / len(tcps))

    def rank_key(r):
        """failed last; else the highest target reached (targets.txt in
        order), the least time to it (geometric mean of CM02 and LV08),
        the highest final accuracy"""
        if r.failed or r.final is None:
            return (len(targets) + 1, 0, 0)
        for i, t in enumerate(targets):
            k = r.step_to(t)
            if k is not None:
                return (i, gtime(r, k), -r.final)
        return (len(targets), 0, -r.final)

    # a failed run has no settings: its -SW warm-up's --warmup is the one
    # every finished run with that suffix has (one value, checked)
    warm_of = {}
    for r in ok:
        w = re.search(r"-S([0-9]+)$", r.name)
        if w:
            warm_of.setdefault(w.group(1), set()).add(r.warmup)
    for w, v in warm_of.items():
        if len(v) != 1:
            die("runs -S%s: --warmup %s: one value expected" % (w, sorted(v)))

    def warm_label(r):
        w = r.warmup
        if w is None:
            m = re.search(r"-S([0-9]+)$", r.name)
            e = re.search(r"-w([0-9.]+)$", r.name)
            w = next(iter(warm_of.get(m.group(1), {0}))) if m else float(e.group(1)) if e else 0
        return " ".join(x for x in ("S%d" % r.S if r.S else "", "w%g" % w if w else "") if x) or "none"

    chosen = {}
    P = ["| schedule | run | H | warm-up | lr | final acc (seed 1) | steps to %s | s to it (%s) | rank | seeds |" % (
        " / ".join("%d%%" % round(100 * t) for t in targets), " / ".join(t.upper() for t in tcps)),
        "| --- | --- | ---: | --- | --- | --- | --- | --- | ---: | --- |"]
    with open(os.path.join(out, "pilot.tsv"), "w") as f:
        f.write("schedule\trun\tH\twarmup\tlr\tfinal_acc\t%s\t%s\tstatus\n" % (
            "\t".join("steps_to_%d" % round(100 * t) for t in targets),
            "\t".join("%s_s_to_best_target" % tp for tp in tcps)))
        for sc in sorted(by_sched):
            s1 = [(key, d[1]) for key, d in by_sched[sc].items() if 1 in d]
            s1.sort(key=lambda x: rank_key(x[1]))
            # the confirmed setting: the best of the pilot (if it trained),
            # with the seeds it has (3 when the confirmation ran)
            conf = s1[0][0] if s1 and rank_key(s1[0][1])[0] <= len(targets) else None
            chosen[sc] = conf
            for rk, (key, r) in enumerate(s1):
                st = short_why(r.why) if r.failed else "ok"
                ks = [r.step_to(t) if not r.failed else None for t in targets]
                i = rank_key(r)[0]
                tt = [cost(r, ks[i], tp)[0] if i < len(targets) else None for tp in tcps]
                f.write("%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n" % (
                    sc, r.name, r.H, warm_label(r), r.lr, "%.4f" % r.final if r.final is not None else "-",
                    "\t".join(str(k) if k is not None else "never" for k in ks),
                    "\t".join("%.3f" % x if x is not None else "-" for x in tt), st))
                P.append("| %s | %s | %d | %s | %s | %s | %s | %s | %d | %s |" % (
                    sc, r.name, r.H, warm_label(r), r.lr,
                    ("%.2f%%" % (100 * r.final)) if r.final is not None else "failed: " + st,
                    " / ".join(str(k) if k is not None else "-" for k in ks),
                    (" / ".join(fmt(x) for x in tt) + " (to %d%%)" % round(100 * targets[i])) if i < len(targets) else "-",
                    rk + 1, ("**%d**" if len(by_sched[sc][key]) >= 3 else "%d") % len(by_sched[sc][key])))

    # the confirmed settings (seeds 1-3) of each schedule; at each target
    # the one with the least time to it (the geometric mean of its mean
    # CM02 and LV08 times) among those whose every seed reaches it, else
    # the best-ranked confirmed setting, else the pilot's best (1 seed)
    def mean_time(rs, t, tp):
        return sum(cost(r, r.step_to(t), tp)[0] for r in rs) / len(rs)

    conf_at = {}
    for t in targets:
        conf_at[t] = {}
        for sc in by_sched:
            cands = [[d[x] for x in sorted(d)] for key, d in by_sched[sc].items() if {1, 2, 3} <= set(d)]
            reach = [rs for rs in cands if all(not r.failed and r.step_to(t) is not None for r in rs)]
            if reach:
                conf_at[t][sc] = min(reach, key=lambda rs: sum(math.log(mean_time(rs, t, tp)) for tp in tcps))
            elif cands:
                conf_at[t][sc] = min(cands, key=lambda rs: rank_key(rs[0]))
            elif chosen[sc] is not None:
                d = by_sched[sc][chosen[sc]]
                conf_at[t][sc] = [d[x] for x in sorted(d)]
    conf_runs = conf_at[targets[0]]

    # per run
    with open(os.path.join(out, "per-run.tsv"), "w") as f:
        cols = ["setting", "seed", "final_acc"] + ["steps_to_%d" % round(100 * t) for t in targets]
        for t in targets:
            cols += [tcol(tcp, t) for tcp in tcps] + ["MB_to_%d" % round(100 * t)]
        f.write("\t".join(cols) + "\n")
        for r in sorted(runs, key=lambda r: (r.setting, r.seed)):
            v = [r.setting, str(r.seed), "%.4f" % r.final if r.final is not None else "failed"]
            ks = [r.step_to(t) if not r.failed else None for t in targets]
            v += [str(k) if k is not None else "never" for k in ks]
            for t, k in zip(targets, ks):
                v += ["%.3f" % cost(r, k, tcp)[0] if k is not None else "never" for tcp in tcps]
                v.append("%.2f" % (cost(r, k, tcps[0])[1] / 1e6) if k is not None else "never")
            f.write("\t".join(v) + "\n")

    # the confirmed table
    def times(name, t, tcp):
        rs = conf_runs[name]
        return [cost(r, r.step_to(t), tcp)[0] for r in rs if not r.failed and r.step_to(t) is not None]

    def all_reach(name, t):
        rs = conf_runs[name]
        return len(rs) >= 3 and all(not r.failed and r.step_to(t) is not None for r in rs)

    def best_of(fams, t, tcp):
        c = [(sum(times(nm, t, tcp)) / len(conf_runs[nm]), nm) for nm in conf_runs
             if family(nm) in fams and all_reach(nm, t)]
        return min(c) if c else None

    T = []
    T.append("# The bandwidth-bound cell at %d workers (issue 45)" % n)
    T.append("")
    T.append("Made by `scripts/experiments/bandwidth-bound.py` from runs/, the SMPI prices and compute.txt "
             "(README.md). Compute %.2f ms a step (one worker, one core). Mean ± sample sd over the seeds; "
             "k/3 where not every seed reached the target (mean of those that did). MB: what one worker sends to the "
             "target (mean). Welch: two-sided p of the times against the best all-reduce-based schedule's (3 seeds each, "
             "all reaching the target); ratio = its mean time / this one's." % (1e3 * tc))
    T.append("")
    T.append("## SMPI prices (seconds of one communication on the home platform)")
    T.append("")
    T.append("| kind | bytes | graph | hosts measured | " + " | ".join(t.upper() for t in tcps) + " | " +
             " | ".join("%s at %d hosts" % (t.upper(), n) for t in tcps) + " |")
    T.append("| --- | ---: | --- | ---: | " + " | ".join("---:" for _ in tcps * 2) + " |")
    keys = sorted(set(k for p in prices.values() for k in p), key=lambda k: (k[0], -k[1], k[2]))
    for k in keys:
        T.append("| %s | %d | %s | %s | %s | %s |" % (k[0], k[1], k[2], prices[tcps[0]].get(k, (0, "-"))[1],
                 " | ".join("%.3f" % prices[t][k][0] if k in prices[t] else "-" for t in tcps),
                 " | ".join("%.3f" % price(t, *k) if k in prices[t] else "-" for t in tcps)))
    T.append("")
    T.append("A direct all-reduce measured on fewer hosts (the 256-host all-to-all, 65,280 flows, is too slow to "
             "simulate here) is extrapolated to %d (bandwidth-bound.py, price()): slowest up link %.3f MB/s at %d hosts "
             "against %.3f MB/s at %d, longest path latency %.1f against %.1f ms." % (
                 n, links(n)[0] / 1e6, n, links(min(v[1] for p in prices.values() for v in p.values()))[0] / 1e6,
                 min(v[1] for p in prices.values() for v in p.values()), 1e3 * links(n)[1],
                 1e3 * links(min(v[1] for p in prices.values() for v in p.values()))[1]))
    T.append("")
    T.append("## Pilot (seed 1, every setting: H, warm-up, learning rate)")
    T.append("")
    T += P
    verdict = []
    for t in targets:
        conf_runs = conf_at[t]
        pc = round(100 * t)
        T.append("")
        T.append("## To %d%% (the confirmed setting of each schedule fastest to it, seeds 1-3)" % pc)
        T.append("")
        T.append("| schedule | setting | lr | final acc %% | seeds at %d%% | steps | %s | MB | %s |" % (
            pc, " | ".join("s %s" % tp.upper() for tp in tcps), " | ".join("Welch %s" % tp.upper() for tp in tcps)))
        T.append("| --- | --- | --- | --- | --- | --- | %s | --- | %s |" % (" | ".join("---" for _ in tcps), " | ".join("---" for _ in tcps)))
        bests = {tp: best_of(AR_BASED, t, tp) for tp in tcps}
        order = sorted(conf_runs, key=lambda nm: (family(nm) not in AR_BASED, nm))
        for nm in order:
            rs = conf_runs[nm]
            fin = [r.final for r in rs if r.final is not None]
            nf = sum(1 for r in rs if r.failed)
            m, sd = mean_sd(fin) if fin else (None, None)
            acc = ("%.2f%s" % (100 * m, " ± %.2f" % (100 * sd) if sd is not None else "") if fin else "-") + \
                (" (%d failed)" % nf if nf else "")
            reach = [r for r in rs if not r.failed and r.step_to(t) is not None]
            steps = [r.step_to(t) for r in reach]
            cells = []
            welch = []
            for tp in tcps:
                ts = times(nm, t, tp)
                if ts:
                    mm, ss = mean_sd(ts)
                    cells.append("%s%s%s" % (fmt(mm), " ± " + fmt(ss) if ss is not None else "",
                                             "" if len(ts) == len(rs) else " (%d/%d)" % (len(ts), len(rs))))
                else:
                    cells.append("never")
                b = bests[tp]
                if b and b[1] == nm:
                    welch.append("(best all-reduce-based)")
                elif b and all_reach(nm, t):
                    tb = times(b[1], t, tp)
                    p = stats.ttest_ind(ts, tb, equal_var=False)[1]
                    welch.append("%.2fx, p = %.2g" % (b[0] / (sum(ts) / len(ts)), p))
                else:
                    welch.append("-")
            mb = [cost(r, r.step_to(t), tcps[0])[1] / 1e6 for r in reach]
            T.append("| %s | %s | %s | %s | %d/%d | %s | %s | %s | %s |" % (
                nm, rs[0].name, rs[0].lr, acc, len(reach), len(rs),
                ("%.0f" % (sum(steps) / len(steps))) if steps else "-", " | ".join(cells),
                ("%.1f" % (sum(mb) / len(mb))) if mb else "-", " | ".join(welch)))
        T.append("")
        for tp in tcps:
            ref = best_of(REFERENCE, t, tp)
            gos = best_of(("d2", "choco"), t, tp)
            bar = bests[tp]
            line = "%s, %d%%: " % (tp.upper(), pc)
            if ref is None:
                line += "no reference schedule (local SGD, DiLoCo int8/int4, Streaming DiLoCo) reached %d%% in 3 of 3 seeds; " % pc
            else:
                line += "best reference %s %s s; " % (ref[1], fmt(ref[0]))
            if bar:
                line += "best all-reduce-based %s %s s; " % (bar[1], fmt(bar[0]))
            if gos is None:
                line += "no gossip schedule reached %d%% in 3 of 3 seeds." % pc
            else:
                line += "best gossip %s %s s" % (gos[1], fmt(gos[0]))
                if ref:
                    p = stats.ttest_ind(times(gos[1], t, tp), times(ref[1], t, tp), equal_var=False)[1]
                    line += ": %.2fx the reference's speed (goal 1.5x), Welch p = %.2g." % (ref[0] / gos[0], p)
                    if ("agree", 4, "-") in prices[tp]:  # the trainer as run: its failure agreement every 16 steps
                        ag = prices[tp][("agree", 4, "-")][0]

                        def with_agree(nm):
                            rs = conf_runs[nm]
                            return sum(cost(r, r.step_to(t), tp)[0] + r.step_to(t) // 16 * ag for r in rs) / len(rs)
                        line += " With the trainer's failure agreement every 16 steps (%s s each): %s %s s, %s %s s, %.2fx." % (
                            fmt(ag), ref[1], fmt(with_agree(ref[1])), gos[1], fmt(with_agree(gos[1])),
                            with_agree(ref[1]) / with_agree(gos[1]))
                else:
                    line += "."
            verdict.append(line)
            T.append(line)
    # the comparison at equal accuracy: the highest target that every
    # confirmed schedule compared by the goal (the reference and gossip
    # families) reaches in all its seeds
    top = []
    for t in targets:
        conf_runs = conf_at[t]
        cmp_s = [nm for nm in conf_runs if family(nm) in REFERENCE + ("d2", "choco")]
        if cmp_s and all(all_reach(nm, t) for nm in cmp_s):
            top.append(t)
    T.append("")
    T.append("Highest target every compared schedule (%s) reaches in all its seeds: %s." % (
        ", ".join(sorted(cmp_s)), "%d%%" % round(100 * max(top)) if top else "none"))
    T.append("")
    open(os.path.join(out, "table.md"), "w").write("\n".join(T) + "\n")
    print("\n".join(T))

    if not figures:
        return
    plt = pyplot("bandwidth-bound.py", "figure")
    if plt is None:
        return
    # the settings of the comparison's target (else the first)
    conf_runs = conf_at[max(top) if top else targets[0]]
    # one grey level, line style and marker per family (readable in grey)
    style = {"allreduce": ("0.0", "-", "o"), "local": ("0.45", "-", "s"), "diloco": ("0.3", "--", "^"),
             "streaming": ("0.6", "-.", "P"), "d2": ("0.15", ":", "D"), "choco": ("0.5", ":", "v")}
    fig, axes = plt.subplots(1, len(tcps), figsize=(6 * len(tcps), 4.6), sharey=True)
    axes = axes if len(tcps) > 1 else [axes]
    for ax, tp in zip(axes, tcps):
        seen = set()
        for nm in sorted(conf_runs, key=lambda x: (family(x) not in AR_BASED, x)):
            rs = [r for r in conf_runs[nm] if not r.failed]
            if not rs:
                continue
            fam = family(nm)
            grey, ls, mk = style.get(fam, ("0.4", "-", "x"))
            L = min(len(r.rows) for r in rs)
            xs = [sum(cost(r, r.rows[i][0], tp)[0] for r in rs) / len(rs) for i in range(1, L)]
            ys = [100 * sum(r.rows[i][1] for r in rs) / len(rs) for i in range(1, L)]
            lab = "%s: %s (lr %s)" % (FAMILY.get(fam, fam), rs[0].name, rs[0].lr)
            ax.plot(xs, ys, ls, color=grey, marker=mk, markevery=max(1, len(xs) // 6), ms=5,
                    lw=1.6 if fam not in seen else 1.0, label=lab)
            seen.add(fam)
        for t in targets:
            ax.axhline(100 * t, color="0.7", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_ylim(50, 90)
        ax.set_xlabel("simulated seconds (SMPI %s, home platform; log scale)" % tp.upper())
        ax.grid(True, which="both", alpha=0.3)
        ax.set_title("%d workers, CNN, dirichlet:0.1, %s" % (n, tp.upper()), fontsize=9)
    axes[0].set_ylabel("test accuracy (%, mean over the seeds)")
    axes[-1].legend(fontsize=6.5, loc="lower right")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "time-vs-acc.png"), dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""results-slow-network.py OUT: price and tabulate the runs of
scripts/experiments/results-slow-network.sh.

Reads OUT/runs/NAME-sS.{csv,json,failed}, OUT/prices/TOPO-DEPLOY.json
(topogen eval --json) and OUT/bench.txt (dpsgd-train --bench), writes
OUT/table.md (per setting: seeds, final accuracy, steps to 85% per seed,
modelled seconds to 85% per deployment), OUT/per-run.tsv (every run's
numbers), OUT/stats.md (Welch t-tests) and OUT/time-vs-acc.png.

Steps to 85%: the first evaluation whose test accuracy is at or above
0.85 (no interpolation), checked against the summary JSON's
result.steps_to_target. The communications up to that step follow the
schedule of train/core/dt_local.h (step t < S or (t - S + 1) % H == 0
communicates; communication c is an exact average when (c + 1) % K == 0),
checked against the summary's result.communications at the end of the
run. Local SGD and DiLoCo also average the momentum at each step of the
warm-up (--local-after): one more all-reduce a step, counted by the
trainer since issue 41 and added here for the runs made before. Modelled seconds = steps x t_compute + gossip rounds x the round's
price + all-reduces (gradient or exact averages) x the all-reduce's price.
A GT round sends two arrays (x and its tracker): priced from
OUT/prices/x2/ (topogen eval --params 123412, twice LeNet's floats).
"""
import json
import math
import os
import re
import sys

from scipy import stats

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from figures import pyplot  # noqa: E402 (scripts/lib is not a package)

TARGET = 0.85
MIN_SEEDS = 3  # a setting competes for "best" only with this many seeds
GRAPHS = {"random": "random 4-regular", "aware": "data-aware learned", "learned": "learned (spectral, the paper's)",
          "hosts": "host-aware learned (--groups 4)", "opexp": "one-peer exponential"}


def parse(name):
    """a setting's schedule from its name (the grammar of the .sh's flags())"""
    parts = name.split("-")
    kind = parts[0]
    if kind not in ("allreduce", "local", "diloco", "d2", "dpsgd", "gt"):
        die("unknown setting '%s'" % name)
    o = {"name": name, "kind": kind, "graph": None, "H": 1, "K": 0, "lr": 0.05, "S": None, "compress": None, "D": 0}
    rest = parts[1:]
    if kind in ("d2", "dpsgd", "gt"):
        if not rest or rest[0] not in GRAPHS:
            die("setting '%s': no graph" % name)
        o["graph"] = rest[0]
        rest = rest[1:]
    for x in rest:
        if x in ("int8", "int4"):
            o["compress"] = x
            continue
        m = re.match(r"(H|pga|lr|S|stale)([0-9.]+)$", x)
        if not m:
            die("setting '%s': unknown option '%s'" % (name, x))
        k = {"H": "H", "pga": "K", "lr": "lr", "S": "S", "stale": "D"}[m.group(1)]
        o[k] = float(m.group(2)) if k == "lr" else int(m.group(2))
    if o["S"] is None:
        o["S"] = 58 if kind in ("local", "diloco") else 0
    o["mode"] = "allreduce" if kind in ("allreduce", "local", "diloco") else "gossip"
    o["outer"] = "nesterov:0.7,0.9" if kind == "diloco" else "none"
    return o


def setting_label(name):
    o = parse(name)
    lr = "" if o["lr"] == 0.05 else ", lr %g" % o["lr"]
    if o["compress"] and o["mode"] == "gossip":  # CHOCO-SGD: its rounds priced at the compressed bytes
        lr += ", CHOCO-SGD %s" % o["compress"]
    elif o["compress"]:
        lr += ", %s (priced at full size)" % o["compress"]
    if o["D"]:
        lr += ", %d round%s in flight" % (o["D"], "" if o["D"] == 1 else "s")
    if o["kind"] == "allreduce":
        return "all-reduce every step" + lr
    if o["kind"] in ("local", "diloco"):
        what = "local SGD" if o["kind"] == "local" else "DiLoCo (local SGD + Nesterov outer 0.7, 0.9)"
        return "%s H=%d%s, %s" % (what, o["H"], lr, "after %d every-step averages" % o["S"] if o["S"] else "no warm-up")
    alg = {"d2": "D^2", "dpsgd": "D-PSGD", "gt": "GT (K-GT)"}[o["kind"]]
    t = "%s, %s" % (alg, GRAPHS[o["graph"]])
    if o["H"] > 1:
        t += ", H=%d" % o["H"]
        if o["S"]:
            t += " after %d" % o["S"]
    if o["K"]:
        t += ", global average every %d" % o["K"]
    return t + lr


def order_key(name):
    o = parse(name)
    return ({"allreduce": 0, "local": 1, "diloco": 2, "d2": 3, "dpsgd": 4, "gt": 5}[o["kind"]],
            list(GRAPHS).index(o["graph"]) if o["graph"] else 0, o["H"], o["K"], o["D"], -o["lr"], o["S"], o["compress"] or "")


def is_allreduce_based(name):
    return parse(name)["mode"] == "allreduce"


DEPLOY = ["wan", "datacenter", "sites"]
# the pricing of all-reduces per deployment: (column key, label)
VARIANTS = {"wan": [("auto", "auto"), ("best", "best")],
            "datacenter": [("auto", "auto"), ("best", "best")],
            "sites": [("auto", "auto (flat binomial)"), ("flat", "best flat"), ("best", "best, hierarchical included")]}


def die(msg):
    sys.stderr.write("results-slow-network.py: %s\n" % msg)
    sys.exit(1)


def topo_file(kind, seed):
    return "one-peer-exp" if kind == "opexp" else "%s-s%d" % (kind, seed)


def load_prices(out, sub=""):
    """prices[topo][deploy] = (round_s, allreduce auto, allreduce best);
    sub "x2": the rounds of two arrays (GT: x and its tracker)"""
    p = {}
    d = os.path.join(out, "prices", sub)
    if sub and not os.path.isdir(d):
        return p
    for f in sorted(os.listdir(d)):
        m = re.match(r"(.*)-(wan|datacenter|sites)\.json$", f)
        if not m:
            continue
        j = json.load(open(os.path.join(d, f)))
        # one worker per host: both placements give the same round; at 4
        # sites the trainer's default --placement graph (METIS) when the
        # file has one, else (time-varying) the blocks
        g = j.get("graph") or {}
        host_aware = m.group(1).startswith("hosts-")  # run with --placement block
        rnd = (g.get("round_s") if m.group(2) == "sites" and "round_s" in g and not host_aware
               else j["block"]["round_s"])
        if isinstance(rnd, list):  # time-varying: the mean round (as topogen plan)
            rnd = sum(rnd) / len(rnd)
        by = dict(j["allreduce_by_alg"])
        # the direct all-reduce (all-to-all reduce-scatter, then all-gather:
        # dpsgd-train --allreduce direct) posts its messages together, as a
        # gossip round does: both priced by the same concurrency rule
        if "allreduce_direct_s" in j:
            by["direct"] = j["allreduce_direct_s"]
        flat = min((v, k) for k, v in by.items() if k != "hierarchical")
        best = min((v, k) for k, v in by.items())
        # the latency between hosts (the net's "inter A us|ms|s"): what
        # rounds in flight overlap (--staleness, as dpsgd-train --net)
        am = re.search(r"inter ([0-9.]+) (us|ms|s)\b", j.get("net", ""))
        if not am:
            die("%s: no 'inter LATENCY' in its net '%s'" % (f, j.get("net")))
        alpha = float(am.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[am.group(2)]
        p.setdefault(m.group(1), {})[m.group(2)] = (rnd, by["binomial"], best[0],
                                                    best[1], flat[0], flat[1], alpha)
    return p


def t_compute(out):
    """one step of one worker: the bench's CPU rate (batch / cpu images/s),
    which a dedicated core gives; its wall ms/step includes the waits for
    a core of this shared machine (both are in the table's note)"""
    lines = open(os.path.join(out, "bench.txt")).read().splitlines()
    for ln in lines:
        m = re.search(r"batch ([0-9]+):.* ([0-9.]+) ms/step.* cpu ([0-9.]+) images/s", ln)
        if m and ln.startswith("bench "):
            return int(m.group(1)) / float(m.group(3)), float(m.group(2)) / 1000.0
    die("no 'batch B: ... ms/step ... cpu R images/s' in bench.txt")


def comm_counts(steps, H, S, K, mode, outer):
    """(gossip rounds, all-reduces) in steps [0, steps)."""
    if mode == "allreduce":
        if H == 1 and outer == "none":
            return 0, steps  # the gradient all-reduce, every step
    c = 0
    for t in range(steps):
        if t < S or (t - S + 1) % H == 0:
            c += 1
    exact = c // K if K > 0 else 0
    if mode == "allreduce":  # + the warm-up's momentum average, one a step
        return 0, c + min(steps, S)
    return c - exact, exact


def read_csv(path):
    rows = []
    with open(path) as f:
        head = f.readline().strip().split(",")
        ix = {k: i for i, k in enumerate(head)}
        for ln in f:
            v = ln.strip().split(",")
            if len(v) < len(head):
                continue
            rows.append((int(v[ix["step"]]), float(v[ix["test_acc"]])))
    return rows


def fmt(x, nd=None):
    """never, or nd decimals; by default 1 from 10 s, 2 from 1 s, else 4"""
    if x is None:
        return "never"
    if nd is None:
        nd = 1 if abs(x) >= 10 else 2 if abs(x) >= 1 else 4
    return "%.*f" % (nd, x)


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) == 2 else 2)
    out = sys.argv[1]
    prices = load_prices(out)
    prices2 = load_prices(out, "x2")
    # CHOCO-SGD's rounds at the compressed bytes (topogen eval --params
    # bytes / 4: prices/int8/, prices/int4/)
    pricesq = {f: load_prices(out, f) for f in ("int8", "int4")}
    tc, tc_wall = t_compute(out)
    ar_topo = "random-s1"  # the all-reduce price does not depend on the file
    if "random-s1" not in prices:
        ar_topo = sorted(prices)[0]
    runs = {}
    part = "?"
    nw = 256  # workers: read from the summaries
    names = set()
    for f in os.listdir(os.path.join(out, "runs")):
        m = re.match(r"(.*)-s([0-9]+)\.csv$", f)
        if m:
            names.add(m.group(1))
    SETTINGS = [(x, setting_label(x), parse(x)["graph"]) for x in sorted(names, key=order_key)]
    for name, _, kind in SETTINGS:
        for seed in (1, 2, 3):
            b = os.path.join(out, "runs", "%s-s%d" % (name, seed))
            if not os.path.exists(b + ".csv"):
                continue
            failed = os.path.exists(b + ".failed")
            if not failed and not os.path.exists(b + ".json"):
                continue  # stopped, not a result
            rows = read_csv(b + ".csv")
            s85 = next((st for st, a in rows if a >= TARGET), None)
            if failed:  # no summary: the schedule of the setting (the .sh)
                o = parse(name)
                H, S, K, mode, outer = o["H"], o["S"], o["K"], o["mode"], o["outer"]
                g, a = comm_counts(rows[-1][0], H, S, K, mode, outer)
                c = {"gossip_rounds": g, "exact_averages": a, "gradient_allreduces": 0}
            else:
                j = json.load(open(b + ".json"))
                s = j["settings"]
                part = s.get("partition", part)
                nw = j["result"].get("workers") or nw
                H, S, K = s["average_every"], s["local_after"], s["global_every"]
                mode, outer = s["mode"], s["outer"]
                if j["result"]["steps_to_target"]["0.85"] != s85:
                    die("%s: steps to 85%% %s in the CSV, %s in the summary" %
                        (b, s85, j["result"]["steps_to_target"]["0.85"]))
                steps = j["result"]["steps"]
                g, a = comm_counts(steps, H, S, K, mode, outer)
                c = dict(j["result"]["communications"])
                warm = min(steps, S) if mode == "allreduce" and (H > 1 or outer != "none") else 0
                got = (c["gossip_rounds"], c["exact_averages"] + c["gradient_allreduces"])
                if warm and got == (g, a - warm):  # a run of the trainer before issue 41, which
                    c["exact_averages"] += warm    # did not count the momentum average it sent
                    got = (g, a)
                if (g, a) != got:
                    die("%s: schedule gives %d rounds, %d all-reduces; the summary %s" % (b, g, a, c))
            topo = topo_file(kind, seed) if kind else ar_topo
            r = {"seed": seed, "final": rows[-1][1], "failed": failed, "s85": s85, "rows": rows,
                 "comm": c, "topo": topo if kind else "-", "H": H, "S": S, "K": K}

            o = parse(name)
            two = o["kind"] == "gt"  # two arrays a round
            if two and topo not in prices2:
                die("%s: a GT run without prices/x2/%s-*.json (run the .sh with TABLE_ONLY=1)" % (b, topo))
            if not failed and ((s.get("staleness") or 0) != o["D"] or
                               (s.get("compress") or "none") != (o["compress"] or "none")):
                die("%s: the summary's staleness %s, compress %s are not the name's" % (b, s.get("staleness"), s.get("compress")))
            # CHOCO-SGD (compressed gossip): its rounds at the compressed bytes
            rp = prices2 if two else pricesq[o["compress"]] if kind and o["compress"] else prices
            if kind and topo not in rp:
                die("%s: no prices/%s/%s-*.json (run the .sh with TABLE_ONLY=1)" % (b, o["compress"], topo))

            def price(step, dep, var, kind=kind, topo=topo, H=H, S=S, K=K, mode=mode, outer=outer, rp=rp, D=o["D"]):
                g, a = comm_counts(step, H, S, K, mode, outer)
                rnd = rp[topo][dep][0] if kind else 0.0
                if D:  # D + 1 rounds in flight overlap their latencies, not their bytes (dpsgd-train --net)
                    rnd = max(rnd / (D + 1), rnd - rp[topo][dep][6])
                arp = prices[ar_topo][dep][{"auto": 1, "best": 2, "flat": 4}[var]]
                return step * tc + g * rnd + a * arp
            r["price"] = price
            r["t85"] = {(d, v): (price(s85, d, v) if s85 is not None else None)
                        for d in DEPLOY for v, _ in VARIANTS[d]}
            runs.setdefault(name, []).append(r)

    def mean_sd(xs):
        m = sum(xs) / len(xs)
        sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else None
        return m, sd

    # per-run TSV
    with open(os.path.join(out, "per-run.tsv"), "w") as f:
        cols = ["%s_%s_s" % (d, v) for d in DEPLOY for v, _ in VARIANTS[d]]
        f.write("setting\tseed\ttopology\tfinal_acc\tsteps_to_85\tgossip_rounds\tallreduces\t" + "\t".join(cols) + "\n")
        for name, _, _ in SETTINGS:
            for r in runs.get(name, []):
                c = r["comm"]
                f.write("%s\t%d\t%s\t%.4f\t%s\t%d\t%d\t%s\n" % (
                    name, r["seed"], r["topo"], r["final"], r["s85"] if r["s85"] is not None else "never",
                    c["gossip_rounds"], c["exact_averages"] + c["gradient_allreduces"],
                    "\t".join(fmt(r["t85"][(d, v)], 5) for d in DEPLOY for v, _ in VARIANTS[d])))

    # the table
    pr = prices[ar_topo]
    lines = []
    lines.append("Modelled seconds to 85%%: steps x %.6g s of compute (%s) + gossip rounds x the round (GT: two arrays, prices/x2/; CHOCO-SGD: the compressed bytes, prices/int8/; "
                 "S rounds in flight (--staleness S): max(round / (S + 1), round - the latency between hosts), as dpsgd-train --net prices them, "
                 "though the trainer's stale exchange blocks) + all-reduces x the all-reduce, "
                 "mean over the seeds that reached 85%% (k/n when not all did). Prices (`topogen eval FILE --json`, OUT/prices/): "
                 "WAN, one worker per host (%d hosts): all-reduce auto %.4f s (binomial), best %.4f s (%s); "
                 "datacenter, %d hosts: auto %.6f s, best %.6f s (%s); "
                 "4 sites x %d (`--net 'intra=25us,3GB/s;inter=50ms,12.5MB/s' --ranks %d --hosts 4`): auto %.4f s (flat binomial), best flat %.4f s (%s), best with hierarchical %.4f s. Every algorithm named runs in dpsgd-train (`--allreduce ALG`; direct: all-to-all then all-gather, messages posted together as a gossip round's are). "
                 "Gossip rounds per file and deployment: per-run prices in prices/; at 4 sites the graph placement (METIS, dpsgd-train's default)."
                 % (tc, "bench.txt: batch 4 / the CPU rate of `dpsgd-train --bench --batch 4`; its wall time, %.6g s per step, includes waiting for a core of this loaded machine" % tc_wall, nw, pr["wan"][1], pr["wan"][2], pr["wan"][3],
                    nw, pr["datacenter"][1], pr["datacenter"][2], pr["datacenter"][3], nw // 4, nw, pr["sites"][1], pr["sites"][4], pr["sites"][5], pr["sites"][2]))
    lines.append("")
    hdr = ["setting", "seeds", "final acc (mean ± std)", "steps to 85% (per seed)"]
    for d in DEPLOY:
        for v, vl in VARIANTS[d]:
            hdr.append({"wan": "WAN", "datacenter": "datacenter", "sites": "4 sites"}[d] + " s to 85%, " + vl)
    lines.append("| " + " | ".join(hdr) + " |")
    lines.append("|" + " --- |" * len(hdr))
    summary = {}
    for name, label, _ in SETTINGS:
        rs = sorted(runs.get(name, []), key=lambda r: r["seed"])
        if not rs:
            continue
        n = len(rs)
        m, sd = mean_sd([r["final"] for r in rs])
        acc = "%.2f%%" % (100 * m) + (" ± %.2f" % (100 * sd) if sd is not None else " (1 seed)")
        div = [r for r in rs if r["failed"]]
        if div:  # the step it stopped at: the .failed marker (NaN, loss or consensus explosion)
            at = []
            for r in div:
                t = open(os.path.join(out, "runs", "%s-s%d.failed" % (name, r["seed"]))).read()
                mm = re.search(r"\(step ([0-9]+)\)", t)
                at.append("seed %d at step %s" % (r["seed"], mm.group(1) if mm else "?"))
            ok = ", ".join("seed %d %.2f%%" % (r["seed"], 100 * r["final"]) for r in rs if not r["failed"])
            acc = ("diverged (%s)" % ", ".join(at) if len(div) == n else
                   ok + "; diverged: " + ", ".join(at))
        reached = [r for r in rs if r["s85"] is not None]
        st = ", ".join(str(r["s85"]) if r["s85"] is not None else "never" for r in rs)
        if len(reached) < n:
            st += " (%d/%d)" % (len(reached), n)
        row = ["%s: %s" % (name, label), "%s%s" % (" ".join(str(r["seed"]) for r in rs), " (1 seed)" if n == 1 else ""), acc, st]
        summary[name] = {"n": n, "acc": (m, sd), "reached": len(reached), "t85": {}}
        for d in DEPLOY:
            for v, _ in VARIANTS[d]:
                ts = [r["t85"][(d, v)] for r in reached]
                if not ts:
                    row.append("never")
                    continue
                tm, tsd = mean_sd(ts)
                summary[name]["t85"][(d, v)] = (tm, tsd, ts)
                cell = fmt(tm) + (" ± " + fmt(tsd, 1 if abs(tm) >= 10 else 2 if abs(tm) >= 1 else 4) if tsd is not None else "")
                if len(reached) < n:
                    cell += " (%d/%d)" % (len(reached), n)
                elif n == 1:
                    cell += " (1 seed)"
                row.append(cell)
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("Std: the sample standard deviation over the seeds. Full precision per run: per-run.tsv.")
    open(os.path.join(out, "table.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))

    # Welch t-tests
    ar_based = [x for x, _, _ in SETTINGS if is_allreduce_based(x)]
    gossip = [x for x, _, _ in SETTINGS if not is_allreduce_based(x)]

    def best_of(names, key):
        """the fastest setting to 85% among those run on MIN_SEEDS seeds
        or more that reached it on every seed (1-seed pilots do not compete)"""
        c = [(summary[x]["t85"][key][0], x) for x in names
             if x in summary and key in summary[x]["t85"] and summary[x]["reached"] == summary[x]["n"]
             and summary[x]["n"] >= MIN_SEEDS]
        return min(c)[1] if c else None

    def welch(a, b, what):
        if len(a) < 2 or len(b) < 2:
            return "n/a (fewer than 2 seeds: %d, %d)" % (len(a), len(b))
        t, p = stats.ttest_ind(a, b, equal_var=False)
        return "t = %.2f, p = %.3g (n = %d, %d)" % (t, p, len(a), len(b))

    sl = ["Welch t-tests (scipy.stats.ttest_ind, equal_var=False) over the seeds; time to 85% of the seeds that reached it "
          "(modelled seconds, the deployment's all-reduce pricing named), final accuracy of every seed.", ""]
    sl.append("| deployment, pricing | best gossip | best all-reduce-based | time to 85%: gossip / all-reduce (s) | all-reduce / gossip | Welch, time | final acc gossip / all-reduce | Welch, final acc |")
    sl.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for d in DEPLOY:
        for v, vl in VARIANTS[d]:
            key = (d, v)
            bg, ba = best_of(gossip, key), best_of(ar_based, key)
            if not bg or not ba:
                continue
            tg, ta = summary[bg]["t85"][key], summary[ba]["t85"][key]
            fg = [r["final"] for r in runs[bg]]
            fa = [r["final"] for r in runs[ba]]
            sl.append("| %s, %s | %s | %s | %s / %s | %.2fx | %s | %.2f%% / %.2f%% | %s |" % (
                d, vl, bg, ba, fmt(tg[0]), fmt(ta[0]), ta[0] / tg[0], welch(tg[2], ta[2], "t"),
                100 * sum(fg) / len(fg), 100 * sum(fa) / len(fa), welch(fg, fa, "acc")))
    sl.append("")
    def variant(name, **kw):
        """name with some options replaced (None removes one)"""
        o = parse(name)
        o.update(kw)
        parts = [o["kind"]] + ([o["graph"]] if o["graph"] else [])
        if o["kind"] == "allreduce" or o["H"] > 1:
            parts.append("H%d" % o["H"])
        if o["K"]:
            parts.append("pga%d" % o["K"])
        if o["lr"] != 0.05:
            parts.append("lr%g" % o["lr"])
        if o["S"] != (58 if o["kind"] in ("local", "diloco") else 0):
            parts.append("S%d" % o["S"])
        if o["compress"]:
            parts.append(o["compress"])
        if o["D"]:
            parts.append("stale%d" % o["D"])
        return "-".join(parts)

    pairs = []
    for x in [n for n, _, _ in SETTINGS]:
        o = parse(x)
        if o["mode"] == "gossip":
            if o["graph"] != "random":
                pairs.append(("%s graph vs random regular (same algorithm, H, lr)" % GRAPHS[o["graph"]], x,
                              variant(x, graph="random")))
            if o["H"] > 1:
                pairs.append(("H=%d vs every step (same graph)" % o["H"], x, variant(x, H=1, S=0)))
            if o["K"]:
                pairs.append(("global average every %d vs none" % o["K"], x, variant(x, K=0)))
            if o["compress"]:
                pairs.append(("CHOCO-SGD %s vs uncompressed D-PSGD (same graph, H, lr)" % o["compress"], x,
                              variant(x, compress=None)))
                pairs.append(("CHOCO-SGD %s vs D^2 (same graph, H, lr)" % o["compress"], x,
                              variant(x, compress=None, kind="d2")))
            if o["D"]:
                pairs.append(("%d round%s in flight vs none (same graph, H, lr)" % (o["D"], "" if o["D"] == 1 else "s"), x,
                              variant(x, D=0)))
            if o["kind"] in ("dpsgd", "gt") and not o["compress"]:
                pairs.append(("%s vs D^2 (same graph, H, lr)" % {"dpsgd": "D-PSGD", "gt": "GT"}[o["kind"]], x,
                              variant(x, kind="d2")))
        elif o["kind"] == "local":
            pairs.append(("local SGD H=%d lr %g vs all-reduce every step" % (o["H"], o["lr"]), x, "allreduce-H1"))
        elif o["kind"] == "diloco" and o["compress"]:
            pairs.append(("DiLoCo %s vs uncompressed (same H, lr)" % o["compress"], x, variant(x, compress=None)))
        elif o["kind"] == "diloco":
            pairs.append(("DiLoCo outer step vs plain local SGD (same H, lr)", x, variant(x, kind="local")))
    for key, klab in ((("wan", "best"), "WAN, all-reduce at its cheapest algorithm"),
                      (("sites", "flat"), "4 sites x %d, all-reduce at its cheapest flat algorithm (Open MPI 4.1.4 also ships a hierarchical one, coll/han, for the blocking call: `--allreduce han`)" % (nw // 4))):
      sl.append("")
      sl.append("Levers, pairwise (%s; a setting's own seeds):" % klab)
      sl.append("")
      sl.append("| lever | A | B | time to 85% A / B (s) | Welch, time | final acc A / B | Welch, final acc |")
      sl.append("| --- | --- | --- | --- | --- | --- | --- |")
      bg, ba = best_of(gossip, key), best_of(ar_based, key)
      best = [("the best gossip vs the best all-reduce-based schedule", bg, ba)] if bg and ba else []
      for lab, a, b in pairs + best:
          if a not in summary or b not in summary:
              continue
          ta = summary[a]["t85"].get(key)
          tb = summary[b]["t85"].get(key)
          fa = [r["final"] for r in runs[a]]
          fb = [r["final"] for r in runs[b]]
          if any(r["failed"] for r in runs[a] + runs[b]):
              sl.append("| %s | %s | %s | %s / %s | n/a | %s / %s | n/a |" % (
                  lab, a, b, *["diverged" if any(r["failed"] for r in runs[x]) else
                               fmt(summary[x]["t85"][key][0]) if key in summary[x]["t85"] else "never" for x in (a, b)],
                  *["diverged" if any(r["failed"] for r in runs[x]) else
                    "%.2f%%" % (100 * sum(r["final"] for r in runs[x]) / len(runs[x])) for x in (a, b)]))
              continue
          tcell = "%s / %s" % (fmt(ta[0] if ta else None) + ("" if not ta or summary[a]["reached"] == summary[a]["n"] else " (%d/%d)" % (summary[a]["reached"], summary[a]["n"])),
                               fmt(tb[0] if tb else None) + ("" if not tb or summary[b]["reached"] == summary[b]["n"] else " (%d/%d)" % (summary[b]["reached"], summary[b]["n"])))
          wt = welch(ta[2], tb[2], "t") if ta and tb else "n/a"
          sl.append("| %s | %s | %s | %s | %s | %.2f%% / %.2f%% | %s |" % (
              lab, a, b, tcell, wt, 100 * sum(fa) / len(fa), 100 * sum(fb) / len(fb), welch(fa, fb, "acc")))
    open(os.path.join(out, "stats.md"), "w").write("\n".join(sl) + "\n")
    print("\n".join(sl))

    # the figure: modelled WAN seconds (best all-reduce) against test accuracy
    plt = pyplot("results-slow-network.py", "figure")
    if plt is None:
        return
    # the main schedules: every setting with MIN_SEEDS seeds, and of the
    # all-reduce-based families run with fewer (local SGD, DiLoCo) the best
    # one (the fastest to 85%, else the highest final accuracy), so that
    # the lines stay few enough to tell apart (at most 10 colours)
    def fam(x):
        o = parse(x)
        return (o["kind"], o["graph"])
    shown, fams = [], set()
    for x, _, _ in SETTINGS:
        if x in summary and summary[x]["n"] >= MIN_SEEDS:
            shown.append(x)
            fams.add(fam(x))
    for x, _, _ in SETTINGS:
        if x in summary and fam(x) not in fams and is_allreduce_based(x):
            cands = [(summary[y]["t85"][("wan", "best")][0] if ("wan", "best") in summary[y]["t85"] else 1e9,
                      -summary[y]["acc"][0], y)
                     for y, _, _ in SETTINGS if y in summary and fam(y) == fam(x)
                     and not any(r["failed"] for r in runs[y])]
            if cands:
                shown.append(min(cands)[2])
            fams.add(fam(x))
    shown = sorted(set(shown), key=order_key)
    cmap = plt.get_cmap("tab10")
    panels = [("wan", "best", "WAN, one worker per host (all-reduce: its cheapest algorithm, direct included)"),
              ("sites", "best", "4 sites x %d workers (all-reduce: its cheapest algorithm, hierarchical included)" % (nw // 4))]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.6), sharey=True)
    for ax, (dep, var, title) in zip(axes, panels):
        for k, name in enumerate(shown):
            rs = runs.get(name, [])
            L = min(len(r["rows"]) for r in rs)
            xs = [sum(r["price"](r["rows"][i][0], dep, var) for r in rs) / len(rs) for i in range(1, L)]
            ys = [100 * sum(r["rows"][i][1] for r in rs) / len(rs) for i in range(1, L)]
            nf = sum(1 for r in rs if r["failed"])
            ax.plot(xs, ys, "-" if is_allreduce_based(name) else "--", color=cmap(k % 10), lw=1.8,
                    label="%s (%d seed%s%s)" % (setting_label(name), len(rs), "" if len(rs) == 1 else "s",
                                                ", diverged" if nf == len(rs) else
                                                ", %d diverged" % nf if nf else ""))
        ax.axhline(100 * TARGET, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_ylim(70, 90)
        ax.set_xlabel("modelled wall clock (s, log scale)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("test accuracy (%, mean over seeds)")
    h, lab = axes[0].get_legend_handles_labels()
    fig.legend(h, lab, fontsize=7.5, loc="lower center", ncol=2, frameon=False)
    fig.suptitle("%d workers, Fashion-MNIST LeNet, %s: modelled time against accuracy (solid: all-reduce based; dashed: gossip)"
                 % (nw, part), fontsize=11)
    fig.tight_layout(rect=(0, 0.03 + 0.028 * ((len(shown) + 1) // 2), 1, 1))
    fig.savefig(os.path.join(out, "time-vs-acc.png"), dpi=110)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""measure-correlation.py: which topology measure predicts our training?

    scripts/reports/measure-correlation.py [--gamma 0.5,0.9,0.951,0.99] [--epoch E]
                                   [--md OUT.md] SWEEP_DIR...

For every sweep directory (scripts/experiments/sweep.sh layout: runs/*.csv,
runs/*.settings, topo/*.txt) and every (workers, partition) cell, it
computes each decentralized topology's measures from its topology file
(independently of topogen, with numpy):

  slem        max |mu_k|, k >= 2, of W (period product norm^(1/period)
              for a time-varying file: the per-round contraction)
  neff(g)     effective number of neighbours (Vogels et al. 2022) of the
              walk x <- W_t (sqrt(g) x + xi): 1 / ((1 - g) mean_i Cov_ii)
              of its stationary covariance after the averaging step,
              Cov <- W_t (g Cov + I) W_t^T iterated to its periodic
              fixed point and averaged over the phases (for a static
              symmetric W this is n / ((1-g) sum_k mu_k^2/(1 - g mu_k^2)))
  neff/msg    neff(g) divided by the mean models a node sends per round
  H           the neighbourhood heterogeneity (1/n)||(W - J) Pi||_F^2 of
              the cell's label mix (topogen eval --labels, with the counts
              file nN-PART-s1.counts of the folder's topo/, when there is
              one; averaged over the rounds of a sequence; none for
              epidemic files)

and the measured test accuracy (%) of the average model, mean over the
seeds present, at a fixed step (--epoch, default 3, and the last epoch)
(finished runs only: as many epochs as their settings) and at a fixed byte budget per worker (the smallest total any topology of
the cell sends, interpolated per topology along its epochs). It prints,
per cell, the table and Spearman's rank correlation of each measure with
each accuracy (sign convention: + means "larger measure, higher
accuracy"; SLEM and H are expected negative, neff positive). --md writes
the same as Markdown; --plot DIR draws, per cell, the scatter of SLEM,
n_eff at the first gamma and H against the final accuracy with the rank
correlation in each panel's title (DIR/measures-nN-PART.png and .svg,
gnuplot; the points in DIR/measures-nN-PART.dat).
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys

import numpy as np
from scipy.stats import spearmanr


def die(msg):
    print("measure-correlation: " + msg, file=sys.stderr)
    sys.exit(1)


def read_settings(path):
    """A .settings file as data: KEY="VALUE" lines, never executed."""
    out = {}
    with open(path) as f:
        for ln in f:
            ln = ln.strip()
            if not ln or ln.startswith("#") or "=" not in ln:
                continue
            k, v = ln.split("=", 1)
            out[k] = v.strip().strip('"')
    return out


def topo_of(d, st):
    """A run's topology file: the sweep's nN-kind-weights.txt in d/topo, or
    the per-partition file its record names (data-aware kinds), found in
    d/topo when the record's path is gone (a moved or committed folder)."""
    kind, w = st["SETTING"].split(":")
    topo = os.path.join(d, "topo", "n%s-%s-%s.txt" % (
        st["WORKERS"], kind.replace("-", "_"), w))
    if st.get("TOPOLOGY"):  # data-aware: learned per partition
        for cand in (st["TOPOLOGY"], os.path.join(
                d, "topo", os.path.basename(st["TOPOLOGY"]))):
            if os.path.exists(cand):
                return cand
    return topo


def read_rounds(path):
    """The weight matrices of a topology file (one per round), node order."""
    n = None
    rounds = [[]]
    with open(path) as f:
        for ln in f:
            s = ln.strip()
            if s.startswith("#"):
                for tok in s[1:].split():
                    if tok.startswith("n=") and n is None:
                        n = int(tok[2:])
                if s.startswith("# round ") and rounds[-1]:
                    rounds.append([])
                continue
            if not s:
                continue
            i, j, w = s.split()[:3]
            rounds[-1].append((int(i), int(j), float(w)))
    if n is None:
        die("%s: no n= in the header" % path)
    mats = []
    for edges in rounds:
        W = np.zeros((n, n))
        for i, j, w in edges:
            if i == j:
                continue
            W[i, j] = w
            W[j, i] = w
        W[np.diag_indices(n)] = 1.0 - W.sum(axis=1)
        mats.append(W)
    return mats


def header_tokens(path):
    toks = set()
    with open(path) as f:
        for ln in f:
            if not ln.startswith("#"):
                break
            toks.update(ln[1:].split())
    return toks


def measures_topogen(topogen, path, gammas):
    """Directed and epidemic files: topogen eval's n_eff (Lyapunov series,
    or a Monte Carlo of the trainer's draws) and ||W - J||_2 as "slem"."""
    out = subprocess.run([topogen, "eval", path, "--json", "-q", "--gamma",
                          ",".join("%g" % g for g in gammas)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        die("%s: topogen eval failed: %s" % (path, out.stderr.strip()))
    j = json.loads(out.stdout)
    nf, pm = j["neff"], j["neff_per_message"]
    if len(gammas) == 1:
        nf, pm = {"%g" % gammas[0]: nf}, {"%g" % gammas[0]: pm}
    neff = {g: nf["%g" % g] for g in gammas}
    msgs = neff[gammas[0]] / pm["%g" % gammas[0]]
    return float(j.get("slem", float("nan"))), msgs, neff


def hetero(topogen, path, counts):
    """H of a topology file on a counts file (topogen eval --labels; the
    caller gives nan for an epidemic file, which eval refuses --labels)."""
    if not counts:
        return float("nan")
    out = subprocess.run([topogen, "eval", path, "--json", "-q", "--labels",
                          counts], capture_output=True, text=True)
    if out.returncode != 0:
        die("%s: topogen eval --labels %s failed: %s"
            % (path, counts, out.stderr.strip()))
    h = json.loads(out.stdout).get("heterogeneity", {}).get("h")
    return float(h) if h is not None else float("nan")


def scatter(plotdir, n, part, rows, ep, corr, g):
    """gnuplot scatter of SLEM, neff and H against the final accuracy."""
    tag = "n%d-%s" % (n, part.replace(":", "-").replace(" + ", "-"))
    dat = os.path.join(plotdir, "measures-%s.dat" % tag)
    with open(dat + ".tmp", "w") as f:
        f.write("# setting slem neff h acc_last msgs\n")
        for r in rows:
            f.write("%s %s %s %s %.4f %.2f\n" % (
                r["setting"], *("%.6g" % x if math.isfinite(x) else "NaN"
                                for x in (r["slem"], r["neff0"], r["h"])),
                r["acc_last"], r["msgs"]))
    os.replace(dat + ".tmp", dat)
    panels = [(2, "SLEM"), (3, "neff(%g)" % g), (4, "H")]
    for term, ext in (("pngcairo size 1500,480", "png"),
                      ("svg size 1500,480", "svg")):
        out = os.path.join(plotdir, "measures-%s.%s" % (tag, ext))
        gp = ["set terminal %s" % term, "set output '%s.tmp'" % out,
              "set multiplot layout 1,3 title '%d workers, %s: measure "
              "against the accuracy after epoch %d (each point a "
              "topology; rho = Spearman)'" % (n, part, ep),
              "set termoption noenhanced",
              "set ylabel 'test accuracy (%)'", "set key off", "set grid",
              "set datafile missing 'NaN'"]
        for col, name in panels:
            key = {2: "slem", 3: "neff0", 4: "h"}[col]
            if not any(math.isfinite(r[key]) for r in rows):
                # nothing to draw (H without a counts file): say so
                gp += ["set xlabel '%s'" % name, "set title '%s: -'" % name,
                       "set xrange [0:1]", "set yrange [0:1]",
                       "set label 1 'no %s for these files' at graph 0.5,0.5 "
                       "center" % name, "plot 2 notitle", "unset label 1",
                       "set autoscale x", "set autoscale y"]
                continue
            gp += ["set xlabel '%s'" % name,
                   "set title '%s: rho %s'" % (name, corr.get(name, "-")),
                   "plot '%s' using %d:5 with points pt 7 ps 1.2, "
                   "'' using %d:5:1 with labels font ',7' offset 0,0.7"
                   % (dat, col, col)]
        gp.append("unset multiplot")
        res = subprocess.run(["gnuplot"], input="\n".join(gp) + "\n",
                             capture_output=True, text=True)
        if res.returncode != 0:
            die("gnuplot failed on %s: %s" % (dat, res.stderr.strip()))
        os.replace(out + ".tmp", out)


def measures(mats, gammas):
    n = mats[0].shape[0]
    period = len(mats)
    J = np.full((n, n), 1.0 / n)
    if period == 1:
        mu = np.linalg.eigvalsh(mats[0])
        mu = np.sort(np.abs(mu))[::-1]
        slem = float(mu[1])
    else:
        P = np.eye(n)
        for W in mats:
            P = W @ P
        norm = np.linalg.norm(P - J, 2)
        slem = float(norm ** (1.0 / period)) if norm > 1e-300 else 0.0
    msgs = float(np.mean([np.count_nonzero(W - np.diag(np.diag(W))) / n
                          for W in mats]))
    neff = {}
    for g in gammas:
        if period == 1:
            mu = np.linalg.eigvalsh(mats[0])
            s = np.sum(mu ** 2 / (1.0 - g * mu ** 2))
            neff[g] = n / ((1.0 - g) * s)
            continue
        C = np.zeros((n, n))
        for _ in range(100000):
            C0 = C.copy()
            for W in mats:
                C = W @ (g * C + np.eye(n)) @ W.T
            if np.max(np.abs(C - C0)) < 1e-12 * max(1.0, np.max(np.abs(C))):
                break
        diag = []
        for W in mats:  # the phases: Cov after each round of the period
            C = W @ (g * C + np.eye(n)) @ W.T
            diag.append(np.mean(np.diag(C)))
        neff[g] = 1.0 / ((1.0 - g) * float(np.mean(diag)))
    return slem, msgs, neff


def read_csv(path):
    rows = []
    with open(path) as f:
        head = f.readline().strip().split(",")
        for ln in f:
            v = ln.strip().split(",")
            rows.append(dict(zip(head, v)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gamma", default="0.5,0.9,0.951,0.99")
    ap.add_argument("--epoch", type=int, default=3)
    ap.add_argument("--md")
    ap.add_argument("--plot", metavar="DIR",
                    help="draw each cell's measure/accuracy scatter into DIR")
    ap.add_argument("--topogen", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "bin", "topogen"),
        help="topogen for directed and epidemic files (default: bin/)")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    try:
        gammas = [float(x) for x in a.gamma.split(",")]
    except ValueError:
        print("measure-correlation: --gamma: not a list of numbers: "
              + a.gamma, file=sys.stderr)
        sys.exit(2)
    if any(not 0 <= g < 1 for g in gammas):
        print("measure-correlation: --gamma: each in [0, 1)", file=sys.stderr)
        sys.exit(2)
    cells = {}
    seen = set()
    for d in a.dirs:
        if not os.path.isdir(os.path.join(d, "runs")):
            die("%s: no runs/ folder (not a sweep directory)" % d)
        for sp in sorted(glob.glob(os.path.join(d, "runs", "*.settings"))):
            st = read_settings(sp)
            csv = sp[:-len(".settings")] + ".csv"
            setting = st.get("SETTING", "")
            if setting.startswith("allreduce") or not os.path.exists(csv):
                continue
            algo = "d2" if "--algorithm d2" in st.get("TRAIN_ARGS", "") else ""
            topo = topo_of(d, st)
            run = read_csv(csv)
            if not run or run[-1]["epoch"] != st.get("EPOCHS"):
                continue  # not finished: fewer epochs than its settings
            if not os.path.exists(topo):
                die("%s: topology file %s missing" % (sp, topo))
            key = (int(st["WORKERS"]), st["PARTITION"] + (" + " + algo if algo else ""))
            counts = os.path.join(d, "topo", "n%s-%s-s1.counts" % (
                st["WORKERS"], st["PARTITION"].replace(":", "-")))
            cells.setdefault(key, {}).setdefault(setting, {
                "topo": topo, "runs": [],
                "counts": counts if os.path.exists(counts) else None})
            if st.get("NAME") in seen:
                continue  # the same run copied into another sweep folder
            seen.add(st.get("NAME"))
            cells[key][setting]["runs"].append(run)
    out = []
    for key in sorted(cells):
        n, part = key
        rows = []
        for setting, c in sorted(cells[key].items()):
            if not c["runs"]:
                continue
            toks = header_tokens(c["topo"])
            if "directed=1" in toks or "kind=epidemic" in toks:
                slem, msgs, neff = measures_topogen(a.topogen, c["topo"],
                                                    gammas)
            else:
                slem, msgs, neff = measures(read_rounds(c["topo"]), gammas)
            rows.append(dict(setting=setting, slem=slem, msgs=msgs,
                             neff=neff, runs=c["runs"], neff0=neff[gammas[0]],
                             h=(float("nan") if "kind=epidemic" in toks
                                else hetero(a.topogen, c["topo"],
                                            c["counts"]))))
        if len(rows) < 3:
            continue
        # byte budget: the least models-per-node any topology sends in total
        last = min(int(float(r["runs"][0][-1]["epoch"])) for r in rows)
        ep = min(a.epoch, last)
        budget = min(r["msgs"] * int(r["runs"][0][-1]["step"]) for r in rows)
        for r in rows:
            def acc_at(run, epoch):
                for row in run:
                    if float(row["epoch"]) == epoch:  # rows every quarter epoch too
                        return 100.0 * float(row["test_acc"])
                return float("nan")

            def acc_bytes(run):
                xs = [r["msgs"] * int(row["step"]) for row in run]
                ys = [100.0 * float(row["test_acc"]) for row in run]
                return float(np.interp(budget, xs, ys))
            r["acc_ep"] = np.mean([acc_at(x, ep) for x in r["runs"]])
            r["acc_last"] = np.mean([acc_at(x, last) for x in r["runs"]])
            r["acc_bytes"] = np.mean([acc_bytes(x) for x in r["runs"]])
            r["seeds"] = len(r["runs"])
        g0 = gammas
        out.append("### %d workers, %s (%d topologies)\n" % (n, part, len(rows)))
        hdr = ["setting", "seeds", "msgs/step", "SLEM", "H"] + \
              ["neff(%g)" % g for g in g0] + ["neff/msg(%g)" % g for g in g0] + \
              ["acc ep %d" % ep, "acc ep %d" % last, "acc at %.0f msgs" % budget]
        out.append("| " + " | ".join(hdr) + " |")
        out.append("|" + "---|" * len(hdr))
        for r in sorted(rows, key=lambda r: -r["acc_last"]):
            v = [r["setting"], str(r["seeds"]), "%.2f" % r["msgs"], ("%.4f" % r["slem"] if math.isfinite(r["slem"]) else "-"),
                 ("%.4f" % r["h"] if math.isfinite(r["h"]) else "-")] + \
                ["%.1f" % r["neff"][g] for g in g0] + \
                ["%.2f" % (r["neff"][g] / r["msgs"]) for g in g0] + \
                ["%.2f" % r["acc_ep"], "%.2f" % r["acc_last"], "%.2f" % r["acc_bytes"]]
            out.append("| " + " | ".join(v) + " |")
        out.append("")
        out.append("Spearman rank correlation with the accuracy (+: larger measure, higher accuracy):\n")
        mh = ["measure", "acc ep %d" % ep, "acc ep %d" % last, "acc at equal bytes"]
        out.append("| " + " | ".join(mh) + " |")
        out.append("|" + "---|" * len(mh))
        ms = [("SLEM", [r["slem"] for r in rows]),
              ("H", [r["h"] for r in rows])] + \
             [("neff(%g)" % g, [r["neff"][g] for r in rows]) for g in g0] + \
             [("neff/msg(%g)" % g, [r["neff"][g] / r["msgs"] for r in rows]) for g in g0] + \
             [("1/msgs (message count alone)", [1.0 / r["msgs"] for r in rows]),
              ("neff/msg(%g), 4-message graphs only" % g0[0],
               [r["neff"][g0[0]] / r["msgs"] if abs(r["msgs"] - 4.0) < 1e-9
                else float("nan") for r in rows])]
        corr = {}
        for name, xs in ms:
            cs = []
            for acc in ("acc_ep", "acc_last", "acc_bytes"):
                pairs = [(x, r[acc]) for x, r in zip(xs, rows)
                         if math.isfinite(x)]  # epidemic: no SLEM
                rho = spearmanr([p[0] for p in pairs],
                                [p[1] for p in pairs]).correlation \
                    if len(pairs) >= 3 else float("nan")
                cs.append("%+.2f" % rho if not math.isnan(rho) else "-")
            out.append("| " + " | ".join([name] + cs) + " |")
            corr[name] = cs[1]
        out.append("")
        if a.plot:
            os.makedirs(a.plot, exist_ok=True)
            scatter(a.plot, n, part, rows, last, corr, g0[0])
    text = "\n".join(out)
    print(text)
    if a.md:
        tmp = a.md + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, a.md)


if __name__ == "__main__":
    main()

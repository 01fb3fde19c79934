#!/usr/bin/python3
"""measure-correlation.py: which topology measure predicts our training?

    scripts/measure-correlation.py [--gamma 0.5,0.9,0.951,0.99] [--epoch E]
                                   [--md OUT.md] SWEEP_DIR...

For every sweep directory (scripts/sweep.sh layout: runs/*.csv,
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

and the measured test accuracy (%) of the average model, mean over the
seeds present, at a fixed step (--epoch, default 3, and the last epoch)
(finished runs only: as many epochs as their settings) and at a fixed byte budget per worker (the smallest total any topology of
the cell sends, interpolated per topology along its epochs). It prints,
per cell, the table and Spearman's rank correlation of each measure with
each accuracy (sign convention: + means "larger measure, higher
accuracy"; SLEM is expected negative, neff positive). --md writes the
same as Markdown.
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
    ap.add_argument("--topogen", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "bin", "topogen"),
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
            kind, w = setting.split(":")
            topo = os.path.join(d, "topo", "n%s-%s-%s.txt" % (
                st["WORKERS"], kind.replace("-", "_"), w))
            if st.get("TOPOLOGY"):  # data-aware: learned per partition
                for cand in (st["TOPOLOGY"], os.path.join(
                        d, "topo", os.path.basename(st["TOPOLOGY"]))):
                    if os.path.exists(cand):
                        topo = cand
                        break
            run = read_csv(csv)
            if not run or run[-1]["epoch"] != st.get("EPOCHS"):
                continue  # not finished: fewer epochs than its settings
            if not os.path.exists(topo):
                die("%s: topology file %s missing" % (sp, topo))
            key = (int(st["WORKERS"]), st["PARTITION"] + (" + " + algo if algo else ""))
            cells.setdefault(key, {}).setdefault(setting, {"topo": topo, "runs": []})
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
                             neff=neff, runs=c["runs"]))
        if len(rows) < 3:
            continue
        # byte budget: the least models-per-node any topology sends in total
        last = min(int(r["runs"][0][-1]["epoch"]) for r in rows)
        ep = min(a.epoch, last)
        budget = min(r["msgs"] * int(r["runs"][0][-1]["step"]) for r in rows)
        for r in rows:
            def acc_at(run, epoch):
                for row in run:
                    if int(row["epoch"]) == epoch:
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
        hdr = ["setting", "seeds", "msgs/step", "SLEM"] + \
              ["neff(%g)" % g for g in g0] + ["neff/msg(%g)" % g for g in g0] + \
              ["acc ep %d" % ep, "acc ep %d" % last, "acc at %.0f msgs" % budget]
        out.append("| " + " | ".join(hdr) + " |")
        out.append("|" + "---|" * len(hdr))
        for r in sorted(rows, key=lambda r: -r["acc_last"]):
            v = [r["setting"], str(r["seeds"]), "%.2f" % r["msgs"], ("%.4f" % r["slem"] if math.isfinite(r["slem"]) else "-")] + \
                ["%.1f" % r["neff"][g] for g in g0] + \
                ["%.2f" % (r["neff"][g] / r["msgs"]) for g in g0] + \
                ["%.2f" % r["acc_ep"], "%.2f" % r["acc_last"], "%.2f" % r["acc_bytes"]]
            out.append("| " + " | ".join(v) + " |")
        out.append("")
        out.append("Spearman rank correlation with the accuracy (+: larger measure, higher accuracy):\n")
        mh = ["measure", "acc ep %d" % ep, "acc ep %d" % last, "acc at equal bytes"]
        out.append("| " + " | ".join(mh) + " |")
        out.append("|" + "---|" * len(mh))
        ms = [("SLEM", [r["slem"] for r in rows])] + \
             [("neff(%g)" % g, [r["neff"][g] for r in rows]) for g in g0] + \
             [("neff/msg(%g)" % g, [r["neff"][g] / r["msgs"] for r in rows]) for g in g0]
        for name, xs in ms:
            cs = []
            for acc in ("acc_ep", "acc_last", "acc_bytes"):
                pairs = [(x, r[acc]) for x, r in zip(xs, rows)
                         if math.isfinite(x)]  # epidemic: no SLEM
                rho = spearmanr([p[0] for p in pairs],
                                [p[1] for p in pairs]).correlation
                cs.append("%+.2f" % rho if not math.isnan(rho) else "-")
            out.append("| " + " | ".join([name] + cs) + " |")
        out.append("")
    text = "\n".join(out)
    print(text)
    if a.md:
        tmp = a.md + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, a.md)


if __name__ == "__main__":
    main()

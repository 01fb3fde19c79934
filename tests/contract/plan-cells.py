#!/usr/bin/python3
"""plan-cells.py BIN [ROOT]: `topogen plan`'s first row is the fastest
measured schedule in every cell of the committed experiments (issue 42).

A cell is one per-run.tsv folder of data/results-slow-network (the main
one and its subfolders: iid/, n64/, pilot/ ...) and one deployment of its
table (wan, datacenter, 4 sites). From per-run.tsv and the runs (its own
code, not plan's): per run, the deployment's `*_best_s` column (compute
and communications, the cheapest all-reduce algorithm, as plan prices
them) plus the trainer's failure agreements up to the run's step at 85%
(train/distributed/dt_dpsgd.c: one after every 16th step, one before
each evaluation at a step <= T and one after each at a step < T, the
evaluation steps read from the run's CSV, and one per warm-up step of
local SGD / DiLoCo, its local_after read from the run's summary JSON) x
the price of one agreement (plan's `ms_per_agreement`, itself checked
against 2 ceil(lg n) latencies of the one-level presets: the binomial
all-reduce of one int); per setting the mean over seeds, among the
settings with 3 or more seeds, every one of which reached 85% (the
experiment's own rule for "best"); the fastest one. The folder's
workers, batch, partition, epochs and --eval-every come from a run's
summary JSON. Then `topogen plan --eval-every E --json` for that cell
(the default experiments) must rank a row of that setting first, with
basis "measured" and the setting's seeds. A cell where no setting reached 85% in every seed, or
with fewer than 2 such settings, is not a test and is skipped (counted);
at least 4 cells must be checked.
"""
import csv
import glob
import json
import math
import os
import subprocess
import sys

# the experiment's own rule (results-slow-network.py): a setting competes
# for the best only with 3 seeds
MIN_SEEDS = 3
# train/distributed/dt_dpsgd.c's DT_AGREE_EVERY
AGREE_EVERY = 16
# the one-level presets' latency between hosts (src/place/cm_net.c)
LATENCY = {"wan": 50e-3, "datacenter": 25e-6}
DEPLOY = {
    "wan": ["--net", "wan"],
    "datacenter": ["--net", "datacenter"],
    "sites": ["--net", "intra=25us,3GB/s;inter=50ms,12.5MB/s", "--hosts", "4"],
}


def fail(msg):
    sys.stderr.write("plan-cells: %s\n" % msg)
    sys.exit(1)


def cell_of(folder):
    """n, batch, partition, epochs, eval_every of a folder's runs (a
    summary JSON)"""
    for path in sorted(glob.glob(os.path.join(folder, "runs", "*.json"))):
        with open(path) as f:
            o = json.load(f)
        s, r = o["settings"], o["result"]
        return (r["workers"], s["batch"], s["partition"], s["epochs"],
                s.get("eval_every") or 0)
    return None


def agreements(folder, row):
    """the failure agreements of a per-run.tsv row's run up to its step at
    85% (None: never reached)"""
    if row["steps_to_85"] in ("never", ""):
        return None
    T = int(row["steps_to_85"])
    base = os.path.join(folder, "runs", "%s-s%s" % (row["setting"],
                                                     row["seed"]))
    with open(base + ".csv") as f:
        evals = [int(r["step"]) for r in csv.DictReader(f)]
    k = T // AGREE_EVERY + sum(1 for e in evals if e <= T) + \
        sum(1 for e in evals if e < T)
    with open(base + ".json") as f:
        st = json.load(f)["settings"]
    if st["mode"] == "allreduce" and (st.get("average_every") or 1) > 1:
        k += min(st.get("local_after") or 0, T)  # the warm-up's
    return k


def fastest(rows, column, agree_s):
    by = {}
    for r in rows:
        by.setdefault(r["setting"], []).append(r)
    done = []
    for name, rs in by.items():
        if len(rs) < MIN_SEEDS or \
                any(r["steps_to_85"] in ("never", "") for r in rs):
            continue
        t = sum(float(r[column]) + r["agreements"] * agree_s
                for r in rs) / len(rs)
        done.append((t, name, len(rs)))
    done.sort()
    return done


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "bin/topogen"
    root = sys.argv[2] if len(sys.argv) > 2 else "."
    base = os.path.join(root, "data", "results-slow-network")
    tables = sorted(glob.glob(os.path.join(base, "**", "per-run.tsv"),
                              recursive=True))
    if not tables:
        fail("no per-run.tsv under %s" % base)
    checked = skipped = 0
    for table in tables:
        folder = os.path.dirname(table)
        # a folder (or a parent) with .plan-skip is not read by plan
        # (smpi/: the main runs re-timed by SMPI)
        d, skip = folder, False
        while os.path.relpath(d, base) not in (".", "..") and not skip:
            skip = os.path.exists(os.path.join(d, ".plan-skip"))
            d = os.path.dirname(d)
        if skip:
            continue
        cell = cell_of(folder)
        if not cell:
            fail("%s: no summary JSON in runs/" % folder)
        n, batch, part, epochs, ev = cell
        with open(table) as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        for r in rows:
            r["agreements"] = agreements(folder, r)
        for deploy, flags in DEPLOY.items():
            column = deploy + "_best_s"
            if column not in rows[0]:
                continue
            cmd = [binary, "plan", "-n", str(n), "--partition", part,
                   "--batch", str(batch), "--epochs", str(epochs),
                   "--json"] + flags + (["--eval-every", str(ev)] if ev
                                        else [])
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode:
                fail("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                          p.stderr[:300]))
            out = json.loads(p.stdout)
            where = "%s, %s" % (os.path.relpath(folder, root), deploy)
            agree_s = out["ms_per_agreement"] / 1e3
            if deploy in LATENCY:
                want = 2 * math.ceil(math.log2(n)) * LATENCY[deploy]
                if abs(agree_s - want) > 0.01 * want:
                    fail("%s: plan prices an agreement %.4g s, not 2 "
                         "ceil(lg %d) latencies (%.4g s)"
                         % (where, agree_s, n, want))
            done = fastest(rows, column, agree_s)
            if len(done) < 2:
                skipped += 1
                continue
            t, name, seeds = done[0]
            first = out["rows"][0]
            if first["basis"] != "measured" or first["setting"] != name:
                fail("%s: plan's first row is %s (%s, %s, %.4g s); the "
                     "fastest measured is %s (%.4g s, then %s %.4g s)"
                     % (where, first["schedule"], first["basis"],
                        first["setting"], first["seconds_to_target"], name,
                        t, done[1][1], done[1][0]))
            if first["seeds"] < seeds:
                fail("%s: %s with %d seeds in plan, %d in per-run.tsv"
                     % (where, name, first["seeds"], seeds))
            # plan's time is per-run.tsv's (same model and bench) to 2%
            # when the row's runs are this folder's alone
            if first["seeds"] == seeds and \
                    abs(first["seconds_to_target"] - t) > 0.02 * t:
                fail("%s: %s: plan %.4g s, per-run.tsv %.4g s"
                     % (where, name, first["seconds_to_target"], t))
            print("plan-cells: %s: first row %s (%.4g s) = the fastest "
                  "measured" % (where, name, t))
            checked += 1
    if checked < 4:
        fail("only %d cells checked (%d skipped)" % (checked, skipped))
    print("plan-cells: %d cells checked, %d without two settings that "
          "reached 85%% in every seed" % (checked, skipped))


if __name__ == "__main__":
    main()

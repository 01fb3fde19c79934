#!/usr/bin/python3
"""plan-vs-bandwidth-bound.py BIN [ROOT]: `topogen plan` on the
bandwidth-bound cell (data/bandwidth-bound/n256: the CNN on 256 homes,
dirichlet:0.1, batch 4, 3 epochs, evaluated every 8 steps) against the
cell's SMPI prices, at 70% and 75%.

For each target, runs

  BIN plan -n 256 --platform ROOT/data/bandwidth-bound/n256/home256.xml
      --params 329962 --epochs 3 --eval-every 8 --target T
      --results ROOT/data/bandwidth-bound/n256 --json -q

and joins its measured rows (by the run name, `setting`) with the cell's
per-run.tsv (simulated seconds to the target under SMPI, CM02 and LV08,
mean over the seeds that reached it; bandwidth-bound.py sums an SMPI
price per message and compute, no failure agreement). Plan's time is
printed twice: as it ranks (with the trainer's failure agreements, each
priced by plan's network model) and without them (what the SMPI table
holds). Prints a markdown table per target and the two first rows;
exit 0 (a measurement, not a test).
"""
import csv
import json
import os
import subprocess
import sys

CELL = "data/bandwidth-bound/n256"


def plan(tg, root, target):
    cell = os.path.join(root, CELL)
    cmd = [tg, "plan", "-n", "256", "--platform", os.path.join(cell, "home256.xml"),
           "--params", "329962", "--epochs", "3", "--eval-every", "8",
           "--target", str(target), "--results", cell, "--json", "-q"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout), cmd


def smpi(root, pct):
    """setting -> (seeds, reached, CM02 mean, LV08 mean, steps mean)"""
    rows = {}
    with open(os.path.join(root, CELL, "per-run.tsv")) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            v = rows.setdefault(r["setting"], [0, [], [], []])
            v[0] += 1
            if r["cm02_s_to_%d" % pct] != "never":
                v[1].append(float(r["cm02_s_to_%d" % pct]))
                v[2].append(float(r["lv08_s_to_%d" % pct]))
                v[3].append(float(r["steps_to_%d" % pct]))
    mean = lambda xs: sum(xs) / len(xs) if xs else None
    return {k: (v[0], len(v[1]), mean(v[1]), mean(v[2]), mean(v[3])) for k, v in rows.items()}


def fmt(x):
    return "-" if x is None else "%.1f" % x if x >= 10 else "%.2f" % x


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.stdout.write(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    tg, root = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "."
    for target in (0.70, 0.75):
        pct = int(round(target * 100))
        o, cmd = plan(tg, root, target)
        sm = smpi(root, pct)
        ag = o["ms_per_agreement"] / 1e3
        print("## to %d%%\n" % pct)
        print("`%s` (agreement %.3f s each, %s all-reduce of one int)\n" %
              (" ".join(cmd[0:1] + ["plan"] + cmd[2:]).replace(root + "/", ""), ag, o["agreement_allreduce"]))
        print("| plan rank | schedule (setting) | basis | plan s | plan s, no agreements | SMPI CM02 s | plan/CM02 | SMPI LV08 s | msg bytes | plan ms/msg |")
        print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
        best = {"plan": None, "noag": None, "cm02": None, "lv08": None}
        for r in o["rows"]:
            if r["basis"] not in ("measured", "failed") or r["setting"] not in sm:
                continue
            seeds, reached, cm, lv, _ = sm[r["setting"]]
            s = r["seconds_to_target"]
            noag = s - r["agreements_to_target"] * ag if s is not None else None
            full = reached == seeds and seeds >= 3
            name = "%s (`%s`)" % (r["schedule"], r["setting"])
            print("| %d | %s | %s %d/%d | %s | %s | %s | %s | %s | %.0f | %.0f |" % (
                r["rank"], name, r["basis"], r["reached"], r["seeds"], fmt(s), fmt(noag), fmt(cm),
                "%.2f" % (noag / cm) if noag and cm else "-", fmt(lv), r["message_bytes"],
                r["ms_per_communication"]))
            if not full:
                continue
            for k, v in (("plan", s), ("noag", noag), ("cm02", cm), ("lv08", lv)):
                if v is not None and (best[k] is None or v < best[k][1]):
                    best[k] = (r["setting"], v)
        first = o["rows"][0]
        print("\nplan's first row: %s (`%s`), %s s; among settings with 3 of 3 seeds at %d%%: "
              "fastest by plan without agreements %s (%s s), by SMPI CM02 %s (%s s), by SMPI LV08 %s (%s s)\n" % (
                  first["schedule"], first["setting"], fmt(first["seconds_to_target"]), pct,
                  best["noag"][0], fmt(best["noag"][1]), best["cm02"][0], fmt(best["cm02"][1]),
                  best["lv08"][0], fmt(best["lv08"][1])))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""results_claims.py [ROOT]: the README's "better" claims against the
committed runs.

Every row of data/results-slow-network/claims.tsv is one claim the top
README makes, on the runs of a folder (the main one, ".", or iid/): setting A reaches 85% sooner than setting B (modelled
seconds of a deployment's column in per-run.tsv) by a ratio, or ends
with a higher final accuracy, or (what=tie) the two times are not apart:
the ratio as printed and Welch's p at least p_below. This test recomputes each claim from
per-run.tsv alone (its own code, not results-slow-network.py's): the
means, the ratio B / A (to the claim's printed precision), Welch's
t-test (scipy) with p below the claimed bound, and the seeds (every
seed of A and B must have reached 85% for a time claim, and there must
be at least 3 of each). The folder smpi/ holds the same runs re-timed by
SMPI (scripts/experiments/smpi-retime.py; columns CELL_run_s, CELL_best_s,
a source column). It also checks that the README prints each
claim's ratio and p-value. A changed run, a re-priced table or an edited
README that no longer matches fails it.
"""
import csv
import os
import sys

from scipy import stats


def fail(msg):
    sys.stderr.write("results_claims: %s\n" % msg)
    sys.exit(1)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    d = os.path.join(root, "data", "results-slow-network")
    tables = {}

    def runs_of(sub):
        """per-run.tsv of the main folder (".") or of a partition's (iid)"""
        if sub not in tables:
            tables[sub] = {}
            with open(os.path.join(d, sub, "per-run.tsv")) as f:
                for r in csv.DictReader(f, delimiter="\t"):
                    # smpi/per-run.tsv: the committed runs and others
                    # (a source column); another source's run is
                    # SETTING@SOURCE
                    key = r["setting"] if r.get("source", "committed") == "committed" \
                        else "%s@%s" % (r["setting"], r["source"])
                    tables[sub].setdefault(key, []).append(r)
        return tables[sub]
    readme = open(os.path.join(root, "README.md")).read()
    n = 0
    with open(os.path.join(d, "claims.tsv")) as f:
        for c in csv.DictReader((ln for ln in f if not ln.startswith("#")), delimiter="\t"):
            n += 1
            a, b, col, what = c["a"], c["b"], c["column"], c["what"]
            runs = runs_of(c["folder"])
            if a not in runs or b not in runs:
                fail("claim %s: no runs of %s or %s in per-run.tsv" % (c["id"], a, b))
            ra, rb = runs[a], runs[b]
            if len(ra) < 3 or len(rb) < 3:
                fail("claim %s: %d and %d seeds (3 needed)" % (c["id"], len(ra), len(rb)))
            if what in ("time", "tie"):
                if any(r[col] in ("never", "n/a") for r in ra + rb):
                    fail("claim %s: a seed of %s or %s never reached 85%%" % (c["id"], a, b))
                xa = [float(r[col]) for r in ra]
                xb = [float(r[col]) for r in rb]
                ratio = (sum(xb) / len(xb)) / (sum(xa) / len(xa))
            elif what == "final":
                xa = [float(r["final_acc"]) for r in ra]
                xb = [float(r["final_acc"]) for r in rb]
                ratio = (sum(xa) / len(xa)) / (sum(xb) / len(xb))
            else:
                fail("claim %s: unknown kind '%s'" % (c["id"], what))
            t, p = stats.ttest_ind(xa, xb, equal_var=False)
            want = float(c["ratio"])
            nd = len(c["ratio"].split(".")[1]) if "." in c["ratio"] else 0
            if round(ratio, nd) != want:
                fail("claim %s: %s / %s is %.4f, the README says %s" % (c["id"], b, a, ratio, c["ratio"]))
            if what == "tie":  # not apart: p at least the bound
                if not (p >= float(c["p_below"])):
                    fail("claim %s: Welch p = %.3g, below %s: not a tie" % (c["id"], p, c["p_below"]))
            elif ratio <= 1.0:
                fail("claim %s: %s is not better than %s (ratio %.4f)" % (c["id"], a, b, ratio))
            elif not (p < float(c["p_below"])):
                fail("claim %s: Welch p = %.3g, not below %s" % (c["id"], p, c["p_below"]))
            for s in (c["ratio"] + "x", "p = " + c["p_printed"]):
                if s not in readme:
                    fail("claim %s: the README does not print '%s'" % (c["id"], s))
            if c["p_printed"] != "%.2g" % p and c["p_printed"] != "%.1g" % p and c["p_printed"] != "%.3g" % p:
                fail("claim %s: p = %.3g, the README prints %s" % (c["id"], p, c["p_printed"]))
            print("results_claims: %s: %s vs %s, %s: %.2fx, Welch p = %.3g: holds"
                  % (c["id"], a, b, "final accuracy" if what == "final" else col, ratio, p))
    if n == 0:
        fail("claims.tsv has no claim")


if __name__ == "__main__":
    main()

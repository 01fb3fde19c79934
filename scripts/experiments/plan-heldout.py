#!/usr/bin/python3
"""plan-heldout.py OUT [CELL ...]: `topogen plan` on cells its model never
saw, checked against runs (issue 42's held-out check).

A CELL is N,PARTITION,BATCH,DEPLOY (DEPLOY: wan, datacenter, or sites =
4 hosts, 25 us / 3 GB/s inside, 50 ms / 12.5 MB/s between). For each:

1. `topogen plan -n N --partition P --batch B --epochs EPOCHS --target
   TARGET --json` (the model fitted to the committed runs);
2. runs plan's first row and the best-ranked row of other families
   (all-reduce, local SGD, D^2, D-PSGD, GT) up to SCHEDULES schedules,
   one seed each, with the exact commands of their rows (graph first),
   under `mpirun -np NP`, logs in OUT/CELL/runs/;
3. `topogen plan ... --results OUT/CELL` prices those runs with the same
   model of time (their measured steps x the modelled step);
4. prints one table row: plan's first row, its time when run, the fastest
   run and its time, the ratio, and whether it is within 15%; then the
   same ratio with each run's steps interpolated to the target between
   the two evaluations that bracket it (the runs evaluate once an epoch,
   so the first evaluation at or above the target rounds the steps up
   to a whole epoch).

A schedule already run in the cell (a measured or failed row of step 3)
is not run again; a cell that holds SCHEDULES runs or more runs only
plan's first row, when it is not among them (a re-check after a change
of the model).

The table goes to OUT/heldout.md (appended). Environment: BIN (bin),
NP (2), EPOCHS (3), TARGET (0.80), SCHEDULES (3), SEED (1).
Default cells: 32,iid,32,wan 32,dirichlet:0.5,32,datacenter
48,shards:2,16,wan 24,dirichlet:0.1,40,sites.
"""
import json
import os
import shlex
import subprocess
import sys

BIN = os.environ.get("BIN", "bin")
NP = os.environ.get("NP", "2")
EPOCHS = os.environ.get("EPOCHS", "3")
TARGET = os.environ.get("TARGET", "0.80")
SCHEDULES = int(os.environ.get("SCHEDULES", "3"))
SITES = ["--net", "intra=25us,3GB/s;inter=50ms,12.5MB/s", "--hosts", "4"]
DEPLOY = {"wan": ["--net", "wan"], "datacenter": ["--net", "datacenter"],
          "sites": SITES}
CELLS = ["32,iid,32,wan", "32,dirichlet:0.5,32,datacenter",
         "48,shards:2,16,wan", "24,dirichlet:0.1,40,sites"]
MPI = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", NP]


def die(msg):
    sys.stderr.write("plan-heldout: %s\n" % msg)
    sys.exit(1)


def plan(cell, extra):
    n, part, batch, deploy = cell
    cmd = [os.path.join(BIN, "topogen"), "plan", "-n", n, "--partition",
           part, "--batch", batch, "--epochs", EPOCHS, "--target", TARGET,
           "--json"] + DEPLOY[deploy] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        die("%s: %s" % (" ".join(cmd), p.stderr.strip()))
    return json.loads(p.stdout)


def family(row):
    a = row["algorithm"]
    return a if a not in ("D^2", "D-PSGD", "GT") else a


def pick(rows):
    chosen, seen = [rows[0]], {family(rows[0])}
    for r in rows[1:]:
        if len(chosen) >= SCHEDULES:
            break
        if r["basis"] in ("failed", "none") or family(r) in seen:
            continue
        chosen.append(r)
        seen.add(family(r))
    return chosen


def local(cmd, where):
    """a row's command with this tree's binaries, files in `where`"""
    words = shlex.split(cmd)
    out = []
    for w in words:
        if w in ("topogen", "dpsgd-train"):
            out.append(os.path.join(os.path.abspath(BIN), w))
        else:
            out.append(w)
    return out


def run_row(row, where, name):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    if row["topogen"]:
        for part in row["topogen"].split(" && "):
            words = local(part, where)
            p = subprocess.run(words, cwd=where, env=env,
                               capture_output=True, text=True)
            if p.returncode:
                die("%s: %s" % (part, p.stderr.strip()[:300]))
    words = local(row["dpsgd_train"], where)
    if words[0] == "mpirun":
        i = words.index("-np")  # "-np RANKS": this machine's ranks
        words = MPI + words[1:i] + words[i + 2:]
    log = os.path.join(where, "runs", name + "-s1.csv")
    words += ["--log", log, "--summary", log[:-4] + ".json", "--quiet"]
    p = subprocess.run(words, cwd=where, env=env, capture_output=True,
                       text=True)
    if p.returncode:
        open(log[:-4] + ".failed", "w").write(p.stderr[-2000:])


def interpolated(csv_path, target):
    """steps where test_acc crosses target, linear between evaluations"""
    import csv
    prev = None
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            step, acc = float(row["step"]), float(row["test_acc"])
            if acc >= target:
                if prev and prev[1] < target and step > prev[0]:
                    return prev[0] + (step - prev[0]) * (
                        (target - prev[1]) / (acc - prev[1]))
                return step
            prev = (step, acc)
    return None


def run_of(where, row):
    """the CSV of a measured row of this cell (its setting's name)"""
    p = os.path.join(where, "runs", row["setting"] + "-s1.csv")
    return p if os.path.exists(p) else None


def interp_seconds(where, row):
    """the row's time with its steps interpolated (same time per step)"""
    p = run_of(where, row)
    st = interpolated(p, float(TARGET)) if p else None
    if st is None or not row["steps_to_target"]:
        return None
    return row["seconds_to_target"] * st / row["steps_to_target"]


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    out = sys.argv[1]
    cells = sys.argv[2:] or CELLS
    os.makedirs(out, exist_ok=True)
    table = os.path.join(out, "heldout.md")
    if not os.path.exists(table):
        with open(table, "w") as f:
            f.write("| cell | plan's first row (basis) | its time when run "
                    "| fastest run | its time | ratio | within 15% "
                    "| ratio, steps interpolated | within 15% |\n"
                    "| --- | --- | --- | --- | --- | --- | --- | --- "
                    "| --- |\n")
    for spec in cells:
        cell = spec.split(",")
        if len(cell) != 4 or cell[3] not in DEPLOY:
            die("cell '%s': expected N,PARTITION,BATCH,%s"
                % (spec, "|".join(DEPLOY)))
        where = os.path.abspath(os.path.join(out, spec.replace(",", "_")
                                             .replace(":", "-")))
        os.makedirs(os.path.join(where, "runs"), exist_ok=True)
        rows = plan(cell, [])["rows"]
        chosen = pick(rows)
        done = set()
        nrun = len([f for f in os.listdir(os.path.join(where, "runs"))
                    if f.endswith("-s1.csv")])
        if nrun:
            done = {r["schedule"] for r in
                    plan(cell, ["--results", where])["rows"]
                    if r["basis"] in ("measured", "failed") and
                    r["experiment"].endswith(os.path.basename(where))}
        if nrun >= SCHEDULES:
            chosen_run = chosen[:1]
        else:
            chosen_run = chosen
        for r in chosen_run:
            if r["schedule"] in done:
                continue
            nrun += 1
            name = "r%d" % nrun
            print("plan-heldout: %s: running %s" % (spec, r["schedule"]),
                  flush=True)
            run_row(r, where, name)
        measured = [r for r in plan(cell, ["--results", where])["rows"]
                    if r["basis"] == "measured" and
                    r["experiment"].endswith(os.path.basename(where))]
        if not measured:
            line = "| %s | %s (%s) | - | none reached %s | - | - | no " \
                   "| - | - |" % (spec, chosen[0]["schedule"],
                                  chosen[0]["basis"], TARGET)
        else:
            best = min(measured, key=lambda r: r["seconds_to_target"])
            first = [r for r in measured if r["schedule"] ==
                     chosen[0]["schedule"]]
            t1 = first[0]["seconds_to_target"] if first else float("inf")
            ratio = t1 / best["seconds_to_target"]
            ti = {r["schedule"]: interp_seconds(where, r) for r in measured}
            ti = {k: v for k, v in ti.items() if v}
            i1 = ti.get(chosen[0]["schedule"])
            ibest = min(ti.values()) if ti else None
            iratio = i1 / ibest if i1 and ibest else None
            line = "| %s | %s (%s) | %s | %s | %.4g s | %s | %s | %s | %s |" \
                % (spec, chosen[0]["schedule"], chosen[0]["basis"],
                   "%.4g s" % t1 if first else "did not reach %s" % TARGET,
                   best["schedule"], best["seconds_to_target"],
                   "%.2f" % ratio if first else "-",
                   "yes" if ratio <= 1.15 else "no",
                   "%.2f" % iratio if iratio else "-",
                   "yes" if iratio and iratio <= 1.15 else "no")
        print(line, flush=True)
        with open(table, "a") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    main()

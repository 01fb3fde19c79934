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
   run and its time, the ratio, and whether it is within 15%.

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
                    "| fastest run | its time | ratio | within 15% |\n"
                    "| --- | --- | --- | --- | --- | --- | --- |\n")
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
        for k, r in enumerate(chosen):
            name = "r%d" % (k + 1)
            if not os.path.exists(os.path.join(where, "runs",
                                               name + "-s1.csv")):
                print("plan-heldout: %s: running %s" % (spec, r["schedule"]),
                      flush=True)
                run_row(r, where, name)
        measured = [r for r in plan(cell, ["--results", where])["rows"]
                    if r["basis"] == "measured" and
                    r["experiment"].endswith(os.path.basename(where))]
        if not measured:
            line = "| %s | %s (%s) | - | none reached %s | - | - | no |" % (
                spec, chosen[0]["schedule"], chosen[0]["basis"], TARGET)
        else:
            best = min(measured, key=lambda r: r["seconds_to_target"])
            first = [r for r in measured if r["schedule"] ==
                     chosen[0]["schedule"]]
            t1 = first[0]["seconds_to_target"] if first else float("inf")
            ratio = t1 / best["seconds_to_target"]
            line = "| %s | %s (%s) | %s | %s | %.4g s | %s | %s |" % (
                spec, chosen[0]["schedule"], chosen[0]["basis"],
                "%.4g s" % t1 if first else "did not reach %s" % TARGET,
                best["schedule"], best["seconds_to_target"],
                "%.2f" % ratio if first else "-",
                "yes" if ratio <= 1.15 else "no")
        print(line, flush=True)
        with open(table, "a") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    main()

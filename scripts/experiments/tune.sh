#!/bin/sh
# tune.sh: the tuning protocol of docs/train/tuning.md applied to every
# schedule alike (issue 41): the same grid for each, a pilot on one seed,
# the best two settings of each schedule confirmed on more seeds with a
# fresh graph per seed, Welch's t-test of every schedule's best against
# the best overall. Nothing here knows which schedule should win.
#
#   scripts/experiments/tune.sh [OUT]   (default data/tune; resumable: a
#                                        run with a summary is kept)
# Settings (environment; the defaults are the protocol's):
#   N=256 workers, DATASET=fashion-mnist (or synthetic), BATCH=16 per
#   worker, PARTITION=dirichlet:0.1, NP=2 MPI ranks
#   PILOT_EPOCHS=3, EPOCHS=12 (the confirmation budget; the learning rate
#   follows each run's own budget: --schedule cosine to its --epochs,
#   after WARMUP=1 epoch of linear warm-up)
#   LRS="0.01 0.02 0.05 0.1"  HS="1 2 4 8 16 32"
#   OUTERS="0.7,0.9 1.0,0.5 0.5,0 1.0,0"  (DiLoCo: nesterov:LR,MOM)
#   SCHEDULES="allreduce local diloco dpsgd d2 gt"  TOPO=random DEGREE=4
#   SEEDS="1 2 3"  TOP=2 (settings confirmed per schedule)
#   EXTRA="..." more dpsgd-train flags for every run (e.g. --net wan)
# A smoke run: N=8 DATASET=synthetic BATCH=8 PILOT_EPOCHS=1 EPOCHS=1
#   LRS="0.02 0.05" HS="1 4" OUTERS="0.7,0.9" SEEDS="1 2" NP=1
#
# Writes OUT/runs/*.{json,log}, OUT/pilot.tsv (schedule, setting, final
# accuracy or the failure), OUT/confirm.tsv (schedule, setting, seed,
# accuracy) and OUT/table.md. A run that exits non-zero (diverged) or
# ends AT CHANCE ranks below every run that trained.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "${1:-}" in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0;; esac
OUT=${1:-$root/data/tune}
BIN=${BIN:-$root/bin}
N=${N:-256}
DATASET=${DATASET:-fashion-mnist}
BATCH=${BATCH:-16}
PARTITION=${PARTITION:-dirichlet:0.1}
NP=${NP:-2}
PILOT_EPOCHS=${PILOT_EPOCHS:-3}
EPOCHS=${EPOCHS:-12}
WARMUP=${WARMUP:-1}
LRS=${LRS:-0.01 0.02 0.05 0.1}
HS=${HS:-1 2 4 8 16 32}
OUTERS=${OUTERS:-0.7,0.9 1.0,0.5 0.5,0 1.0,0}
SCHEDULES=${SCHEDULES:-allreduce local diloco dpsgd d2 gt}
TOPO=${TOPO:-random}
DEGREE=${DEGREE:-4}
SEEDS=${SEEDS:-1 2 3}
TOP=${TOP:-2}
EXTRA=${EXTRA:-}
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT/runs" "$OUT/topo"

run() { # run NAME ARGS...: OUT/runs/NAME.json unless it exists (sh has
    # no locals: the names _r*, _f, _g are this script's helpers' own)
    _rn=$1
    shift
    [ -s "$OUT/runs/$_rn.json" ] && return 0
    set -- "$BIN/dpsgd-train" "$@" --summary "$OUT/runs/$_rn.json" --quiet
    if [ "$NP" -gt 1 ]; then
        set -- mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$NP" "$@"
    fi
    "$@" >"$OUT/runs/$_rn.log" 2>&1 || echo "exit $?" >>"$OUT/runs/$_rn.log"
}

result() { # result NAME: the final accuracy, or failed/chance
    _f="$OUT/runs/$1"
    if grep -q "^exit " "$_f.log" 2>/dev/null || [ ! -s "$_f.json" ]; then
        echo failed
    elif grep -q "AT CHANCE" "$_f.log"; then
        echo chance
    else
        sed -n 's/^final: .* test_acc \([0-9.]*\) .*/\1/p' "$_f.log" | head -1
    fi
}

graph() { # graph SEED: the topology of this seed
    _g="$OUT/topo/$TOPO-s$1.txt"
    [ -s "$_g" ] || "$BIN/topogen" --kind "$TOPO" -n "$N" -d "$DEGREE" --seed "$1" -q -o "$_g"
    echo "$_g"
}

# the settings of a schedule, one per line: "NAME|FLAGS"
settings() {
    for lr in $LRS; do
        case $1 in
        allreduce) echo "lr$lr|--mode allreduce --workers $N --lr $lr" ;;
        local)
            for h in $HS; do
                [ "$h" -gt 1 ] && echo "lr$lr-H$h|--mode allreduce --workers $N --lr $lr --average-every $h"
            done ;;
        diloco)
            for h in $HS; do
                [ "$h" -gt 1 ] || continue
                for o in $OUTERS; do
                    echo "lr$lr-H$h-o$o|--mode allreduce --workers $N --lr $lr --average-every $h --outer nesterov:$o"
                done
            done ;;
        dpsgd | d2 | gt)
            for h in $HS; do
                echo "lr$lr-H$h|--algorithm $1 --lr $lr --average-every $h"
            done ;;
        *) echo "tune: unknown schedule '$1'" >&2; exit 1 ;;
        esac
    done
}

common="--dataset $DATASET --batch $BATCH --partition $PARTITION --schedule cosine --warmup $WARMUP $EXTRA"
topo_flag() { # gossip schedules run on the seed's graph
    case $1 in allreduce | local | diloco) ;; *) echo "--topology $(graph "$2")" ;; esac
}

# ---- pilot: every setting, seed 1, PILOT_EPOCHS ----------------------------
: >"$OUT/pilot.tsv"
for sch in $SCHEDULES; do
    settings "$sch" | while IFS='|' read -r name flags; do
        # shellcheck disable=SC2046,SC2086
        run "pilot-$sch-$name" $flags $(topo_flag "$sch" 1) $common --epochs "$PILOT_EPOCHS" --seed 1
        printf '%s\t%s\t%s\n' "$sch" "$name" "$(result "pilot-$sch-$name")" >>"$OUT/pilot.tsv"
    done
done

# ---- confirm: the best TOP settings of each schedule on every seed ----------
: >"$OUT/confirm.tsv"
for sch in $SCHEDULES; do
    best=$(awk -F '\t' -v s="$sch" '$1 == s && $3 ~ /^[0-9.]+$/ { print $3 "\t" $2 }' "$OUT/pilot.tsv" |
        sort -g -r | head -n "$TOP" | cut -f2)
    for name in $best; do
        flags=$(settings "$sch" | awk -F '|' -v n="$name" '$1 == n { print $2 }')
        for s in $SEEDS; do
            # shellcheck disable=SC2046,SC2086
            run "confirm-$sch-$name-s$s" $flags $(topo_flag "$sch" "$s") $common --epochs "$EPOCHS" --seed "$s"
            printf '%s\t%s\t%s\t%s\n' "$sch" "$name" "$s" "$(result "confirm-$sch-$name-s$s")" >>"$OUT/confirm.tsv"
        done
    done
done

# ---- table: mean, sd, Welch's t-test against the best -------------------------
python3 - "$OUT" "$N" "$DATASET" "$PARTITION" "$PILOT_EPOCHS" "$EPOCHS" "$SEEDS" <<'EOF'
import math, sys
out, n, ds, part, pe, ep, seeds = sys.argv[1:8]
rows = {}
for line in open(out + "/confirm.tsv"):
    sch, name, seed, acc = line.rstrip("\n").split("\t")
    rows.setdefault((sch, name), []).append(acc)
def stats(v):
    x = [float(a) if a not in ("failed", "chance") else 0.1 for a in v]
    m = sum(x) / len(x)
    sd = math.sqrt(sum((a - m) ** 2 for a in x) / (len(x) - 1)) if len(x) > 1 else 0.0
    return m, sd, x
def tcdf_two_sided(t, df):  # P(|T| > t) by Simpson on the t density
    if df <= 0 or not math.isfinite(t):
        return float("nan")
    f = lambda u: (1 + u * u / df) ** (-(df + 1) / 2)
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    a, b, k = 0.0, abs(t), 2000
    h = (b - a) / k
    s = f(a) + f(b) + sum((4 if i % 2 else 2) * f(a + i * h) for i in range(1, k))
    return max(0.0, 1 - 2 * c * s * h / 3)
def welch(x, y):
    if len(x) < 2 or len(y) < 2:
        return float("nan")
    mx, my = sum(x) / len(x), sum(y) / len(y)
    vx = sum((a - mx) ** 2 for a in x) / (len(x) - 1) / len(x)
    vy = sum((a - my) ** 2 for a in y) / (len(y) - 1) / len(y)
    if vx + vy == 0:
        return 1.0 if mx == my else 0.0
    t = (mx - my) / math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / ((vx * vx / (len(x) - 1) if vx else 0) + (vy * vy / (len(y) - 1) if vy else 0))
    return tcdf_two_sided(t, df)
best = {}
for (sch, name), v in rows.items():
    m = stats(v)[0]
    if sch not in best or m > stats(rows[(sch, best[sch])])[0]:
        best[sch] = name
top = max(best, key=lambda s: stats(rows[(s, best[s])])[0]) if best else None
with open(out + "/table.md", "w") as f:
    f.write("# Tuned schedules (scripts/experiments/tune.sh)\n\n")
    f.write("%s workers, %s, %s; pilot %s epochs (seed 1), confirmation %s epochs on seeds %s; "
            "failed or at-chance runs count as 10%%.\n\n" % (n, ds, part, pe, ep, seeds))
    f.write("| schedule | setting | final accuracy (mean +- sd) | per seed | Welch p vs the best (%s) |\n" % top)
    f.write("| --- | --- | --- | --- | --- |\n")
    for (sch, name), v in sorted(rows.items()):
        m, sd, x = stats(v)
        p = "-" if sch == top and name == best[top] else "%.3g" % welch(x, stats(rows[(top, best[top])])[2])
        f.write("| %s | %s | %.2f +- %.2f%% | %s | %s |\n" % (sch, name, 100 * m, 100 * sd, ", ".join(v), p))
print(open(out + "/table.md").read())
EOF

#!/bin/sh
# pilot-local.sh: the pilot of issue 31 (communicating less): 64 LeNet
# workers on Fashion-MNIST, dirichlet:0.1, the results schedule of
# scripts/experiments/results.sh (12 epochs, global batch 1024 = 16 per worker, lr
# 0.05, momentum 0.9, one warm-up epoch, 10x step decays every 3.5 epochs),
# one seed, evaluated every quarter epoch: all-reduce and D^2 on a random
# 4-regular graph (Laplacian weights) with --average-every H in {1, 4, 16}
# and H = 16 with the outer Nesterov step (nesterov:0.7,0.9).
#
#   scripts/experiments/pilot-local.sh [OUT]  (default data/pilot-local; rerun to
#                                   resume: a run with a summary is kept)
#   NP=2 (MPI ranks), SEED=1, EPOCHS=12, RUNS="name:flags;..." to override
#   PROBES=1 also D-PSGD on the graph and every setting at lr 0.02
#   TABLE_ONLY=1 scripts/experiments/pilot-local.sh OUT  redraw OUT/table.md only
#
# Writes OUT/runs/NAME.csv, .json (--summary), .log, OUT/topo/r64.txt,
# OUT/modelled.tsv (the per-step compute time and the per-communication
# WAN prices) and OUT/table.md: final accuracy, steps to 85% (the first
# evaluation at or above it, no interpolation), communications, and the
# modelled WAN seconds of the deployment "every worker on its own host":
# steps x t_compute + gossip rounds x T_round (topogen eval --net wan
# --ranks 64 --hosts 64) + all-reduces x the all-reduce of the same
# file's JSON, twice: as Open MPI 4.1 runs the trainer's call
# (allreduce_s, --allreduce auto: binomial) and the cheapest algorithm
# (allreduce_best_s: recursive doubling at 64 hosts).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "${1:-}" in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0;; esac
OUT=${1:-$root/data/pilot-local}
BIN=${BIN:-$root/bin}
NP=${NP:-2}
SEED=${SEED:-1}
EPOCHS=${EPOCHS:-12}
N=64
BATCH=16
EVAL=14 # a quarter epoch: 60000 / (64 x 16) = 58 steps per epoch
DATA=${DATA:-/usr/share/datasets/fashion-mnist}
COMMON="--data $DATA --epochs $EPOCHS --batch $BATCH --lr 0.05 --momentum 0.9 --warmup 1 --schedule step --step-epochs 3.5 --local-eval 100 --partition dirichlet:0.1 --seed $SEED --eval-every $EVAL --quiet"
G="$OUT/topo/r64.txt"
RUNS=${RUNS:-"allreduce-H1:--mode allreduce --workers $N;allreduce-H4:--mode allreduce --workers $N --average-every 4;allreduce-H16:--mode allreduce --workers $N --average-every 16;allreduce-H16-nesterov:--mode allreduce --workers $N --average-every 16 --outer nesterov:0.7,0.9;d2-H1:--topology $G --algorithm d2;d2-H4:--topology $G --algorithm d2 --average-every 4;d2-H16:--topology $G --algorithm d2 --average-every 16;d2-H16-nesterov:--topology $G --algorithm d2 --average-every 16 --outer nesterov:0.7,0.9"}
# Probes beyond the issue's grid (PROBES=1 adds them; the table marks
# their lr): D-PSGD on the same graph, and every setting at lr 0.02
if [ "${PROBES:-}" = 1 ]; then
    P2="--lr 0.02"
    RUNS="$RUNS;dpsgd-H1:--topology $G;dpsgd-H4:--topology $G --average-every 4;dpsgd-H16:--topology $G --average-every 16"
    RUNS="$RUNS;allreduce-H1-lr0.02:--mode allreduce --workers $N $P2;allreduce-H4-lr0.02:--mode allreduce --workers $N --average-every 4 $P2;allreduce-H16-lr0.02:--mode allreduce --workers $N --average-every 16 $P2;allreduce-H16-nesterov-lr0.02:--mode allreduce --workers $N --average-every 16 --outer nesterov:0.7,0.9 $P2"
    RUNS="$RUNS;d2-H1-lr0.02:--topology $G --algorithm d2 $P2;d2-H4-lr0.02:--topology $G --algorithm d2 --average-every 4 $P2;d2-H16-lr0.02:--topology $G --algorithm d2 --average-every 16 $P2;d2-H16-nesterov-lr0.02:--topology $G --algorithm d2 --average-every 16 --outer nesterov:0.7,0.9 $P2"
fi
. "$here/../lib/common.sh" # die
need_programs dpsgd-train topogen
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT/runs" "$OUT/topo"
[ -f "$G" ] || "$BIN/topogen" --kind random -n $N -d 4 --seed 1 -q -o "$G"

IFS_OLD=$IFS
if [ -z "${TABLE_ONLY:-}" ]; then
    IFS=';'
    for r in $RUNS; do
        IFS=$IFS_OLD
        name=${r%%:*}
        flags=${r#*:}
        if [ -f "$OUT/runs/$name.json" ] || [ -f "$OUT/runs/$name.failed" ]; then
            echo "pilot-local: $name: done"
            continue
        fi
        echo "pilot-local: $name: $flags"
        # shellcheck disable=SC2086
        mpirun -q --oversubscribe --bind-to none -np "$NP" "$BIN/dpsgd-train" \
            $COMMON $flags --log "$OUT/runs/$name.csv" \
            --summary "$OUT/runs/$name.json" >"$OUT/runs/$name.log" 2>&1 || {
            # a run that diverges is a result (its CSV keeps the rows up
            # to the last evaluation); anything else stops the script
            grep -q "training diverged" "$OUT/runs/$name.log" ||
                die "$name failed: $(tail -n 3 "$OUT/runs/$name.log")"
            grep "training diverged" "$OUT/runs/$name.log" >"$OUT/runs/$name.failed"
            echo "pilot-local: $name: $(cat "$OUT/runs/$name.failed")"
        }
        IFS=';'
    done
    IFS=$IFS_OLD
fi

# prices: compute per step (measured once, kept in modelled.tsv), the WAN
# round and all-reduce (repriced at every run: the network model's)
if [ ! -f "$OUT/modelled.tsv" ] || ! grep -q '^t_compute_s' "$OUT/modelled.tsv"; then
    line=$("$BIN/dpsgd-train" --bench --model lenet --batch $BATCH --threads 1 \
               --bench-steps 100 --bench-repeat 5 2>&1 | grep '^bench ') || die "--bench failed"
    ms=$(echo "$line" | sed -n 's/.* \([0-9.]*\) ms\/step.*/\1/p')
    tcl="# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n): $line"
    tc=$(awk -v m="$ms" 'BEGIN { printf "%.6g", m / 1000 }')
else
    tcl=$(head -n 1 "$OUT/modelled.tsv")
    tc=$(awk -F'\t' '$1 == "t_compute_s" { print $2 }' "$OUT/modelled.tsv")
fi
j=$("$BIN/topogen" eval "$G" --net wan --ranks $N --hosts $N --json)
jnum() { echo "$j" | sed -n "s/.*\"$1\":\([0-9.eE+-]*\).*/\1/p" | head -n 1; }
rs=$(echo "$j" | sed 's/.*"block":{//' | sed -n 's/.*"round_s":\([0-9.eE+-]*\).*/\1/p' | head -n 1)
ar=$(jnum allreduce_s)
arb=$(jnum allreduce_best_s)
ara=$(echo "$j" | sed -n 's/.*"allreduce_alg":"\([a-z-]*\)".*/\1/p')
arba=$(echo "$j" | sed -n 's/.*"allreduce_best":"\([a-z-]*\)".*/\1/p')
{
    echo "$tcl"
    echo "# topogen eval $G --net wan --ranks $N --hosts $N: round_s $rs, allreduce_s $ar ($ara, auto), allreduce_best_s $arb ($arba)"
    printf 't_compute_s\t%s\nround_s\t%s\nallreduce_s\t%s\nallreduce_best_s\t%s\n' "$tc" "$rs" "$ar" "$arb"
} >"$OUT/modelled.tsv.tmp" && mv "$OUT/modelled.tsv.tmp" "$OUT/modelled.tsv"

# comms H S STEP: communications in steps [0, STEP) (dt_local.h)
{
    echo "Pilot of issue 31, **1 seed** (seed $SEED): 64 workers, Fashion-MNIST, LeNet, dirichlet:0.1, $EPOCHS epochs, batch 16 per worker, lr 0.05 (the results schedule: warm-up 1 epoch, step decay 0.1 every 3.5 epochs; the rows at lr 0.02 and the dpsgd rows are probes beyond the issue's grid, PROBES=1), momentum 0.9 (the workers' own, also between communications), evaluated every $EVAL steps (a quarter epoch). Final acc: the last evaluation; a diverged run stopped at a NaN loss (its CSV keeps the rows before). D^2 on a random 4-regular graph (\`topogen --kind random -n 64 -d 4 --seed 1\`, Laplacian weights); with H > 1 it runs as Local Exact-Diffusion. Modelled WAN seconds: every worker on its own host, steps x $tc s of compute (\`dpsgd-train --bench --batch 16\`) + gossip rounds x $rs s + all-reduces x $ar s ($ara, what Open MPI 4.1 runs for the trainer's in-place MPI_Iallreduce) or, in the last column, x $arb s ($arba, the cheapest algorithm) (\`topogen eval --net wan --ranks 64 --hosts 64\`)."
    echo
    echo "| run | lr | H | outer | final acc | best acc | steps to 80% | steps to 85% | communications | modelled WAN s (end) | modelled WAN s to 85% | same, best all-reduce |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    IFS=';'
    for r in $RUNS; do
        IFS=$IFS_OLD
        name=${r%%:*}
        flags=${r#*:}
        csv="$OUT/runs/$name.csv"
        [ -f "$csv" ] || continue
        H=$(echo "$flags" | sed -n 's/.*--average-every \([0-9]*\).*/\1/p')
        outer=$(echo "$flags" | sed -n 's/.*--outer \([^ ]*\).*/\1/p')
        lr=$(echo "$flags" | sed -n 's/.*--lr \([^ ]*\).*/\1/p')
        failed=""
        [ -f "$OUT/runs/$name.failed" ] && failed=$(sed -n 's/.*(step \([0-9]*\)).*/\1/p' "$OUT/runs/$name.failed")
        case $name in allreduce*) price=$ar price_b=$arb;; *) price=$rs price_b=$rs;; esac
        awk -F, -v H="${H:-1}" -v tc="$tc" -v pr="$price" -v prb="$price_b" -v name="$name" -v outer="${outer:-none}" -v failed="$failed" -v lr="${lr:-0.05}" '
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { st = $c["step"]; acc = $c["test_acc"]; last = acc; laststep = st
              if (acc > best) best = acc
              k = int(st / H); t = st * tc + k * pr
              if (acc >= 0.80 && s80 == "") s80 = st
              if (acc >= 0.85 && s85 == "") { s85 = st; m85 = t; b85 = st * tc + k * prb } }
            END { k = int(laststep / H)
                  fin = failed != "" ? sprintf("diverged (NaN loss at step %s)", failed) : sprintf("%.2f%%", 100 * last)
                  printf "| %s | %s | %d | %s | %s | %.2f%% | %s | %s | %d | %.1f | %s | %s |\n", name, lr, H, outer,
                      fin, 100 * best, s80 == "" ? "never" : s80, s85 == "" ? "never" : s85, k,
                      laststep * tc + k * pr, m85 == "" ? "never" : sprintf("%.1f", m85),
                      b85 == "" ? "never" : sprintf("%.1f", b85) }' "$csv"
        IFS=';'
    done
    IFS=$IFS_OLD
} >"$OUT/table.md"
cat "$OUT/table.md"

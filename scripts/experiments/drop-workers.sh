#!/bin/sh
# drop-workers.sh: issue 34's goal, measured. 64 workers on 4 ranks
# (--placement block: rank 3 holds workers 48-63), Fashion-MNIST, LeNet,
# --partition dirichlet:0.1, the results schedule (scripts/experiments/results.sh: 12
# epochs, global batch 1024 = 16 per worker, lr 0.05, momentum 0.9, one
# warm-up epoch, step decays every 3.5 epochs, --local-eval 100), the
# learned graph topogen -n 64 -d 4 --seed 1. Per seed:
#   base     the run without a failure (4 ranks, 12 epochs);
#   drop     the same run stopped after epoch 3 (--stop-after 3: the
#            state a crash of rank 3 right after that checkpoint leaves),
#            then topogen repair --remove 48-63 and dpsgd-train --resume
#            --drop-workers 48-63 --topology REPAIRED on the 3 ranks left,
#            48 workers to epoch 12.
# The time lost is the repair's wall time plus the resumed run's start-up
# (the program's own figure: process start to the first step); the runs
# lose no epoch here because the loss falls right after a checkpoint.
#
#   OUT=data/results/drop-workers SEEDS="1 2 3" scripts/experiments/drop-workers.sh
#   SUMMARY_ONLY=1 OUT=... scripts/experiments/drop-workers.sh  (redraw summary.md)
# Resumable: a seed whose files are complete is skipped.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "${1:-}" in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0;; esac
OUT=${OUT:-$root/data/results/drop-workers}
BIN=${BIN:-$root/bin}
SEEDS=${SEEDS:-"1 2 3"}
EPOCHS=${EPOCHS:-12}
LOST=${LOST:-48-63}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OPENBLAS_NUM_THREADS=1
mpi() { np=$1; shift; mpirun -q --oversubscribe --bind-to none -np "$np" "$@"; }
common="--partition dirichlet:0.1 --batch 16 --lr 0.05 --momentum 0.9 --local-eval 100 --warmup 1 --schedule step --step-epochs 3.5 --epochs $EPOCHS --placement block --quiet"
now() { date +%s.%N; }
if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
    [ -f "$OUT/learned64.txt" ] || "$BIN/topogen" -n 64 -d 4 --seed 1 -q -o "$OUT/learned64.txt"
    for s in $SEEDS; do
        if [ ! -s "$OUT/base-s$s.json" ]; then
            mpi 4 "$BIN/dpsgd-train" --topology "$OUT/learned64.txt" $common --seed "$s" \
                --log "$OUT/base-s$s.csv" --summary "$OUT/base-s$s.json" >"$OUT/base-s$s.out"
        fi
        if [ ! -s "$OUT/drop-s$s.json" ]; then
            ck="$OUT/ck-s$s"
            rm -rf "$ck" "$OUT/drop-s$s.csv"
            mpi 4 "$BIN/dpsgd-train" --topology "$OUT/learned64.txt" $common --seed "$s" \
                --checkpoint "$ck" --stop-after 3 --log "$OUT/drop-s$s.csv" >"$OUT/drop-s$s.part1.out"
            t0=$(now)
            "$BIN/topogen" repair "$OUT/learned64.txt" --remove "$LOST" -o "$OUT/repaired-s$s.txt" 2>"$OUT/repair-s$s.err"
            t1=$(now)
            mpi 3 "$BIN/dpsgd-train" --topology "$OUT/repaired-s$s.txt" $common --seed "$s" \
                --checkpoint "$ck" --resume --drop-workers "$LOST" --log "$OUT/drop-s$s.csv" \
                --summary "$OUT/drop-s$s.json.tmp" >"$OUT/drop-s$s.out" 2>"$OUT/drop-s$s.err"
            t2=$(now)
            awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "repair_s %.9f resume_invocation_s %.9f\n", b - a, c - b }' >"$OUT/drop-s$s.times"
            mv "$OUT/drop-s$s.json.tmp" "$OUT/drop-s$s.json"
            rm -rf "$ck"
        fi
    done
fi
# summary.md: final accuracy of the average model, with and without the
# loss, and the time lost
{
    echo "| seed | no failure: test_acc | 48-63 lost at epoch 3: test_acc | difference (points) | repair s | resume start-up s | resumed invocation s |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
    for s in $SEEDS; do
        [ -s "$OUT/base-s$s.json" ] && [ -s "$OUT/drop-s$s.json" ] || continue
        a=$(sed -n 's/^final: .* test_acc \([0-9.]*\) .*/\1/p' "$OUT/base-s$s.out")
        b=$(sed -n 's/^final: .* test_acc \([0-9.]*\) .*/\1/p' "$OUT/drop-s$s.out")
        su=$(sed -n 's/.* start-up \([0-9.]*\) s .*/\1/p' "$OUT/drop-s$s.out")
        rp=$(sed -n 's/^repair_s \([0-9.]*\) .*/\1/p' "$OUT/drop-s$s.times")
        ri=$(sed -n 's/.* resume_invocation_s \([0-9.]*\)/\1/p' "$OUT/drop-s$s.times")
        awk -v s="$s" -v a="$a" -v b="$b" -v rp="$rp" -v su="$su" -v ri="$ri" 'BEGIN {
            printf "| %s | %.2f%% | %.2f%% | %+.2f | %.2f | %.2f | %.1f |\n", s,
                100 * a, 100 * b, 100 * (b - a), rp, su, ri }'
    done
} >"$OUT/summary.md.rows"
{
    cat "$OUT/summary.md.rows"
    # the mean over the seeds (columns 2..7 of the rows above)
    tail -n +3 "$OUT/summary.md.rows" | tr -d '%+' | awk -F'|' '
        { for (c = 3; c <= 8; c++) s[c] += $c; n++ }
        END { if (n) printf "| mean of %d | %.2f%% | %.2f%% | %+.2f | %.2f | %.2f | %.1f |\n",
                  n, s[3]/n, s[4]/n, s[5]/n, s[6]/n, s[7]/n, s[8]/n }'
} >"$OUT/summary.md"
rm -f "$OUT/summary.md.rows"
cat "$OUT/summary.md"

#!/bin/sh
# membership.sh: issue 44's lose-then-rejoin. 64
# workers, Fashion-MNIST (--train-limit TRAIN images; 60000 is the full
# training set), LeNet,
# --partition PARTITION (dirichlet:0.3: at 0.1 a small TRAIN leaves
# some of 64 workers less than a batch), batch 16, lr 0.05, momentum 0.9, the learned
# graph topogen -n 64 -d 4 --seed 1, on RANKS ranks. Per seed:
#   base    9 epochs without a change;
#   change  the same run stopped after epoch 3; topogen repair --remove
#           48-63 and --resume --drop-workers 48-63 on 48 workers to epoch
#           6; topogen repair --add 16 and --resume --add-workers 16 on 64
#           workers to epoch 9.
# Each change costs: the topogen command's wall time plus the resumed
# run's start-up (the program's own figure, process start to the first
# step), next to a plain --resume's start-up of the same run (plain.out).
# Every invocation writes its per-epoch CSV (--log, *.csv: the last of a
# run holds all its rows); the table adds both runs' test_acc at epoch 6
# (the end of the 48-worker phase) and their steps per worker (summed
# over the invocations; an epoch of 48 workers has more steps than one of
# 64, as an epoch stays a pass over the data).
# CONTROL=1 adds two runs per seed that tell where a difference comes
# from: only48 (48 workers from the start, on the repaired topology) and
# droponly (lost at epoch 3, never rejoined: 48 workers to epoch 9), in
# control.md. Outputs already in OUT are kept (remove them to redo);
# SUMMARY_ONLY=1 only redraws the tables.
#
#   OUT=DIR SEEDS="1 2 3" TRAIN=12000 RANKS=1 scripts/experiments/membership.sh
#   OUT=DIR SEEDS="1 2 3" TRAIN=60000 CONTROL=1 scripts/experiments/membership.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "${1:-}" in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0;; esac
OUT=${OUT:-$root/data/results/membership}
BIN=${BIN:-$root/bin}
SEEDS=${SEEDS:-"1 2 3"}
TRAIN=${TRAIN:-12000}
RANKS=${RANKS:-1}
PARTITION=${PARTITION:-dirichlet:0.3}
CONTROL=${CONTROL:-0}
SUMMARY_ONLY=${SUMMARY_ONLY:-0}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OPENBLAS_NUM_THREADS=1
dt() { mpirun -q --oversubscribe --bind-to none -np "$RANKS" "$BIN/dpsgd-train" "$@"; }
common="--partition $PARTITION --batch 16 --lr 0.05 --momentum 0.9 --local-eval 100 --train-limit $TRAIN --epochs 9 --quiet"
now() { date +%s.%N; }
T64=$OUT/learned64.txt
[ -f "$T64" ] || "$BIN/topogen" -n 64 -d 4 --seed 1 -q -o "$T64"
for s in $SEEDS; do
    [ "$SUMMARY_ONLY" = 0 ] || break
    [ -s "$OUT/base-s$s.out" ] || dt --topology "$T64" $common --seed "$s" --log "$OUT/base-s$s.csv" >"$OUT/base-s$s.out"
    [ ! -s "$OUT/change-s$s.out" ] || continue
    ck="$OUT/ck-s$s"
    rm -rf "$ck"
    dt --topology "$T64" $common --seed "$s" --checkpoint "$ck" --stop-after 3 --log "$OUT/change-s$s.part1.csv" >"$OUT/change-s$s.part1.out"
    cp -r "$ck" "$ck.plain"
    dt --topology "$T64" $common --seed "$s" --checkpoint "$ck.plain" --resume --stop-after 4 >"$OUT/plain-s$s.out"
    rm -rf "$ck.plain"
    t0=$(now)
    "$BIN/topogen" repair "$T64" --remove 48-63 -o "$OUT/lost-s$s.txt" -q
    t1=$(now)
    dt --topology "$OUT/lost-s$s.txt" $common --seed "$s" --checkpoint "$ck" --resume --drop-workers 48-63 --stop-after 6 --log "$OUT/change-s$s.drop.csv" >"$OUT/change-s$s.drop.out" 2>"$OUT/change-s$s.drop.err"
    t2=$(now)
    "$BIN/topogen" repair "$OUT/lost-s$s.txt" --add 16 -o "$OUT/grown-s$s.txt" -q
    t3=$(now)
    dt --topology "$OUT/grown-s$s.txt" $common --seed "$s" --checkpoint "$ck" --resume --add-workers 16 --log "$OUT/change-s$s.csv" >"$OUT/change-s$s.out" 2>"$OUT/change-s$s.add.err"
    awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN { printf "repair_remove_s %.3f repair_add_s %.3f\n", b - a, d - c }' >"$OUT/change-s$s.times"
    rm -rf "$ck"
done
for s in $SEEDS; do
    [ "$SUMMARY_ONLY" = 0 ] && [ "$CONTROL" = 1 ] || break
    [ -s "$OUT/only48-s$s.out" ] || dt --topology "$OUT/lost-s$s.txt" $common --seed "$s" --log "$OUT/only48-s$s.csv" >"$OUT/only48-s$s.out"
    [ ! -s "$OUT/droponly-s$s.out" ] || continue
    ck="$OUT/ck-droponly-s$s"
    rm -rf "$ck"
    dt --topology "$T64" $common --seed "$s" --checkpoint "$ck" --stop-after 3 >/dev/null
    dt --topology "$OUT/lost-s$s.txt" $common --seed "$s" --checkpoint "$ck" --resume --drop-workers 48-63 --log "$OUT/droponly-s$s.csv" >"$OUT/droponly-s$s.out" 2>/dev/null
    rm -rf "$ck"
done
acc() { sed -n 's/^final: .* test_acc \([0-9.]*\) .*/\1/p' "$1"; }
su() { sed -n 's/.* start-up \([0-9.]*\) s (CPU \([0-9.]*\) s).*/\1 s (\2)/p' "$1"; }
# steps FILE...: the steps the invocations took, summed
steps() { cat "$@" | sed -n 's/^time per rank: .*(\([0-9]*\) steps.*/\1/p' | awk '{ s += $1 } END { print s }'; }
# col CSV EPOCH NAME: column NAME of the row of EPOCH
col() { awk -F, -v e="$2" -v n="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } $1 == e { print $c }' "$1" 2>/dev/null; }
{
    echo "| seed | 64 throughout: test_acc | 48-63 lost at 3, 16 back at 6: test_acc | difference (points) | at epoch 6: 64 / changed | steps per worker: 64 / changed | plain resume start-up (CPU) | drop: repair + start-up (CPU) | join: repair --add + start-up (CPU) |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    for s in $SEEDS; do
        a=$(acc "$OUT/base-s$s.out"); b=$(acc "$OUT/change-s$s.out")
        awk -v s="$s" -v a="$a" -v b="$b" -v p="$(su "$OUT/plain-s$s.out")" -v d="$(su "$OUT/change-s$s.drop.out")" \
            -v j="$(su "$OUT/change-s$s.out")" \
            -v a6="$(col "$OUT/base-s$s.csv" 6 test_acc)" -v b6="$(col "$OUT/change-s$s.csv" 6 test_acc)" \
            -v sa="$(steps "$OUT/base-s$s.out")" \
            -v sb="$(steps "$OUT/change-s$s.part1.out" "$OUT/change-s$s.drop.out" "$OUT/change-s$s.out")" -v rr="$(cut -d' ' -f2 "$OUT/change-s$s.times")" -v ra="$(cut -d' ' -f4 "$OUT/change-s$s.times")" \
            'function pc(x) { return x == "" ? "-" : sprintf("%.2f%%", 100 * x) }
            BEGIN { printf "| %s | %.2f%% | %.2f%% | %+.2f | %s / %s | %d / %d | %s | %.2f s + %s | %.2f s + %s |\n", s, 100 * a, 100 * b, 100 * (b - a), pc(a6), pc(b6), sa, sb, p, rr, d, ra, j }'
    done
} >"$OUT/summary.md"
cat "$OUT/summary.md"
[ -s "$OUT/only48-s$(echo $SEEDS | cut -d' ' -f1).out" ] || exit 0
{
    echo "| seed | 64 throughout | lost at 3, back at 6 | lost at 3, not back (droponly) | 48 from the start (only48) | steps per worker: 64 / changed / droponly / only48 |"
    echo "| --- | --- | --- | --- | --- | --- |"
    for s in $SEEDS; do
        awk -v s="$s" -v a="$(acc "$OUT/base-s$s.out")" -v b="$(acc "$OUT/change-s$s.out")" \
            -v c="$(acc "$OUT/droponly-s$s.out")" -v d="$(acc "$OUT/only48-s$s.out")" \
            -v sa="$(steps "$OUT/base-s$s.out")" \
            -v sb="$(steps "$OUT/change-s$s.part1.out" "$OUT/change-s$s.drop.out" "$OUT/change-s$s.out")" \
            -v sc="$(( $(steps "$OUT/change-s$s.part1.out") + $(steps "$OUT/droponly-s$s.out") ))" -v sd="$(steps "$OUT/only48-s$s.out")" \
            'BEGIN { printf "| %s | %.2f%% | %.2f%% (%+.2f) | %.2f%% (%+.2f) | %.2f%% (%+.2f) | %d / %d / %d / %d |\n", s, 100 * a, 100 * b, 100 * (b - a), 100 * c, 100 * (c - a), 100 * d, 100 * (d - a), sa, sb, sc, sd }'
    done
} >"$OUT/control.md"
cat "$OUT/control.md"

#!/bin/sh
# scripts/experiments/algorithms.sh: the decentralized algorithms of --algorithm
# (dpsgd, d2, gt, qgm) against all-reduce on label-skewed shards, and the
# table of docs/train/algorithms.md.
#
#   scripts/experiments/algorithms.sh [OUT]  # the measured grid (see below),
#                                         # into OUT (default results-algo)
#   ALGOS=d2 SEEDS=1 LR_d2=0.1 scripts/experiments/algorithms.sh  # one probe run
#   SUMMARY_ONLY=1 scripts/experiments/algorithms.sh  # redraw the tables from OUT
#
# Every run: Fashion-MNIST, LeNet, WORKERS workers (64), PARTITION
# (dirichlet:0.1), batch 32, momentum 0.9, weight decay 5e-4, cosine decay
# over EPOCHS (8), NP MPI ranks (2), the learned graph `topogen -n WORKERS
# -d 4 --seed 1` with Laplacian weights, local models evaluated on the
# first 200 test images. Algorithm A runs at learning rate LR_A (default
# 0.05) on SEEDS; run NAME = A-lrLR-sSEED. Runs already complete
# (OUT/runs/NAME.done) are skipped, so the script resumes. Tables: every
# (algorithm, lr) run on PROBE_SEED (1), then the measured grid; each row:
# final test accuracy of the average model (mean
# ± std over seeds, and per seed), epochs to 80% and 85% (mean over the
# seeds that got there; the CSV's epoch-0 row is skipped), gossip kB per
# step per rank, and the consensus distance mean_i ||x_i - xbar||^2 after
# epoch 1 and at the end. Columns are found by the CSV header's names.
#
#   EPOCHS=16 scripts/experiments/algorithms.sh data/results/algorithms-16
set -eu

. "$(dirname "$0")/../lib/common.sh"
script_out algorithms results-algo "$@"
BIN=${BIN:-$TREE_BIN}
NP=${NP:-2}
WORKERS=${WORKERS:-64}
PARTITION=${PARTITION:-dirichlet:0.1}
EPOCHS=${EPOCHS:-8}
SEEDS=${SEEDS:-"1 2 3"}
ALGOS=${ALGOS:-"allreduce dpsgd d2 gt qgm"}
PROBE_SEED=${PROBE_SEED:-1}
SUMMARY_ONLY=${SUMMARY_ONLY:-0}
TRAIN_ARGS=${TRAIN_ARGS:-"--local-eval 200"}

mkdir -p "$OUT/runs" "$OUT/logs"
TOPO="$OUT/learned-n$WORKERS.txt"

lr_of() { # algorithm -> its learning rate (LR_d2=0.1 etc.)
    eval "echo \${LR_$1:-0.05}"
}

run() { # name seed lr algorithm
    name=$1; seed=$2; lr=$3; alg=$4
    [ -e "$OUT/runs/$name.done" ] && { echo "$name: done already"; return 0; }
    if [ "$alg" = allreduce ]; then
        set -- --mode allreduce --workers "$WORKERS"
    else
        set -- --topology "$TOPO" --algorithm "$alg"
    fi
    start=$(date +%s)
    printf '%s ... ' "$name"
    # shellcheck disable=SC2086
    if OPENBLAS_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe \
           --bind-to none -np "$NP" "$BIN/dpsgd-train" --dataset fashion-mnist \
           --model lenet --epochs "$EPOCHS" --batch 32 --lr "$lr" \
           --momentum 0.9 --partition "$PARTITION" --seed "$seed" \
           --log "$OUT/runs/$name.csv" --quiet $TRAIN_ARGS "$@" \
           > "$OUT/logs/$name.log" 2>&1; then
        : > "$OUT/runs/$name.done"
        echo "test_acc=$(tail -n 1 "$OUT/runs/$name.csv" | cut -d, -f5)" \
             "in $(( $(date +%s) - start ))s"
    else
        echo "FAILED; see $OUT/logs/$name.log"
        tail -n 3 "$OUT/logs/$name.log" >&2
        exit 1
    fi
}

# The table of one group of runs: lines "label file..." on stdin.
table() {
    echo "| algorithm | lr | runs | test acc (mean ± std) | per seed | epochs to 80% | epochs to 85% | kB/step/rank | consensus ep 1 | consensus end |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    while read -r label lr files; do
        # shellcheck disable=SC2086
        awk -F, -v label="$label" -v lr="$lr" '
        FNR == 1 { nf++; r80[nf] = r85[nf] = ""; cons1[nf] = ""
                   for (k = 1; k <= NF; k++) col[$k] = k; next }
        { ep = $col["epoch"]; a = $col["test_acc"]; c = $col["consensus"]
          if (ep == 0) next            # the initial model (epoch-0 row)
          acc[nf] = a; cons_end[nf] = c
          if (cons1[nf] == "") cons1[nf] = c
          if (r80[nf] == "" && a >= 0.80) r80[nf] = ep
          if (r85[nf] == "" && a >= 0.85) r85[nf] = ep }
        END {
          s = ss = 0; per = ""
          for (i = 1; i <= nf; i++) {
            s += acc[i]; ss += acc[i] * acc[i]
            per = per (i > 1 ? ", " : "") sprintf("%.2f", 100 * acc[i]) }
          m = s / nf; sd = nf > 1 ? sqrt((ss - nf * m * m) / (nf - 1)) : 0
          e80 = e85 = ""; k80 = k85 = 0; t80 = t85 = 0
          for (i = 1; i <= nf; i++) {
            if (r80[i] != "") { k80++; t80 += r80[i] }
            if (r85[i] != "") { k85++; t85 += r85[i] } }
          e80 = k80 ? sprintf("%.2f (%d of %d)", t80 / k80, k80, nf) : "never"
          e85 = k85 ? sprintf("%.2f (%d of %d)", t85 / k85, k85, nf) : "never"
          c1 = ce = 0; for (i = 1; i <= nf; i++) { c1 += cons1[i]; ce += cons_end[i] }
          printf "| %s | %s | %d | %.2f%% ± %.2f | %s | %s | %s | KB | %.3g | %.3g |\n",
                 label, lr, nf, 100 * m, 100 * sd, per, e80, e85, c1 / nf, ce / nf
        }' $files | {
            read -r line
            first=$(echo "$files" | awk '{print $1}')
            log="$OUT/logs/$(basename "$first" .csv).log"
            kb=$(sed -n 's/.*steps, \([0-9.]*\) kB sent per step.*/\1/p' "$log" | tail -n 1)
            echo "$line" | sed "s/| KB |/| ${kb:-0} |/"
        }
    done
}

if [ "$SUMMARY_ONLY" != 1 ]; then
    for b in topogen dpsgd-train; do
        [ -x "$BIN/$b" ] || die "$BIN/$b missing: run make first"
    done
    command -v mpirun >/dev/null 2>&1 || die "mpirun not found"
    if [ ! -s "$TOPO" ]; then
        "$BIN/topogen" -n "$WORKERS" -d 4 --seed 1 --quiet -o "$TOPO" \
            || die "topogen failed"
    fi
    for s in $SEEDS; do for a in $ALGOS; do
        lr=$(lr_of "$a")
        run "$a-lr$lr-s$s" "$s" "$lr" "$a"
    done; done
fi

echo "## every learning rate run on seed $PROBE_SEED"
for a in $ALGOS; do
    for d in "$OUT"/runs/"$a"-lr*-s"$PROBE_SEED".done; do
        [ -e "$d" ] || continue
        lr=${d##*/"$a"-lr}; lr=${lr%-s"$PROBE_SEED".done}
        echo "$a $lr ${d%.done}.csv"
    done
done | table
echo
echo "## measured (seeds $SEEDS)"
for a in $ALGOS; do
    lr=$(lr_of "$a"); files=""
    for s in $SEEDS; do
        [ -e "$OUT/runs/$a-lr$lr-s$s.done" ] && files="$files $OUT/runs/$a-lr$lr-s$s.csv"
    done
    [ -n "$files" ] && echo "$a $lr$files"
done | table

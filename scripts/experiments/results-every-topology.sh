#!/bin/sh
# results.sh: the experiment of issue 15 as one resumable script: D-PSGD on
# Fashion-MNIST with LeNet at 16, 64 and 256 workers, iid and dirichlet:0.1
# shards, every topology setting this build has, against all-reduce; then
# the consensus-only simulation, the plots and the summary tables.
#
#   scripts/experiments/results.sh [OUT]  (default OUT=results; rerun to resume)
#   SMOKE=1 scripts/experiments/results.sh OUT  the same pipeline on the synthetic set,
#                                   4 and 8 workers, 2 epochs (a few min)
#   WORKERS="16 64" EPOCHS=12 ...   override (NP, SEEDS_MAIN, SEEDS_OTHER,
#                                   GLOBAL_BATCH, TRAIN_ARGS too)
#
# Steps: the sweeps (below), the consensus-only simulation, the modelled
# wall-clock (scripts/reports/modelled.sh: compute time per step measured with
# dpsgd-train --bench, plus each topology's modelled round on the
# datacenter and wan presets, every worker on its own host; all-reduce as
# a ring), then the plots and tables. Every step keeps what it finished.
#
# Layout: one sweep directory per worker count, OUT/n16, OUT/n64, OUT/n256
# (the per-worker batch differs with n, and a sweep directory holds one
# batch; see scripts/experiments/sweep.sh, "Sweep run identity"). Each has its runs,
# topology files, plots and summary.md; OUT/consensus-sim holds the
# simulation. A stopped run resumes: finished runs are skipped.
#
# Settings. Main comparison, 3 seeds: learned graph + Laplacian weights,
# ring lattice + Metropolis-Hastings (the baseline of the paper), random
# regular graph + Laplacian weights, all-reduce. One seed (marked "1 seed"
# in every legend and table): exponential graph + Laplacian weights, and,
# when this build's topogen has them, learned + FDLA weights and the
# time-varying one-peer exponential and Base-(k+1) graphs (their own
# weights: setting "KIND:own"); a missing one is announced by a "not
# available yet" line and skipped. The best non-IID algorithm, ALGO (default d2: D^2, the
# best measured in docs/train/algorithms.md; gt or qgm; none skips
# it), runs on the learned graph (ALGO_SEEDS, default 1; OUT/nN-ALGO).
#
# Batch per worker: GLOBAL_BATCH / n (default 1024: 64 at 16 workers, 16
# at 64, 4 at 256). Every worker count then takes the same number of
# steps per epoch (58) on the same global batch, so the runs differ only
# in how decentralized they are; a fixed per-worker batch of 32 would give
# 256 workers 7 steps per epoch (73 in 10 epochs: nowhere near converged),
# and a fixed batch small enough for 256 workers would make 16 workers
# take 16x more, slower small-batch steps.
#
# Schedule: lr 0.05 (momentum 0.9) for every setting, one epoch of linear
# warm-up from lr/10, then step decay by 10x every 3.5 epochs (at epochs
# 4.5 and 8), 12 epochs. Why: the issue asks that all-reduce has
# converged (its accuracy moves by less than 0.2 points over the last
# quarter, epochs 9-12). A cosine schedule over 10 epochs left it moving
# 0.35-0.60 points there (the previous committed experiment), and pilots
# of 16 cosine epochs still moved 0.37; with the last decay at epoch 8
# the last quarter runs at lr 0.0005 and all-reduce sits on its plateau
# (pilots: 0.05-0.10 points). A higher lr or a smaller global batch
# would reach the plateau sooner but diverged (NaN) for the ring lattice
# at 256 workers on dirichlet:0.1 shards (lr 0.1 at batch 4, lr 0.05 at
# batch 2). The warm-up keeps an unlucky initial model (seed 2) from
# losing 4 points for good (pilot: 84.1% without, 88.5% with).
#
# What was cut to fit about 100 minutes of both cores: 12 epochs, local
# models evaluated on 100 test images (256 workers x 1000 images per
# evaluation would cost more than the training), 3 seeds only for the
# main comparison, the other settings and D^2 at 1 seed. Budget:
# the previous 10-epoch run of the same grid took 6,508 s at load 5-18;
# 12 epochs on the idle machine are about 80 minutes.
# The first n256 run's line prints its seconds: lower EPOCHS or drop
# seeds if it runs long.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/../lib/common.sh" # TREE_BIN, TREE_OUT
case "${1:-}" in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0;; esac
OUT=${1:-${OUT:-$TREE_OUT}}
BIN=${BIN:-$TREE_BIN}
export BIN
smoke=${SMOKE:-0}
export SMOKE=0 # sweep.sh's own smoke defaults must not apply
if [ "$smoke" = 1 ]; then
    WORKERS=${WORKERS:-"4 8"}
    EPOCHS=${EPOCHS:-2}
    GLOBAL_BATCH=${GLOBAL_BATCH:-64}
    DATASET=synthetic
    TRAIN_ARGS=${TRAIN_ARGS:-"--synthetic-train 1024 --synthetic-test 128 --local-eval 32"}
    DEGREE=${DEGREE:-3}
    SEEDS_MAIN=${SEEDS_MAIN:-"1 2"}
    CONS_NS=${CONS_NS:-"8 16"}
else
    WORKERS=${WORKERS:-"16 64 256"}
    EPOCHS=${EPOCHS:-12}
    GLOBAL_BATCH=${GLOBAL_BATCH:-1024}
    DATASET=${DATASET:-fashion-mnist}
    TRAIN_ARGS=${TRAIN_ARGS:-"--local-eval 100 --warmup 1 --schedule step --step-epochs 3.5"}
    DEGREE=${DEGREE:-4}
    SEEDS_MAIN=${SEEDS_MAIN:-"1 2 3"}
    CONS_NS=${CONS_NS:-"16 64 256"}
fi
SEEDS_OTHER=${SEEDS_OTHER:-1}
export EPOCHS DATASET TRAIN_ARGS DEGREE
export PARTITIONS=${PARTITIONS:-"iid dirichlet:0.1"}
MAIN="learned:laplacian rrl:mh random:laplacian"
OTHER="exponential:laplacian"
need_programs topogen dpsgd-train
case "$GLOBAL_BATCH" in ''|*[!0-9]*) die "GLOBAL_BATCH must be a positive integer, got '$GLOBAL_BATCH'";; esac

# Settings of the issue this build cannot run yet: say so, never fake them.
tg_help=$("$BIN/topogen" --help 2>&1 || true)
dt_help=$("$BIN/dpsgd-train" --help 2>&1 || true)
if echo "$tg_help" | grep -q fdla; then OTHER="$OTHER learned:fdla"
else echo "results: learned + FDLA weights: not available yet (topogen has no --weights fdla); skipped"; fi
if echo "$tg_help" | grep -q 'one-peer-exp'; then OTHER="$OTHER one-peer-exp:own"
else echo "results: one-peer exponential graph: not available yet (topogen has no --kind one-peer-exp); skipped"; fi
if echo "$tg_help" | grep -qE '(^|[ ,])base \('; then OTHER="$OTHER base:own"
else echo "results: Base-(k+1) graph: not available yet (topogen has no --kind base); skipped"; fi
# Data-aware topologies (issue 22): DATAAWARE lists kind:weights pairs
# that sweep.sh learns per (partition, seed, n) from the partition's class
# counts (dpsgd-train --write-partition, kept beside the topology and
# named in each run's record): the data-aware search (aware, d = DEGREE,
# HETERO_WEIGHT) and symmetric STL-FW (budget DEGREE). DATAAWARE="" skips.
DATAAWARE=${DATAAWARE-"aware:mh stl-fw-sym:own"}
if [ -n "$DATAAWARE" ] && ! echo "$tg_help" | grep -q -- '--labels'; then
    echo "results: data-aware topologies: not available yet (topogen has no --labels); skipped"
    DATAAWARE=""
fi
OTHER="$OTHER $DATAAWARE"
# The best non-IID algorithm (issue 13) on the learned graph: ALGO names
# it; the default d2 is the best measured (docs/train/algorithms.md:
# 64 workers, dirichlet:0.1, D^2 closes 64% of the gap to all-reduce at
# the same bytes); ALGO=none skips it. Its runs go to OUT/nN-ALGO, a
# sweep directory of their own, since the algorithm is a sweep-wide
# setting (TRAIN_ARGS).
ALGO=${ALGO:-d2}
[ "$ALGO" != none ] || ALGO=""
case "$ALGO" in ''|d2|gt|qgm) ;; *) die "ALGO must be d2, gt, qgm or none, got '$ALGO'";; esac
ALGO_SEEDS=${ALGO_SEEDS:-1}
if ! echo "$dt_help" | grep -q -- '--algorithm'; then
    echo "results: best non-IID algorithm on the learned graph: not available yet (dpsgd-train has no --algorithm); skipped"
    ALGO=""
elif [ -z "$ALGO" ]; then
    echo "results: best non-IID algorithm on the learned graph: ALGO=none; skipped"
fi

# Seed 1 of everything first, so that a stopped run still covers every
# setting; then the other seeds of the main comparison. Smallest n first.
for n in $WORKERS; do
    b=$((GLOBAL_BATCH / n))
    [ "$b" -ge 1 ] || die "GLOBAL_BATCH $GLOBAL_BATCH gives no batch for $n workers"
    first=${SEEDS_MAIN%% *}
    echo "results: $n workers, batch $b per worker, seed $first"
    OUT="$OUT/n$n" WORKERS=$n BATCH=$b SEEDS="$first" SETTINGS="$MAIN $OTHER" \
        ALLREDUCE=1 sh "$here/sweep.sh"
done
for n in $WORKERS; do
    rest=${SEEDS_MAIN#* }
    [ "$rest" != "$SEEDS_MAIN" ] || continue
    echo "results: $n workers, seeds $rest of the main comparison"
    OUT="$OUT/n$n" WORKERS=$n BATCH=$((GLOBAL_BATCH / n)) SEEDS="$rest" \
        SETTINGS="$MAIN" ALLREDUCE=1 sh "$here/sweep.sh"
done
[ "$SEEDS_OTHER" = 1 ] || for n in $WORKERS; do
    OUT="$OUT/n$n" WORKERS=$n BATCH=$((GLOBAL_BATCH / n)) \
        SEEDS="$(echo "$SEEDS_OTHER" | cut -d' ' -f2-)" SETTINGS="$OTHER" \
        ALLREDUCE=0 sh "$here/sweep.sh"
done
for n in $WORKERS; do
    [ -n "$ALGO" ] || break
    echo "results: $n workers, --algorithm $ALGO on the learned graph, seeds $ALGO_SEEDS"
    OUT="$OUT/n$n-$ALGO" WORKERS=$n BATCH=$((GLOBAL_BATCH / n)) SEEDS="$ALGO_SEEDS" \
        SETTINGS="learned:laplacian" ALLREDUCE=0 TRAIN_ARGS="$TRAIN_ARGS --algorithm $ALGO" \
        sh "$here/sweep.sh"
done
echo "results: consensus-only simulation"
NS="$CONS_NS" DEGREE="$DEGREE" sh "$here/consensus.sh" "$OUT/consensus-sim"
# Modelled wall-clock (scripts/reports/modelled.sh): the compute time per step of
# each batch measured now, one after the other, and each topology's round
# on the datacenter and wan presets, every worker on its own host; kept
# files are reused, so a resumed or committed OUT keeps its measurements.
dirs=""
for n in $WORKERS; do
    dirs="$dirs $OUT/n$n"
    [ -z "$ALGO" ] || dirs="$dirs $OUT/n$n-$ALGO"
done
echo "results: modelled wall-clock"
sh "$here/../reports/modelled.sh" $dirs
# plots: the ALGO runs join each worker count's plots (plot.sh EXTRA)
for n in $WORKERS; do
    if [ -n "$ALGO" ] && [ -d "$OUT/n$n-$ALGO/runs" ]; then
        sh "$here/../reports/plot.sh" --into "$OUT/n$n/plots" "$OUT/n$n" "$OUT/n$n-$ALGO" > /dev/null
    else
        sh "$here/../reports/plot.sh" --into "$OUT/n$n/plots" "$OUT/n$n" > /dev/null
    fi
done
for d in $dirs; do
    TARGETS="${TARGETS:-0.80 0.85 0.88}" sh "$here/../reports/summary.sh" "$d" > /dev/null
done
# OUT/summary.md: every folder's rows under one header, then the notes
{
    echo "# Issue 15 results: all worker counts ($OUT/n*/summary.md)"
    echo
    set -- $dirs
    sed -n '1,2p' "$1/summary.md"
    for d in $dirs; do grep '^| [0-9]' "$d/summary.md"; done
    echo
    sed -n '/^Last-quarter range/p' "$1/summary.md"
    for d in $dirs; do grep '^- [0-9]* workers, all-reduce' "$d/summary.md" || true; done
    echo
    sed -n '/^Modelled seconds/p' "$1/summary.md"
} > "$OUT/summary.md.tmp"
mv "$OUT/summary.md.tmp" "$OUT/summary.md"
echo "results: plots in $OUT/n*/plots and $OUT/consensus-sim/plots, tables in $OUT/n*/summary.md and $OUT/summary.md"

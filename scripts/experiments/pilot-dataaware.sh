#!/bin/sh
# pilot-dataaware.sh: the first training pilot of issue 22 (topologies for
# label-skewed data), as one resumable script over scripts/experiments/sweep.sh.
#
#   scripts/experiments/pilot-dataaware.sh OUT  run (rerun the same line to resume)
#   SMOKE=1 scripts/experiments/pilot-dataaware.sh OUT  the same pipeline, tiny: the
#                                         synthetic set, 8 and 20 workers,
#                                         1 epoch, 1 seed (about a minute)
#   scripts/experiments/pilot-dataaware.sh --help
#
# Part A, OUT/n64-dirichlet: 64 workers, dirichlet:0.1, seeds 1 2 3, the
# results.sh schedule (12 epochs, global batch 1024 = 16 per worker, lr
# 0.05, warm-up 1 epoch, step decay every 3.5): D-PSGD on symmetric
# STL-FW (budget 4) and on the data-aware learned 4-regular graph (MH
# weights, HETERO_WEIGHT 10), against learned + Laplacian and random
# 4-regular + Laplacian, and all-reduce. Each data-aware graph is learned
# from the very partition its run trains on (sweep.sh writes the counts
# file with dpsgd-train --epochs 0 --write-partition per partition and
# seed, beside the topology). The directed STL-FW graph is not trained:
# dpsgd-train refuses directed files until its gossip knows arcs.
# Part B, OUT/n100-shards1: 100 workers, shards:1 (one class per worker),
# seeds SEEDS_B (default 1), global batch 1000 (10 per worker): D-Cliques
# (small-world links, MH weights) against the learned 4-regular graph and
# all-reduce, in OUT/n100-shards1; D-Cliques with --algorithm clique-avg
# (gradients averaged in the clique) in OUT/n100-shards1-cliqueavg (the
# algorithm is a sweep-wide setting, so a sweep directory of its own).
# Cost: part A is 15 runs of 64 workers and part B 4 runs of 100 workers
# (about 40 + 15 minutes of both cores on an idle machine, estimated from
# data/results' 64-worker runs). Then sweep.sh's plots and summary.md in
# each part's directory; the accuracy table is OUT/*/summary.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "${1:-}" in -h|--help|'') sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'
    [ -n "${1:-}" ] && exit 0; echo "pilot-dataaware: give OUT" >&2; exit 2;; esac
OUT=$1
BIN=${BIN:-$root/bin}
export BIN
smoke=${SMOKE:-0}
export SMOKE=0 # sweep.sh's own smoke defaults must not apply
if [ "$smoke" = 1 ]; then
    NA=8 NB=20 EPOCHS=1 SEEDS_A=${SEEDS_A:-1} SEEDS_B=${SEEDS_B:-1}
    GLOBAL_BATCH=80 DEGREE=3 DATASET=synthetic
    TRAIN_ARGS="--synthetic-train 2000 --synthetic-test 128 --local-eval 32"
else
    NA=64 NB=100 EPOCHS=${EPOCHS:-12} SEEDS_A=${SEEDS_A:-"1 2 3"}
    SEEDS_B=${SEEDS_B:-1} GLOBAL_BATCH=${GLOBAL_BATCH:-1024} DEGREE=4
    DATASET=fashion-mnist
    TRAIN_ARGS=${TRAIN_ARGS:-"--local-eval 100 --warmup 1 --schedule step --step-epochs 3.5"}
fi
[ -x "$BIN/topogen" ] && [ -x "$BIN/dpsgd-train" ] || { echo "pilot-dataaware: $BIN/topogen or dpsgd-train missing: run 'make' first" >&2; exit 1; }
"$BIN/topogen" --help | grep -q -- '--labels' || { echo "pilot-dataaware: this topogen has no --labels" >&2; exit 1; }
export EPOCHS DATASET TRAIN_ARGS DEGREE
HETERO_WEIGHT=${HETERO_WEIGHT:-10}
export HETERO_WEIGHT
echo "pilot-dataaware: part A: $NA workers, dirichlet:0.1, seeds $SEEDS_A"
OUT="$OUT/n$NA-dirichlet" WORKERS=$NA BATCH=$((GLOBAL_BATCH / NA)) SEEDS="$SEEDS_A" \
    PARTITIONS="dirichlet:0.1" ALLREDUCE=1 \
    SETTINGS="stl-fw-sym:own aware:mh learned:laplacian random:laplacian" \
    sh "$here/sweep.sh"
bb=$((GLOBAL_BATCH / NB))
[ "$smoke" = 1 ] || bb=10
echo "pilot-dataaware: part B: $NB workers, shards:1, seeds $SEEDS_B"
OUT="$OUT/n$NB-shards1" WORKERS=$NB BATCH=$bb SEEDS="$SEEDS_B" \
    PARTITIONS="shards:1" ALLREDUCE=1 SETTINGS="dcliques:mh learned:laplacian" \
    sh "$here/sweep.sh"
echo "pilot-dataaware: part B: D-Cliques with --algorithm clique-avg"
OUT="$OUT/n$NB-shards1-cliqueavg" WORKERS=$NB BATCH=$bb SEEDS="$SEEDS_B" \
    PARTITIONS="shards:1" ALLREDUCE=0 SETTINGS="dcliques:mh" \
    TRAIN_ARGS="$TRAIN_ARGS --algorithm clique-avg" sh "$here/sweep.sh"
echo "pilot-dataaware: done; tables in $OUT/n$NA-dirichlet/summary.md, $OUT/n$NB-shards1/summary.md and $OUT/n$NB-shards1-cliqueavg/summary.md"

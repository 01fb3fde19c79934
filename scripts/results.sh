#!/bin/sh
# results.sh: the experiment behind the README's Results section, end to
# end: the main comparison (learned topology + Laplacian weights vs the
# regular ring lattice + Metropolis-Hastings weights vs all-reduce, 16 and
# 64 workers, iid and dirichlet:0.1 shards, 3 seeds), the secondary
# settings (learned + mh, rrl + laplacian, random and exponential graphs
# with Laplacian weights; 1 seed), the consensus-only simulation, the plots
# and the summary table. Resumable: rerun it after a stop.
#
#   scripts/results.sh [OUT]       (default OUT=results; ~60 min on 2 cores)
#   EPOCHS=8 NP=2 ...              override the sweep's settings
# Then copy OUT/plots/*.png and OUT/summary.md where you want them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-${OUT:-$here/../results}}
export OUT
export EPOCHS=${EPOCHS:-8}
export WORKERS=${WORKERS:-"16 64"}
export PARTITIONS=${PARTITIONS:-"iid dirichlet:0.1"}
export TRAIN_ARGS=${TRAIN_ARGS:-"--local-eval 200"}

# Seed 1 of everything first, so that a stopped run still covers every
# setting; then seeds 2 and 3 of the main comparison.
MAIN="learned:laplacian rrl:mh"
SECONDARY="learned:mh rrl:laplacian random:laplacian exponential:laplacian"
echo "results: main comparison, seed 1"
SEEDS="1" SETTINGS="$MAIN" ALLREDUCE=1 sh "$here/sweep.sh"
echo "results: secondary settings, seed 1"
SEEDS="1" SETTINGS="$SECONDARY" ALLREDUCE=0 sh "$here/sweep.sh"
echo "results: main comparison, seeds 2 and 3"
SEEDS="2 3" SETTINGS="$MAIN" ALLREDUCE=1 sh "$here/sweep.sh"
echo "results: consensus-only simulation"
sh "$here/consensus.sh" "$OUT"
sh "$here/plot.sh" "$OUT"
TARGETS="0.80 0.85 0.88" sh "$here/summary.sh" "$OUT" > /dev/null
echo "results: plots in $OUT/plots, table in $OUT/summary.md"

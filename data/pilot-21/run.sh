#!/bin/sh
# run.sh: re-creates the issue 21/22 pilot of data/pilot-21 (README.md
# beside this file) into a folder of your choosing, with scripts/experiments/sweep.sh
# and the issue-15 schedule; resumable (finished runs are skipped).
#
#   sh data/pilot-21/run.sh OUT     (about 80 runs; 30-60 s each on an idle
#                                    2-core machine)
#   sh data/pilot-21/run.sh --help
#
# OUT/n64 gets the same sweep-wide settings as data/results/issue-15/n64, so
# `scripts/reports/measure-correlation.py data/results/issue-15/n64 OUT/n64` gives the
# tables of correlation.md. Two settings are not plain `topogen --kind K
# --weights W` and are made first, as the pilot made them: learned:neff
# (`--objective neff --weights neff`) and perm:learned (`--kind learned
# --directed --objective neff`).
set -eu
case "${1:-}" in
-h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0;;
''|-*) echo "run.sh: give the output folder (see --help)" >&2; exit 2;;
esac
root=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1/n64
BIN=${BIN:-$root/bin}
export BIN
mkdir -p "$OUT/topo"
[ -s "$OUT/topo/n64-learned-neff.txt" ] || "$BIN/topogen" -n 64 -d 4 \
    --objective neff --weights neff --seed 1 -q -o "$OUT/topo/n64-learned-neff.txt"
[ -s "$OUT/topo/n64-perm-learned.txt" ] || "$BIN/topogen" -n 64 -d 4 \
    --kind learned --directed --objective neff --seed 1 -q \
    -o "$OUT/topo/n64-perm-learned.txt"
export EPOCHS=12 DATASET=fashion-mnist LR=0.05 MOMENTUM=0.9 DEGREE=4 \
    TOPO_SEED=1 WORKERS=64 BATCH=16 ALLREDUCE=0 \
    TRAIN_ARGS="--local-eval 100 --warmup 1 --schedule step --step-epochs 3.5"
NEW="learned:neff perm:learned perm:own epidemic:own exp-directed:own aware:laplacian stl-fw:own"
PARTITIONS="dirichlet:0.1 iid" SEEDS=1 \
    SETTINGS="learned:mh random:mh ring:mh torus:mh hypercube:laplacian random:neff $NEW" \
    sh "$root/scripts/experiments/sweep.sh" "$OUT"
PARTITIONS="dirichlet:0.1" SEEDS="2 3" SETTINGS="$NEW" \
    sh "$root/scripts/experiments/sweep.sh" "$OUT"

#!/bin/sh
# demo.sh: `make demo`, the main job end to end: learn a 16-node degree-4
# topology with topogen, show how well it mixes next to the ring lattice
# and a random regular graph, then train LeNet with D-PSGD for one epoch of
# Fashion-MNIST under mpirun (one rank per core, 16 workers spread over
# them) on the learned graph and, with the same seed and flags, on the
# random regular graph (the baseline), and print both results side by
# side. BIN names the folder of the programs; OUT (default build/demo)
# receives the topologies, the CSV logs and the JSON summaries.
#
#   scripts/demo.sh [OUT]
set -eu
. "$(dirname "$0")/lib/common.sh"
script_out demo build/demo "$@"
BIN=${BIN:-bin}
NP=${NP:-$(nproc)}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1

echo "demo: 1. learn a 16-node, degree-4 topology (simulated annealing on lambda2/lambdan)"
"$BIN/topogen" -n 16 -d 4 --seed 1 -o "$OUT/g16.txt"
"$BIN/topogen" -n 16 -d 4 --kind random --seed 1 -o "$OUT/random16.txt" --quiet
"$BIN/topogen" -n 16 -d 4 --kind rrl --weights mh -o "$OUT/rrl16-mh.txt" --quiet
echo "demo:    learned graph, Laplacian weights:"
"$BIN/topogen" eval "$OUT/g16.txt" | sed 's/^/         /'
echo "demo:    random regular graph, Laplacian weights (the baseline trained below):"
"$BIN/topogen" eval "$OUT/random16.txt" | sed 's/^/         /'
echo "demo:    ring lattice, Metropolis-Hastings weights (the usual choice):"
"$BIN/topogen" eval "$OUT/rrl16-mh.txt" | sed 's/^/         /'

# train NAME FILE: one epoch of D-PSGD on FILE, same seed and flags for
# every graph, so the two runs differ by the graph alone.
train() {
    echo "demo: 2. D-PSGD on the $1 graph: 16 workers on $NP MPI rank(s), LeNet, 1 epoch of Fashion-MNIST"
    mpirun --oversubscribe --bind-to none -np "$NP" "$BIN/dpsgd-train" \
        --topology "$2" --epochs 1 --batch 32 --lr 0.05 --seed 1 \
        --momentum 0.9 --log "$OUT/train-$1.csv" --summary "$OUT/train-$1.json" \
        | tee "$OUT/train-$1.out"
}
train learned "$OUT/g16.txt"
train random "$OUT/random16.txt"

# row NAME: the final line's figures of that run
row() {
    awk -v name="$1" '/^final:/ {
        for (i = 1; i < NF; i++) f[$i] = $(i + 1)
        printf "  %-16s %8.2f %10.2f %12s %8s\n", name, 100 * f["test_acc"],
               100 * f["local_acc"], f["consensus"], f["slem"] }' "$OUT/train-$1.out"
}
echo
echo "demo: 3. the same run on two graphs (1 epoch, 1 seed, iid shards, 4 models sent per worker per step on both):"
printf "  %-16s %8s %10s %12s %8s\n" graph "avg model" "workers" consensus slem
row learned
row random
echo "demo:    test accuracy (%) of the workers' average model and mean of the workers' own models;"
echo "demo:    consensus: mean squared distance of the workers to their average. One seed: a comparison"
echo "demo:    with seeds and a network model is in README.md's Results; 'topogen plan' ranks schedules."
echo "demo: topologies in $OUT/g16.txt and $OUT/random16.txt, logs in $OUT/train-*.csv"

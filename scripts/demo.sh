#!/bin/sh
# demo.sh: `make demo`, the main job end to end: learn a 16-node degree-4
# topology with topogen, show how well it mixes next to the ring lattice,
# then train LeNet on it with D-PSGD for one epoch of Fashion-MNIST under
# mpirun (one rank per core, 16 workers spread over them), and print the
# result and where the log is. BIN names the folder of the programs; OUT
# (default build/demo) receives the topology and the CSV log.
#
#   scripts/demo.sh [OUT]
set -eu
. "$(dirname "$0")/usage.sh"
script_out demo build/demo "$@"
BIN=${BIN:-bin}
NP=${NP:-$(nproc)}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1

echo "demo: 1. learn a 16-node, degree-4 topology (simulated annealing on lambda2/lambdan)"
"$BIN/topogen" -n 16 -d 4 --seed 1 -o "$OUT/g16.txt"
"$BIN/topogen" -n 16 -d 4 --kind rrl --weights mh -o "$OUT/rrl16-mh.txt" --quiet
echo "demo:    learned graph, Laplacian weights:"
"$BIN/topogen" eval "$OUT/g16.txt" | sed 's/^/         /'
echo "demo:    ring lattice, Metropolis-Hastings weights (the usual choice):"
"$BIN/topogen" eval "$OUT/rrl16-mh.txt" | sed 's/^/         /'

echo "demo: 2. D-PSGD on it: 16 workers on $NP MPI rank(s), LeNet, 1 epoch of Fashion-MNIST"
mpirun --oversubscribe --bind-to none -np "$NP" "$BIN/dpsgd-train" \
    --topology "$OUT/g16.txt" --epochs 1 --batch 32 --lr 0.05 \
    --momentum 0.9 --log "$OUT/train.csv"
echo "demo: topology in $OUT/g16.txt, training log in $OUT/train.csv"

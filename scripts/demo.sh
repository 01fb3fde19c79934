#!/bin/sh
# demo.sh: `make demo`. Trains LeNet for one epoch on Fashion-MNIST as a
# single worker (the settings of issue 3: batch 32, lr 0.01, momentum 0.9)
# and prints the test accuracy. BIN names the folder of the programs.
set -eu
BIN=${BIN:-bin}
OPENBLAS_NUM_THREADS=1
export OPENBLAS_NUM_THREADS
out=$(mktemp "${TMPDIR:-/tmp}/demo.XXXXXX")
trap 'rm -f "$out"' EXIT INT TERM
echo "demo: LeNet, 1 epoch of Fashion-MNIST, batch 32, lr 0.01, momentum 0.9"
"$BIN/dpsgd-train" --model lenet --epochs 1 --batch 32 --lr 0.01 \
    --momentum 0.9 | tee "$out"
acc=$(sed -n 's/^final:.*test_acc \([0-9.]*\).*/\1/p' "$out")
echo "demo: test accuracy after one epoch: $acc (target >= 0.84)"

#!/bin/sh
# bench-gossip.sh: what communication costs on one machine. For 16 and 64
# workers on a learned degree-4 topology, and P = 2 and P = n MPI ranks,
# runs a fixed number of D-PSGD steps of LeNet on Fashion-MNIST and prints
# the time per step split into compute (gradients + updates), in-memory
# gossip (packing and the weighted sums) and MPI gossip (starting the
# exchange and waiting for it), and the bytes each rank sends per step.
# Times are per rank (mean over ranks), so with P > cores they include
# waiting for the CPU.
#
#   scripts/bench-gossip.sh            (about 2-4 minutes on 2 cores)
#   WORKERS="16 64" STEPS=40 NPS="2 n" scripts/bench-gossip.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/usage.sh"
script_help "$@"
root=$(cd "$here/.." && pwd)
BIN=${BIN:-$root/bin}
WORKERS=${WORKERS:-"16 64"}
NPS=${NPS:-"2 n"}
STEPS=${STEPS:-40}
BATCH=${BATCH:-32}
for b in topogen dpsgd-train; do
    [ -x "$BIN/$b" ] || { echo "bench-gossip: $BIN/$b not found: run 'make'" >&2; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-gossip.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

echo "bench-gossip: LeNet, batch $BATCH per worker, $STEPS steps, $(nproc) cores"
printf '%7s %5s %12s %13s %13s %12s %14s\n' workers ranks \
    "compute ms" "mem-gossip ms" "mpi-gossip ms" "step ms" "kB sent/step"
for n in $WORKERS; do
    "$BIN/topogen" -n "$n" -d 4 --seed 1 --quiet -o "$T/g$n.txt"
    for p in $NPS; do
        [ "$p" = n ] && p=$n
        out="$T/run-$n-$p.txt"
        if ! mpirun --oversubscribe --bind-to none -np "$p" "$BIN/dpsgd-train" \
                --topology "$T/g$n.txt" --epochs 1 --batch "$BATCH" \
                --train-limit $((n * BATCH * STEPS)) --local-eval 0 \
                --test-limit 100 --quiet > "$out" 2>&1; then
            echo "bench-gossip: run with $n workers on $p ranks failed:" >&2
            tail -n 5 "$out" >&2
            exit 1
        fi
        sed -n 's/^time per rank: compute \([0-9.]*\) s  gossip in-memory \([0-9.]*\) s  gossip MPI \([0-9.]*\) s .*(\([0-9]*\) steps, \([0-9.]*\) kB sent per step per rank)$/\1 \2 \3 \4 \5/p' "$out" |
        while read -r c m g s kb; do
            awk -v n="$n" -v p="$p" -v c="$c" -v m="$m" -v g="$g" -v s="$s" -v kb="$kb" \
                'BEGIN { printf "%7d %5d %12.2f %13.2f %13.2f %12.2f %14.1f\n", n, p, 1e3*c/s, 1e3*m/s, 1e3*g/s, 1e3*(c+m+g)/s, kb }'
        done
    done
done

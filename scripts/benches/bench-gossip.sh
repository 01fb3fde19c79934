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
# Then, per row: the peak resident memory of the busiest rank and the
# bytes per worker (all ranks' peak RSS over the workers), the start-up
# seconds (entering main to the first step, rank 0) and the CPU seconds
# rank 0's process used by then (without the time it waited for a core),
# the bytes the in-memory gossip streams per step per rank (4 len (2 nsend
# + terms + count)), and a memory-bandwidth reference measured right after
# the run: scripts/benches/bench-memcpy.c ($BIN/bench/bench-memcpy, make bench-build), copying buffers of
# 256 MiB (far beyond the caches) in min(P, cores) processes at once, as
# the ranks share the memory bus; "copy ms" is the time that bandwidth needs
# for the gossip's bytes, "mem/copy" the in-memory gossip time over it
# ("-" when that time rounds to 0: the trainer prints it to 0.01 s).
#
#   scripts/benches/bench-gossip.sh    (about 2-4 minutes on 2 cores)
#   WORKERS="16 64" STEPS=40 NPS="2 n" scripts/benches/bench-gossip.sh
#   SCALE=1 scripts/benches/bench-gossip.sh  (1,024 and 4,096 workers on 2 ranks,
#                                       batch 8, 5 steps, random degree-4
#                                       topology; about 3-5 minutes)
#
# KIND=random uses topogen --kind random instead of the learned graph
# (SCALE's default: learning one at 4,096 nodes takes ~35 s). When
# WORKERS x BATCH x STEPS passes the 60,000 training images, each step is
# an epoch of WORKERS x BATCH images (the evaluation at each epoch's end is
# timed apart and left out).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
script_help "$@"
root=$(cd "$here/../.." && pwd)
BIN=${BIN:-$root/bin}
if [ "${SCALE:-0}" = 1 ]; then
    WORKERS=${WORKERS:-"1024 4096"}
    NPS=${NPS:-2}
    STEPS=${STEPS:-5}
    BATCH=${BATCH:-8}
    KIND=${KIND:-random}
fi
WORKERS=${WORKERS:-"16 64"}
NPS=${NPS:-"2 n"}
STEPS=${STEPS:-40}
BATCH=${BATCH:-32}
KIND=${KIND:-learned}
NTRAIN=60000
for b in topogen dpsgd-train bench/bench-memcpy; do
    [ -x "$BIN/$b" ] || { echo "bench-gossip: $BIN/$b not found: run 'make all bench-build'" >&2; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-gossip.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
cores=$(nproc)

# copy_gbs BYTES NPROC: the mean GB/s of NPROC bench-memcpy processes
# streaming max(BYTES, 512 MiB) bytes each, at the same time.
copy_gbs() {
    b=$1
    [ "$b" -ge 536870912 ] || b=536870912
    k=0
    while [ "$k" -lt "$2" ]; do
        "$BIN/bench/bench-memcpy" "$b" > "$T/copy$k" &
        k=$((k + 1))
    done
    wait
    cat "$T"/copy* | sed -n 's/.*: \([0-9.]*\) GB\/s$/\1/p' |
        awk '{ s += $1; n++ } END { if (n) printf "%.2f\n", s / n }'
    rm -f "$T"/copy*
}

echo "bench-gossip: LeNet, batch $BATCH per worker, $STEPS steps, $KIND degree-4 topology, $cores cores"
printf '%7s %5s %10s %13s %13s %9s %12s %10s %9s %10s %7s %11s %10s %8s %8s\n' \
    workers ranks "compute ms" "mem-gossip ms" "mpi-gossip ms" "step ms" \
    "kB sent/step" "RSS MB/rk" "B/worker" "start-up s" "CPU s" \
    "mem MB/step" "copy GB/s" "copy ms" mem/copy
for n in $WORKERS; do
    case $KIND in
    learned) "$BIN/topogen" -n "$n" -d 4 --seed 1 --quiet -o "$T/g$n.txt" ;;
    # the kinds that fix their degree take no -d
    ring|torus|complete|hypercube|exponential-sym|one-peer-exp|exp-directed)
        "$BIN/topogen" -n "$n" --kind "$KIND" --seed 1 --quiet -o "$T/g$n.txt" ;;
    *) "$BIN/topogen" -n "$n" -d 4 --kind "$KIND" --seed 1 --quiet -o "$T/g$n.txt" ;;
    esac
    if [ $((n * BATCH * STEPS)) -le "$NTRAIN" ]; then
        limit=$((n * BATCH * STEPS)) epochs=1
    else
        limit=$((n * BATCH)) epochs=$STEPS
    fi
    for p in $NPS; do
        [ "$p" = n ] && p=$n
        out="$T/run-$n-$p.txt"
        if ! mpirun --oversubscribe --bind-to none -np "$p" "$BIN/dpsgd-train" \
                --topology "$T/g$n.txt" --epochs "$epochs" --batch "$BATCH" \
                --train-limit "$limit" --local-eval 0 \
                --test-limit 100 --quiet > "$out" 2>&1; then
            echo "bench-gossip: run with $n workers on $p ranks failed:" >&2
            tail -n 5 "$out" >&2
            exit 1
        fi
        t=$(sed -n 's/^time per rank: compute \([0-9.]*\) s  gossip in-memory \([0-9.]*\) s  gossip MPI \([0-9.]*\) s .* start-up \([0-9.]*\) s (CPU \([0-9.]*\) s)  (\([0-9]*\) steps, \([0-9.]*\) kB sent per step per rank)$/\1 \2 \3 \4 \5 \6 \7/p' "$out")
        m=$(sed -n 's/^memory per rank: peak RSS \([0-9.]*\) MB max, [0-9.]* MB mean (\([0-9]*\) bytes per worker); gossip in memory \([0-9.]*\) MB streamed per step per rank$/\1 \2 \3/p' "$out")
        [ -n "$t" ] && [ -n "$m" ] || { echo "bench-gossip: no summary in the output of $n workers on $p ranks:" >&2; tail -n 5 "$out" >&2; exit 1; }
        set -- $m
        np=$p
        [ "$np" -le "$cores" ] || np=$cores
        gbs=$(copy_gbs "$(awk -v mb="$3" 'BEGIN { printf "%.0f", mb * 1e6 }')" "$np")
        echo "$t $m $gbs" | while read -r c mm g su sc s kb rss bpw mb gb; do
            awk -v n="$n" -v p="$p" -v c="$c" -v m="$mm" -v g="$g" -v s="$s" -v kb="$kb" \
                -v rss="$rss" -v bpw="$bpw" -v su="$su" -v sc="$sc" -v mb="$mb" -v gb="$gb" \
                'BEGIN { cp = mb / gb; r = m > 0 ? sprintf("%8.2f", (1e3*m/s) / cp) : sprintf("%8s", "-")
                         printf "%7d %5d %10.2f %13.2f %13.2f %9.2f %12.1f %10.1f %9d %10.2f %7.2f %11.1f %10.2f %8.2f %s\n", n, p, 1e3*c/s, 1e3*m/s, 1e3*g/s, 1e3*(c+m+g)/s, kb, rss, bpw, su, sc, mb, gb, cp, r }'
        done
    done
done

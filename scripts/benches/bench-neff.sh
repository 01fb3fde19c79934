#!/bin/sh
# bench-neff.sh: n_eff(gamma) of topogen's graphs at d = 4: the graph
# learned for n_eff (--objective neff) with its optimal weights (--weights
# neff, certified) against the learned graph of the default objective
# (ratio) with Laplacian weights, a random 4-regular graph (Laplacian and
# MH weights), Base-4 (3 messages a round, exact after 4 rounds), 4 random
# directed permutations (4 sends and 4 receives a node; uniform, and with
# the best self weight) and the permutations learned for n_eff
# (--kind learned --directed). Seconds are the wall time of making the
# file (search + weights) on this machine, as shared at the time; 'vs lap'
# is n_eff over that of learned + Laplacian in the same run.
#
#   nice -n 5 sh scripts/benches/bench-neff.sh   n = 64, 256, 1024
#   BENCH_NS="64 256" GAMMA=0.951 BIN=bin ITERS=... (per-restart moves of
#   the neff search; default: topogen's)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$here/../../bin}
NS=${BENCH_NS:-64 256 1024}
G=${GAMMA:-0.951}
tg="$BIN/topogen"
[ -x "$tg" ] || { echo "bench-neff: $tg not found: run 'make' first" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-neff.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export OPENBLAS_NUM_THREADS=1
iters=${ITERS:+--iters $ITERS}

now() { date +%s.%N; }
# n_eff of a symmetric or sequence file (eval --json)
neff_sym() { "$tg" eval "$1" --gamma "$G" --json -q | sed 's/.*"neff":\([-0-9.e]*\).*/\1/'; }
# n_eff written in a directed file's header (neff=X)
neff_dir() { sed -n 's/^# norm_w_minus_j=[0-9.]* neff=\([0-9.]*\).*/\1/p' "$1"; }

printf '%5s  %-34s %9s %8s %8s\n' n graph neff "vs lap" seconds
for n in $NS; do
    ref=
    row() { # NAME FILE KIND(sym|dir) SECONDS
        if [ "$3" = dir ]; then v=$(neff_dir "$2"); else v=$(neff_sym "$2"); fi
        [ -n "$ref" ] || ref=$v
        printf '%5s  %-34s %9.2f %8.3f %8.1f\n' "$n" "$1" "$v" \
            "$(echo "$v $ref" | awk '{ print $1 / $2 }')" "$4"
    }
    build() { # FILE ARGS...: times topogen ARGS -o FILE
        f=$1
        shift
        t0=$(now)
        "$tg" "$@" -q -o "$f"
        secs=$(echo "$t0 $(now)" | awk '{ print $2 - $1 }')
    }
    build "$T/lr.txt" -n "$n" -d 4
    row "learned (ratio) + laplacian" "$T/lr.txt" sym "$secs"
    build "$T/ln.txt" -n "$n" -d 4 --objective "neff:$G" --weights neff --gamma "$G" $iters
    row "learned (neff) + neff weights" "$T/ln.txt" sym "$secs"
    build "$T/rl.txt" -n "$n" -d 4 --kind random
    row "random 4-regular + laplacian" "$T/rl.txt" sym "$secs"
    build "$T/rm.txt" -n "$n" -d 4 --kind random --weights mh
    row "random 4-regular + mh" "$T/rm.txt" sym "$secs"
    build "$T/rn.txt" -n "$n" -d 4 --kind random --weights neff --gamma "$G"
    row "random 4-regular + neff weights" "$T/rn.txt" sym "$secs"
    build "$T/b4.txt" -n "$n" -d 3 --kind base
    row "Base-4 (3 msgs/round)" "$T/b4.txt" sym "$secs"
    build "$T/p.txt" -n "$n" -d 4 --kind perm --gamma "$G"
    row "perm x4 (directed, uniform)" "$T/p.txt" dir "$secs"
    build "$T/pn.txt" -n "$n" -d 4 --kind perm --weights neff --gamma "$G"
    row "perm x4 + best self weight" "$T/pn.txt" dir "$secs"
    build "$T/dl.txt" -n "$n" -d 4 --kind learned --directed --objective "neff:$G" --weights neff --gamma "$G"
    row "learned directed x4 + self weight" "$T/dl.txt" dir "$secs"
done

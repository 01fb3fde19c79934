#!/bin/sh
# bench-place.sh: the edge cut of `--placement graph` (the own recursive
# spectral bisection + FM of src/cm_place.c) against METIS (libmetis-dev,
# the better of its recursive and k-way partitioners, repaired to exact
# balance) on learned, random, torus and ring graphs with 2..64 parts at
# exact balance (part r: floor(n/P) + (r < n mod P) workers), one host.
# Prints one row per graph and P: cut edges and volume (arrays sent per
# round, what the own code minimises first) of both, the ratio of cuts
# METIS/own (above 1: the own code cuts fewer edges), and the moves the
# balance repair made to METIS's result. Needs `make bin/topogen` (the
# objects of src/ and the learned graphs).
#   N="64 256" sh scripts/bench-place.sh
set -eu
BIN=${BIN:-bin}
BUILD=${BUILD:-build}
N=${N:-64 256}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-place.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
[ -x "$BIN/topogen" ] || { echo "bench-place: $BIN/topogen not built (make)" >&2; exit 1; }
OPENBLAS_NUM_THREADS=1
export OPENBLAS_NUM_THREADS
blas_libs=$(pkg-config --libs openblas)
${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -Isrc scripts/bench_place.c \
    "$BUILD"/src/*.o -o "$T/bench_place" -lmetis $blas_libs -lgsl -lm -pthread
for n in $N; do
    nice -n 5 "$BIN/topogen" -n "$n" -d 4 --seed 1 -q -o "$T/learned$n"
    "$BIN/topogen" --kind random -n "$n" -d 4 --seed 1 -q -o "$T/random$n"
    "$BIN/topogen" --kind torus -n "$n" -q -o "$T/torus$n"
    "$BIN/topogen" --kind ring -n "$n" -q -o "$T/ring$n"
done
printf '%-8s %5s %3s %8s %9s %6s %8s %9s %6s %7s %9s\n' graph n P own_cut \
    metis_cut ratio own_vol metis_vol ratio repairs least_cut
for n in $N; do
    for g in learned random torus ring; do
        "$T/bench_place" "$T/$g$n" "$g"
    done
done | awk '{ r = $4 > 0 ? sprintf("%.3f", $5 / $4) : "1.000"
    rv = $6 > 0 ? sprintf("%.3f", $7 / $6) : "1.000"
    printf "%-8s %5s %3s %8s %9s %6s %8s %9s %6s %7s %9s\n", $1, $2, $3, $4, $5, r, $6, $7, rv, $8, $9
    if ($5 < $4) metis++; else if ($5 > $4) own++; else tie++
    if ($7 < $6) vmetis++; else if ($7 > $6) vown++; else vtie++
    if ($9 < $4) lmetis++; else if ($9 > $4) lown++; else ltie++ }
    END { printf "fewer cut edges (METIS kept by J): own %d, METIS %d, equal %d\n", own, metis, tie
          printf "smaller volume (METIS kept by J): own %d, METIS %d, equal %d\n", vown, vmetis, vtie
          printf "fewer cut edges (METIS least cut of 3): own %d, METIS %d, equal %d\n", lown, lmetis, ltie }'

#!/bin/sh
# bench-place.sh: `--placement graph` (src/place/cm_place.c: at each step METIS
# recursive, METIS k-way on the cut, METIS k-way on the volume and the own
# recursive spectral bisection + FM, the least J = V (m + 1) + cut kept,
# METIS first on ties) against each partitioner alone, on learned,
# random, torus and ring graphs with 2..64 parts at exact balance (part
# r: floor(n/P) + (r < n mod P) workers), one host. "own" is the own
# bisection alone (the placement before METIS, bit for bit), "metis"
# METIS alone (its best run by J, repaired to the exact sizes), "new"
# what --placement graph runs now. Prints one row per graph and P: cut
# edges and volume V (arrays sent per round) of all three, which
# partitioner was kept, the moves of METIS's balance repair, METIS's least
# cut; then how often each was kept and the ratios new/own of J, arrays
# and cut edges. Needs `make all` (bin/topogen, bin/libtopogen.a).
#   N="64 256" sh scripts/benches/bench-place.sh
set -eu
BIN=${BIN:-bin}
BUILD=${BUILD:-build}
N=${N:-64 256}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-place.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
[ -x "$BIN/topogen" ] && [ -x "$BIN/bench/bench-place" ] || { echo "bench-place: $BIN/topogen, $BIN/bench/bench-place not built (make all bench-build)" >&2; exit 1; }
OPENBLAS_NUM_THREADS=1
export OPENBLAS_NUM_THREADS
for n in $N; do
    nice -n 5 "$BIN/topogen" -n "$n" -d 4 --seed 1 -q -o "$T/learned$n"
    "$BIN/topogen" --kind random -n "$n" -d 4 --seed 1 -q -o "$T/random$n"
    "$BIN/topogen" --kind torus -n "$n" -q -o "$T/torus$n"
    "$BIN/topogen" --kind ring -n "$n" -q -o "$T/ring$n"
done
printf '%-8s %5s %3s %7s %9s %7s %7s %9s %7s  %-22s %7s %9s\n' graph n P \
    own_cut metis_cut new_cut own_vol metis_vol new_vol kept repairs least_cut
for n in $N; do
    for g in learned random torus ring; do
        "$BIN/bench/bench-place" "$T/$g$n" "$g"
    done
done | awk 'function lr(a, b) { return (a > 0 && b > 0) ? log(b / a) : 0 }
    { printf "%-8s %5s %3s %7s %9s %7s %7s %9s %7s  %-22s %7s %9s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $12, $13, $14
      rows++
      if ($12 ~ /^own-bisection$/) own++; else if ($12 ~ /step/) mixed++; else metis++
      kept[$12]++
      if ($11 > $10) worse++
      j = lr($10, $11); v = lr($7, $9); c = lr($4, $6)
      sj += j; sv += v; sc += c
      if (rows == 1 || j < jmin) jmin = j; if (rows == 1 || j > jmax) jmax = j
      if (rows == 1 || v < vmin) vmin = v; if (rows == 1 || v > vmax) vmax = v
      if (rows == 1 || c < cmin) cmin = c; if (rows == 1 || c > cmax) cmax = c
      if ($9 < $7) vless++; else if ($9 > $7) vmore++
      if ($6 < $4) cless++; else if ($6 > $4) cmore++
      if ($8 > $7) mworse++; if ($8 / $7 > mmax) mmax = $8 / $7 }
    END { printf "kept over %d cases: METIS %d, own bisection %d, mixed %d (", rows, metis, own, mixed
          sep = ""; for (k in kept) { printf "%s%s %d", sep, k, kept[k]; sep = ", " }; printf ")\n"
          printf "new/own (geometric mean, min, max): J %.4f %.4f %.4f; arrays %.4f %.4f %.4f; cut %.4f %.4f %.4f\n", exp(sj / rows), exp(jmin), exp(jmax), exp(sv / rows), exp(vmin), exp(vmax), exp(sc / rows), exp(cmin), exp(cmax)
          printf "new vs own: fewer arrays in %d, more in %d; fewer cut edges in %d, more in %d; J above own in %d\n", vless, vmore, cless, cmore, worse
          printf "METIS alone: more arrays than own in %d cases (up to %.3fx)\n", mworse, mmax }'

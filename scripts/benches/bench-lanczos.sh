#!/bin/sh
# bench-lanczos.sh: the sparse spectrum (cm_shiftinv_ends: the Lanczos
# engine, shift-and-invert where Lanczos is slow) before and after a
# change, measured in the same run: for each graph, the CPU seconds per
# solve of both builds (alternating runs, median of ROUNDS), their ratio,
# the products each used, and how far lambda_2 and lambda_n moved, against
# the old build and against dense LAPACK (cm_eigen's dsyev) up to
# DENSE_MAX nodes (rings: against the closed form).
#
#   sh scripts/benches/bench-lanczos.sh                 (old = REV, built here)
#   REV=<commit> sh scripts/benches/bench-lanczos.sh
#   OLD_LIB=/path/to/old/bin/libtopogen.a sh scripts/benches/bench-lanczos.sh
#
# REV defaults to the commit before the engine was unified (issue 30);
# building it takes a few minutes on 2 cores. N (default "2048 8192"),
# ROUNDS (3), REPS (solves per run, 5), DENSE_MAX (2048; dense needs
# 8 n^2 bytes and O(n^3) time: 8192 takes minutes). Needs make all.
# Figures of a run are in docs/lanczos.md.
set -eu
BIN=${BIN:-bin}
REV=${REV:-f9c3732~1}
N=${N:-2048 8192}
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-5}
DENSE_MAX=${DENSE_MAX:-2048}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-lanczos.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
die() {
    echo "bench-lanczos: $*" >&2
    exit 1
}
if [ ! -x "$BIN/topogen" ] || [ ! -f "$BIN/libtopogen.a" ]; then
    die "$BIN/topogen, $BIN/libtopogen.a not built (make all)"
fi
OPENBLAS_NUM_THREADS=1
export OPENBLAS_NUM_THREADS

if [ -z "${OLD_LIB:-}" ]; then
    echo "bench-lanczos: building libtopogen.a of $REV in $T/old ..." >&2
    mkdir "$T/old"
    git archive "$REV" | tar -x -C "$T/old" ||
        die "cannot export $REV (set OLD_LIB or REV)"
    if ! make -C "$T/old" -j2 bin/libtopogen.a >"$T/old.log" 2>&1; then
        tail -n 20 "$T/old.log" >&2
        die "building $REV failed"
    fi
    OLD_LIB=$T/old/bin/libtopogen.a
fi
[ -f "$OLD_LIB" ] || die "no $OLD_LIB"

blas_libs=$(pkg-config --libs openblas)
probe() { # probe NAME LIB
    # shellcheck disable=SC2086 # the libraries are words
    ${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -Isrc/base -Isrc/topo -Isrc/spectra \
        scripts/benches/bench-lanczos.c "$2" -o "$T/probe-$1" -ligraph -lmetis -lcholmod \
        -llapacke $blas_libs -lgsl -lxml2 -ljansson -lz -lm -pthread
}
probe old "$OLD_LIB"
probe new "$BIN/libtopogen.a"

for n in $N; do
    "$BIN/topogen" --kind random -n "$n" -d 4 --seed 1 -q -o "$T/random$n"
    "$BIN/topogen" -n "$n" -d 4 --iters 200 --seed 1 -q -o "$T/learned$n"
    "$BIN/topogen" --kind ring -n "$n" -q -o "$T/ring$n"
    "$BIN/topogen" --kind torus -n "$n" -q -o "$T/torus$n"
done

# median of ROUNDS alternating runs: "cpu_s products solves factored l2 ln"
median_runs() { # median_runs GRAPH -> $T/GRAPH.old, $T/GRAPH.new
    : >"$T/$1.old.all"
    : >"$T/$1.new.all"
    r=0
    while [ "$r" -lt "$ROUNDS" ]; do
        "$T/probe-old" "$T/$1" "$REPS" 0 >>"$T/$1.old.all"
        "$T/probe-new" "$T/$1" "$REPS" 0 >>"$T/$1.new.all"
        r=$((r + 1))
    done
    for v in old new; do
        sort -g -k5,5 "$T/$1.$v.all" | sed -n "$(((ROUNDS + 1) / 2))p" \
            >"$T/$1.$v"
    done
}

printf '%-8s %6s %11s %11s %9s %9s %7s %10s %10s %10s %10s\n' graph n \
    products solves old_s new_s new/old d_l2_old d_ln_old d_l2_ref \
    d_ln_ref
for n in $N; do
    for g in random learned ring torus; do
        median_runs "$g$n"
        if [ "$g" = ring ]; then # exact: 4 sin^2(pi/n) and 4 (n even)
            dense=$(awk -v n="$n" 'BEGIN { s = sin(atan2(0, -1) / n)
                printf "%.17g 4\n", 4 * s * s }')
        elif [ "$n" -le "$DENSE_MAX" ]; then
            dense=$("$T/probe-new" "$T/$g$n" 1 1 | awk '{print $8, $9}')
        else
            dense="- -"
        fi
        echo "$g $(cat "$T/$g$n.old") $(cat "$T/$g$n.new") $dense"
    done
done | awk '
function rel(a, b) { return (b == "-") ? "-" : sprintf("%.1e", (a - b) / (b < 0 ? -b : b)) }
{   # g | n p s f cpu l2 ln (old) | n p s f cpu l2 ln (new) | dl2 dln
    printf "%-8s %6d %5d/%-5d %5d/%-5d %9.4f %9.4f %7.2f %10s %10s %10s %10s\n",
        $1, $2, $3, $10, $4, $11, $6, $13, ($6 > 0 ? $13 / $6 : 0),
        rel($14, $7), rel($15, $8), rel($14, $16), rel($15, $17)
}'
echo "products/solves: old/new; d_*: (new - reference) / reference; the"
echo "ring's reference is its closed form (dense LAPACK's lambda_2 of a long"
echo "ring is off by ~1e-15 ||L|| / lambda_2, 4e-10 at 2,048 nodes)"

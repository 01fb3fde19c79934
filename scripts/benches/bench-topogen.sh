#!/bin/sh
# bench-topogen.sh: quality and speed of learned topologies against the
# baselines. For each (n, d) it runs the default `topogen` (learned, ratio
# objective) and builds rrl, random and exponential graphs, all with
# Laplacian weights, and prints one table row: the SLEMs (lower mixes
# faster), the issue's target for learned where there is one, the learned
# run's wall seconds, its exact Laplacian solves, the share of proposals
# the screen rejected without a solve, which eigensolver path ran (dense
# LAPACK or sparse Lanczos) on how many threads, its CPU seconds (user +
# system) and peak memory (MB, resident), and seconds relative to a
# reference job timed at the start of the same run (timings on a shared
# machine are noisy; the ratio is the comparable figure). The `random`
# column is the reference for quality: the best SLEM of 5 random
# connected d-regular graphs (seeds SEED..SEED+4), built in the same run.
#
#   sh scripts/benches/bench-topogen.sh      rows n = 16, 32, 64, 128 (d = 4)
#   BENCH_EXTRA=1 sh scripts/benches/bench-topogen.sh  plus odd n, d = 3..8, n = 256
#   BENCH_LARGE=1 sh scripts/benches/bench-topogen.sh  plus n = 512, 1024, 4096
#                                             (about 2 minutes)
#   BENCH_HUGE=1 sh scripts/benches/bench-topogen.sh  plus n = 16384 (about 5-10
#                                             minutes on 2 cores)
#   BENCH_NS="16 64"                          other n for the d = 4 rows
#   BIN=bin SEED=1
# The exponential graph has its own degree (about 2 log2 n, see README).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
script_help "$@"
BIN=${BIN:-$here/../../bin}
SEED=${SEED:-1}
tg="$BIN/topogen"
[ -x "$tg" ] || { echo "bench-topogen: $tg not found: run 'make' first" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-topogen.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

now() { date +%s.%N; }
slem_of() { sed -n 's/^# .* slem=\([0-9.]*\).*/\1/p' "$1" | head -n 1; }

# reference job: a fixed 2000-move search at n = 64
t0=$(now)
"$tg" -n 64 -d 4 --iters 2000 --restarts 1 --seed 1 -q -o "$T/ref.txt"
ref=$(echo "$(now) $t0" | awk '{ printf "%.3f", $1 - $2 }')
echo "# reference job (n=64, 2000 moves): $ref s; 'x ref' = seconds / that"
echo "# SLEM with Laplacian weights W = I - 2L/(l2+ln); lower mixes faster"
printf '%5s %3s %8s %7s %8s %8s %8s %8s %7s %6s %6s %3s %7s %6s %7s\n' n d learned target rrl random expon. seconds solves skip% solver th "cpu s" MB "x ref"

target() {
    case "$1-$2" in
    16-4) echo 0.47 ;; 32-4) echo 0.63 ;; 64-4) echo 0.725 ;; 128-4) echo 0.775 ;;
    256-4) echo 0.800 ;; 1024-4) echo 0.83 ;; 4096-4) echo 0.85 ;;
    16384-4) echo 0.86 ;;
    *) echo - ;;
    esac
}

row() {
    n=$1 d=$2
    t0=$(now)
    /usr/bin/time -f "%U %S %M" -o "$T/l.time" \
        "$tg" -n "$n" -d "$d" --seed "$SEED" -o "$T/l.txt" 2>"$T/l.err"
    secs=$(echo "$(now) $t0" | awk '{ printf "%.2f", $1 - $2 }')
    cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$T/l.time")
    mb=$(awk '{ printf "%.0f", $3 / 1024 }' "$T/l.time")
    evals=$(tail -n 1 "$T/l.err" | sed -n 's/.* \([0-9]*\) eigensolves.*/\1/p')
    skipped=$(tail -n 1 "$T/l.err" | sed -n 's/.* \([0-9]*\) screened.*/\1/p')
    solver=$(tail -n 1 "$T/l.err" | sed -n 's/.* \([a-z]*\) eigensolver.*/\1/p')
    threads=$(tail -n 1 "$T/l.err" | sed -n 's/.* \([0-9]*\) threads.*/\1/p')
    for k in rrl exponential; do
        dflag="-d $d"; [ "$k" = exponential ] && dflag="" # its own degree
        "$tg" -n "$n" $dflag --kind "$k" --seed "$SEED" -q -o "$T/$k.txt"
    done
    best=1
    for s in 0 1 2 3 4; do
        "$tg" -n "$n" -d "$d" --kind random --seed $((SEED + s)) -q -o "$T/random.txt"
        best=$(echo "$best $(slem_of "$T/random.txt")" | awk '{ print ($2 < $1) ? $2 : $1 }')
    done
    printf '%5s %3s %8.4f %7s %8.4f %8.4f %8.4f %8s %7s %6s %6s %3s %7s %6s %7s\n' "$n" "$d" \
        "$(slem_of "$T/l.txt")" "$(target "$n" "$d")" "$(slem_of "$T/rrl.txt")" \
        "$best" "$(slem_of "$T/exponential.txt")" "$secs" \
        "$evals" "$(echo "$evals $skipped" | awk '{ printf "%.0f", 100 * $2 / ($1 + $2) }')" \
        "$solver" "$threads" "$cpu" "$mb" \
        "$(echo "$secs $ref" | awk '{ printf "%.1f", $1 / $2 }')"
}

for n in ${BENCH_NS:-16 32 64 128}; do
    row "$n" 4
done
if [ "${BENCH_EXTRA:-0}" != 0 ]; then
    row 33 4
    row 63 4
    for d in 3 5 6 7 8; do
        row 64 "$d"
    done
    row 31 6
    row 256 4
fi
if [ "${BENCH_LARGE:-0}" != 0 ]; then
    for n in 512 1024 4096; do
        row "$n" 4
    done
fi
if [ "${BENCH_HUGE:-0}" != 0 ]; then
    row 16384 4
fi

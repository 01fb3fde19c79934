#!/bin/sh
# bench-scale.sh: topogen at up to 10^6 nodes. Part 1 builds every
# construction kind (Laplacian weights: the spectrum of each is computed,
# src/cm_shiftinv.c) and prints wall seconds, peak memory and the file's
# lambda2; part 2 runs `topogen eval` on a 100,000-node ring, a 300 x 300
# torus (written here by awk, read by the real reader) and a random
# 4-regular graph (built by topogen), printing seconds, memory, lambda2,
# lambdan, the SLEM and, for the ring and torus, the relative errors
# against the closed forms (lambda2 = 4 sin^2(pi/a), lambdan = 4 or 8).
# Seconds are also given relative to a reference job timed at the start
# (a fixed 2000-move search at n = 64, as in bench-topogen.sh), and as
# CPU seconds (user + system: the figure that survives a shared machine).
# Part 3 learns a LEARN_N-node graph (default 65,536, degree 4: the
# documented limit of the learned search) for at most LEARN_LIMIT seconds
# (default 600: the full schedule takes hours there; the best graph so far
# is written) and prints its seconds, peak memory, topogen's report (the
# energy, the moves rejected for a solve that did not converge) and the
# file's SLEM.
#
#   sh scripts/benches/bench-scale.sh    n = 10^5 for the kinds, random 10^5
#   SCALE_N=1000000 sh scripts/benches/bench-scale.sh  kinds and random at 10^6
#   PARTS="3" sh scripts/benches/bench-scale.sh  only the 65,536-node learned run
#   BIN=bin
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$here/../../bin}
N=${SCALE_N:-100000}
PARTS=${PARTS:-"1 2 3"}
LEARN_N=${LEARN_N:-65536}
LEARN_LIMIT=${LEARN_LIMIT:-600}
part() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }
tg="$BIN/topogen"
[ -x "$tg" ] || { echo "bench-scale: $tg not found: run 'make' first" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-scale.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export OPENBLAS_NUM_THREADS=1

now() { date +%s.%N; }
t0=$(now)
"$tg" -n 64 -d 4 --iters 2000 --restarts 1 --seed 1 -q -o "$T/ref.txt"
ref=$(echo "$(now) $t0" | awk '{ printf "%.3f", $1 - $2 }')
echo "# reference job (n=64, 2000 moves): $ref s; 'x ref' = seconds / that"

# timed CMD...: runs it, sets secs and mem (MB)
timed() {
    /usr/bin/time -f "%e %M %U %S" -o "$T/time" "$@" >"$T/out" 2>"$T/err" || {
        echo "# FAILED: $* : $(head -c 300 "$T/err")"; secs=- mem=-; return 1; }
    secs=$(awk '{ print $1 }' "$T/time")
    mem=$(awk '{ printf "%.0f", $2 / 1024 }' "$T/time")
    cpu=$(awk '{ printf "%.2f", $3 + $4 }' "$T/time")
}

if part 1; then
echo "# part 1: constructions, Laplacian weights, n about $N"
printf '%-14s %8s %9s %8s %8s %7s %7s\n' kind n edges seconds cpu_s x_ref MB
p2=1
while [ $((p2 * 2)) -le "$N" ]; do p2=$((p2 * 2)); done
for spec in "ring $N" "rrl $N -d 4" "torus $N" "random $N -d 4" \
            "hypercube $p2" "exponential $p2" "one-peer-exp $p2" \
            "base $N -d 1" "base $N -d 4"; do
    set -- $spec
    k=$1 n=$2
    shift 2
    if timed "$tg" --kind "$k" -n "$n" "$@" -q -o "$T/k.txt"; then
        m=$(grep -vc '^#' "$T/k.txt" || true)
        printf '%-14s %8s %9s %8s %8s %7.1f %7s\n' "$k${1:+ $1 $2}" "$n" "$m" \
            "$secs" "$cpu" "$(echo "$secs $ref" | awk '{ print $1 / $2 }')" "$mem"
    fi
done

fi

if part 2; then
echo "# part 2: topogen eval (Laplacian weights; closed-form errors)"
printf '%-8s %8s %8s %7s %6s %14s %9s %14s %9s %9s\n' graph seconds cpu_s x_ref MB lambda2 err lambdan err slem
awk -v n=100000 'BEGIN { print "# n=" n; for (i = 0; i < n; i++) print i, (i + 1) % n }' >"$T/ring.txt"
awk -v a=300 'BEGIN { print "# n=" a * a; for (r = 0; r < a; r++) for (c = 0; c < a; c++) {
    i = r * a + c; print i, r * a + (c + 1) % a; print i, ((r + 1) % a) * a + c } }' >"$T/torus.txt"
"$tg" --kind random -n "$N" -d 4 --weights mh -q -o "$T/random.txt"
for g in "ring 100000 4" "torus 300 8" "random $N -"; do
    set -- $g
    if timed "$tg" eval "$T/$1.txt" --json; then
        awk -v name="$1" -v a="$2" -v ln_exact="$3" -v secs="$secs" -v cpu="$cpu" -v ref="$ref" -v mem="$mem" '
            function val(k,   s) { s = $0; sub(".*\"" k "\":", "", s); sub(",.*", "", s); return s + 0 }
            { l2 = val("lambda2"); ln = val("lambdan"); sl = val("slem")
              pi = atan2(0, -1); e2 = "-"; en = "-"
              if (ln_exact != "-") { x = sin(pi / a); c2 = 4 * x * x
                  e2 = sprintf("%.1e", (l2 > c2 ? l2 - c2 : c2 - l2) / c2)
                  en = sprintf("%.1e", (ln > ln_exact ? ln - ln_exact : ln_exact - ln) / ln_exact) }
              printf "%-8s %8s %8s %7.1f %6s %14.8e %9s %14.10f %9s %.12f\n", name, secs, cpu, secs / ref, mem, l2, e2, ln, en, sl }' "$T/out"
    fi
done
fi

if part 3; then
echo "# part 3: the learned search at n = $LEARN_N, d = 4 (default flags, --time-limit $LEARN_LIMIT)"
printf '%-8s %8s %8s %7s %7s %s\n' n seconds cpu_s x_ref MB "topogen's report; the file's slem"
if timed "$tg" -n "$LEARN_N" -d 4 --time-limit "$LEARN_LIMIT" -o "$T/learned.txt"; then
    printf '%-8s %8s %8s %7.1f %7s %s; %s\n' "$LEARN_N" "$secs" "$cpu" \
        "$(echo "$secs $ref" | awk '{ print $1 / $2 }')" "$mem" \
        "$(grep '^topogen: n=' "$T/err" | sed 's/^topogen: //')" \
        "$("$tg" eval "$T/learned.txt" --json | sed 's/.*"slem": *\([0-9.e-]*\).*/slem \1/')"
fi
fi

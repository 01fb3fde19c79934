#!/bin/sh
# bench-fdla.sh: FDLA weights (topogen --weights fdla) on topogen's learned
# graphs: the SLEM with the best constant Laplacian weights, with FDLA
# weights, the certified lower bound, the issue's reference, and the FDLA
# solve's wall seconds next to the constant-weight evaluation of the same
# file in the same run ('x lap' = FDLA eval seconds / Laplacian eval
# seconds; timings on a shared machine are noisy, the ratio is the
# comparable figure). Graph generation is not timed.
#
#   sh scripts/benches/bench-fdla.sh       n = 32, 64, 128, 256 (d = 4)
#   BENCH_NS="32 64" SEEDS="1 2 3" BIN=bin
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
script_help "$@"
BIN=${BIN:-$here/../../bin}
NS=${BENCH_NS:-32 64 128 256}
SEEDS=${SEEDS:-1}
tg="$BIN/topogen"
[ -x "$tg" ] || { echo "bench-fdla: $tg not found: run 'make' first" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-fdla.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export OPENBLAS_NUM_THREADS=1

now() { date +%s.%N; }
field() { sed 's/.*"'"$1"'":\([-0-9.e]*\).*/\1/' "$2"; }
reference() {
    case "$1" in 32) echo 0.5997 ;; 64) echo 0.6970 ;; 128) echo 0.7488 ;;
    256) echo 0.7917 ;; *) echo - ;; esac
}

printf '%5s %5s %9s %9s %9s %9s %8s %8s %7s\n' n seed laplacian fdla bound \
    reference gap fdla_s "x lap"
for n in $NS; do
    for s in $SEEDS; do
        g="$T/g$n-$s.txt"
        "$tg" -n "$n" -d 4 --seed "$s" -q -o "$g"
        t0=$(now)
        "$tg" eval "$g" --json >"$T/lap.json"
        t1=$(now)
        "$tg" eval "$g" --weights fdla --json -q >"$T/fdla.json"
        t2=$(now)
        lap=$(field slem "$T/lap.json")
        fd=$(field slem "$T/fdla.json")
        lb=$(field fdla_lower_bound "$T/fdla.json")
        echo "$n $s $lap $fd $lb $(reference "$n") $t0 $t1 $t2" | awk '{
            printf "%5d %5d %9.4f %9.4f %9.4f %9s %8.1e %8.2f %7.1f\n",
                $1, $2, $3, $4, $5, $6, $4 - $5, $9 - $8,
                ($9 - $8) / ($8 - $7) }'
    done
done

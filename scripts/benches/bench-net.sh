#!/bin/sh
# bench-net.sh: the network model (src/cm_net.c) against rounds measured
# on an emulated 2-host cluster (scripts/experiments/netns-cluster.sh; root).
#
#   scripts/benches/bench-net.sh         (about a minute)
#   ROUNDS=200 N=64 scripts/benches/bench-net.sh
#
# 1. Fits alpha and beta of each link class from gossip rounds of a
#    2-worker graph (one message each way): 2 ranks on one host (intra)
#    and one rank on each host (inter), arrays of 1 float (alpha = the
#    round) and of BIG floats (beta = bytes / (round - alpha)).
# 2. Runs the N-worker learned graph (topogen -n N -d 4) on 4 ranks over
#    the 2 hosts with block and graph placement, and prints the measured
#    round (median and fastest over ROUNDS rounds; slowest rank) next to
#    the model's prediction with the fitted alpha, beta (--net), and the
#    ratio model / fastest.
# Times are medians and minima of rounds on whatever else the machine is
# doing: on a loaded machine the fastest round is the one that reflects
# the network, the median mostly CPU scheduling.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
script_help "$@"
root=$(cd "$here/../.." && pwd)
BIN=${BIN:-$root/bin}
ROUNDS=${ROUNDS:-100}
N=${N:-64}
BIG=${BIG:-4000000}
NAME=benchnet$$
for b in topogen dpsgd-train; do
    [ -x "$BIN/$b" ] || { echo "bench-net: $BIN/$b not found: run 'make'" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench-net: needs root (network namespaces)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-net.XXXXXX")
D=$T/cluster
trap 'sh "$here/../experiments/netns-cluster.sh" down --name "$NAME" --dir "$D" >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP
sh "$here/../experiments/netns-cluster.sh" up 2 --name "$NAME" --dir "$D" --slots 2 >/dev/null
printf '0 1\n' >"$T/g2.txt"
"$BIN/topogen" -n "$N" -d 4 --seed 1 --quiet -o "$T/g.txt"

# bench NP MAPBY TOPOLOGY [flags]: prints "median_ms fastest_ms model_ms"
bench() {
    np=$1 map=$2 topo=$3
    shift 3
    timeout 300 "$D/mpirun" -q --bind-to none --map-by "$map" -np "$np" \
        "$BIN/dpsgd-train" --topology "$topo" --bench-gossip "$ROUNDS" "$@" \
        >"$T/out" 2>&1 || { echo "bench-net: run failed:" >&2; cat "$T/out" >&2; exit 1; }
    sed -n 's/^bench-gossip: measured \([0-9.]*\) ms per round (median of [0-9]*, slowest rank; fastest \([0-9.]*\) ms); modelled \([0-9.]*\) ms.*/\1 \2 \3/p' "$T/out"
}

echo "bench-net: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds per figure"
for cls in intra inter; do
    map=slot
    [ "$cls" = inter ] && map=node
    set -- $(bench 2 "$map" "$T/g2.txt" --bench-floats 1 --placement block)
    a=$2
    set -- $(bench 2 "$map" "$T/g2.txt" --bench-floats "$BIG" --placement block)
    bt=$2
    beta=$(awk -v a="$a" -v t="$bt" -v b="$BIG" 'BEGIN { d = (t - a) / 1e3; if (d <= 0) d = 1e-9; printf "%.4g", 4 * b / d }')
    echo "bench-net: $cls: 1-float round $a ms (alpha), $((4 * BIG))-byte round $bt ms: beta = $beta B/s"
    eval "alpha_$cls=\$(awk -v a=\"\$a\" 'BEGIN { printf \"%.4g\", a / 1e3 }')"
    eval "beta_$cls=\$beta"
done
net="intra=${alpha_intra}s,${beta_intra}B/s;inter=${alpha_inter}s,${beta_inter}B/s"
echo "bench-net: fitted --net '$net'"
printf '%-9s %12s %12s %12s %14s\n' placement "median ms" "fastest ms" "model ms" "model/fastest"
for pl in block graph; do
    set -- $(bench 4 slot "$T/g.txt" --placement "$pl" --net "$net")
    awk -v p="$pl" -v m="$1" -v f="$2" -v x="$3" \
        'BEGIN { printf "%-9s %12.3f %12.3f %12.3f %14.2f\n", p, m, f, x, x / f }'
done

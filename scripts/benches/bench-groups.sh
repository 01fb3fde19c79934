#!/bin/sh
# bench-groups.sh: the trade-off between mixing and traffic between hosts
# (issue 11): for n nodes of degree d in G equal groups of contiguous ids,
# `topogen --groups G --max-cross C` for a ladder of bounds C, next to the
# unconstrained learned graph, the ring lattice and a random regular graph.
# Per setting and seed: the edges between groups (cross), lambda_2,
# lambda_n, the SLEM with the best constant Laplacian weights and with
# FDLA weights, the rounds to 1e-3 (Laplacian), and the spectral floor
# for that cut: an equal G-way split cutting X edges forces
# lambda_2 <= 2 G X / (n (G - 1)) (sum of the groups' Rayleigh quotients)
# and lambda_n >= d + 1, so no such graph has a Laplacian SLEM below
# (d + 1 - l2max) / (d + 1 + l2max). The baselines are cut in blocks
# (`--placement block`) and, for the learned and random graphs, also by
# `cm_place`'s graph partition over G ranks (`topogen eval --net --ranks
# G`: the relabelling a placement would find). Table on stdout (per
# setting: the best and mean SLEM over the seeds); every row in
# OUT/groups.dat; the plot OUT/groups.png (gnuplot, when installed).
# Not timed: the figures are spectra, the same on any machine.
# PLOT_ONLY=1 redraws the table and plot from OUT/groups.dat.
#
#   sh scripts/benches/bench-groups.sh         n 64, d 4, G 4, seeds 1 2 3
#   N=64 D=4 G=2 BOUNDS="2 4 8 16 32" SEEDS="1" OUT=dir BIN=bin \
#       sh scripts/benches/bench-groups.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$here/../../bin}
N=${N:-64}
D=${D:-4}
G=${G:-4}
BOUNDS=${BOUNDS:-4 6 8 12 16 24 32 48 64 96 128}
SEEDS=${SEEDS:-1 2 3}
OUT=${OUT:-$here/../../data/results/groups}
case "${1:-}" in -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
tg="$BIN/topogen"
[ -x "$tg" ] || { echo "bench-groups: $tg not found: run 'make' first" >&2; exit 1; }
mkdir -p "$OUT"
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-groups.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export OPENBLAS_NUM_THREADS=1

field() { sed 's/.*"'"$1"'":\([-0-9.e]*\).*/\1/' "$2"; }
# the graph partition's cut over G ranks (the "graph" member of --net)
graph_cut() { sed 's/.*"graph":{"cut_edges":\([0-9]*\).*/\1/' "$1"; }

# row KIND C SEED FILE: one data row for FILE (cut in blocks of ids)
row() {
    "$BIN/topogen" eval "$4" --groups "$G" --json -q >"$T/lap.json"
    "$BIN/topogen" eval "$4" --weights fdla --json -q >"$T/fdla.json"
    "$BIN/topogen" eval "$4" --net datacenter --ranks "$G" --json -q >"$T/net.json"
    echo "$1 $2 $3 $(field cross_edges "$T/lap.json") $(graph_cut "$T/net.json") \
$(field lambda2 "$T/lap.json") $(field lambdan "$T/lap.json") \
$(field slem "$T/lap.json") $(field slem "$T/fdla.json") \
$(field rounds_1e-3 "$T/lap.json")" | awk -v n="$N" -v d="$D" -v G="$G" '{
        l2max = 2 * G * $4 / (n * (G - 1))
        floor = l2max >= d + 1 ? 0 : (d + 1 - l2max) / (d + 1 + l2max)
        printf "%s %s %s %d %d %.6f %.6f %.6f %.6f %d %.6f\n",
            $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, floor }'
}

dat="$OUT/groups.dat"
if [ "${PLOT_ONLY:-0}" != 1 ]; then {
    echo "# bench-groups: n=$N d=$D G=$G (groups of ids in blocks of $((N / G)))"
    echo "# kind bound seed cross graph_cut lambda2 lambdan slem_lap slem_fdla rounds_1e-3 floor"
    for s in $SEEDS; do
        for c in $BOUNDS; do
            "$tg" -n "$N" -d "$D" --groups "$G" --max-cross "$c" --seed "$s" \
                -q -o "$T/g.txt"
            row grouped "$c" "$s" "$T/g.txt"
        done
        "$tg" -n "$N" -d "$D" --seed "$s" -q -o "$T/g.txt"
        row learned - "$s" "$T/g.txt"
        "$tg" -n "$N" -d "$D" --kind random --seed "$s" -q -o "$T/g.txt"
        row random - "$s" "$T/g.txt"
    done
    "$tg" -n "$N" -d "$D" --kind rrl -q -o "$T/g.txt"
    row rrl - - "$T/g.txt"
} >"$T/dat"
mv "$T/dat" "$dat"
fi
[ -s "$dat" ] || { echo "bench-groups: no $dat" >&2; exit 1; }

# the table: one line per setting, best and mean over the seeds
awk '!/^#/ {
    k = $1 " " $2
    if (!(k in cnt)) { order[++nk] = k }
    cnt[k]++; cross[k] += $4; gcut[k] += $5; mean[k] += $8; fmean[k] += $9
    if (!(k in best) || $8 < best[k]) { best[k] = $8; bestf[k] = $9; rnd[k] = $10 }
    fl[k] = $11
} END {
    printf "%-8s %5s %6s %6s %9s %9s %9s %6s %9s\n", "kind", "bound", "cross",
        "gcut", "slem_best", "slem_mean", "fdla_best", "rounds", "floor"
    for (i = 1; i <= nk; i++) {
        k = order[i]; split(k, p, " ")
        printf "%-8s %5s %6.1f %6.1f %9.4f %9.4f %9.4f %6d %9.4f\n", p[1], p[2],
            cross[k] / cnt[k], gcut[k] / cnt[k], best[k], mean[k] / cnt[k],
            bestf[k], rnd[k], fl[k]
    }
}' "$dat"
echo "(cross: edges between the $G blocks of ids, mean over seeds; gcut: the"
echo " graph placement's cut over $G ranks; floor: spectral floor at that cut)"
echo "data: $dat"

command -v gnuplot >/dev/null 2>&1 || { echo "bench-groups: no gnuplot, no plot" >&2; exit 0; }
png="$OUT/groups.png"
gnuplot <<EOF
set terminal pngcairo size 900,600 noenhanced font ",11"
set output "$T/groups.png"
set title "n=$N, d=$D, $G groups of $((N / G)) ids: SLEM vs edges between groups"
set xlabel "edges between groups (of $((N * D / 2)))"
set ylabel "SLEM (lower mixes faster)"
set key bottom left box opaque
set grid
set logscale x 2
set xrange [1.7:140]
set yrange [0.5:1.0]
plot "< awk '\$1 == \"grouped\"' $dat" u 4:8 w p pt 7 ps 0.8 lc rgb "#1f77b4" t "learned with --groups --max-cross C (Laplacian)", \
     "< awk '\$1 == \"grouped\"' $dat" u 4:9 w p pt 6 ps 0.8 lc rgb "#17becf" t "same graphs, FDLA weights", \
     "< awk '\$1 == \"grouped\" || \$1 == \"learned\"' $dat | sort -k4,4n" u 4:11 w l dt 2 lc rgb "#888888" t "spectral floor for that cut (no graph below)", \
     "< awk '\$1 == \"learned\"' $dat" u 4:8 w p pt 5 ps 1.2 lc rgb "#d62728" t "plain learned, ids in blocks", \
     "< awk '\$1 == \"learned\"' $dat" u 5:8 w p pt 4 ps 1.2 lc rgb "#d62728" t "plain learned, graph placement over $G ranks", \
     "< awk '\$1 == \"random\"' $dat" u 5:8 w p pt 8 ps 1.2 lc rgb "#2ca02c" t "random regular, graph placement over $G ranks", \
     "< awk '\$1 == \"random\"' $dat" u 4:8 w p pt 9 ps 1.2 lc rgb "#2ca02c" t "random regular, ids in blocks", \
     "< awk '\$1 == \"rrl\"' $dat" u 4:8 w p pt 13 ps 1.5 lc rgb "#9467bd" t "ring lattice, ids in blocks"
EOF
mv "$T/groups.png" "$png"
echo "plot: $png"

#!/bin/sh
# bench-dataaware.sh: topologies for label-skewed shards (issue 22) on the
# real Fashion-MNIST partition that dpsgd-train --write-partition writes
# (seed 1). At n = 256, dirichlet:0.1 (batch 4, the results.sh schedule's
# per-worker batch at 256 workers), per graph: the neighbourhood
# heterogeneity H = (1/n)||(W - J) Pi||_F^2 (topogen eval --labels, or
# the stl-fw summary for a directed W), n_eff(0.951) (Vogels et al.; a
# Lyapunov solve on the dense W, src: topo/tg_wdense.c) and ||W - J||_2
# (the SLEM for a symmetric W), for: learned (today's objective,
# Laplacian weights), random regular (Laplacian and MH), STL-FW budget 4
# (directed) and its symmetric variant, data-aware learned d = 4
# (--labels, --hetero-weight MU for each MU in MUS, MH weights), D-Cliques,
# data-aware learned directed 4 + 4 (learned --directed --labels, MU 10).
# Then seconds of STL-FW and of the data-aware search (mu = 10) at n = 256
# and 1,024, each next to today's learned search of the same n in the
# same run (ratios). At 1,024 workers dirichlet:0.1 finds no draw that
# gives every worker an image (58 images each), so the 1,024 partition is
# dirichlet:0.2 (batch 1). Table on stdout.
#
#   sh scripts/benches/bench-dataaware.sh    (a few minutes of CPU)
#   MUS="3 10 30" BIG=0 DIRECTED=0 sh scripts/benches/bench-dataaware.sh
#                                    skip n = 1,024 and the directed search
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$here/../../bin}
MUS=${MUS:-"3 10 30"}
BIG=${BIG:-1}
case "${1:-}" in -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
tg="$BIN/topogen"
dt="$BIN/dpsgd-train"
for b in "$tg" "$dt"; do
    [ -x "$b" ] || { echo "bench-dataaware: $b not found: run 'make' first" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-dataaware.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export OPENBLAS_NUM_THREADS=1
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.2f", $2 - $1 }'; }
ratio() { echo "$1 $2" | awk '{ printf "%.3f", $1 / $2 }'; }

"$dt" --epochs 0 --workers 256 --batch 4 --partition dirichlet:0.1 --seed 1 \
    --write-partition "$T/p256.txt" --quiet
L="$T/p256.txt"
echo "partition: $(sed -n 1p "$L" | sed 's/^# labels 1 //')"
# H, worst node, n_eff and SLEM of an undirected file, from eval --json
row() { # NAME FILE
    "$tg" eval "$2" --labels "$L" --json | python3 -c '
import json, sys
e = json.load(sys.stdin); h = e["heterogeneity"]
print("%-36s %8.4f %8.4f %8.2f %8.4f %6d" % (sys.argv[1], h["h"], h["worst"],
      h["neff_0.951"], e["slem"], e["max_degree"]))' "$1"
}
# the same from topogen's stl-fw summary (a directed W has no reader yet)
row_stl() { # NAME STDERR-FILE
    sed -n 's/.*: H \([0-9.]*\) (alone [0-9.]*), worst node \([0-9.]*\), ||W - J||_2 \([0-9.]*\), n_eff(0.951) \([0-9.]*\), degrees out \([0-9]*\) in \([0-9]*\).*/\1 \2 \4 \3 \5 \6/p' "$2" |
        awk -v n="$1" '{ printf "%-36s %8.4f %8.4f %8.2f %8.4f %3d+%-2d\n", n, $1, $2, $3, $4, $5, $6 }'
}
printf '%-36s %8s %8s %8s %8s %6s\n' "n=256 dirichlet:0.1 graph" H worst n_eff "||W-J||" degree
t0=$(now); "$tg" -n 256 -d 4 -q -o "$T/learned.txt"; t_learned=$(secs "$t0" "$(now)")
row "learned (ratio, laplacian)" "$T/learned.txt"
"$tg" -n 256 -d 4 --kind random -q -o "$T/random.txt"
row "random 4-regular (laplacian)" "$T/random.txt"
"$tg" -n 256 -d 4 --kind random --weights mh -q -o "$T/random-mh.txt"
row "random 4-regular (mh)" "$T/random-mh.txt"
t0=$(now); "$tg" --kind stl-fw -d 4 --labels "$L" -o "$T/stl.txt" 2>"$T/stl.err"; t_stl=$(secs "$t0" "$(now)")
row_stl "STL-FW budget 4 (directed)" "$T/stl.err"
"$tg" --kind stl-fw -d 4 --symmetric --labels "$L" -o "$T/stls.txt" 2>"$T/stls.err"
row "STL-FW budget 4 --symmetric" "$T/stls.txt"
for mu in $MUS; do
    t0=$(now); "$tg" -n 256 -d 4 --labels "$L" --hetero-weight "$mu" --weights mh -q -o "$T/da$mu.txt"
    eval "t_da$mu=$(secs "$t0" "$(now)")"
    row "data-aware learned mu=$mu (mh)" "$T/da$mu.txt"
done
"$tg" -n 256 -d 4 --labels "$L" --hetero-weight 10 -q -o "$T/dal.txt"
row "data-aware learned mu=10 (laplacian)" "$T/dal.txt"
"$tg" --kind dcliques --labels "$L" -o "$T/dc.txt" 2>/dev/null
row "D-Cliques (small-world, mh)" "$T/dc.txt"
# the directed search (4 permutations, n_eff objective) with the H term;
# its n_eff is an exact Lyapunov solve per move (minutes at n = 256)
if [ "${DIRECTED:-1}" = 1 ]; then
    t0=$(now); "$tg" -n 256 -d 4 --directed --labels "$L" --hetero-weight 10 -q -o "$T/dd.txt"
    t_dd=$(secs "$t0" "$(now)")
    "$tg" eval "$T/dd.txt" --labels "$L" --json | python3 -c '
import json, sys
e = json.load(sys.stdin); h = e["heterogeneity"]
print("%-36s %8.4f %8.4f %8.2f %8s %6s" % ("data-aware learned directed 4+4", h["h"],
      h["worst"], h["neff_0.951"], "", "4+4"))'
    sed -n 's/^# norm_w_minus_j=\([0-9.]*\).*/  (its ||W - J||_2: \1)/p' "$T/dd.txt"
    echo "  ($t_dd s)"
fi
echo
echo "seconds (wall, this machine, loaded or not: compare within a row)"
printf '%-8s %12s %12s %14s %14s\n' n learned stl-fw stl-fw/learned data-aware/learned
mu1=10; case " $MUS " in *" 10 "*) ;; *) mu1=${MUS%% *};; esac
eval "t_da=\${t_da$mu1}"
printf '%-8s %12s %12s %14s %14s\n' 256 "$t_learned" "$t_stl" \
    "$(ratio "$t_stl" "$t_learned")" "$(ratio "$t_da" "$t_learned") (mu=$mu1)"
if [ "$BIG" = 1 ]; then
    "$dt" --epochs 0 --workers 1024 --batch 1 --partition dirichlet:0.2 --seed 1 \
        --write-partition "$T/p1024.txt" --quiet
    t0=$(now); "$tg" -n 1024 -d 4 -q -o "$T/l1024.txt"; tl=$(secs "$t0" "$(now)")
    t0=$(now); "$tg" --kind stl-fw -d 4 --labels "$T/p1024.txt" -o "$T/s1024.txt" 2>"$T/s1024.err"; ts=$(secs "$t0" "$(now)")
    t0=$(now); "$tg" -n 1024 -d 4 --labels "$T/p1024.txt" --weights mh -q -o "$T/d1024.txt"; td=$(secs "$t0" "$(now)")
    printf '%-8s %12s %12s %14s %14s\n' 1024 "$tl" "$ts" \
        "$(ratio "$ts" "$tl")" "$(ratio "$td" "$tl") (mu=10)"
    sed -n 's/^topogen: /  n=1024 dirichlet:0.2 /p' "$T/s1024.err"
    "$tg" eval "$T/d1024.txt" --labels "$T/p1024.txt" | sed -n 's/^heterogeneity H \([0-9.]*\).*/  n=1024 data-aware learned mu=10: H \1/p'
    "$tg" eval "$T/l1024.txt" --labels "$T/p1024.txt" | sed -n 's/^heterogeneity H \([0-9.]*\).*/  n=1024 learned (ratio): H \1/p'
fi

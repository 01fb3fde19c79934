#!/bin/sh
# consensus.sh: the consensus-only experiment (no training). For each node
# count, topology and weight rule it builds the topology with topogen,
# gossips random vectors (`topogen eval FILE --simulate ROUNDS`) and plots
# the relative disagreement ||x_t - x̄|| / ||x_0 - x̄|| per round next to
# the SLEM^t bound, one panel per node count.
#
#   scripts/experiments/consensus.sh [OUT]  (default OUT=results)
#   NS="16 32 64 128" KINDS="learned rrl random exponential" \
#   WEIGHTS="laplacian mh" ROUNDS=60 DEGREE=4
# Writes OUT/consensus/*.dat and OUT/plots/consensus-sim.png.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/../lib/common.sh"
script_out consensus "$TREE_OUT" "$@"
BIN=${BIN:-$TREE_BIN}
NS=${NS:-"16 32 64 128"}
KINDS=${KINDS:-"learned rrl random exponential"}
WEIGHTS=${WEIGHTS:-"laplacian mh"}
ROUNDS=${ROUNDS:-60}
DEGREE=${DEGREE:-4}
SEED=${SEED:-1}
[ -x "$BIN/topogen" ] || { echo "consensus: $BIN/topogen not found: run 'make' first" >&2; exit 1; }
command -v gnuplot >/dev/null 2>&1 || { echo "consensus: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$OUT/consensus" "$OUT/plots"

for n in $NS; do
    for k in $KINDS; do
        for w in $WEIGHTS; do
            f="$OUT/consensus/n$n-$k-$w"
            # the topology file is kept next to its simulation; one made
            # again for a kept .dat (to read its degree) is kept only when
            # it has the SLEM the simulation recorded (to its 6 digits)
            if [ ! -s "$f.txt" ]; then
                # an implied degree takes no -d (topogen refuses another)
                dflag="-d $DEGREE"
                case $k in exponential|exponential-sym|hypercube|ring|torus|complete) dflag="";; esac
                "$BIN/topogen" -n "$n" $dflag --kind "$k" --weights "$w" \
                    --seed "$SEED" --quiet -o "$f.txt"
                if [ -s "$f.dat" ]; then
                    a=$("$BIN/topogen" eval "$f.txt" --simulate 1 --seed "$SEED" | sed -n 's/.* slem=\([0-9.e+-]*\).*/\1/p')
                    b=$(sed -n 's/.* slem=\([0-9.e+-]*\).*/\1/p' "$f.dat")
                    if [ "$(printf %.6f "$a")" != "$(printf %.6f "$b")" ]; then
                        echo "consensus: $f.txt made again has SLEM $a, but $f.dat simulated SLEM $b (topogen changed since): not kept" >&2
                        rm -f "$f.txt"
                    fi
                fi
            fi
            if [ ! -s "$f.dat" ]; then
                "$BIN/topogen" eval "$f.txt" --simulate "$ROUNDS" --seed "$SEED" \
                    > "$f.dat.tmp"
                mv "$f.dat.tmp" "$f.dat"
            fi
            echo "consensus: n=$n $k+$w: $(grep -o 'slem=[0-9.e+-]*' "$f.dat" | head -n 1)"
        done
    done
done

. "$here/../lib/styles.sh"
npan=$(echo $NS | wc -w)
cols=$(( npan > 2 ? 2 : npan )); rows=$(( (npan + cols - 1) / cols ))
gp="$OUT/plots/.consensus.gp"
png="$OUT/plots/consensus-sim.png"
{
    echo "set terminal pngcairo size $((620 * cols)),$((640 * rows + 40)) font 'DejaVu Sans,10'"
    echo "set output '$png.tmp'"
    echo "set multiplot layout $rows,$cols title 'Gossip of random vectors: relative disagreement per round (solid) and SLEM^t (dotted)' font ',13'"
    echo "set logscale y; set format y '10^{%T}'; set grid lc rgb '#dddddd'"
    echo "set xlabel 'gossip round t'; set ylabel '||x_t - x̄|| / ||x_0 - x̄||'"
    echo "set key outside below center Left reverse vertical maxrows 8 font ',8'; set yrange [1e-8:2]"
    for n in $NS; do
        echo "set title '$n nodes'"
        cmd="plot"
        for k in $KINDS; do for w in $WEIGHTS; do
            f="$OUT/consensus/n$n-$k-$w"
            # SLEM as simulated (the .dat header), degree from the file
            s=$(sed -n 's/.* slem=\([0-9.e+-]*\).*/\1/p' "$f.dat")
            # (without its file: DEGREE, for the kinds that are
            # DEGREE-regular by construction)
            d=""
            if [ -f "$f.txt" ]; then
                d=$(sed -n '1s/.* d=\([0-9]*\).*/\1/p' "$f.txt")
            else
                case $k in learned|rrl|random) d=$DEGREE;; esac
            fi
            st=$(colour_of "$k" "$w")
            cmd="$cmd '$f.dat' u 1:2 w l $st lw 2 t '$k + $w (deg ${d:-?}, SLEM $(printf %.3f "$s"))', '$f.dat' u 1:3 w l $st lw 1 dt 3 notitle,"
        done; done
        echo "${cmd%,}"
    done
    echo "unset multiplot"
} > "$gp"
gnuplot "$gp"
mv "$png.tmp" "$png"
rm -f "$gp"
echo "consensus: wrote $png"

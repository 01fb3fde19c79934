#!/bin/sh
# plot.sh: PNG plots of a sweep (scripts/sweep.sh) with gnuplot.
#
#   scripts/plot.sh [OUT]        (default OUT=results)
#
# For each data partition it draws, one panel per worker count and one line
# per topology+weights (mean over seeds, band = +-1 std):
#   OUT/plots/acc-epoch-PART.png    test accuracy of the average model vs epoch
#   OUT/plots/acc-time-PART.png     ... vs wall-clock seconds
#   OUT/plots/loss-PART.png         training loss vs epoch
#   OUT/plots/consensus-PART.png    consensus distance vs step (log scale)
# Aggregated series are kept in OUT/agg/ for the summary table.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-${OUT:-$here/../results}}
[ -d "$OUT/runs" ] || { echo "plot: no $OUT/runs (run scripts/sweep.sh first)" >&2; exit 1; }
command -v gnuplot >/dev/null 2>&1 || { echo "plot: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$OUT/agg" "$OUT/plots"

# 1. Aggregate complete runs by setting (name minus the -sSEED suffix).
settings=$(ls "$OUT/runs" | sed -n 's/^\(.*\)-s[0-9][0-9]*\.done$/\1/p' | sort -u)
[ -n "$settings" ] || { echo "plot: no complete runs in $OUT/runs" >&2; exit 1; }
for set in $settings; do
    files=$(ls "$OUT/runs" | sed -n "s/^\($set-s[0-9][0-9]*\)\.done\$/\1.csv/p")
    (cd "$OUT/runs" && awk -f "$here/aggregate.awk" $files) > "$OUT/agg/$set.dat.tmp"
    mv "$OUT/agg/$set.dat.tmp" "$OUT/agg/$set.dat"
done

# Setting name: n<N>-<kind>-<weights>-<partition tag>
part_of() { echo "$1" | cut -d- -f4-; }
n_of() { echo "$1" | cut -d- -f1 | sed 's/^n//'; }
label_of() {
    k=$(echo "$1" | cut -d- -f2); w=$(echo "$1" | cut -d- -f3)
    if [ "$k" = allreduce ]; then echo "all-reduce (C-PSGD)"; else echo "$k + $w"; fi
}
# A fixed colour and dash per topology+weights, so every plot matches.
. "$here/styles.sh"
style_of() { line_of "$(echo "$1" | cut -d- -f2)" "$(echo "$1" | cut -d- -f3)"; }

if [ -f "$OUT/grid.env" ]; then . "$OUT/grid.env"; fi
parts=$(for s in $settings; do part_of "$s"; done | sort -u)

# plot_one FILE YLABEL XCOL YCOL ERRCOL(0 none) LOGY TITLE XLABEL
plot_one() {
    png=$1; ylabel=$2; xcol=$3; ycol=$4; ecol=$5; logy=$6; title=$7; xlabel=$8; part=$9
    ns=$(for s in $settings; do [ "$(part_of "$s")" = "$part" ] && n_of "$s"; done | sort -nu)
    npan=$(echo $ns | wc -w)
    gp="$OUT/plots/.plot.gp"
    {
        width=$((520 * npan + 80)); [ "$width" -lt 1000 ] && width=1000
        echo "set terminal pngcairo size $width,520 font 'DejaVu Sans,10'"
        echo "set output '$png.tmp'"
        echo "set multiplot layout 1,$npan title '$title' font ',13'"
        echo "set grid lc rgb '#dddddd'"
        echo "set key bottom right font ',8' opaque box"
        echo "set style fill transparent solid 0.15 noborder"
        echo "set xlabel '$xlabel'"
        echo "set ylabel '$ylabel'"
        [ "$logy" = 1 ] && echo "set logscale y; set format y '10^{%T}'; set key top right"
        for n in $ns; do
            echo "set title '$n workers'"
            cmd="plot"
            for s in $settings; do
                [ "$(part_of "$s")" = "$part" ] && [ "$(n_of "$s")" = "$n" ] || continue
                f="$OUT/agg/$s.dat"
                st=$(style_of "$s")
                lc=$(echo "$st" | sed 's/ lw.*//')
                if [ "$ecol" != 0 ]; then
                    cmd="$cmd '$f' u $xcol:(\$$ycol-\$$ecol):(\$$ycol+\$$ecol) w filledcurves $lc notitle,"
                fi
                if [ "$logy" = 1 ]; then
                    cmd="$cmd '$f' u $xcol:(\$$ycol > 0 ? \$$ycol : 1/0) w l $st t '$(label_of "$s")',"
                else
                    cmd="$cmd '$f' u $xcol:$ycol w lp $st pt 7 ps 0.5 t '$(label_of "$s")',"
                fi
            done
            echo "${cmd%,}"
        done
        echo "unset multiplot"
    } > "$gp"
    gnuplot "$gp"
    mv "$png.tmp" "$png"
    echo "plot: wrote $png"
}

desc="${DATASET:-fashion-mnist}, ${MODEL:-lenet}, batch ${BATCH:-?}/worker, lr ${LR:-?}, degree ${DEGREE:-?}"
for part in $parts; do
    pl=$(echo "$part" | sed 's/-/ /; s/dirichlet /dirichlet α=/')
    plot_one "$OUT/plots/acc-epoch-$part.png" "test accuracy of the average model" 1 4 5 0 \
        "Test accuracy vs epochs ($pl partition; $desc)" "epoch" "$part"
    plot_one "$OUT/plots/acc-time-$part.png" "test accuracy of the average model" 3 4 5 0 \
        "Test accuracy vs wall-clock time ($pl partition; $desc)" "wall-clock time (s)" "$part"
    plot_one "$OUT/plots/loss-$part.png" "training loss (cross-entropy)" 1 6 7 0 \
        "Training loss vs epochs ($pl partition; $desc)" "epoch" "$part"
    plot_one "$OUT/plots/consensus-$part.png" "consensus distance mean_i ||x_i - x̄||²" 2 8 0 1 \
        "Consensus distance vs steps ($pl partition; $desc)" "step" "$part"
done
rm -f "$OUT/plots/.plot.gp"

#!/bin/sh
# plot.sh: PNG plots of a sweep (scripts/experiments/sweep.sh) with gnuplot.
#
#   scripts/reports/plot.sh [--into DIR] [OUT [EXTRA...]]
#                     (default OUT=results; e.g. data/results/issue-15/n64)
#
# --into DIR: the figures (PNG and PDF) and the aggregated series go to
# DIR (DIR/agg; OUT/agg when DIR is OUT/plots) instead of OUT/plots
# (OUT/agg). Committed plots (OUT/plots
# tracked by git) are never drawn over without --into naming them.
# MAX_LINES (default 6): lines per panel at most; a worker count with more
# settings gets several panels, each with the references (all-reduce,
# learned + laplacian) and a share of the others.
#
# EXTRA: sweep directories run with a sweep-wide --algorithm A (in their
# grid.env's TRAIN_ARGS; e.g. scripts/experiments/results.sh's OUT/n64-d2 next to
# OUT/n64): their lines join OUT's plots as "KIND + WEIGHTS + A", with
# their own records, topology files and modelled.tsv.
# Uses the complete runs of OUT/runs (a settings record NAME.settings and
# a CSV that reached the recorded epochs; scripts/lib/runs.sh), so it redraws
# from committed files alone. For each data partition it draws one panel
# per worker count and one line per topology + weights (mean over seeds;
# shaded band = ±1 std over seeds, where a line has more than one seed):
#   OUT/plots/acc-epoch-PART.png    test accuracy of the average model vs epoch
#   OUT/plots/acc-bytes-PART.png    ... vs model copies sent per worker
#   OUT/plots/acc-time-PART.png     ... vs measured wall-clock seconds
#   OUT/plots/acc-modelled-PART.png ... vs modelled wall-clock seconds (only
#                                   when the CSVs have a column model_s,
#                                   dpsgd-train --net, or "modelled*")
#   OUT/plots/acc-modelled-NET-PART.png ... vs modelled wall-clock seconds on the
#                                   network preset NET, every worker on its
#                                   own host (OUT/modelled.tsv, written by
#                                   scripts/reports/modelled.sh; log time axis)
#   OUT/plots/loss-PART.png         global training loss (the average model
#                                   on the first 1000 training images) vs
#                                   epoch; logs older than that column get
#                                   the workers' own minibatch loss, labelled so
#   OUT/plots/consensus-PART.png    consensus distance vs step (log scale;
#                                   decentralized settings only)
# Each legend entry names the setting, the models a worker sends per step
# (a time-varying graph: with its most peers per round and period) and the seeds
# behind the line; legends sit below the panels, outside the data.
# Aggregated series are kept in OUT/agg/ (DIR/agg with --into). Accuracy
# is in % (as in the tables); markers are one size; bands start at epoch 1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
script_help "$@"
PLOTS=""
if [ "${1:-}" = --into ]; then
    [ $# -ge 2 ] && [ -n "$2" ] || { echo "plot: --into needs a folder" >&2; exit 2; }
    PLOTS=$2
    shift 2
fi
case "${1:-}" in -*) echo "plot: unknown option '$1' (see --help)" >&2; exit 2;; esac
OUT=${1:-${OUT:-$TREE_OUT}}
[ -d "$OUT/runs" ] || { echo "plot: no $OUT/runs (run scripts/experiments/sweep.sh first)" >&2; exit 1; }
command -v gnuplot >/dev/null 2>&1 || { echo "plot: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
if [ -z "$PLOTS" ]; then
    # committed figures are redrawn only when asked by name
    if git -C "$OUT" ls-files --error-unmatch plots >/dev/null 2>&1; then
        echo "plot: $OUT/plots holds committed plots: draw elsewhere with --into DIR, or redraw them with --into $OUT/plots" >&2
        exit 2
    fi
    PLOTS=$OUT/plots
fi
# the aggregated series beside the plots: OUT/agg for OUT/plots
if [ "$(cd "$(dirname "$PLOTS")" 2>/dev/null && pwd)/$(basename "$PLOTS")" = "$(cd "$OUT" && pwd)/plots" ]; then
    AGG=$OUT/agg
else
    AGG=$PLOTS/agg
fi
. "$here/../lib/runs.sh"
. "$here/../lib/styles.sh"
MAX_LINES=${MAX_LINES:-6}
mkdir -p "$AGG" "$PLOTS"
shift $(( $# > 0 ? 1 : 0 ))
# alg_dirs: "ALG=DIR" for every EXTRA
alg_dirs=""
for e in "$@"; do
    [ -d "$e/runs" ] || { echo "plot: $e: not a sweep directory (no $e/runs)" >&2; exit 1; }
    a=$(sed -n 's/^TRAIN_ARGS=.*--algorithm[ =]\([a-z0-9]*\).*/\1/p' "$e/grid.env" 2>/dev/null | head -n 1)
    # issue 31: a directory run with --average-every, --global-every,
    # --local-after or --outer is an EXTRA too, named by them
    cl=$(comm_label "$(sed -n 's/^TRAIN_ARGS="\(.*\)"$/\1/p' "$e/grid.env" 2>/dev/null)")
    [ -z "$cl" ] || a="${a:+$a+}$cl"
    [ -n "$a" ] || { echo "plot: $e: its grid.env names no --algorithm, --average-every, --global-every, --local-after or --outer in TRAIN_ARGS; EXTRA directories are for those runs" >&2; exit 1; }
    alg_dirs="$alg_dirs $a=$e"
done

# Run names go into gnuplot's scripts and the shell's word lists: only
# the characters sweep.sh itself uses (letters, digits, '.', '_', '-');
# a record of another name is refused, naming it (check_run_names,
# runs.sh).
check_run_names plot "$OUT/runs" || exit 1
for ad in $alg_dirs; do check_run_names plot "${ad#*=}/runs" || exit 1; done

# 1. Aggregate complete runs by setting (name minus the -sSEED suffix).
runs=$(complete_runs "$OUT/runs")
[ -n "$runs" ] || { echo "plot: no complete runs in $OUT/runs (a run needs NAME.settings and a CSV that reached its EPOCHS)" >&2; exit 1; }
# aggregate DIR RUNS SUFFIX: one OUT/agg/SET.dat per setting of RUNS
aggregate() {
    for set in $(echo "$2" | sed 's/-s[0-9][0-9]*$//' | sort -u); do
        files=$(echo "$2" | grep "^$set-s[0-9][0-9]*\$" | sed 's/$/.csv/')
        (cd "$1/runs" && awk -f "$here/aggregate.awk" $files) > "$AGG/$set$3.dat.tmp"
        mv "$AGG/$set$3.dat.tmp" "$AGG/$set$3.dat"
        echo "$set$3"
    done
}
settings=$(aggregate "$OUT" "$runs" "")
for ad in $alg_dirs; do
    r=$(complete_runs "${ad#*=}/runs")
    [ -n "$r" ] || { echo "plot: ${ad#*=}: no complete runs, left out" >&2; continue; }
    settings="$settings $(aggregate "${ad#*=}" "$r" "@${ad%%=*}")"
done

# Setting name: n<N>-<kind>-<weights>-<partition tag>[@<algorithm>]; an
# algorithm's files live in its EXTRA directory (dir_of)
base_of() { echo "${1%@*}"; }
alg_of() { case $1 in *@*) echo "${1#*@}";; esac; }
dir_of() {
    a=$(alg_of "$1")
    if [ -z "$a" ]; then printf '%s\n' "$OUT"; return; fi
    for ad in $alg_dirs; do [ "${ad%%=*}" = "$a" ] && { printf '%s\n' "${ad#*=}"; return; }; done
}
# the fields of a setting's base name, split by the shell alone (these run
# thousands of times: a cut or sed for each took most of plot.sh's time)
field_of() { # field_of SET K: the K-th dash-separated field; K = 4: the rest
    _fo=${1%@*}
    _fk=1
    while [ "$_fk" -lt "$2" ]; do
        case $_fo in *-*) _fo=${_fo#*-} ;; *) _fo= ;; esac
        _fk=$((_fk + 1))
    done
    [ "$2" -ge 4 ] || _fo=${_fo%%-*}
    printf '%s\n' "$_fo"
}
part_of() { field_of "$1" 4; }
n_of() { _no=$(field_of "$1" 1); printf '%s\n' "${_no#n}"; }
kind_of() { field_of "$1" 2; }
weights_of() { field_of "$1" 3; }
record_of() { ls "$(dir_of "$1")/runs/$(base_of "$1")"-s*.settings | head -n 1; }
# topo_of SET: its topology file; a data-aware one (learned per partition
# and seed, issue 22) is found through the run record's TOPOLOGY.
_topo_of() {
    f="$(dir_of "$1")/topo/n$(n_of "$1")-$(kind_of "$1")-$(weights_of "$1").txt"
    [ -f "$f" ] || f=$(record_topology "$(record_of "$1")" "$(dir_of "$1")" 2>/dev/null || true)
    printf '%s\n' "$f"
}
_seeds_of() { awk '!/^#/ { print $11; exit }' "$AGG/$1.dat"; }
# degree_of SET: "d" (regular) or "dmin-dmax" from the topology file
# (edges listed once per pair); for a time-varying file (`# round R`
# sections) the most peers of a worker in one round and the period; the
# record's DEGREE for the regular kinds when the file was not kept; "?"
# otherwise.
_degree_of() {
    f=$(topo_of "$1")
    if [ -n "$f" ] && [ -f "$f" ]; then
        awk '/^# round / { r++; next } /^#/ { next }
             NF >= 2 && $1 != $2 { d[r, $1]++; d[r, $2]++ }
             END { lo = -1; for (k in d) { if (lo < 0 || d[k] < lo) lo = d[k]; if (d[k] > hi) hi = d[k] }
                   if (r > 1) { print "≤" hi " per round, period " r; exit }
                   print (lo == hi ? lo : lo "-" hi) }' "$f"
    else
        case $(kind_of "$1") in
        learned|rrl|random) record_value "$(record_of "$1")" DEGREE;;
        *) echo "?";;
        esac
    fi
}
# copies_of SET: model-sized messages a worker sends per step: its mean
# degree in D-PSGD (one copy to each neighbour; for a time-varying graph
# the mean over the rounds of a period), 2(n-1)/n for all-reduce
# (the bandwidth-optimal ring all-reduce, a modelled figure: the trainer
# calls MPI_Allreduce, whose algorithm MPI chooses). Empty when unknown.
_copies_of() {
    n=$(n_of "$1")
    if [ "$(kind_of "$1")" = allreduce ]; then
        awk -v n="$n" 'BEGIN { print 2 * (n - 1) / n }'; return
    fi
    f=$(topo_of "$1")
    if [ -n "$f" ] && [ -f "$f" ]; then
        # mean over the rounds of a time-varying file (1 round: static);
        # a directed file lists each arc once (one copy per line), an
        # epidemic file has no lines: S copies, its header's s=S
        awk -v n="$n" 'NR == 1 { dir = / directed=1( |$)/
                                 if (/ kind=epidemic /) { for (k = 1; k <= NF; k++)
                                     if ($k ~ /^s=/) { print substr($k, 3); done = 1; exit } } }
                       /^# round / { r++ } !/^#/ && NF >= 2 && $1 != $2 { e++ }
                       END { if (!done) print (dir ? 1 : 2) * e / n / (r > 1 ? r : 1) }' "$f" | numeric
    else
        case $(kind_of "$1") in
        learned|rrl|random) record_value "$(record_of "$1")" DEGREE | numeric;;
        esac
    fi
}
# step_s_of SET NET: modelled seconds per step of SET's topology on the
# network preset NET (OUT/modelled.tsv, scripts/reports/modelled.sh); empty when
# not modelled.
_step_s_of() {
    m="$(dir_of "$1")/modelled.tsv"
    [ -f "$m" ] || return 0
    awk -v k="n$(n_of "$1")-$(kind_of "$1")-$(weights_of "$1")" -v net="$2" \
        '!/^#/ && $1 == k && $2 == net { print $5; exit }' "$m" | numeric
}
# ar_of NET: "; all-reduce priced as ALG" from OUT/modelled.tsv's
# all-reduce rows on NET (their sixth column, scripts/reports/modelled.sh); the
# ring for a file written before the column
ar_of() {
    [ -f "$OUT/modelled.tsv" ] || return 0
    a=$(awk -v net="$1" '!/^#/ && $2 == net && $1 ~ /-allreduce-/ { print (NF >= 6 ? $6 : "ring"); exit }' "$OUT/modelled.tsv")
    [ -z "$a" ] || echo "; all-reduce priced as $a"
}
# nets_of: the presets OUT/modelled.tsv has
nets_of() {
    [ -f "$OUT/modelled.tsv" ] || return 0
    awk '!/^#/ && !seen[$2]++ { print $2 }' "$OUT/modelled.tsv"
}
_label_of() {
    s=$(seeds_of "$1"); sd="$s seeds"; [ "$s" = 1 ] && sd="1 seed"
    # the models a worker sends per step (copies_of), so that lines are
    # compared at equal bytes; a time-varying graph's most peers per round
    # and period beside it; with --average-every H (the label's "H<H>",
    # runs.sh comm_label) one communication every H steps
    c=$(copies_of "$1")
    h=$(alg_of "$1" | sed -n 's/.*H\([0-9][0-9]*\).*/\1/p')
    [ -z "$c" ] || [ -z "$h" ] || c=$(awk -v c="$c" -v h="$h" 'BEGIN { print c / h }')
    [ -n "$c" ] && c=$(printf '%.3g msgs/step' "$c") || c="msgs/step ?"
    if [ "$(kind_of "$1")" = allreduce ]; then
        a=$(alg_of "$1"); [ -z "$a" ] || a=" + $a"
        echo "all-reduce$a (C-PSGD, ring: $c; $sd)"
    else
        a=$(alg_of "$1"); [ -z "$a" ] || a=" + $a"
        d=$(degree_of "$1")
        case $d in *period*) c="$c, $d";; esac
        echo "$(kind_of "$1" | tr _ -) + $(weights_of "$1")$a ($c; $sd)"
    fi
}
_style_of() {
    if [ -n "$(alg_of "$1")" ]; then
        # the algorithm's colour; the graph's point shape, so that two
        # graphs under one algorithm stay apart
        echo "$(line_of "$(alg_of "$1")" alg) $(point_of "$(kind_of "$1")" "$(weights_of "$1")")"; return
    fi
    echo "$(line_of "$(kind_of "$1")" "$(weights_of "$1")") $(point_of "$(kind_of "$1")" "$(weights_of "$1")")"
}
# The label, style, copies, degree, seeds, topology file and modelled
# step of a setting are asked for again in each of the 14 figures, and
# each answer takes a dozen processes: memo keeps each one in a file of
# this run (MEMO), read back by the shell alone.
MEMO=$(mktemp -d "${TMPDIR:-/tmp}/plot.XXXXXX")
trap 'rm -rf "$MEMO"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
memo() { # memo F SET [NET]: F SET [NET], computed once
    _mf="$MEMO/$1-$2-${3:-}"
    [ -f "$_mf" ] || "_$1" "$2" ${3:+"$3"} > "$_mf"
    while IFS= read -r _ml || [ -n "$_ml" ]; do printf '%s\n' "$_ml"; done < "$_mf"
}
copies_of() { memo copies_of "$1"; }
step_s_of() { memo step_s_of "$1" "$2"; }
label_of() { memo label_of "$1"; }
style_of() { memo style_of "$1"; }
seeds_of() { memo seeds_of "$1"; }
degree_of() { memo degree_of "$1"; }
topo_of() { memo topo_of "$1"; }
# gq STRING: STRING for a single-quoted gnuplot string (' doubled; no
# other character is special there: no backquote substitution, no
# backslash escape).
gq() {
    case $1 in
    *"'"*) printf '%s' "$1" | sed "s/'/''/g" ;;
    *) printf '%s' "$1" ;;
    esac
}
# numeric: stdin's first line when it is a number, else nothing (a value
# read from a topology file or modelled.tsv becomes part of a gnuplot
# expression)
numeric() {
    IFS= read -r _nv || [ -n "$_nv" ] || return 0
    case $_nv in
    ''|*[!0-9.eE+-]*|*[eE]*[eE]*|*.*.*) ;;
    [0-9.]*) printf '%s\n' "$_nv" ;;
    esac
}
# has_col SET COL: the aggregated column has a value in some row
has_col() { awk -v c="$2" '!/^#/ && $c != "NaN" { f = 1 } END { exit !f }' "$AGG/$1.dat"; }

if [ -f "$OUT/grid.env" ]; then load_env "$OUT/grid.env" || exit 1; fi
parts=$(for s in $settings; do part_of "$s"; done | sort -u)

# plot_one PNG YLABEL XEXPR YCOL ERRCOL(0 none) LOGY TITLE XLABEL PART FILTER
# XEXPR: a column number or "copies" (step x copies_of); FILTER: "all",
# "gossip" (no all-reduce) or "col:K" (settings with a value in column K).
plot_one() {
    png=$1; ylabel=$2; xexpr=$3; ycol=$4; ecol=$5; logy=$6; title=$7
    xlabel=$8; part=$9; filter=${10}
    yfloor=0; [ "$ycol" = 4 ] && yfloor=1  # accuracy: axis from epoch 1
    yceil=0; [ "$ycol" = 12 ] || [ "$ycol" = 6 ] && yceil=1  # loss: likewise
    sel=""
    for s in $settings; do
        [ "$(part_of "$s")" = "$part" ] || continue
        case $filter in
        gossip) [ "$(kind_of "$s")" = allreduce ] && continue;;
        col:*) has_col "$s" "${filter#col:}" || continue;;
        esac
        if [ "$xexpr" = copies ] && [ -z "$(copies_of "$s")" ]; then
            echo "plot: $png: $s left out (degree unknown: no topology file)" >&2
            continue
        fi
        case $xexpr in modelled:*)
            if [ -z "$(step_s_of "$s" "${xexpr#modelled:}")" ]; then
                echo "plot: $png: $s left out (not in $OUT/modelled.tsv: run scripts/reports/modelled.sh $OUT)" >&2
                continue
            fi;;
        esac
        sel="$sel $s"
    done
    ns=$(for s in $sel; do n_of "$s"; done | sort -nu)
    [ -n "$ns" ] || return 0
    # panels: one per worker count, split so that none has more than
    # MAX_LINES lines; the references (all-reduce and learned +
    # laplacian) are drawn in each of a worker count's panels
    panels=""
    for n in $ns; do
        in_n=$(for s in $sel; do if [ "$(n_of "$s")" = "$n" ]; then echo "$s"; fi; done)
        refs=$(echo "$in_n" | while read -r s; do
            case "$(kind_of "$s")-$(weights_of "$s")$(alg_of "$s")" in
            allreduce-none|learned-laplacian) echo "$s";; esac; done)
        rest=$(echo "$in_n" | while read -r s; do
            case " $(echo $refs) " in *" $s "*) ;; *) echo "$s";; esac; done)
        nref=$(echo $refs | wc -w); nrest=$(echo $rest | wc -w)
        room=$((MAX_LINES - nref)); [ "$room" -ge 1 ] || room=1
        if [ "$nrest" -le "$room" ]; then
            panels="$panels $n:$(echo $in_n | tr ' ' ',')"
            continue
        fi
        k=$(( (nrest + room - 1) / room )) # panels for this n, filled evenly
        per=$(( (nrest + k - 1) / k )); i=0; chunk=""
        for s in $rest; do
            chunk="$chunk,$s"; i=$((i + 1))
            if [ "$i" -eq "$per" ]; then
                panels="$panels $n:$(echo $refs | tr ' ' ',')$chunk"; i=0; chunk=""
            fi
        done
        [ -z "$chunk" ] || panels="$panels $n:$(echo $refs | tr ' ' ',')$chunk"
    done
    npan=$(echo $panels | wc -w)
    cols=$npan; [ "$cols" -le 3 ] || cols=3
    rows=$(( (npan + cols - 1) / cols ))
    gp="$PLOTS/.plot.gp"
    {
        width=$((520 * cols + 60)); [ "$width" -lt 900 ] && width=900
        height=$((640 * rows + 60))
        echo "set terminal pngcairo size $width,$height font 'DejaVu Sans,10'"
        echo "set output '$(gq "$png.tmp")'"
        # printf, not echo: the title's two-character \n is gnuplot's line
        # break and must reach it as written
        printf '%s\n' "set multiplot layout $rows,$cols title \"$title\" font ',12'"
        echo "set grid lc rgb '#dddddd'"
        echo "set key outside below center Left reverse vertical maxcols 1 font ',8' samplen 3 spacing 1.05"
        echo "set style fill transparent solid 0.15 noborder"
        echo "set xlabel \"$xlabel\""
        echo "set ylabel \"$ylabel\""
        echo "set datafile missing 'NaN'"
        [ "$logy" = 1 ] && echo "set logscale y; set format y '10^{%T}'"
        case $xexpr in modelled:*|copies) echo "set logscale x; set format x '%g'";; esac
        for pan in $panels; do
            n=${pan%%:*}
            in_panel=$(echo "${pan#*:}" | tr ',' '\n')
            part_no=""
            [ "$(echo "$panels" | tr ' ' '\n' | grep -c "^$n:")" -gt 1 ] && part_no=" ($(echo "$in_panel" | wc -l) settings)"
            echo "set title '$n workers$part_no'"
            echo "unset label 1; set yrange [*:*]"
            # the y range from every setting of this worker count, so that
            # its panels share one scale
            # (names relative to AGG, whose path may hold spaces; run
            # names are checked: no spaces)
            files=$(for s in $sel; do if [ "$(n_of "$s")" = "$n" ]; then echo "$s.dat"; fi; done)
            if [ "$yfloor" = 1 ]; then
                # accuracy in %: the y axis starts below the lowest
                # accuracy (band included) from epoch 1 on, so that the
                # differences between settings are visible; the epoch-0
                # point (the initial model, near 10%) falls below it and
                # a label gives its value
                lo=$(cd "$AGG" && awk -v e="$ecol" '!/^#/ && $1 >= 1 && $4 != "NaN" {
                         v = $4 - (e > 0 && $e != "NaN" ? $e : 0); if (lo == "" || v < lo) lo = v }
                     END { if (lo != "") print 5 * int(lo * 20 - 1e-9) }' $files)
                a0=$(cd "$AGG" && awk '!/^#/ && $1 == 0 && $4 != "NaN" { if (lo == "" || $4 < lo) lo = $4; if ($4 > hi) hi = $4 }
                     END { if (lo == "") exit
                           a = sprintf("%.1f", 100 * lo); b = sprintf("%.1f", 100 * hi)
                           print (a == b ? a : a "-" b) "%" }' $files)
                if [ -n "$lo" ]; then
                    echo "set yrange [$lo:*]"
                    case $xexpr in modelled:*|copies) ;; *)
                        [ -n "$a0" ] && echo "set label 1 'epoch 0 (initial model): $a0, below the axis' at graph 0.98, graph 0.04 right font ',8' tc rgb '#555555'";;
                    esac
                fi
            fi
            if [ "$yceil" = 1 ]; then
                # the loss axis ends above the highest loss from epoch 1
                # on; the initial model's loss (about 2.3-3.2) is above it
                hi=$(cd "$AGG" && awk -v c="$ycol" -v e="$ecol" '!/^#/ && $1 >= 1 && $c != "NaN" {
                         v = $c + (e > 0 && $e != "NaN" ? $e : 0); if (v > hi) hi = v }
                     END { if (hi != "") print int(hi * 10 + 1) / 10 }' $files)
                l0=$(cd "$AGG" && awk -v c="$ycol" '!/^#/ && $1 == 0 && $c != "NaN" { if (lo == "" || $c < lo) lo = $c; if ($c > hi) hi = $c }
                     END { if (lo == "") exit
                           a = sprintf("%.2f", lo); b = sprintf("%.2f", hi)
                           print (a == b ? a : a "-" b) }' $files)
                if [ -n "$hi" ]; then
                    echo "set yrange [0:$hi]"
                    [ -n "$l0" ] && echo "set label 1 'epoch 0 (initial model): loss $l0, above the axis' at graph 0.98, graph 0.96 right font ',8' tc rgb '#555555'"
                fi
            fi
            cmd="plot"
            band=0
            for s in $in_panel; do
                [ "$ecol" != 0 ] && [ "$(seeds_of "$s")" -gt 1 ] && band=1
            done
            # accuracy is drawn in % (the tables' unit)
            scale=1; [ "$yfloor" = 1 ] && scale=100
            for s in $in_panel; do
                f="$AGG/$s.dat"
                # one marker size and the style's own line width for
                # every line; distinct shapes (styles.sh), about 12
                # markers per line (pi) so that they do not pile up
                st=$(style_of "$s")
                lc=$(echo "$st" | sed 's/ lw.*//')
                pi=$(awk '!/^#/ { r++ } END { p = int(r / 12); print (p < 1 ? 1 : p) }' "$f")
                case $xexpr in
                # log axis: step 0 (nothing sent yet) has no place on it
                copies) x="(\$2 > 0 ? \$2*$(copies_of "$s") : 1/0)";;
                modelled:*) x="(\$2 > 0 ? \$2*$(step_s_of "$s" "${xexpr#modelled:}") : 1/0)";;
                *) x=$xexpr;;
                esac
                if [ "$ecol" != 0 ] && [ "$(seeds_of "$s")" -gt 1 ]; then
                    # the band from epoch 1 on: the epoch-0 point (one
                    # initial model, std 0) would draw a wedge
                    cmd="$cmd '$(gq "$f")' u $x:(\$1 >= 1 ? $scale*(\$$ycol-\$$ecol) : 1/0):(\$1 >= 1 ? $scale*(\$$ycol+\$$ecol) : 1/0) w filledcurves $lc notitle,"
                fi
                if [ "$logy" = 1 ]; then
                    cmd="$cmd '$(gq "$f")' u $x:(\$$ycol > 0 ? \$$ycol : 1/0) w lp $st ps 0.9 pi $pi t '$(gq "$(label_of "$s")")',"
                else
                    cmd="$cmd '$(gq "$f")' u $x:($scale*\$$ycol) w lp $st ps 0.9 pi $pi t '$(gq "$(label_of "$s")")',"
                fi
            done
            [ "$band" = 1 ] && cmd="$cmd keyentry w filledcurves fc rgb '#999999' fs transparent solid 0.3 t '±1 std over seeds',"
            echo "${cmd%,}"
        done
        echo "unset multiplot"
    } > "$gp"
    gnuplot "$gp"
    mv "$png.tmp" "$png"
    # the same figure as a PDF (vector, for a paper), same layout in inches
    pdf="${png%.png}.pdf"
    {
        echo "set terminal pdfcairo size $(awk -v w="$width" 'BEGIN { print w / 100 }')in,$(awk -v h="$height" 'BEGIN { print h / 100 }')in font 'DejaVu Sans,10'"
        echo "set output '$(gq "$pdf.tmp")'"
        tail -n +3 "$gp"
    } > "$gp.pdf"
    gnuplot "$gp.pdf"
    mv "$pdf.tmp" "$pdf"
    rm -f "$gp.pdf"
    echo "plot: wrote $png (and .pdf)"
}

# grid.env's values go into gnuplot's double-quoted titles, where \, "
# and ` are special: only plain characters are kept
desc=$(printf '%s' "${DATASET:-?}, ${MODEL:-?}, batch ${BATCH:-?}/worker, lr ${LR:-?}" | tr -cd 'A-Za-z0-9 .,:/=+?_-')
acc="test accuracy of the average model (%)"
for part in $parts; do
    pl=$(echo "$part" | sed 's/-/ /; s/dirichlet /dirichlet α=/')
    plot_one "$PLOTS/acc-epoch-$part.png" "$acc" 1 4 5 0 \
        "Test accuracy vs epochs\\n($pl partition; $desc)" "epoch" "$part" all
    plot_one "$PLOTS/acc-bytes-$part.png" "$acc" copies 4 5 0 \
        "Test accuracy vs data sent per worker (D-PSGD: degree copies per step; all-reduce: 2(n-1)/n, ring)\\n($pl partition; $desc)" \
        "model copies sent per worker (log scale)" "$part" all
    plot_one "$PLOTS/acc-time-$part.png" "$acc" 3 4 5 0 \
        "Test accuracy vs measured wall-clock time, shared machine: indicative\\n($pl partition; $desc)" \
        "wall-clock training time (s)" "$part" all
    plot_one "$PLOTS/acc-modelled-$part.png" "$acc" 15 4 5 0 \
        "Test accuracy vs modelled wall-clock time\\n($pl partition; $desc)" \
        "modelled wall-clock time (s)" "$part" col:15
    for net in $(nets_of); do
        plot_one "$PLOTS/acc-modelled-$net-$part.png" "$acc" "modelled:$net" 4 5 0 \
            "Test accuracy vs modelled wall-clock time, $net network, every worker on its own host$(ar_of "$net")\\n($pl partition; $desc)" \
            "modelled training time (s, log scale): steps x (measured compute + modelled $net round)" "$part" all
    done
    gl=1
    for s in $settings; do
        [ "$(part_of "$s")" = "$part" ] || continue
        has_col "$s" 12 || gl=0
    done
    if [ "$gl" = 1 ]; then
        plot_one "$PLOTS/loss-$part.png" "global training loss (average model, first 1000 training images)" 1 12 13 0 \
            "Global training loss vs epochs\\n($pl partition; $desc)" "epoch" "$part" all
    else
        plot_one "$PLOTS/loss-$part.png" "mean minibatch loss, each worker on its own shard" 1 6 7 0 \
            "Workers' own training loss vs epochs: NOT the global loss\\n(logs predate it; $pl partition; $desc)" "epoch" "$part" all
    fi
    plot_one "$PLOTS/consensus-$part.png" "consensus distance mean_i ||x_i - x̄||²" 2 8 0 1 \
        "Consensus distance vs steps\\n($pl partition; $desc)" "step" "$part" gossip
done
rm -f "$PLOTS/.plot.gp"

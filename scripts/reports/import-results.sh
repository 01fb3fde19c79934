#!/bin/sh
# import-results.sh: copy the finished part of a scripts/experiments/results.sh output
# folder into a folder meant for git (e.g. data/results), keeping what
# redraws the plots and tables and leaving out what does not belong in
# a repository.
#
#   scripts/reports/import-results.sh SRC DEST  e.g. results15 data/results
#
# For each sweep folder SRC/n* (n16, n64, n256, n16-d2, ...): the complete
# runs only (scripts/lib/runs.sh: a settings record and a CSV that reached its
# EPOCHS) with their CSV, settings record and trainer log, the topology
# files (and label-count files), grid.env and a modelled.tsv (SRC's, else the one already in
# DEST, whose measurements are kept); SRC/consensus-sim's .dat and
# topology files. Left out: .done markers (sweep.sh's skip logic), runs
# still in progress, agg/ and plots/ (plot.sh makes them again). A DEST
# sweep folder is replaced as a whole, so runs it lost in SRC do not
# linger. Prints what it copied. SRC and DEST must be apart: the same
# folder, or one inside the other, is refused (exit 2).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in -h|--help|'') sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; [ -n "${1:-}" ]; exit $?;; esac
[ $# -eq 2 ] || { echo "import-results: usage: scripts/reports/import-results.sh SRC DEST" >&2; exit 2; }
SRC=$1 DEST=$2
. "$here/../lib/runs.sh"
[ -d "$SRC" ] || { echo "import-results: $SRC: no such folder" >&2; exit 1; }
# SRC and DEST resolved (links followed; DEST from its nearest existing
# folder): the same folder, or one inside the other, is refused, since
# replacing DEST's sweep folders would delete SRC's runs in progress
real_src=$(cd "$SRC" && pwd -P)
d=$DEST rest=""
while [ ! -d "$d" ]; do
    rest="/$(basename "$d")$rest"
    d=$(dirname "$d")
done
real_dest="$(cd "$d" && pwd -P)$rest"
case "$real_dest/" in "$real_src/"*)
    echo "import-results: DEST $DEST is SRC $SRC or inside it: give a folder outside SRC" >&2; exit 2;;
esac
case "$real_src/" in "$real_dest/"*)
    echo "import-results: SRC $SRC is inside DEST $DEST: give a DEST outside SRC" >&2; exit 2;;
esac
mkdir -p "$DEST"
found=0
for d in "$SRC"/n*; do
    [ -d "$d/runs" ] || continue
    name=$(basename "$d")
    runs=$(complete_runs "$d/runs")
    [ -n "$runs" ] || { echo "import-results: $name: no complete runs, skipped"; continue; }
    found=1
    tmp="$DEST/.$name.tmp"
    rm -rf "$tmp"
    mkdir -p "$tmp/runs" "$tmp/logs" "$tmp/topo"
    for r in $runs; do
        cp "$d/runs/$r.csv" "$d/runs/$r.settings" "$tmp/runs/"
        [ ! -f "$d/logs/$r.log" ] || cp "$d/logs/$r.log" "$tmp/logs/"
    done
    cp "$d"/topo/*.txt "$tmp/topo/"
    # the label-count files the data-aware topologies were learned from
    for c in "$d"/topo/*.counts; do [ ! -f "$c" ] || cp "$c" "$tmp/topo/"; done
    cp "$d/grid.env" "$tmp/"
    # a modelled.tsv: SRC's, else the one DEST has (its measured compute
    # time is kept; scripts/reports/modelled.sh adds the rounds of new settings)
    if [ -f "$d/modelled.tsv" ]; then cp "$d/modelled.tsv" "$tmp/"
    elif [ -f "$DEST/$name/modelled.tsv" ]; then cp "$DEST/$name/modelled.tsv" "$tmp/"; fi
    rm -rf "$DEST/$name"
    mv "$tmp" "$DEST/$name"
    echo "import-results: $name: $(echo "$runs" | wc -l) complete runs"
done
if [ -d "$SRC/consensus-sim/consensus" ]; then
    rm -rf "$DEST/.consensus-sim.tmp"
    mkdir -p "$DEST/.consensus-sim.tmp/consensus"
    cp "$SRC"/consensus-sim/consensus/*.dat "$SRC"/consensus-sim/consensus/*.txt "$DEST/.consensus-sim.tmp/consensus/"
    rm -rf "$DEST/consensus-sim"
    mv "$DEST/.consensus-sim.tmp" "$DEST/consensus-sim"
    echo "import-results: consensus-sim: $(ls "$DEST"/consensus-sim/consensus/*.dat | wc -l) simulations"
fi
[ "$found" = 1 ] || { echo "import-results: $SRC has no sweep folder with complete runs" >&2; exit 1; }

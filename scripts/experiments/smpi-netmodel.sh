#!/bin/sh
# smpi-netmodel.sh: the project's network model (topogen eval --net, the
# home model of src/place/cm_net*.c) against SimGrid's SMPI on the same
# platforms (topogen platform), cell by cell: gossip rounds of degree 1,
# 2, 4, 8 and one-peer exponential, and the all-reduce algorithms
# (recursive doubling, Rabenseifner, ring, binomial reduce + broadcast,
# direct; on sites:K the hierarchical one by site: binomial reduce in
# each site, recursive doubling among the sites' first ranks, binomial
# broadcast), on the wan, datacenter and sites:4 presets, 16, 256 and
# 1,024 hosts, arrays of 64 kB, 1 MB and 16 MB. Each cell is simulated
# under both TCP settings of smpi-run.sh (cm02: CM02, factors 1; lv08:
# LV08 with its factors), with SMPI's compute injection off
# (communication only).
#
#   sh scripts/experiments/smpi-netmodel.sh [OUT.md]
#   CELLS="home 16 1048576 d4;wan 256 65536 ring" sh ...   only these cells
#
# The home platform (each host its own up and down links and latency) is
# priced by the model from the same file (topogen eval --platform P.xml,
# per-host links, issue 42).
# Writes OUT.md (default: the table section of docs/network-model.md,
# between its smpi-table markers, is replaced) and prints the table.
# Takes about 20 minutes of one core (the 256- and 1,024-host cells
# dominate: on 1,024 hosts recursive doubling takes about 150 s per
# setting, the ring about 110 s per operation).
# Needs smpicc/smpirun (libsimgrid-dev); BIN=bin by default.
set -eu
. "$(dirname "$0")/../lib/common.sh"
script_help "$@"
. "$SCRIPTS/lib/smpi.sh"
SCRIPT_NAME=smpi-netmodel
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BIN=${BIN:-$root/bin}
DOC=$root/docs/network-model.md
case "${1:-}" in -*) die "unknown option '$1' (see --help)" ;; esac
OUT=${1:-}
smpi_probe_setup smpi-netmodel

SITES_NET='intra=25us,3GB/s;inter=50ms,12.5MB/s'
# plat_for PRESET N: the platform file of the cell (home: seed 1)
plat_for() {
    p=$T/plat-$(echo "$1" | tr ':' '-')-$2.xml
    [ -s "$p" ] || "$BIN/topogen" platform --net "$1" -n "$2" -o "$p"
    echo "$p"
}
# model_ms PRESET N BYTES PATTERN FILE: the home model's milliseconds
model_ms() {
    case $1 in
    home) net=$(plat_for home "$2") h=$2 ;; # --net P.xml: per-host links
    wan) net=wan h=$2 ;;
    datacenter) net=datacenter h=$2 ;;
    sites:*) net=$SITES_NET h=${1#sites:} ;;
    esac
    f=$5
    [ "$f" != - ] || f=$T/topo-$2-d4.txt
    "$BIN/topogen" eval "$f" --net "$net" --hosts "$h" --ranks "$2" \
        --params $(($3 / 4)) >"$T/eval.txt" 2>&1 || { echo "?"; return; }
    case $4 in
    d[0-9]*|one-peer) eval_ms "$T/eval.txt" gossip ;;
    *) eval_ms "$T/eval.txt" "$4" ;;
    esac
}

# smpi_ms TCP PRESET N BYTES PATTERN FILE: SMPI's milliseconds
smpi_ms() {
    tcp=$1 plat=$(plat_for "$2" "$3")
    reps=4
    [ "$3" -le 16 ] || reps=2
    cfg="--cfg=smpi/simulate-computation:no"
    case $5 in
    d[0-9]*|one-peer) args="gossip $6" ;;
    hierarchical) smpi_alg hierarchical $(($3 / ${2#sites:})) ;; # one group per site (sites:K)
    *) smpi_alg "$5" ;;
    esac
    smpi_probe_ms "$tcp" "$plat" "$3" "$4" "$reps" 1200
}

# the graphs: d-regular random (d >= 2), a perfect matching (d = 1:
# round 0 of one-peer exponential), one-peer exponential
topo_for() { # N PATTERN -> file
    f=$T/topo-$1-$2.txt
    if [ ! -s "$f" ]; then
        case $2 in
        d1) "$BIN/topogen" -n "$1" --kind one-peer-exp -q -o "$T/op.tmp"
            awk '/^# round 1 /{exit} !/^# round/{print}' "$T/op.tmp" | grep -v '^# topogen\|^# settings\|^# product' >"$f"
            sed -i '1i # topogen 2 n='"$1"' d=1 kind=matching version=2.1' "$f" ;;
        d[0-9]*) "$BIN/topogen" -n "$1" -d "${2#d}" --kind random --seed 1 -q -o "$f" ;;
        one-peer) "$BIN/topogen" -n "$1" --kind one-peer-exp -q -o "$f" ;;
        esac
    fi
    echo "$f"
}

# the cells: PRESET N BYTES PATTERN (CELLS="wan 16 1048576 d4;...": these)
cells() {
    if [ -n "${CELLS:-}" ]; then
        echo "$CELLS" | tr ';' '\n'
        return
    fi
    for p in d1 d2 d4 d8 one-peer recursive-doubling rabenseifner ring binomial direct; do
        echo "wan 16 1048576 $p"
    done
    for p in d4 one-peer recursive-doubling ring; do echo "wan 256 1048576 $p"; done
    # 1,024 hosts: not the direct all-reduce (a million concurrent flows:
    # SMPI did not finish one operation in 3 minutes)
    for p in d1 d4 one-peer recursive-doubling ring binomial; do echo "wan 1024 1048576 $p"; done
    for b in 65536 16777216; do
        for p in d4 recursive-doubling direct; do echo "wan 16 $b $p"; done
    done
    for p in d4 recursive-doubling ring direct; do echo "datacenter 16 1048576 $p"; done
    for p in d4 ring; do echo "datacenter 16 16777216 $p"; done
    for p in d4 recursive-doubling ring direct hierarchical; do echo "sites:4 16 1048576 $p"; done
    echo "sites:4 256 1048576 hierarchical"
    for n in 16 32 64; do
        for p in d1 d2 d4 d8 one-peer recursive-doubling rabenseifner ring binomial direct; do
            echo "home $n 1048576 $p"
        done
    done
}

hdr="| preset | n | array | communication | home model ms | SMPI CM02 ms | model/CM02 | SMPI LV08 ms | model/LV08 |"
sep="|---|---:|---:|---|---:|---:|---:|---:|---:|"
printf '%s\n%s\n' "$hdr" "$sep" >"$T/table.md"
cells | while read -r preset n bytes pat; do
    case $pat in d[0-9]*|one-peer) f=$(topo_for "$n" "$pat") ;; *) f=$(topo_for "$n" d4) ;; esac
    m=$(model_ms "$preset" "$n" "$bytes" "$pat" "$f")
    c=$(smpi_ms cm02 "$preset" "$n" "$bytes" "$pat" "$f")
    l=$(smpi_ms lv08 "$preset" "$n" "$bytes" "$pat" "$f")
    rc=$(ratio "$m" "$c") rl=$(ratio "$m" "$l")
    arr=$(awk -v b="$bytes" 'BEGIN { if (b >= 1048576) printf "%d MB", b / 1048576; else printf "%d kB", b / 1024 }')
    row="| $preset | $n | $arr | $pat | $m | $c | $rc | $l | $rl |"
    echo "$row" >>"$T/table.md"
    echo "$row"
done
if [ -n "$OUT" ]; then
    cp "$T/table.md" "$OUT"
else
    awk -v tf="$T/table.md" '
        /<!-- smpi-table begin -->/ { print; while ((getline l < tf) > 0) print l; skip = 1; next }
        /<!-- smpi-table end -->/ { skip = 0 }
        !skip { print }' "$DOC" >"$T/doc.md" && cp "$T/doc.md" "$DOC"
fi

#!/bin/sh
# smpi-sites.sh: the network model's three levels (site / host / worker,
# issue 42) against SimGrid's SMPI on one platform of sites: topogen
# platform --net sites:2 -n 8 (2 sites of 4 hosts), read by the model
# with --platform (inter 25 us, 3 GB/s between the hosts of a site; site
# 50.025 ms, one 12.5 MB/s uplink per site), 1 and 2 ranks per host
# (blocks: the ranks fill hosts, the hosts fill sites), arrays of 1 MB:
# gossip rounds on a ring and a random 4-regular graph, recursive
# doubling, ring, the direct all-reduce and the hierarchical one by site
# (binomial reduce in each site, recursive doubling between the two
# sites' first ranks, binomial broadcast). Each cell under both TCP
# settings of smpi-run.sh (CM02, LV08), compute injection off.
#
#   sh scripts/experiments/smpi-sites.sh [OUT.md]
#
# Prints the table (and writes OUT.md when given); docs/network-model.md
# holds it. About a minute of one core. Needs smpicc/smpirun
# (libsimgrid-dev); BIN=bin by default.
set -eu
. "$(dirname "$0")/../lib/common.sh"
script_help "$@"
. "$SCRIPTS/lib/smpi.sh"
SCRIPT_NAME=smpi-sites
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BIN=${BIN:-$root/bin}
case "${1:-}" in -*) die "unknown option '$1' (see --help)" ;; esac
OUT=${1:-}
smpi_probe_setup smpi-sites
plat=$T/sites2x4.xml
"$BIN/topogen" platform --net sites:2 -n 8 -o "$plat"
BYTES=1048576

# hostfile RPH: the 8 hosts, each RPH times in a row (ranks in blocks)
hostfile() {
    f=$T/hosts-$1
    : >"$f"
    for h in 0 1 2 3 4 5 6 7; do
        k=0
        while [ $k -lt "$1" ]; do echo "h000$h" >>"$f"; k=$((k + 1)); done
    done
    echo "$f"
}

topo_for() { # N PATTERN -> file
    f=$T/topo-$1-$2.txt
    if [ ! -s "$f" ]; then
        case $2 in
        ring) "$BIN/topogen" -n "$1" --kind ring -d 2 -q -o "$f" ;;
        d4) "$BIN/topogen" -n "$1" -d 4 --kind random --seed 1 -q -o "$f" ;;
        esac
    fi
    echo "$f"
}

model_ms() { # N PATTERN FILE (PATTERN ring, d4: gossip; else all-reduce)
    "$BIN/topogen" eval "$3" --platform "$plat" --hosts 8 --ranks "$1" \
        --params $((BYTES / 4)) >"$T/eval.txt" 2>&1 || { echo "?"; return; }
    case $2 in
    ring|d4) eval_ms "$T/eval.txt" gossip ;;
    ring-allreduce) eval_ms "$T/eval.txt" ring ;;
    *) eval_ms "$T/eval.txt" "$2" ;;
    esac
}

smpi_ms() { # TCP N RPH PATTERN FILE
    cfg="--cfg=smpi/simulate-computation:no -hostfile $(hostfile "$3")"
    case $4 in
    ring|d4) args="gossip $5" ;;
    ring-allreduce) smpi_alg ring ;;
    hierarchical-site) smpi_alg hierarchical $(($2 / 2)) ;;
    *) smpi_alg "$4" ;;
    esac
    smpi_probe_ms "$1" "$plat" "$2" "$BYTES" 4 600
}

hdr="| ranks per host | ranks | communication | model ms | SMPI CM02 ms | model/CM02 | SMPI LV08 ms | model/LV08 |"
sep="|---:|---:|---|---:|---:|---:|---:|---:|"
printf '%s\n%s\n' "$hdr" "$sep" >"$T/table.md"
echo "$hdr"
echo "$sep"
for rph in 1 2; do
    n=$((8 * rph))
    for pat in ring d4 recursive-doubling ring-allreduce direct hierarchical-site; do
        case $pat in ring|d4) f=$(topo_for "$n" "$pat") ;; *) f=$(topo_for "$n" d4) ;; esac
        m=$(model_ms "$n" "$pat" "$f")
        c=$(smpi_ms cm02 "$n" "$rph" "$pat" "$f")
        l=$(smpi_ms lv08 "$n" "$rph" "$pat" "$f")
        rc=$(ratio "$m" "$c") rl=$(ratio "$m" "$l")
        row="| $rph | $n | $pat | $m | $c | $rc | $l | $rl |"
        echo "$row" >>"$T/table.md"
        echo "$row"
    done
done
[ -z "$OUT" ] || cp "$T/table.md" "$OUT"

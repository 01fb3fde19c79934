#!/bin/sh
# slow-network.sh: issue 45's experiment, one script for its two cells,
# both 256 workers, one per simulated host, 3 seeds with a fresh graph per
# seed, every time simulated by SMPI under CM02 and LV08:
#   latency    LeNet on Fashion-MNIST, dirichlet:0.1, 12 epochs, on the
#              wan, 4-site and datacenter platforms: the runs and their
#              tables (results-slow-network.sh), the SMPI probes of every
#              communication pattern (smpi-retime.sh) and the re-timing
#              (smpi-retime.py) -> data/results-slow-network/
#   bandwidth  the CNN on Fashion-MNIST, dirichlet:0.1, 3 epochs, on the
#              home platform: the SMPI prices, the runs and the table
#              (bandwidth-bound.sh) -> data/bandwidth-bound/n256/
# The schedules re-run are the committed ones (each cell's runs/ names:
# NAME-sS, NAME-lrLR-sS), tuned by one protocol (docs/train/tuning.md);
# a run whose summary exists is skipped, so a second call resumes.
#
#   scripts/experiments/slow-network.sh [--cell latency|bandwidth|both]
#       [--tables-only] [--runs-only] [--out-latency DIR]
#       [--out-bandwidth DIR]
#   --cell C         the cell(s) to run (default both)
#   --tables-only    re-make the tables, the SMPI re-timing and the
#                    figures from the runs and probes there (seconds)
#   --runs-only      only the training runs (no SMPI probes, no tables)
#   --out-latency DIR, --out-bandwidth DIR  where to write (default the
#                    committed folders; another folder re-runs the
#                    committed queue there)
#   BIN=bin, NP (the latency cell's ranks, default 2), DEADLINE=HH:MM
#   (start no run after it) are passed on.
#
# Cost on this 2-core machine: the latency cell's 100-odd runs take
# 3-28 minutes each (NP=2), its SMPI probes about 35 CPU-s each; the
# bandwidth cell's 70-odd runs 2-9 minutes each (one process), its
# prices about 5 minutes. make check-claims checks both cells' tables
# against their runs (tests/contract/).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/../lib/common.sh" # die
cell=both tables="" runs="" outl="" outb=""
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p' | sed '$d'; exit 0;;
    --cell) [ $# -ge 2 ] || { echo "slow-network: --cell needs latency, bandwidth or both" >&2; exit 2; }
        case $2 in latency|bandwidth|both) cell=$2;;
        *) echo "slow-network: --cell '$2': not latency, bandwidth or both" >&2; exit 2;; esac
        shift 2;;
    --tables-only) tables=1; shift;;
    --runs-only) runs=1; shift;;
    --out-latency|--out-bandwidth)
        [ $# -ge 2 ] && [ -n "$2" ] || { echo "slow-network: $1 needs a folder" >&2; exit 2; }
        if [ "$1" = --out-latency ]; then outl=$2; else outb=$2; fi
        shift 2;;
    *) echo "slow-network: unknown option '$1' (see --help)" >&2; exit 2;;
    esac
done
[ -z "$tables" ] || [ -z "$runs" ] || { echo "slow-network: --tables-only and --runs-only exclude each other" >&2; exit 2; }
LAT=$root/data/results-slow-network
BW=$root/data/bandwidth-bound/n256
outl=${outl:-$LAT}
outb=${outb:-$BW}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OPENBLAS_NUM_THREADS=1

# queue_of DIR FORM: the committed runs of DIR/runs as a queue (FORM
# latency: NAME:SEED; bandwidth: NAME@LR:SEED), failed runs included
queue_of() {
    ls "$1/runs" | sed -n 's/\.\(json\|failed\)$//p' | sort -u |
        if [ "$2" = latency ]; then
            sed -n 's/^\(.*\)-s\([0-9][0-9]*\)$/\1:\2/p'
        else
            sed -n 's/^\(.*\)-lr\([0-9.]*\)-s\([0-9][0-9]*\)$/\1@\2:\3/p'
        fi | tr '\n' ' '
}

latency() {
    q=$(queue_of "$LAT" latency)
    if [ -n "$tables" ]; then
        TABLE_ONLY=1 sh "$here/results-slow-network.sh" "$outl"
    else
        QUEUE="$q" ${runs:+RUNS_ONLY=1} sh "$here/results-slow-network.sh" "$outl"
        [ -n "$runs" ] || sh "$here/smpi-retime.sh" "$outl/smpi"
    fi
    [ -n "$runs" ] || /usr/bin/python3 "$here/smpi-retime.py" "$outl/smpi"
}

bandwidth() {
    q=$(queue_of "$BW" bandwidth)
    set -- SEEDS="1 2 3" N=256 NP=1 BATCH=4 EPOCHS=3 TRAIN_LIMIT=0 PARTITIONS=dirichlet:0.1
    if [ -n "$tables" ]; then
        env "$@" TABLE_ONLY=1 sh "$here/bandwidth-bound.sh" "$outb"
    else
        [ -n "$runs" ] || env "$@" PRICE=1 DIRECT_HOSTS=64 QUEUE=" " RUNS_ONLY=1 sh "$here/bandwidth-bound.sh" "$outb"
        env "$@" QUEUE="$q" RUNS_ONLY=1 sh "$here/bandwidth-bound.sh" "$outb"
        [ -n "$runs" ] || /usr/bin/python3 "$here/bandwidth-bound.py" "$outb"
    fi
}

case $cell in
latency) latency;;
bandwidth) bandwidth;;
both) latency; bandwidth;;
esac

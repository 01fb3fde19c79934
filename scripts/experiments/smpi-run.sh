#!/bin/sh
# smpi-run.sh: runs an MPI program built with smpicc (make smpi:
# bin/dpsgd-train-smpi) under SimGrid's SMPI with the settings of
# docs/smpi.md, so every simulated time of the project is made the same way.
#
#   sh scripts/experiments/smpi-run.sh [--tcp cm02|lv08] [--trace-ti FILE]
#       -platform P.xml -np N PROGRAM ARGS...
#
#   --tcp cm02   (default) SimGrid's CM02 flow model with SMPI's latency
#                and bandwidth factors at 1: warm connections, no TCP
#                slow start; latency and bandwidth as written in P.xml
#   --tcp lv08   LV08 with its own factors (latency x 13.01, bandwidth
#                x 0.97) and SMPI's default piecewise factors: slow start
#   -platform    a SimGrid platform (topogen platform -o P.xml); its
#                hosts take ranks 0, 1, ... in file order
#   --trace-ti F also record a time-independent trace (smpirun -trace-ti)
#
# Compute time: SMPI times the code between MPI calls on this machine's
# CPU and runs it on the simulated host at speed S; host-speed is set to
# 1 Gflop/s and topogen's platforms give hosts 1 Gf, so a simulated host
# computes exactly as fast as one core of this machine (a host of 2Gf in
# P.xml computes twice as fast). OPENBLAS_NUM_THREADS and OMP_NUM_THREADS
# are pinned to 1. Every extra SMPI option goes in SMPI_CFG (words).
#
# Memory: SMPI copies a message of a derived datatype (and a collective's
# temporaries) through a buffer it mallocs and frees; a gossip array
# (246,824 bytes for LeNet) is above glibc's mmap threshold, so each copy
# was a fresh mapping and its page faults (the gossip now sends plain
# floats, docs/smpi.md "Memory"). glibc's malloc is
# told to keep such blocks on its heap (MALLOC_MMAP_THRESHOLD_ 32 MB, no
# trim below 256 MB): 64 ranks, 25 D^2 steps took 7.4 s of CPU instead of
# 23 s (docs/smpi.md), with the same bits. A value already in the
# environment is kept.
set -eu
. "$(dirname "$0")/../lib/common.sh"
script_help "$@"
SCRIPT_NAME=smpi-run
tcp=cm02 trace=""
while [ $# -gt 0 ]; do
    case $1 in
    --tcp) [ $# -ge 2 ] || { echo "smpi-run: --tcp needs cm02 or lv08" >&2; exit 2; }
        tcp=$2; shift 2 ;;
    --trace-ti) [ $# -ge 2 ] || { echo "smpi-run: --trace-ti needs a file" >&2; exit 2; }
        trace=$2; shift 2 ;;
    *) break ;;
    esac
done
case $tcp in
cm02) net="--cfg=network/model:CM02 --cfg=smpi/lat-factor:1 --cfg=smpi/bw-factor:1" ;;
lv08) net="--cfg=network/model:LV08" ;;
*) echo "smpi-run: --tcp '$tcp': expected cm02 or lv08" >&2; exit 2 ;;
esac
command -v smpirun >/dev/null 2>&1 ||
    { echo "smpi-run: smpirun not found (apt-get install libsimgrid-dev)" >&2; exit 1; }
[ "${1:-}" = -platform ] && [ $# -ge 5 ] && [ "$3" = -np ] ||
    { echo "smpi-run: expected -platform P.xml -np N PROGRAM ARGS... (see --help)" >&2; exit 2; }
[ -r "$2" ] || { echo "smpi-run: platform '$2' not readable" >&2; exit 1; }
plat=$2 np=$4
shift 4
tr=""
[ -z "$trace" ] || tr="-trace-ti -trace-file $trace"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-33554432}"
export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-268435456}"
export MALLOC_TOP_PAD_="${MALLOC_TOP_PAD_:-67108864}"
# shellcheck disable=SC2086
exec smpirun $tr -np "$np" -platform "$plat" \
    --cfg=smpi/host-speed:1Gf --cfg=smpi/display-timing:no \
    --log=root.thresh:warning --log=smpi_config.thresh:warning \
    $net ${SMPI_CFG:-} "$@"

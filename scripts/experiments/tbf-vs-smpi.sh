#!/bin/sh
# tbf-vs-smpi.sh: bandwidth-bound communications measured for real on
# namespace hosts whose links are shaped by the kernel's token bucket
# (tc qdisc tbf), against SimGrid's SMPI on the platform of the same
# links (issue 40; table in docs/network-model.md).
#
#   sh scripts/experiments/tbf-vs-smpi.sh [--hosts "2 4"] [--rates "10 50 100"] [--runs N]
#
# For each K of --hosts: K namespace hosts, one rank each
# (netns-cluster.sh up K --slots 1, name tbf$$). For each rate R (Mbit/s)
# of --rates: every host's link shaped to R in each direction (tbf on the
# host's eth0, its upload, and on its bridge port in the switch, its
# download: burst 32 kB, queue 100 ms: TBF_LATENCY), so each host has an access link of
# R, full duplex, as `topogen platform` writes one (a split-duplex link of
# R per host, latency 25 us, R written as R/8 bytes/s). The operations,
# timed by scripts/experiments/smpi-probe.c (the same source built with
# mpicc and with smpicc; one operation after a barrier, the slowest rank's
# time; measured: the median of N runs, each its own mpirun):
#   d1   gossip, a perfect matching (0-1, 2-3): every rank sends and
#        receives one array, all posted together (the trainer's p2p path)
#   d2   (K = 4) gossip on the ring 0-1-2-3-0: two arrays each way
#   rdb  MPI_Allreduce by recursive doubling (Open MPI: coll/tuned forced,
#        coll_tuned_allreduce_algorithm 3; SMPI: smpi/allreduce:rdb)
# Arrays of 1 MB at 10 Mbit/s, 4 MB at 50, 8 MB at 100 (0.7-1.7 s a
# operation: bandwidth binds, the 25 us latency is noise). Real runs use
# Open MPI's TCP transport with mpi_yield_when_idle 1: a spinning rank
# would take the core its peer needs to move the bytes (on this 2-core
# machine a two-way exchange took twice the one-way time without it).
# One operation per run: two back to back took 1.4-2x the first's time
# (docs/network-model.md says what is known of it).
# SMPI: smpi-run.sh's two TCP settings, cm02 and lv08, communication only
# (smpi/simulate-computation:no).
#
# Open MPI as it comes: arrays above 64 kB go by rendezvous, whose "clear
# to send" shares the pair's one TCP connection with the receiver's own
# outgoing array (docs/network-model.md). MODE_MCA adds MCA settings to
# every real run (e.g. the eager ones of that page).
#
# Prints one markdown row per cell: measured seconds, SMPI's, and SMPI /
# measured, and the load average before and after (the measured times are
# this machine's scheduling as much as its links when it is loaded). Needs
# root (namespaces, tc), mpicc, smpicc, smpirun.
set -eu
. "$(dirname "$0")/../lib/common.sh"
script_help "$@"
SCRIPT_NAME=tbf-vs-smpi
me=tbf-vs-smpi
hosts="2 4" rates="10 50 100" runs=5 reps=1
while [ $# -gt 0 ]; do
    case $1 in
    --hosts|--rates|--runs|--reps)
        [ $# -ge 2 ] || { echo "$me: $1 needs a value" >&2; exit 2; }
        case $1 in --hosts) hosts=$2 ;; --rates) rates=$2 ;; --runs) runs=$2 ;; --reps) reps=$2 ;; esac
        shift 2 ;;
    *) echo "$me: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
for k in $hosts; do case $k in 2|4) ;; *) echo "$me: --hosts: 2 or 4, not '$k'" >&2; exit 2 ;; esac; done
for r in $rates; do case $r in ''|*[!0-9]*) echo "$me: --rates: Mbit/s as integers, not '$r'" >&2; exit 2 ;; esac; done
case $runs in ''|*[!0-9]*|0) echo "$me: --runs: a positive integer, not '$runs'" >&2; exit 2 ;; esac
case $reps in ''|*[!0-9]*|0) echo "$me: --reps: a positive integer, not '$reps'" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "$me: needs root (network namespaces, tc)" >&2; exit 1; }
for p in mpicc mpirun smpicc smpirun tc ip; do
    command -v $p >/dev/null 2>&1 || { echo "$me: $p not found" >&2; exit 1; }
done

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tg=${BIN:-$root/bin}/topogen
[ -x "$tg" ] || { echo "$me: $tg not built (make)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
T=$(mktemp -d "${TMPDIR:-/tmp}/tbf-smpi.XXXXXX")
NAME=tbf$$
D=$T/net
cleanup() {
    sh "$here/netns-cluster.sh" down --name "$NAME" --dir "$D" >/dev/null 2>&1 || true
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mpicc -O2 -DSMPI_SHARED_MALLOC=malloc -DSMPI_SHARED_FREE=free \
    "$here/smpi-probe.c" -o "$T/probe-ompi" 2>"$T/cc.err" ||
    { echo "$me: mpicc: $(head -c 300 "$T/cc.err")" >&2; exit 1; }
smpicc -O2 "$here/smpi-probe.c" -o "$T/probe-smpi" 2>"$T/cc.err" ||
    { echo "$me: smpicc: $(head -c 300 "$T/cc.err")" >&2; exit 1; }
printf '0 1\n2 3\n' >"$T/d1-4.txt"
printf '0 1\n' >"$T/d1-2.txt"
printf '0 1\n1 2\n2 3\n3 0\n' >"$T/d2-4.txt"

# shape K R: every host's upload and download to R Mbit/s
shape() {
    i=0
    while [ $i -lt "$1" ]; do
        ip netns exec "$NAME-h$i" tc qdisc replace dev eth0 root tbf \
            rate "${2}mbit" burst 32kb latency ${TBF_LATENCY:-100ms}
        ip netns exec "$NAME-sw" tc qdisc replace dev "p$i" root tbf \
            rate "${2}mbit" burst 32kb latency ${TBF_LATENCY:-100ms}
        i=$((i + 1))
    done
}

# real OP K BYTES: seconds per operation on the shaped cluster, the median
# of $runs runs
real() {
    k=0
    : >"$T/runs"
    while [ $k -lt "$runs" ]; do
        real1 "$@" >>"$T/runs"
        k=$((k + 1))
    done
    [ "$(grep -c . "$T/runs")" = "$runs" ] || return 0
    sort -g "$T/runs" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# real1 OP K BYTES: one run (MODE_MCA: extra MCA settings)
real1() {
    case $1 in
    rdb) a="allreduce -"; mca="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 3" ;;
    *) a="gossip $T/$1-$2.txt"; mca="" ;;
    esac
    # shellcheck disable=SC2086
    timeout 300 "$D/mpirun" -q --bind-to none -np "$2" --mca mpi_yield_when_idle 1 $mca ${MODE_MCA:-} \
        "$T/probe-ompi" $a "$3" "$reps" 2>"$T/run.err" | sed -n 's/^probe_s //p'
}

# sim OP K BYTES TCP: SMPI's seconds per operation on $T/p.xml
sim() {
    cfg="--cfg=smpi/simulate-computation:no"
    case $1 in
    rdb) a="allreduce -"; cfg="$cfg --cfg=smpi/allreduce:rdb" ;;
    *) a="gossip $T/$1-$2.txt" ;;
    esac
    # shellcheck disable=SC2086
    SMPI_CFG="$cfg" timeout 600 sh "$here/smpi-run.sh" --tcp "$4" -platform "$T/p.xml" \
        -np "$2" "$T/probe-smpi" $a "$3" "$reps" 2>"$T/sim.err" | sed -n 's/^probe_s //p'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| hosts | link Mbit/s | communication | array | measured s | SMPI CM02 s | CM02/measured | SMPI LV08 s | LV08/measured |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|"
for K in $hosts; do
    sh "$here/netns-cluster.sh" up "$K" --slots 1 --name "$NAME" --dir "$D" >/dev/null
    ops="d1 rdb"
    [ "$K" = 4 ] && ops="d1 d2 rdb"
    for R in $rates; do
        shape "$K" "$R"
        bytes=$((R <= 10 ? 1048576 : R <= 50 ? 4194304 : 8388608))
        # the platform: K hosts, each a split-duplex link of R, 25 us
        "$tg" platform --net datacenter -n "$K" -o "$T/dc.xml"
        # (the host links only: the backbone stays unlimited)
        sed -e "/_link\"/s/bandwidth=\"[0-9]*Bps\"/bandwidth=\"$((R * 125000))Bps\"/" \
            -e '/_link"/s/latency="[0-9.]*s"/latency="0.000025000s"/' "$T/dc.xml" >"$T/p.xml"
        for op in $ops; do
            m=$(real "$op" "$K" "$bytes")
            [ -n "$m" ] || { echo "$me: real run failed ($op, $K hosts, $R Mbit/s): $(head -c 300 "$T/run.err")" >&2; exit 1; }
            c=$(sim "$op" "$K" "$bytes" cm02)
            l=$(sim "$op" "$K" "$bytes" lv08)
            [ -n "$c" ] && [ -n "$l" ] || { echo "$me: smpirun failed ($op): $(head -c 300 "$T/sim.err")" >&2; exit 1; }
            awk -v K="$K" -v R="$R" -v op="$op" -v b="$bytes" -v m="$m" -v c="$c" -v l="$l" 'BEGIN {
                name = op == "d1" ? "gossip d=1" : op == "d2" ? "gossip d=2 (ring)" : "all-reduce, recursive doubling"
                printf "| %d | %d | %s | %d MB | %.3f | %.3f | %.2f | %.3f | %.2f |\n", K, R, name, b / 1048576, m, c, c / m, l, l / m }'
        done
    done
    sh "$here/netns-cluster.sh" down --name "$NAME" --dir "$D" >/dev/null
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

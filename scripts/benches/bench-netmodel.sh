#!/bin/sh
# bench-netmodel.sh: the network model of src/cm_net.h (all-reduce
# schedules as Open MPI 4.1 runs them, gossip rounds with their sends
# posted together) against MPI times measured on the namespace hosts of
# scripts/experiments/netns-cluster.sh (root; veth links through one bridge).
#
#   scripts/benches/bench-netmodel.sh    (a few minutes)
#   K=4 REPS=10 SIZES="65536 1048576" scripts/benches/bench-netmodel.sh
#
# 1. Fits alpha and beta of each link class by least squares on the
#    fastest of REPS ping-pongs (half the round trip) at 8 B - 16 MB:
#    ranks 0 and 1 on two hosts (inter), and on one host (intra, Open
#    MPI's shared memory).
# 2. Gossip rounds of D = 1, 2 peers on K ranks, one per host (D = 2 on
#    2 hosts: 4 ranks), and
#    D = 4, 8 on K ceil((D + 1) / K) ranks, in blocks of equal size per
#    host (scripts/benches/bench-netmodel.c posts every
#    send and receive of a round together, as dt_gossip_mpi.c does), at
#    GSIZES bytes per message.
# 3. One all-reduce of SIZES bytes on K ranks, one per host, for each
#    algorithm forced through Open MPI's MCA parameters: MPI_Allreduce
#    with coll_tuned_use_dynamic_rules 1 and coll_tuned_allreduce_algorithm
#    4 (ring), 3 (recursive doubling), 6 (Rabenseifner); MPI_Iallreduce in
#    place with coll_libnbc_iallreduce_algorithm 2 (binomial: what
#    dpsgd-train runs).
# 4. Prints measured (the fastest repetition, and the median) against
#    modelled (`topogen eval --net` with the fitted links) and the ratio
#    modelled / fastest, flagging ratios outside [0.75, 1.25].
# 5. Counts: Open MPI's monitoring component (pml_monitoring_enable 2)
#    records every message each rank sends; one all-reduce of 65536 bytes
#    per algorithm, alone, must send exactly the model's messages and
#    bytes (all ranks, and the busiest rank).
# Times are the fastest of REPS on whatever else the machine runs; all
# hosts share its cores, so a veth "network" is as fast as memory copies
# and the kernel allow, and it has no latency of its own: the WAN preset's
# 50 ms cannot be shown here (netem is not used).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
script_help "$@"
root=$(cd "$here/../.." && pwd)
BIN=${BIN:-$root/bin}
K=${K:-4}
REPS=${REPS:-20}
SIZES=${SIZES:-"4096 65536 1048576 16777216"}
GSIZES=${GSIZES:-"65536 1048576 4194304"}
NAME=bnm$$
[ -x "$BIN/topogen" ] && [ -x "$BIN/bench/bench-netmodel" ] || { echo "bench-netmodel: $BIN/topogen or $BIN/bench/bench-netmodel not found: run 'make all bench-build'" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench-netmodel: needs root (network namespaces)" >&2; exit 1; }
bnm=$(cd "$BIN/bench" && pwd)/bench-netmodel # make bench-build
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-netmodel.XXXXXX")
D=$T/cluster
trap 'sh "$here/../experiments/netns-cluster.sh" down --name "$NAME" --dir "$D" >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP
sh "$here/../experiments/netns-cluster.sh" up "$K" --name "$NAME" --dir "$D" --slots 8 >/dev/null
# the binary and the graphs must be readable from inside the namespaces:
# they share the file system
# ranks yield the core while they wait (the hosts share the machine's
# cores; a spinning rank would take the core its peer needs)
mpi() { "$D/mpirun" --bind-to none --mca mpi_yield_when_idle 1 "$@" 2>/dev/null; }
one_per_host() { n=$1; shift; mpi -np "$n" --map-by ppr:1:node "$@"; }

# ---- 1. alpha, beta: t = alpha + bytes / beta; alpha the fastest 8-byte
# ping-pong, 1 / beta the least-squares slope of t - alpha on the bytes
# of the larger ones
fit() { # fit PLACEMENT-FLAGS... : prints "alpha beta"
    for b in 8 65536 1048576 4194304 16777216; do
        r=$REPS; [ "$b" -ge 16777216 ] && r=5
        printf '%s ' "$b"; mpi -np 2 "$@" "$bnm" pingpong "$b" "$r" | cut -d' ' -f1
    done | awk 'NR == 1 { a = $2; next } { xx += $1 * $1; xy += $1 * ($2 - a) }
        END { printf "%.6g %.6g\n", a, xx / xy }'
}
inter=$(fit --map-by ppr:1:node)
intra=$(fit --host "198.18.0.1:2")
a1=${inter% *} b1=${inter#* } a0=${intra% *} b0=${intra#* }
net="intra=${a0}s,${b0}B/s;inter=${a1}s,${b1}B/s"
echo "# bench-netmodel: $K namespace hosts over veth, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), Open MPI $(ompi_info --version 2>/dev/null | sed -n 's/.*v\([0-9.]*\).*/\1/p' | head -1)"
echo "# fitted by ping-pong (least squares, fastest of $REPS): inter alpha $(awk -v a="$a1" 'BEGIN { printf "%.1f us", a * 1e6 }'), beta $(awk -v b="$b1" 'BEGIN { printf "%.2f GB/s", b / 1e9 }'); intra alpha $(awk -v a="$a0" 'BEGIN { printf "%.1f us", a * 1e6 }'), beta $(awk -v b="$b0" 'BEGIN { printf "%.2f GB/s", b / 1e9 }')"
echo "# --net '$net'"
printf '%-30s %10s %6s %12s %12s %12s %7s\n' case bytes ranks "fastest ms" "median ms" "model ms" ratio

row() { # row CASE BYTES RANKS "MIN MEDIAN" MODEL_S
    echo "$4" | awk -v c="$1" -v b="$2" -v p="$3" -v m="$5" '{
        r = m / $1; flag = (r < 0.75 || r > 1.25) ? "  *" : ""
        printf "%-30s %10d %6d %12.4g %12.4g %12.4g %7.2f%s\n", c, b, p, $1 * 1e3, $2 * 1e3, m * 1e3, r, flag }'
}
json_num() { sed -n "s/.*\"$1\":\([0-9.eE+-]*\).*/\1/p" | head -n 1; }

# circulant graph file of P nodes, D peers each (D = 1: pairs)
circulant() {
    awk -v p="$1" -v d="$2" 'BEGIN { printf "# n=%d\n", p
        if (d == 1) { for (i = 0; i < p; i += 2) print i, i + 1; exit }
        for (i = 0; i < p; i++) for (o = 1; o <= d / 2; o++)
            if (2 * o < p || i < p / 2) print i, (i + o) % p }' > "$T/c$1-$2.txt"
    echo "$T/c$1-$2.txt"
}

# ---- 2. gossip rounds
for d in 1 2 4 8; do
    H=$K
    P=$(( (d + K) / K * K ))     # K ceil((d + 1) / K): d peers exist
    [ "$d" = 1 ] && P=$K
    [ "$d" = 1 ] && [ $((K % 2)) = 1 ] && P=$((2 * K))
    g=$(circulant "$P" "$d")
    for b in $GSIZES; do
        if [ "$P" = "$K" ]; then
            m=$(one_per_host "$P" "$bnm" gossip "$d" "$b" "$REPS")
        else
            m=$(mpi -np "$P" --map-by ppr:$((P / K)):node "$bnm" gossip "$d" "$b" "$REPS")
        fi
        model=$("$BIN/topogen" eval "$g" --net "$net" --ranks "$P" --hosts "$H" \
                    --params $((b / 4)) --json | sed 's/.*"block":{//; s/}.*//' | json_num round_s)
        row "gossip d=$d" "$b" "$P" "$m" "$model"
    done
done

# ---- 3. all-reduce, each algorithm forced
g=$(circulant "$K" 2)
for alg in ring recursive-doubling rabenseifner binomial; do
    case $alg in
    ring) mca="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4"; op=allreduce;;
    recursive-doubling) mca="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 3"; op=allreduce;;
    rabenseifner) mca="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 6"; op=allreduce;;
    binomial) mca="--mca coll_libnbc_iallreduce_algorithm 2"; op=iallreduce;;
    esac
    for b in $SIZES; do
        r=$REPS; [ "$b" -ge 16777216 ] && r=$(( REPS < 8 ? REPS : 8 ))
        # shellcheck disable=SC2086
        m=$(one_per_host "$K" $mca "$bnm" "$op" "$b" "$r")
        model=$("$BIN/topogen" eval "$g" --net "$net" --params $((b / 4)) --json \
                    | sed 's/.*"allreduce_by_alg":{//; s/}.*//' | json_num "$alg")
        row "all-reduce $alg" "$b" "$K" "$m" "$model"
    done
done
echo "# ratio = modelled / fastest; '*': outside [0.75, 1.25]"

# ---- 5. per-rank counts against Open MPI's monitoring component
echo "# counts: one all-reduce of 65536 bytes alone on $K ranks, Open MPI's pml monitoring against the model"
printf '%-30s %14s %14s %14s %14s %s\n' algorithm "msgs (all)" "model" "bytes (all)" "model" "busiest rank"
for alg in ring recursive-doubling rabenseifner binomial; do
    case $alg in
    ring) mca="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4"; op=allreduce;;
    recursive-doubling) mca="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 3"; op=allreduce;;
    rabenseifner) mca="--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 6"; op=allreduce;;
    binomial) mca="--mca coll_libnbc_iallreduce_algorithm 2"; op=iallreduce;;
    esac
    rm -f "$T"/mon.*
    # shellcheck disable=SC2086
    one_per_host "$K" $mca --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
        --mca pml_monitoring_filename "$T/mon" "$bnm" "$op" 65536 0 >/dev/null
    # "I rank peer B bytes M msgs sent HIST": messages with data (bucket 0
    # of the histogram holds the empty ones of start-up and shutdown)
    got=$(cat "$T"/mon.*.prof | awk -F'\t' '$1 == "I" {
            split($6, h, ","); m = $5 + 0 - h[1]; b = $4 + 0
            M += m; B += b; pm[$2] += m; pb[$2] += b }
        END { for (r in pb) { if (pb[r] > xb) xb = pb[r]; if (pm[r] > xm) xm = pm[r] }
              printf "%d %d %d %d", M, B, xm, xb }')
    want=$("$BIN/topogen" eval "$g" --net "$net" --params 16384 --json \
               | sed "s/.*\"allreduce_traffic\":{//; s/.*\"$alg\":{//; s/}.*//" \
               | awk -F'[:,]' '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1) }
                   END { printf "%d %d %d %d", v["\"msgs_total\""], v["\"bytes_total\""], v["\"msgs_max\""], v["\"bytes_max\""] }')
    echo "$got $want" | awk -v a="$alg" '{
        ok = ($1 == $5 && $2 == $6 && $3 == $7 && $4 == $8) ? "equal" : "DIFFERENT"
        printf "%-30s %14d %14d %14d %14d %d msgs %d B (model %d, %d): %s\n", a, $1, $5, $2, $6, $3, $4, $7, $8, ok }'
done

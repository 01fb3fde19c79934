#!/bin/sh
# netns-cluster.sh: a cluster of K "hosts" on one machine, for running
# dpsgd-train across hosts with Open MPI's TCP transport, exactly as over
# real machines (root, iproute2).
#
#   scripts/experiments/netns-cluster.sh up K [--slots S] [--name NAME] [--dir DIR]
#   scripts/experiments/netns-cluster.sh down  [--name NAME] [--dir DIR]
#   scripts/experiments/netns-cluster.sh status [--name NAME] [--dir DIR]
#
# `up K` creates K network namespaces NAME-h0 .. NAME-h<K-1> (the hosts)
# and one more, NAME-sw, holding a bridge (the switch). Each host has
# loopback up and one veth, eth0, whose peer is a port of the bridge; host
# i has the address 198.18.0.<i+1>/24 (198.18.0.0/15 is reserved for
# network benchmark tests, RFC 2544). Nothing is created in the machine's
# own namespace: these addresses exist only inside the cluster, and no
# host has a route anywhere else. Then it writes to DIR
# (default build/netns-NAME under the repository):
#   hostfile  one line per host: `198.18.0.<i+1> slots=S` (default S = 2)
#   rsh       the rsh agent: `rsh HOST CMD...` runs CMD inside HOST's
#             namespace, with its own hostname NAME-hI
#             (`ip netns exec NAME-hI unshare --uts sh -c CMD`): with one
#             hostname for all, Open MPI's shared-memory transport takes
#             ranks on two hosts for neighbours and crashes
#   mpirun    mpirun started inside host 0 (the login node, hostname
#             NAME-h0) with the hostfile, the agent and the TCP
#             interfaces set:
#               DIR/mpirun -np 4 bin/dpsgd-train --topology g.txt
#             is  ip netns exec NAME-h0 mpirun --hostfile DIR/hostfile \
#                   --mca plm_rsh_agent DIR/rsh \
#                   --mca oob_tcp_if_include 198.18.0.0/24 \
#                   --mca btl_tcp_if_include 198.18.0.0/24 -np 4 ...
#   cluster.env  NAME, K, the subnet, the namespace names (for scripts)
# `down` stops whatever still runs inside the cluster's namespaces,
# deletes them (which deletes their interfaces) and DIR; it succeeds when
# there is nothing to remove. `status` lists the hosts and the bytes each
# sent and received (bridge port counters); exit 1 when the cluster is
# not up.
#
# Failures (not root, `up` twice, bad K, a step failing halfway) print one
# line `netns-cluster: ...` on stderr and exit non-zero; a failed `up`
# removes everything it had created. The kernel's traffic control (netem)
# is not needed and not used: links have no added latency.
set -u
me=netns-cluster
SCRIPT_NAME=$me
. "$(dirname "$0")/../lib/common.sh" # die
usage="usage: $me.sh up K [--slots S] [--name NAME] [--dir DIR] | down | status [--name NAME] [--dir DIR]"

root=$(cd "$(dirname "$0")/../.." && pwd)
cmd=${1:-}
[ -n "$cmd" ] || die "$usage"
shift
K=""
if [ "$cmd" = up ]; then
    [ $# -gt 0 ] || die "up needs the number of hosts K (1..200)"
    K=$1
    shift
fi
NAME=${NETNS_NAME:-dpsgd}
SLOTS=2
DIR=""
while [ $# -gt 0 ]; do
    case "$1" in
    --name|--dir|--slots)
        [ $# -ge 2 ] || die "$1 needs a value"
        case "$1" in
        --name) NAME=$2 ;;
        --dir) DIR=$2 ;;
        --slots) SLOTS=$2 ;;
        esac
        shift 2 ;;
    *) die "unknown argument '$1'; $usage" ;;
    esac
done
case "$NAME" in
''|*[!A-Za-z0-9_.-]*|-*) die "--name '$NAME': use letters, digits, '.', '_', '-'" ;;
esac
[ ${#NAME} -le 40 ] || die "--name '$NAME': at most 40 characters"
[ -n "$DIR" ] || DIR=$root/build/netns-$NAME
case "$DIR" in /*) ;; *) DIR=$(pwd)/$DIR ;; esac
SW=$NAME-sw
SUBNET=198.18.0.0/24
addr() { echo "198.18.0.$(($1 + 1))"; }

need_root() {
    [ "$(id -u)" = 0 ] ||
        die "$cmd needs root (creating network namespaces needs CAP_NET_ADMIN); run as root"
    command -v ip >/dev/null 2>&1 || die "ip (iproute2) not found: apt-get install -y iproute2"
}

# The cluster's namespaces, one per line (host namespaces, then the switch).
our_ns() {
    ip netns list 2>/dev/null | awk -v n="$NAME" '{
        if ($1 == n "-sw") sw = $1
        else if (index($1, n "-h") == 1 && substr($1, length(n) + 3) ~ /^[0-9]+$/)
            print $1
    } END { if (sw != "") print sw }'
}

# Removes every namespace of the cluster (stopping what runs inside) and
# DIR. Quiet; never fails.
teardown() {
    for ns in $(our_ns); do
        pids=$(ip netns pids "$ns" 2>/dev/null)
        if [ -n "$pids" ]; then
            # shellcheck disable=SC2086
            kill $pids 2>/dev/null
            sleep 1
            pids=$(ip netns pids "$ns" 2>/dev/null)
            # shellcheck disable=SC2086
            [ -z "$pids" ] || kill -9 $pids 2>/dev/null
        fi
        ip netns delete "$ns" 2>/dev/null
    done
    rm -rf "$DIR"
}

# write FILE MODE: stdin to FILE through a temporary name and a rename.
write() {
    cat >"$1.tmp.$$" && chmod "$2" "$1.tmp.$$" && mv -f "$1.tmp.$$" "$1" ||
        { rm -f "$1.tmp.$$"; return 1; }
}

up() {
    case "$K" in ''|*[!0-9]*) die "up: K '$K' is not a number of hosts (1..200)" ;; esac
    [ "$K" -ge 1 ] && [ "$K" -le 200 ] || die "up: K $K out of range (1..200)"
    case "$SLOTS" in ''|*[!0-9]*|0) die "--slots '$SLOTS': a positive number" ;; esac
    need_root
    existing=$(our_ns | tr '\n' ' ')
    [ -z "$existing" ] ||
        die "cluster '$NAME' is already up (namespaces: ${existing% }); run '$0 down --name $NAME' first"
    [ ! -e "$DIR" ] || die "$DIR exists but cluster '$NAME' is not up; remove it or run '$0 down --name $NAME'"
    mkdir -p "$(dirname "$DIR")" 2>/dev/null || die "cannot create $(dirname "$DIR")"
    errf=$(mktemp) || die "mktemp failed"
    ok=0
    trap 'rm -f "$errf"; [ $ok = 1 ] || teardown' EXIT
    trap 'exit 1' INT TERM HUP
    nstep=0
    # step CMD...: runs CMD; on failure names it and exits (the trap then
    # removes everything). NETNS_FAIL_AT=N makes step N fail (for tests).
    step() {
        nstep=$((nstep + 1))
        if [ "${NETNS_FAIL_AT:-0}" = "$nstep" ]; then
            echo "injected failure (NETNS_FAIL_AT=$nstep)" >"$errf"
        elif "$@" 2>"$errf"; then
            return 0
        fi
        die "up: step $nstep '$*' failed: $(head -c 300 "$errf" | tr '\n' ' ')"
    }
    step ip netns add "$SW"
    step ip -n "$SW" link set lo up
    step ip -n "$SW" link add br0 type bridge
    step ip -n "$SW" link set br0 up
    i=0
    while [ "$i" -lt "$K" ]; do
        h=$NAME-h$i
        step ip netns add "$h"
        step ip -n "$h" link set lo up
        step ip -n "$SW" link add "p$i" type veth peer name eth0 netns "$h"
        step ip -n "$SW" link set "p$i" master br0
        step ip -n "$SW" link set "p$i" up
        step ip -n "$h" addr add "$(addr "$i")/24" dev eth0
        step ip -n "$h" link set eth0 up
        i=$((i + 1))
    done
    step mkdir "$DIR"
    i=0
    while [ "$i" -lt "$K" ]; do
        echo "$(addr "$i") slots=$SLOTS"
        i=$((i + 1))
    done | write "$DIR/hostfile" 644 || die "cannot write $DIR/hostfile"
    {
        echo "#!/bin/sh"
        echo "# rsh agent of netns cluster '$NAME': rsh HOST CMD... runs CMD in HOST's"
        echo "# namespace. Written by scripts/experiments/netns-cluster.sh."
        echo 'while [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done'
        echo 'host=${1:-}; [ $# -gt 0 ] && shift'
        echo 'case "$host" in'
        i=0
        while [ "$i" -lt "$K" ]; do
            echo "$(addr "$i")|$NAME-h$i) ns=$NAME-h$i ;;"
            i=$((i + 1))
        done
        echo "*) echo \"$me rsh: unknown host '\$host': cluster '$NAME' has hosts $(addr 0)..$(addr $((K - 1)))\" >&2; exit 255 ;;"
        echo 'esac'
        echo '# own UTS namespace and hostname: Open MPI must see distinct hosts'
        echo 'exec ip netns exec "$ns" unshare --uts /bin/sh -c "hostname $ns && $*"'
    } | write "$DIR/rsh" 755 || die "cannot write $DIR/rsh"
    {
        echo "#!/bin/sh"
        echo "# mpirun on host 0 of netns cluster '$NAME', over its $K hosts."
        echo "exec ip netns exec $NAME-h0 unshare --uts /bin/sh -c \\"
        echo "    'hostname $NAME-h0 && exec \"\$0\" \"\$@\"' mpirun --hostfile $DIR/hostfile \\"
        echo "    --mca plm_rsh_agent $DIR/rsh \\"
        echo "    --mca oob_tcp_if_include $SUBNET --mca btl_tcp_if_include $SUBNET \"\$@\""
    } | write "$DIR/mpirun" 755 || die "cannot write $DIR/mpirun"
    {
        echo "NETNS_NAME=$NAME"
        echo "NETNS_HOSTS=$K"
        echo "NETNS_SLOTS=$SLOTS"
        echo "NETNS_SUBNET=$SUBNET"
        echo "NETNS_SWITCH=$SW"
        echo "NETNS_DIR=$DIR"
    } | write "$DIR/cluster.env" 644 || die "cannot write $DIR/cluster.env"
    ok=1
    echo "$me: cluster '$NAME' up: $K hosts $(addr 0)..$(addr $((K - 1))), $SLOTS slots each; hostfile $DIR/hostfile, agent $DIR/rsh, launcher $DIR/mpirun"
}

status() {
    need_root
    list=$(our_ns)
    [ -n "$list" ] || { echo "$me: cluster '$NAME' is not up"; exit 1; }
    echo "$me: cluster '$NAME' ($DIR)"
    for ns in $(echo "$list" | sort -V); do
        [ "$ns" = "$SW" ] && continue
        i=${ns##*-h}
        # the bridge port's rx is what the host sent, its tx what it received
        rx=$(ip netns exec "$SW" cat "/sys/class/net/p$i/statistics/rx_bytes" 2>/dev/null)
        tx=$(ip netns exec "$SW" cat "/sys/class/net/p$i/statistics/tx_bytes" 2>/dev/null)
        echo "host $i  $ns  $(addr "$i")  sent ${rx:-?} B  received ${tx:-?} B"
    done
}

case "$cmd" in
up) up ;;
down)
    need_root
    n=$(our_ns | wc -l)
    teardown
    echo "$me: cluster '$NAME' down ($n namespaces removed)" ;;
status) status ;;
-h|--help|help) echo "$usage" ;;
*) die "unknown command '$cmd'; $usage" ;;
esac

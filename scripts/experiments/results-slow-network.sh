#!/bin/sh
# results-slow-network.sh: what to run on a slow network. N LeNet workers
# (default 256) on Fashion-MNIST, PARTITION (default dirichlet:0.1), the
# results schedule of scripts/experiments/results.sh (EPOCHS, default 12;
# global batch 1024 = 1024/N per worker, lr 0.05 unless a setting says,
# momentum 0.9, one warm-up epoch, 10x step decays every 3.5 epochs,
# --local-eval 100), evaluated every quarter epoch (--eval-every 14: 58
# steps per epoch), a fresh topology draw per seed (topogen --seed = the
# training seed), with mpirun -np NP. A setting's name is its schedule:
#   allreduce-H1          all-reduce of the gradients every step
#   local-HH, diloco-HH   local SGD (post-local SGD: --local-after 58, the
#                         warm-up averaging parameters and momentum), and
#                         with DiLoCo's --outer nesterov:0.7,0.9
#   d2-GRAPH, dpsgd-GRAPH gossip every step (gt-GRAPH: K-GT), GRAPH one of random (4-regular),
#                         learned (spectral), aware (data-aware: the seed's
#                         class counts), hosts (--groups 4, --placement
#                         block), opexp (one-peer exponential)
#   options, dash-separated: -HH (gossip every H steps), -pgaK
#   (--global-every K), -lrLR (--lr), -SS (--local-after S), -int8 / -int4
#   (--compress: DiLoCo's pseudo-gradients, CHOCO-SGD for dpsgd),
#   -staleS (--staleness S: gossip with S rounds in flight, dpsgd and d2)
#   e.g. local-H8-lr0.01, d2-aware-pga8, d2-aware-H2-lr0.02
#
#   scripts/experiments/results-slow-network.sh OUT  (rerun to resume: a
#       run with a summary JSON or a .failed marker is skipped)
#   QUEUE="name:seed ..."  the runs, in order (default: the main set,
#       allreduce-H1 local-H4 diloco-H16-lr0.02 d2-random d2-aware
#       dpsgd-opexp d2-random-pga8 over SEEDS)
#   NP=2 (MPI ranks); SEEDS="1 2 3"; ONLY="name ..." only these settings;
#   N=256; EPOCHS=12; PARTITION=dirichlet:0.1; BIN=bin
#   DEADLINE=HH:MM (UTC): start no run expected to end after it (RUN_S,
#   default 90 s, or EST="name:seconds ..."); the runs left out are listed
#   TABLE_ONLY=1   only price the runs and redraw OUT's tables and figure
#   RUNS_ONLY=1    only the runs (e.g. a second driver with another QUEUE)
#
# Writes OUT/runs/NAME-sS.csv, .json (--summary), .log (.failed: a run
# that diverged, its CSV keeps the rows before), OUT/topo/ (the graphs,
# the counts files), OUT/prices/ (topogen eval --json per topology file
# and deployment; OUT/prices/x2/: the graphs of GT runs at two arrays a
# round; OUT/prices/int8/, int4/: of CHOCO-SGD runs at the compressed
# bytes), OUT/bench.txt (compute per step), then runs
# scripts/experiments/results-slow-network.py OUT (table.md, stats.md,
# per-run.tsv, time-vs-acc.png).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "${1:-}" in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0;; -*) echo "results-slow-network: unknown option '$1' (see --help)" >&2; exit 2;; '') echo "results-slow-network: usage: scripts/experiments/results-slow-network.sh OUT (see --help)" >&2; exit 2;; esac
OUT=$1
BIN=${BIN:-$root/bin}
NP=${NP:-2}
SEEDS=${SEEDS:-"1 2 3"}
RUN_S=${RUN_S:-90}
EST=${EST:-}
DATA=${DATA:-/usr/share/datasets/fashion-mnist}
N=${N:-256} # workers; the global batch stays 1,024
BATCH=$((1024 / N))
[ $((BATCH * N)) = 1024 ] || die "N=$N does not divide the global batch of 1,024"
EVAL=14 # a quarter epoch: 60000 / 1024 = 58 steps per epoch
WARM=58 # one epoch of every-step communication before local steps
TRAIN_ARGS="--local-eval 100 --warmup 1 --schedule step --step-epochs 3.5"
EPOCHS=${EPOCHS:-12}
PARTITION=${PARTITION:-dirichlet:0.1}
PART_NAME=$(echo "$PARTITION" | tr ':' '-')
COMMON="--data $DATA --model lenet --epochs $EPOCHS --batch $BATCH --momentum 0.9 $TRAIN_ARGS --partition $PARTITION --eval-every $EVAL --quiet"
# 4 sites of 64 workers: a datacenter inside a site (the datacenter
# preset's link between hosts), the WAN preset between sites
SITES_NET='intra=25us,3GB/s;inter=50ms,12.5MB/s'
. "$here/../lib/common.sh" # die
need_programs dpsgd-train topogen
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT/runs" "$OUT/topo"

# flags NAME SEED: the run's own flags (and builds its topology). A name
# is a schedule and its options, dash-separated:
#   allreduce-H1              all-reduce of the gradients every step
#   local-HH / diloco-HH      local SGD / DiLoCo (+ --outer nesterov:0.7,0.9)
#                             with --average-every H
#   ALG-GRAPH                 gossip: ALG d2, dpsgd or gt, GRAPH random (4-regular),
#                             aware (data-aware learned), learned (the paper's
#                             spectral objective), hosts (learned, at most 4
#                             edges between the 4 sites: --groups 4), opexp
#                             (one-peer exponential)
# options: -HH (gossip: --average-every H), -pgaK (--global-every K),
# -lrLR (--lr LR, default 0.05), -SS (--local-after S, default WARM for
# local and diloco, 0 for gossip with H > 1), -int8 / -int4 (--compress),
# -staleS (--staleness S)
flags() {
    name=$1 seed=$2
    kind=${name%%-*}
    rest=${name#"$kind"}
    graph="" H=1 K=0 lr="" S="" C="" D=0
    case $kind in
    d2|dpsgd|gt) graph=${rest#-}; graph=${graph%%-*}; rest=${rest#"-$graph"};;
    allreduce|local|diloco) ;;
    *) die "unknown setting '$name'";;
    esac
    IFS=-
    for o in $rest; do
        case $o in
        '') ;;
        H[0-9]*) H=${o#H};;
        pga[0-9]*) K=${o#pga};;
        lr[0-9]*) lr=${o#lr};;
        S[0-9]*) S=${o#S};;
        int8|int4) C=$o;;
        stale[0-9]*) D=${o#stale};;
        *) unset IFS; die "unknown option '$o' in setting '$name'";;
        esac
    done
    unset IFS
    # --lr once (dpsgd-train refuses a repeated flag): the setting's or 0.05
    f="--lr ${lr:-0.05}"
    [ -z "$C" ] || f="$f --compress $C"
    case $kind in
    allreduce) [ "$H" = 1 ] || die "$name: allreduce-H1 only (local-HH for H > 1)"
        echo "--mode allreduce --workers $N $f"; return;;
    local|diloco) [ "$H" -gt 1 ] || die "$name: H > 1 needed"
        f="$f --mode allreduce --workers $N --average-every $H --local-after ${S:-$WARM}"
        [ "$kind" = local ] || f="$f --outer nesterov:0.7,0.9"
        echo "$f"; return;;
    esac
    case $graph in random|aware|learned|hosts|opexp) ;; *) die "unknown graph '$graph' in setting '$name'";; esac
    f="--topology $(topo "$graph" "$seed") --algorithm $kind $f"
    [ "$graph" != hosts ] || f="$f --placement block"
    [ "$H" = 1 ] || f="$f --average-every $H"
    [ -z "$S" ] || f="$f --local-after $S"
    [ "$K" = 0 ] || f="$f --global-every $K"
    [ "$D" = 0 ] || f="$f --staleness $D"
    echo "$f"
}
# topo KIND SEED: the file (generated once)
topo() {
    case $1 in
    random) f="$OUT/topo/random-s$2.txt"
        [ -s "$f" ] || "$BIN/topogen" --kind random -n $N -d 4 --weights laplacian --seed "$2" -q -o "$f" || die "topogen random failed";;
    learned) f="$OUT/topo/learned-s$2.txt"
        [ -s "$f" ] || "$BIN/topogen" -n $N -d 4 --weights laplacian --seed "$2" -q -o "$f" || die "topogen learned failed";;
    hosts) f="$OUT/topo/hosts-s$2.txt"
        [ -s "$f" ] || "$BIN/topogen" -n $N -d 4 --groups 4 --weights laplacian --seed "$2" -q -o "$f" || die "topogen hosts failed";;
    opexp) f="$OUT/topo/one-peer-exp.txt" # deterministic: one file
        [ -s "$f" ] || "$BIN/topogen" --kind one-peer-exp -n $N --seed 1 -q -o "$f" || die "topogen one-peer-exp failed";;
    aware) c="$OUT/topo/n$N-dirichlet-0.1-s$2.counts"
        f="$OUT/topo/aware-s$2.txt"
        # shellcheck disable=SC2086 # TRAIN_ARGS: several flags
        [ -s "$c" ] || "$BIN/dpsgd-train" --dataset fashion-mnist --data "$DATA" --batch $BATCH $TRAIN_ARGS \
            --epochs 0 --workers $N --partition $PARTITION --seed "$2" --quiet --write-partition "$c" ||
            die "dpsgd-train --write-partition failed (seed $2)"
        [ -s "$f" ] || "$BIN/topogen" -n $N -d 4 --hetero-weight 10 --weights laplacian --labels "$c" \
            --seed "$2" -q -o "$f" || die "topogen aware failed (seed $2)";;
    esac
    echo "$f"
}

ALL="allreduce-H1 local-H4 diloco-H16-lr0.02 d2-random d2-aware dpsgd-opexp d2-random-pga8"
ONLY=${ONLY:-}
rest=""
for s in $SEEDS; do [ "$s" = 1 ] || rest="$rest $s"; done
# the queue: NAME:SEED in priority order (see "Order" above)
queue=""
for n in allreduce-H1 local-H4 d2-random d2-aware dpsgd-opexp; do queue="$queue $n:1"; done
for s in $rest; do for n in allreduce-H1 d2-random d2-aware; do queue="$queue $n:$s"; done; done
queue="$queue d2-random-pga8:1 diloco-H16-lr0.02:1"
for s in $rest; do queue="$queue local-H4:$s"; done
for s in $rest; do queue="$queue diloco-H16-lr0.02:$s"; done
for s in $rest; do for n in dpsgd-opexp d2-random-pga8; do queue="$queue $n:$s"; done; done
[ -z "${QUEUE:-}" ] || queue=$QUEUE
# est NAME: the seconds a run is expected to take (DEADLINE)
est() {
    for e in $EST; do [ "${e%%:*}" = "$1" ] && { echo "${e#*:}"; return; }; done
    echo "$RUN_S"
}
deadline_s=""
if [ -n "${DEADLINE:-}" ]; then
    deadline_s=$(date -u -d "$DEADLINE" +%s) || die "DEADLINE '$DEADLINE' is not HH:MM"
fi
if [ -z "${TABLE_ONLY:-}" ]; then
    for q in $queue; do
        name=${q%%:*}; seed=${q#*:}
        [ -z "$ONLY" ] || case " $ONLY " in *" $name "*) ;; *) continue;; esac
        case " $SEEDS " in *" $seed "*) ;; *) continue;; esac
        b="$OUT/runs/$name-s$seed"
        if [ -f "$b.json" ] || [ -f "$b.failed" ]; then
            echo "results-slow-network: $name seed $seed: done"
            continue
        fi
        if [ -n "$deadline_s" ] && [ $(($(date +%s) + $(est "$name"))) -gt "$deadline_s" ]; then
            echo "results-slow-network: $name seed $seed: not started (DEADLINE $DEADLINE, expected $(est "$name") s)"
            continue
        fi
        # two drivers may share OUT (e.g. ONLY= in two shells): a run
        # belongs to the one that made its lock (a stale lock of a killed
        # driver: remove OUT/runs/NAME-sS.lock by hand)
        if ! mkdir "$b.lock" 2>/dev/null; then
            echo "results-slow-network: $name seed $seed: running elsewhere ($b.lock)"
            continue
        fi
        if [ -f "$b.json" ] || [ -f "$b.failed" ]; then rmdir "$b.lock"; continue; fi
        f=$(flags "$name" "$seed")
        echo "results-slow-network: $name seed $seed: $f ($(date -u +%H:%M:%S))"
        rm -f "$b.csv" # a CSV of a stopped attempt
        # shellcheck disable=SC2086
        mpirun -q --oversubscribe --bind-to none -np "$NP" "$BIN/dpsgd-train" \
            $COMMON --seed "$seed" $f --log "$b.csv" --summary "$b.json" >"$b.log" 2>&1 || {
            grep -q "training diverged" "$b.log" || die "$name seed $seed failed: $(tail -n 3 "$b.log")"
            grep "training diverged" "$b.log" >"$b.failed"
            echo "results-slow-network: $name seed $seed: $(cat "$b.failed")"
        }
        rmdir "$b.lock"
    done
fi

[ -z "${RUNS_ONLY:-}" ] || exit 0
# compute per step, measured once (OUT/bench.txt)
if [ ! -s "$OUT/bench.txt" ]; then
    line=$("$BIN/dpsgd-train" --bench --model lenet --batch $BATCH --threads 1 \
               --bench-steps 200 --bench-repeat 5 2>&1 | grep '^bench ') || die "--bench failed"
    echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n), load $(cut -d' ' -f1-3 /proc/loadavg): dpsgd-train --bench --model lenet --batch $BATCH --threads 1 --bench-steps 200 --bench-repeat 5" >"$OUT/bench.txt.tmp"
    echo "$line" >>"$OUT/bench.txt.tmp"
    mv "$OUT/bench.txt.tmp" "$OUT/bench.txt"
fi
# price FILE DIR WHAT [ARGS]: FILE under the three deployments
# (topogen eval FILE ARGS --json) into DIR/NAME-DEPLOYMENT.json, each
# kept once made; WHAT names the pricing in a failure
price() {
    _t=$(basename "$1" .txt)
    for _d in wan datacenter sites; do
        _j="$2/$_t-$_d.json"
        [ -s "$_j" ] && continue
        case $_d in
        sites) "$BIN/topogen" eval "$1" ${4:+--params "$4"} --net "$SITES_NET" --ranks $N --hosts 4 --allreduce hierarchical --json >"$_j.tmp";;
        *) "$BIN/topogen" eval "$1" ${4:+--params "$4"} --net $_d --ranks $N --hosts $N --json >"$_j.tmp";;
        esac || die "topogen eval $1 ($_d$3) failed"
        mv "$_j.tmp" "$_j"
    done
}
# prices: every topology file and the complete graph (all-reduce) under
# the three deployments (topogen eval --json, kept in OUT/prices/)
mkdir -p "$OUT/prices"
for f in "$OUT"/topo/*.txt; do
    price "$f" "$OUT/prices" ""
done
# GT sends two arrays a round (x and its tracker): its graphs priced
# again at twice LeNet's 61,706 floats (OUT/prices/x2/)
for g in $(ls "$OUT/runs" | sed -n 's/^gt-\([a-z]*\)-.*\.csv$/\1/p' | sort -u); do
    mkdir -p "$OUT/prices/x2"
    for f in "$OUT"/topo/"$g"-s*.txt; do
        [ -f "$f" ] || continue
        price "$f" "$OUT/prices/x2" ", two arrays" 123412
    done
done
# CHOCO-SGD (gossip with --compress) sends the compressed array: its
# graphs priced again at its bytes / 4 floats (dt_compress_bytes of
# LeNet's 61,706 floats: int8 62,674 B, int4 31,821 B; rounded up to
# whole floats, 2-3 bytes over) in OUT/prices/FORM/
for q in $(ls "$OUT/runs" | sed -n 's/^\(dpsgd\|d2\|gt\)-\([a-z]*\)\(-.*\)\{0,1\}-\(int8\|int4\)\(-.*\)\{0,1\}\.csv$/\2:\4/p' | sort -u); do
    g=${q%%:*} form=${q#*:}
    case $form in int8) P=15669;; int4) P=7956;; esac
    mkdir -p "$OUT/prices/$form"
    for f in "$OUT"/topo/"$g"-s*.txt; do
        [ -f "$f" ] || continue
        price "$f" "$OUT/prices/$form" ", $form" $P
    done
done
/usr/bin/python3 "$here/results-slow-network.py" "$OUT"

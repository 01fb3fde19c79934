#!/bin/sh
# bandwidth-bound.sh: the bandwidth-bound workload of issue 41: the `cnn`
# model (329,962 parameters, 1.32 MB a copy) on Fashion-MNIST, 64 workers
# on the `home` platform (topogen platform --net home -n 64 --seed 1:
# every home its own up link of 10-50 Mb/s and down link of 50-300 Mb/s,
# 5-75 ms access latency), iid and dirichlet:0.1, against every schedule
# a user on such links would pick:
#   allreduce        the gradient all-reduce every step
#   local-HH@LR      local SGD, H in LOCAL_HS, lr in LOCAL_LRS (the best
#                    by time to target is the tuned one)
#   diloco-int8/int4 DiLoCo (--outer OUTER, H = DILOCO_H) with int8 / int4
#                    pseudo-gradients (error feedback)
#   streaming        Streaming DiLoCo: --fragments FRAGMENTS, int4
#   d2-H1, d2-HH     D^2 / Local Exact-Diffusion on the learned graph
#                    (topogen -n 64 -d 4 --seed 1)
#   choco-int8-H1/HH CHOCO-SGD (dpsgd gossip, int8 with error feedback)
# Learning rates: LR for the schedules that communicate every step
# (all-reduce, d2-H1, choco-int8-H1), LOCAL_LR for those with local
# steps (DiLoCo, Streaming DiLoCo, gossip with H > 1): the CNN diverged
# with local steps at lr 0.05 (local SGD, both partitions); local SGD gets
# the grid LOCAL_LRS x LOCAL_HS. A run name NAME@LR sets its own rate.
# The trajectories are trained here (mpirun -np NP, --seed SEED); the time
# is priced afterwards from each run's CSV: step k costs k t_c of compute
# (one worker's CNN step on one core, `dpsgd-train --bench`, CPU time)
# plus every communication of the steps before it at its SMPI price on
# the home platform (CM02, warm connections; scripts/experiments/
# smpi-probe.c, one operation each: the direct all-reduce -- the fastest
# all-reduce on home under SMPI, docs/network-model.md -- of the full,
# int8, int4 and one int4 fragment's array, and a gossip round of the
# learned graph of the full and the int8 array). Streaming DiLoCo's
# fragment all-reduce is credited its overlap: max(0, T_frag - T t_c).
# Bytes to target are a worker's sent bytes: 2 (n-1)/n B per direct
# all-reduce (B the (compressed) array), the mean degree x B per gossip
# round. The budget is reduced (TRAIN_LIMIT images, EPOCHS epochs, one
# seed): see docs/train/bandwidth-bound.md.
#
#   scripts/experiments/bandwidth-bound.sh [OUT]   (default
#       data/bandwidth-bound; resumable: a run whose summary exists is
#       not run again; TABLE_ONLY=1 redraws OUT/table.md from the CSVs)
#   N=64 NP=2 TRAIN_LIMIT=16384 EPOCHS=4 BATCH=8 LR=0.05 LOCAL_LR=0.02
#   SEED=1 PARTITIONS="iid dirichlet:0.1" LOCAL_HS="4 16"
#   LOCAL_LRS="0.05 0.02" DILOCO_H=8
#   OUTER=nesterov:0.7,0.9 FRAGMENTS=4:1 GOSSIP_H=4 EVAL_EVERY=8
#   TARGETS="0.70 0.75 0.80" RUNS="allreduce local-4@0.02 ..." (a subset)
#   PRICES_LV08=FILE: a second price list (smpi-run.sh --tcp lv08, the
#   same cells) priced into the table beside CM02's
#
# The 256-worker cell of issue 45 (SEEDS set: the seeds layout; see
# data/bandwidth-bound/n256/README.md):
#   SEEDS="1 2 3" N=256 NP=1 BATCH=4 EPOCHS=3 TRAIN_LIMIT=0 \
#   PARTITIONS=dirichlet:0.1 PRICE=1 DIRECT_HOSTS=64 \
#   QUEUE="allreduce@0.05:1 diloco-int4@0.01:2 ..." \
#       scripts/experiments/bandwidth-bound.sh data/bandwidth-bound/n256
#   runs OUT/runs/NAME-lrLR-sS (NAME: allreduce, local-HH, diloco-int8,
#   diloco-int4, streaming, d2-HH, choco-int8-HH, choco-int4-HH; DiLoCo
#   and streaming also -HH; every NAME also -SW: --local-after W and
#   --warmup WARMUP epochs (default 0.5), the all-reduce the latter;
#   -wE: --warmup E epochs alone (the learning rate's warm-up); gossip
#   on OUT/topo/learned-sS.txt, made fresh per seed), PRICE=1 first
#   measures the SMPI prices (OUT/prices-cm02.tsv, prices-lv08.tsv;
#   TCPS, REPS) and compute.txt; then bandwidth-bound.py prices and
#   tabulates (RUNS_ONLY=1: not). PILOT="NAME ..." LRS="..." queues every
#   NAME at every LR on seed 1; DEADLINE=HH:MM (UTC) starts no run after.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "${1:-}" in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0;; -*) echo "bandwidth-bound: unknown option '$1' (see --help)" >&2; exit 2;; esac
OUT=${1:-$root/data/bandwidth-bound}
BIN=${BIN:-$root/bin}
N=${N:-64}
NP=${NP:-2}
TRAIN_LIMIT=${TRAIN_LIMIT:-16384}
EPOCHS=${EPOCHS:-4}
BATCH=${BATCH:-8}
LR=${LR:-0.05}
LOCAL_LR=${LOCAL_LR:-0.02}
LOCAL_LRS=${LOCAL_LRS:-0.05 0.02}
SEED=${SEED:-1}
PARTITIONS=${PARTITIONS:-iid dirichlet:0.1}
LOCAL_HS=${LOCAL_HS:-4 16}
DILOCO_H=${DILOCO_H:-8}
OUTER=${OUTER:-nesterov:0.7,0.9}
FRAGMENTS=${FRAGMENTS:-4:1}
WARMUP=${WARMUP:-0.5}
GOSSIP_H=${GOSSIP_H:-4}
EVAL_EVERY=${EVAL_EVERY:-8}
TARGETS=${TARGETS:-0.70 0.75 0.80}
DATA=${DATA:-/usr/share/datasets/fashion-mnist}
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT/runs"

# bytes_of FORM FLOATS: the bytes of an array of FLOATS floats sent as
# FORM (none, int8, int4; dt_compress_bytes)
bytes_of() {
    awk -v f="$1" -v n="$2" 'BEGIN { b = int((n + 255) / 256)
        if (f == "none") print 4 * n; else if (f == "int8") print n + 4 * b
        else print int((n + 1) / 2) + 4 * b }'
}
# bench_compute: OUT/compute.txt, CPU seconds of one worker's step of
# `dpsgd-train --bench` (the machine is shared: its wall clock is not
# one core's); its output in OUT/bench.txt. Called as a command of its
# own (not after || or &&), so that set -e still stops on a failure.
bench_compute() {
    "$BIN/dpsgd-train" --bench --model cnn --batch "$BATCH" --data "$DATA" >"$OUT/bench.txt" 2>&1
    sed -n 's/.*cpu \([0-9.]*\) images\/s.*/\1/p' "$OUT/bench.txt" | head -1 |
        awk -v b="$BATCH" '{ printf "%.6f\n", b / $1 }' >"$OUT/compute.txt"
}
# train_run F LABEL FLAGS...: one dpsgd-train run (mpirun -np NP, niced)
# with FLAGS, logging to F.csv, F.json and F.log; a failure writes its
# first dpsgd-train: line (else "exit non-zero") to F.failed and says
# "LABEL failed" on stderr; the lock files are removed either way.
train_run() {
    f=$1 label=$2
    shift 2
    if ! nice -n 5 mpirun --allow-run-as-root --oversubscribe -np "$NP" "$BIN/dpsgd-train" \
        "$@" --log "$f.csv" --summary "$f.json" >"$f.log" 2>&1; then
        grep -m 1 '^dpsgd-train:' "$f.log" >"$f.failed" || echo "exit non-zero" >"$f.failed"
        echo "bandwidth-bound: $label failed: $(cat "$f.failed")" >&2
    fi
    rm -f "$f.csv.lock" "$f.json.lock"
}

# The seeds layout (issue 45's 256-worker cell, SEEDS set): runs
# OUT/runs/NAME-lrLR-sS, the learned graph fresh per seed
# (OUT/topo/learned-sS.txt, topogen --seed S), a queue of NAME@LR:SEED,
# then scripts/experiments/bandwidth-bound.py prices and tabulates them.
if [ -n "${SEEDS:-}" ]; then
    mkdir -p "$OUT/topo"
    graph_of() { # SEED -> its learned graph (made once)
        g=$OUT/topo/learned-s$1.txt
        [ -s "$g" ] || "$BIN/topogen" -n "$N" -d 4 --seed "$1" -q -o "$g" ||
            { echo "bandwidth-bound: topogen -n $N --seed $1 failed" >&2; exit 1; }
        echo "$g"
    }
    run_args_s() { # NAME SEED -> the run's flags
        # NAME[-SW]: the warm-up W steps (--local-after W, every step
        # communicates) and --warmup WARMUP epochs of linear lr warm-up,
        # the same for every schedule (the all-reduce: the lr warm-up)
        n=$1 w=""
        case $n in
        *-S[0-9]*) w=${n##*-S} n=${n%-S*}
            case $n in allreduce) w="--warmup $WARMUP" ;; *) w="--local-after $w --warmup $WARMUP" ;; esac ;;
        *-w[0-9]*) w="--warmup ${n##*-w}" n=${n%-w*} ;; # NAME-wE: --warmup E alone
        esac
        case $n in
        allreduce) echo "--mode allreduce --workers $N $w" ;;
        local-H*) echo "--mode allreduce --workers $N --average-every ${n#local-H} $w" ;;
        diloco-int8|diloco-int4|diloco-none) echo "--mode allreduce --workers $N --average-every $DILOCO_H --outer $OUTER --compress ${n#diloco-} $w" ;;
        diloco-int8-H*|diloco-int4-H*|diloco-none-H*) c=${n#diloco-}; echo "--mode allreduce --workers $N --average-every ${c#*-H} --outer $OUTER --compress ${c%%-*} $w" ;;
        streaming) echo "--mode allreduce --workers $N --average-every $DILOCO_H --outer $OUTER --compress int4 --fragments $FRAGMENTS $w" ;;
        streaming-H*) echo "--mode allreduce --workers $N --average-every ${n#streaming-H} --outer $OUTER --compress int4 --fragments $FRAGMENTS $w" ;;
        d2-H*) echo "--topology $(graph_of "$2") --algorithm d2 --average-every ${n#d2-H} $w" ;;
        choco-int8-H*|choco-int4-H*) c=${n#choco-}; echo "--topology $(graph_of "$2") --algorithm dpsgd --compress ${c%%-*} --average-every ${c#*-H} $w" ;;
        *) echo "bandwidth-bound: unknown schedule '$1'" >&2; exit 2 ;;
        esac
    }
    # PRICE=1: the SMPI prices of every communication of the cell
    # (smpi-probe.c under smpi-run.sh, compute injection off) into
    # OUT/prices-TCP.tsv, for TCP in TCPS: the direct all-reduce of the
    # full, int8, int4 and one int4 fragment's array on the first
    # DIRECT_HOSTS hosts of the platform (the 256-host all-to-all is 65,280
    # flows: too slow to simulate on this machine), a gossip round of each
    # seed's learned graph at the full, int8 and int4 array on all N;
    # REPS operations each. And OUT/compute.txt: one worker's step
    # (dpsgd-train --bench, CPU time). Resumable row by row.
    if [ -n "${PRICE:-}" ]; then
        DIRECT_HOSTS=${DIRECT_HOSTS:-$N}
        [ -s "$OUT/home$N.xml" ] || "$BIN/topogen" platform --net home -n "$N" --seed 1 -o "$OUT/home$N.xml"
        [ -s "$OUT/home$DIRECT_HOSTS.xml" ] ||
            "$BIN/topogen" platform --net home -n "$DIRECT_HOSTS" --seed 1 -o "$OUT/home$DIRECT_HOSTS.xml"
        command -v smpicc >/dev/null 2>&1 || { echo "bandwidth-bound: smpicc not found (libsimgrid-dev)" >&2; exit 1; }
        n_params=329962
        fp=${FRAGMENTS%%:*}
        bf=$(bytes_of none $n_params) b8=$(bytes_of int8 $n_params) b4=$(bytes_of int4 $n_params)
        bfr=$(bytes_of int4 $(( (n_params + fp - 1) / fp )))
        tmp=$(mktemp -d "${TMPDIR:-/tmp}/bandwidth-bound.XXXXXX")
        smpicc -O2 "$here/smpi-probe.c" -o "$tmp/probe" 2>"$tmp/cc.err" ||
            { echo "bandwidth-bound: smpicc failed: $(head -c 300 "$tmp/cc.err")" >&2; exit 1; }
        specs="direct:$bf:- direct:$b8:- direct:$b4:- direct:$bfr:- agree:4:-"
        for s in $SEEDS; do specs="$specs gossip:$bf:learned-s$s gossip:$b8:learned-s$s gossip:$b4:learned-s$s"; done
        for tcp in ${TCPS:-cm02 lv08}; do
            pf=$OUT/prices-$tcp.tsv
            [ -s "$pf" ] || printf 'kind\tbytes\thosts\tgraph\tseconds\n' >"$pf"
            for spec in $specs; do
                kind=${spec%%:*} r=${spec#*:}
                b=${r%%:*} g=${r#*:}
                awk -F'\t' -v k="$kind" -v b="$b" -v g="$g" '$1 == k && $2 == b && $4 == g { f = 1 } END { exit !f }' "$pf" && continue
                if [ "$kind" = direct ]; then
                    cfg="--cfg=smpi/simulate-computation:no --cfg=smpi/alltoall:basic_linear --cfg=smpi/allgather:spreading_simple"
                    hosts=$DIRECT_HOSTS plat=$OUT/home$DIRECT_HOSTS.xml a="direct -"
                elif [ "$kind" = agree ]; then # the trainer's failure agreement: MPI_Allreduce of one int
                    cfg="--cfg=smpi/simulate-computation:no"
                    hosts=$N plat=$OUT/home$N.xml a="allreduce -"
                else
                    cfg="--cfg=smpi/simulate-computation:no"
                    hosts=$N plat=$OUT/home$N.xml a="gossip $(graph_of "${g#learned-s}")"
                fi
                echo "bandwidth-bound: price $tcp $kind $b B ${g#-} on $hosts hosts ($(date -u +%H:%M:%S))" >&2
                # shellcheck disable=SC2086
                v=$(SMPI_CFG="$cfg" nice -n 5 sh "$here/smpi-run.sh" --tcp "$tcp" -platform "$plat" \
                    -np "$hosts" "$tmp/probe" $a "$b" "${REPS:-2}" 2>"$tmp/err" | awk '/^probe_s/ { print $2 }')
                [ -n "$v" ] || { echo "bandwidth-bound: SMPI probe $tcp $spec failed: $(head -c 300 "$tmp/err")" >&2; exit 1; }
                printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$b" "$hosts" "$g" "$v" >>"$pf"
            done
        done
        rm -rf "$tmp"
        if [ ! -s "$OUT/compute.txt" ]; then bench_compute; fi
    fi
    lim=""
    [ "$TRAIN_LIMIT" = 0 ] || lim="--train-limit $TRAIN_LIMIT"
    deadline_s=""
    [ -z "${DEADLINE:-}" ] || deadline_s=$(date -u -d "$DEADLINE" +%s) ||
        { echo "bandwidth-bound: DEADLINE '$DEADLINE' is not HH:MM" >&2; exit 2; }
    queue=${QUEUE:-}
    if [ -z "$queue" ] && [ -n "${PILOT:-}" ]; then # every schedule at every LRS, seed 1
        for lr in $LRS; do for name in $PILOT; do queue="$queue $name@$lr:1"; done; done
    fi
    [ -z "${TABLE_ONLY:-}" ] || queue=""
    for item in $queue; do
        name=${item%@*} rest=${item#*@}
        lr=${rest%:*} seed=${rest#*:}
        f=$OUT/runs/$name-lr$lr-s$seed
        { [ -s "$f.json" ] || [ -s "$f.failed" ]; } && continue
        if [ -n "$deadline_s" ] && [ "$(date +%s)" -gt "$deadline_s" ]; then
            echo "bandwidth-bound: $name-lr$lr-s$seed not started (DEADLINE $DEADLINE)" >&2
            continue
        fi
        a=$(run_args_s "$name" "$seed")
        echo "bandwidth-bound: $name lr $lr seed $seed ($(date -u +%H:%M:%S))" >&2
        # shellcheck disable=SC2086
        train_run "$f" "$name-lr$lr-s$seed" \
            --data "$DATA" --model cnn --batch "$BATCH" --epochs "$EPOCHS" $lim --test-limit 1000 \
            --local-eval 0 --eval-every "$EVAL_EVERY" --seed "$seed" --quiet --lr "$lr" \
            --partition "$PARTITIONS" $a
    done
    [ -n "${RUNS_ONLY:-}" ] && exit 0
    exec /usr/bin/python3 "$here/bandwidth-bound.py" "$OUT"
fi

# the platform, the learned graph (committed with the runs)
[ -s "$OUT/home64.xml" ] || "$BIN/topogen" platform --net home -n "$N" --seed 1 -o "$OUT/home64.xml"
[ -s "$OUT/learned.txt" ] || "$BIN/topogen" -n "$N" -d 4 --seed 1 -q -o "$OUT/learned.txt"

# prices (seconds per operation; SMPI CM02 on the home platform)
n_params=329962
frag_p=${FRAGMENTS%%:*}
B_full=$(bytes_of none $n_params)
B_int8=$(bytes_of int8 $n_params)
B_int4=$(bytes_of int4 $n_params)
B_frag=$(bytes_of int4 $(( (n_params + frag_p - 1) / frag_p )))
prices=$OUT/prices.tsv
if [ ! -s "$prices" ] && [ -z "${TABLE_ONLY:-}" ]; then
    command -v smpicc >/dev/null 2>&1 || { echo "bandwidth-bound: smpicc not found (libsimgrid-dev)" >&2; exit 1; }
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/bandwidth-bound.XXXXXX")
    smpicc -O2 "$here/smpi-probe.c" -o "$tmp/probe"
    printf 'kind\tbytes\tseconds\n' >"$tmp/prices.tsv"
    for spec in "direct $B_full" "direct $B_int8" "direct $B_int4" "direct $B_frag" \
                "gossip $B_full" "gossip $B_int8"; do
        set -- $spec
        if [ "$1" = direct ]; then
            cfg="--cfg=smpi/simulate-computation:no --cfg=smpi/alltoall:basic_linear --cfg=smpi/allgather:spreading_simple"
            args="direct -"
        else
            cfg="--cfg=smpi/simulate-computation:no"
            args="gossip $OUT/learned.txt"
        fi
        v=$(SMPI_CFG="$cfg" sh "$here/smpi-run.sh" --tcp cm02 -platform "$OUT/home64.xml" \
            -np "$N" "$tmp/probe" $args "$2" 1 2>"$tmp/err" | awk '/^probe_s/ { print $2 }')
        [ -n "$v" ] || { echo "bandwidth-bound: SMPI probe $spec failed: $(head -c 300 "$tmp/err")" >&2; exit 1; }
        printf '%s\t%s\t%s\n' "$1" "$2" "$v" >>"$tmp/prices.tsv"
    done
    mv "$tmp/prices.tsv" "$prices"
    rm -rf "$tmp"
fi
# one worker's step
if [ ! -s "$OUT/compute.txt" ] && [ -z "${TABLE_ONLY:-}" ]; then bench_compute; fi

# the runs
train="--data $DATA --model cnn --batch $BATCH --epochs $EPOCHS --train-limit $TRAIN_LIMIT --test-limit 1000 --local-eval 0 --eval-every $EVAL_EVERY --seed $SEED --quiet"
run_lr() { # NAME -> its learning rate
    case $1 in
    *@*) echo "${1#*@}" ;;
    allreduce|d2-H1|choco-int8-H1) echo "$LR" ;;
    *) echo "$LOCAL_LR" ;;
    esac
}
run_args() { # NAME -> the run's flags
    set -- "${1%@*}"
    case $1 in
    allreduce) echo "--mode allreduce --workers $N" ;;
    local-*) echo "--mode allreduce --workers $N --average-every ${1#local-}" ;;
    diloco-int8) echo "--mode allreduce --workers $N --average-every $DILOCO_H --outer $OUTER --compress int8" ;;
    diloco-int4) echo "--mode allreduce --workers $N --average-every $DILOCO_H --outer $OUTER --compress int4" ;;
    streaming) echo "--mode allreduce --workers $N --average-every $DILOCO_H --outer $OUTER --compress int4 --fragments $FRAGMENTS" ;;
    d2-H*) echo "--topology $OUT/learned.txt --algorithm d2 --average-every ${1#d2-H}" ;;
    choco-int8-H*) echo "--topology $OUT/learned.txt --algorithm dpsgd --compress int8 --average-every ${1#choco-int8-H}" ;;
    esac
}
names="allreduce"
for lr in $LOCAL_LRS; do
    for h in $LOCAL_HS; do names="$names local-$h@$lr"; done
done
names="$names diloco-int8 diloco-int4 streaming d2-H1 d2-H$GOSSIP_H choco-int8-H1 choco-int8-H$GOSSIP_H"
[ -z "${RUNS:-}" ] || names=$RUNS
if [ -z "${TABLE_ONLY:-}" ]; then
    for name in $names; do
        for part in $PARTITIONS; do
            tag=$(echo "$part" | tr ':' '-')
            f=$OUT/runs/$tag-$name
            { [ -s "$f.json" ] || [ -s "$f.failed" ]; } && continue
            echo "bandwidth-bound: $tag $name ($(date -u +%H:%M:%S))" >&2
            # shellcheck disable=SC2046,SC2086
            train_run "$f" "$tag $name" \
                $train --lr "$(run_lr "$name")" --partition "$part" $(run_args "$name")
        done
    done
fi

# the table
python3 - "$OUT" "$N" "$PARTITIONS" "$names" "$TARGETS" "$DILOCO_H" "$FRAGMENTS" \
    "$B_full" "$B_int8" "$B_int4" "$B_frag" "$TRAIN_LIMIT" "$EPOCHS" "$BATCH" "$LR $LOCAL_LR" "$OUTER" \
    "${PRICES_LV08:-}" "$EVAL_EVERY" <<'PY'
import csv, json, os, re, sys
out, n, parts, names, targets = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split(), sys.argv[5].split()
dh, frag = int(sys.argv[6]), sys.argv[7]
EVAL = int(sys.argv[18])
B = {"none": int(sys.argv[8]), "int8": int(sys.argv[9]), "int4": int(sys.argv[10]), "frag": int(sys.argv[11])}
limit, epochs, batch, lr, outer = sys.argv[12:17]
fp, ft = (int(frag.split(":")[0]), int(frag.split(":")[1]) if ":" in frag else 0)
def read_prices(path):
    p = {}
    for r in csv.DictReader(open(path), delimiter="\t"):
        if r.get("seconds"):
            p[(r["kind"], int(r["bytes"]))] = float(r["seconds"])
    return p
prices = [("CM02", read_prices(os.path.join(out, "prices.tsv")))]
if sys.argv[17]:
    prices.append(("LV08", read_prices(sys.argv[17])))
price = prices[0][1]
tc = float(open(os.path.join(out, "compute.txt")).read())
deg = {}
for line in open(os.path.join(out, "learned.txt")):
    if line.startswith("#") or not line.strip():
        continue
    i, j = line.split()[:2]
    deg[i] = deg.get(i, 0) + 1
    deg[j] = deg.get(j, 0) + 1
mdeg = sum(deg.values()) / n
ar = 2.0 * (n - 1) / n

def frag_syncs(H, P, k):  # dt_frag_syncs with S = 0
    c = 0
    for p in range(P):
        o = (p + 1) * H // P % H
        c += k // H if o == 0 else ((k - o) // H + 1 if k >= o else 0)
    return c

def cost(name, k, price):  # (seconds, bytes a worker sent) of the first k steps
    name = name.split("@")[0]
    if name == "allreduce":
        return k * (tc + price[("direct", B["none"])]), k * ar * B["none"]
    if name.startswith("local-"):
        c = k // int(name[6:])
        return k * tc + c * price[("direct", B["none"])], c * ar * B["none"]
    if name in ("diloco-int8", "diloco-int4"):
        f = name[-4:]
        c = k // dh
        return k * tc + c * price[("direct", B[f])], c * ar * B[f]
    if name == "streaming":
        c = frag_syncs(dh, fp, k)
        t = max(0.0, price[("direct", B["frag"])] - ft * tc)
        return k * tc + c * t, c * ar * B["frag"]
    H = int(name.rsplit("H", 1)[1])
    f = "int8" if name.startswith("choco") else "none"
    c = k // H
    return k * tc + c * price[("gossip", B[f])], c * mdeg * B[f]

rows = []
tcps = " / ".join(p[0] for p in prices)
hdr = ["partition", "schedule", "lr", "final acc", "steps"]
for t in targets:
    hdr += ["s to %d%% (%s)" % (round(100 * float(t)), tcps), "MB to %d%%" % round(100 * float(t))]
hdr += ["s at the end (%s)" % tcps, "MB at the end"]
def secs(name, k):
    return " / ".join("%.1f" % cost(name, k, p[1])[0] for p in prices)
for part in parts:
    tag = part.replace(":", "-")
    for name in names:
        base = os.path.join(out, "runs", "%s-%s" % (tag, name))
        if not os.path.exists(base + ".csv"):
            continue
        csvrows = [r for r in csv.DictReader(open(base + ".csv")) if r["test_acc"]]
        if not csvrows:
            continue
        failed = os.path.exists(base + ".failed")
        last = csvrows[-1]
        k_end = int(last["step"])
        acc = "%.2f%%" % (100 * float(last["test_acc"]))
        if failed:
            why = open(base + ".failed").read()
            m = re.search(r"\(step (\d+)\)", why)
            at = " at step %s" % m.group(1) if m else ""
            acc = ("diverged%s (%s)" % (at, "NaN loss" if "NaN" in why else "loss explosion")) if "diverged" in why else "failed after step %d" % k_end
        run_lr = json.load(open(base + ".json"))["settings"]["lr"] if os.path.exists(base + ".json") else (name.split("@")[1] if "@" in name else "")
        cells = [part, name.split("@")[0], str(run_lr), acc, str(k_end)]
        for t in targets:
            hit = [int(r["step"]) for r in csvrows if float(r["test_acc"]) >= float(t)]
            if hit:
                cells += [secs(name, hit[0]), "%.1f" % (cost(name, hit[0], price)[1] / 1e6)]
            else:
                cells += ["never", "-"]
        cells += [secs(name, k_end), "%.1f" % (cost(name, k_end, price)[1] / 1e6)]
        rows.append(cells)
with open(os.path.join(out, "table.md"), "w") as f:
    f.write("64 workers, cnn (329,962 parameters), Fashion-MNIST, %s training images, %s epochs, batch %s per worker, lr (every-step / local-step schedules) %s (cosine), momentum 0.9, 1 seed; local SGD / DiLoCo without a warm-up; DiLoCo H = %d, --outer %s; Streaming DiLoCo --fragments %s with int4; gossip on the learned graph (mean degree %.2f). Priced on the home platform: compute %.2f ms a step (one worker, one core);" % (
        limit, epochs, batch, " / ".join(lr.split()), dh, outer, frag, mdeg, 1e3 * tc))
    for tcp, p in prices:
        f.write(" SMPI %s: direct all-reduce %s; gossip round %s;" % (tcp,
            ", ".join("%s B %.3f s" % (b, p[("direct", b)]) for b in sorted({B["none"], B["int8"], B["int4"], B["frag"]}, reverse=True)),
            ", ".join("%s B %.3f s" % (b, p[("gossip", b)]) for b in sorted({B["none"], B["int8"]}, reverse=True))))
    f.write(" a worker's bytes: 2 (n-1)/n B per direct all-reduce, the mean degree x B per gossip round.\n\n")
    f.write("| " + " | ".join(hdr) + " |\n| " + " | ".join("---" for _ in hdr) + " |\n")
    for r in rows:
        f.write("| " + " | ".join(r) + " |\n")
print(open(os.path.join(out, "table.md")).read())
PY

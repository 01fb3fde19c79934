#!/bin/sh
# sweep.sh: train on a grid of worker counts x topologies x weights x data
# partitions x seeds, plus the centralized all-reduce baseline, and keep
# every run's CSV and topology file under $OUT.
#
#   scripts/experiments/sweep.sh [OUT]  the full grid (see the defaults below)
#                                    into OUT (default $OUT, else results)
#   scripts/experiments/sweep.sh --help  this text
#   SMOKE=1 scripts/experiments/sweep.sh  a tiny grid on synthetic data (< 2 min)
#   WORKERS="16 64" SEEDS="1" EPOCHS=3 scripts/experiments/sweep.sh  a custom grid
#   SETTINGS="learned:laplacian rrl:mh" ...   explicit topology:weights
#                                    pairs instead of KINDS x WEIGHTS
#
# Runs are ordered seed by seed (all settings of seed 1 first), so a sweep
# stopped early still has every setting for the seeds it finished.
#
# Run identity. Every setting that changes a result is part of a run's
# identity: the sweep-wide ones (DATASET MODEL EPOCHS BATCH LR MOMENTUM
# DEGREE TOPO_SEED TRAIN_ARGS, hashed into GLOBAL_ID) and the run's own
# (workers, topology:weights, partition, seed, and the topology file's
# checksum; all hashed into RUN_ID). NP is not: the trainer gives the same
# bits for any number of ranks. OUT/runs/NAME.settings records them all next
# to NAME.csv; OUT/runs/NAME.done holds the RUN_ID and is written only after
# the trainer exits successfully. A run is skipped only when its .done holds
# the current RUN_ID; a marker from other settings (or an empty one from an
# older sweep.sh) is never reused: the run is made again. An OUT whose runs
# were made with other sweep-wide settings is refused with a message naming
# each differing setting (use another OUT), so OUT/grid.env (the sweep-wide
# settings, GLOBAL_ID, and the union of the grid lists over every run in
# OUT/runs) is true of every run there. Partial CSVs of an interrupted run
# are never used: the trainer writes its log atomically. See
# data/results/README.md, "Sweep run identity". A SIGTERM, SIGINT or SIGHUP
# stops the run in progress too (its mpirun gets SIGTERM) and the sweep
# exits 128 + the signal.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/../lib/common.sh"
script_out sweep "$TREE_OUT" "$@"
. "$here/../lib/runs.sh" # global_settings, id_of, settings_record, grid_env
BIN=${BIN:-$TREE_BIN}
NP=${NP:-$(nproc)}
DEGREE=${DEGREE:-4}
TOPO_SEED=${TOPO_SEED:-1}

if [ "${SMOKE:-0}" = 1 ]; then
    WORKERS=${WORKERS:-"4 8"}
    SETTINGS=${SETTINGS:-"learned:laplacian rrl:mh"}
    PARTITIONS=${PARTITIONS:-"iid dirichlet:0.1"}
    SEEDS=${SEEDS:-"1"}
    EPOCHS=${EPOCHS:-2}
    DEGREE=${DEGREE_SMOKE:-3}
    DATASET=${DATASET:-synthetic}
    ALLREDUCE=${ALLREDUCE:-1}
    BATCH=${BATCH:-16}
    TRAIN_ARGS=${TRAIN_ARGS:-"--synthetic-train 4096 --synthetic-test 256 --local-eval 64"}
else
    WORKERS=${WORKERS:-"16 32 64"}
    KINDS=${KINDS:-"learned rrl random exponential"}
    WEIGHTS=${WEIGHTS:-"laplacian mh"}
    PARTITIONS=${PARTITIONS:-"iid dirichlet:0.1"}
    SEEDS=${SEEDS:-"1 2 3"}
    EPOCHS=${EPOCHS:-4}
    DATASET=${DATASET:-fashion-mnist}
    ALLREDUCE=${ALLREDUCE:-1}
fi
KINDS=${KINDS:-"learned rrl random exponential"}
WEIGHTS=${WEIGHTS:-"laplacian mh"}
if [ -z "${SETTINGS:-}" ]; then
    SETTINGS=""
    for k in $KINDS; do for w in $WEIGHTS; do SETTINGS="$SETTINGS $k:$w"; done; done
fi
BATCH=${BATCH:-32}
LR=${LR:-0.05}
MOMENTUM=${MOMENTUM:-0.9}
MODEL=${MODEL:-lenet}
TRAIN_ARGS=${TRAIN_ARGS:-}
# Communicating less (issue 31): AVERAGE_EVERY=H, LOCAL_AFTER=S,
# GLOBAL_EVERY=K, OUTER=sgd:LR|nesterov:LR,MOM become the trainer's flags,
# sweep-wide, in TRAIN_ARGS (so in the run identity and grid.env's
# settings line); plot.sh and summary.sh name them (runs.sh comm_label).
[ -z "${AVERAGE_EVERY:-}" ] || TRAIN_ARGS="$TRAIN_ARGS --average-every $AVERAGE_EVERY"
[ -z "${LOCAL_AFTER:-}" ] || TRAIN_ARGS="$TRAIN_ARGS --local-after $LOCAL_AFTER"
[ -z "${GLOBAL_EVERY:-}" ] || TRAIN_ARGS="$TRAIN_ARGS --global-every $GLOBAL_EVERY"
[ -z "${OUTER:-}" ] || TRAIN_ARGS="$TRAIN_ARGS --outer $OUTER"
TRAIN_ARGS=${TRAIN_ARGS# }

need_programs topogen dpsgd-train
command -v mpirun >/dev/null 2>&1 || die "mpirun not found (apt-get install openmpi-bin)"
case "$NP" in ''|*[!0-9]*) die "NP must be a positive integer, got '$NP'";; esac

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT/topo" "$OUT/runs" "$OUT/logs"

# Sweep-wide settings that change results: global_settings (runs.sh).
GLOBAL_ID=$(global_settings | id_of)

# Refuse an OUT made with other sweep-wide settings (or by an older
# sweep.sh that kept no record of them) before anything is written.
if [ -f "$OUT/grid.env" ]; then
    old_id=$(sed -n 's/^GLOBAL_ID="\(.*\)"$/\1/p' "$OUT/grid.env")
    if [ -n "$old_id" ] && [ "$old_id" != "$GLOBAL_ID" ]; then
        diffs=$(global_settings | while IFS= read -r line; do
            k=${line%%=*}
            old=$(grep "^$k=" "$OUT/grid.env" || echo "$k=(unset)")
            [ "$old" = "$line" ] || printf ' %s %s -> %s;' "$k" \
                "$(echo "${old#*=}" | tr -d '"')" "$(echo "${line#*=}" | tr -d '"')"
        done)
        die "$OUT already holds runs made with other settings:${diffs%;} (use another OUT, or move $OUT/runs away)"
    fi
fi
if [ -z "${old_id:-}" ] && ls "$OUT/runs" 2>/dev/null | grep -q '\.done$'; then
    die "$OUT/runs holds runs without a settings record (made by an older sweep.sh): their settings are unknown (use another OUT, or move $OUT/runs away)"
fi

# OUT/grid.env: the sweep-wide settings and, over every run recorded in
# OUT/runs (this invocation's and earlier ones'), the lists of worker
# counts, topology:weights pairs, partitions and seeds. Rewritten after
# each run, so it is true at any stop.
write_grid() {
    grid_env "$OUT/runs" "$NP" > "$OUT/grid.env.tmp"
    mv "$OUT/grid.env.tmp" "$OUT/grid.env"
}
write_grid

# Topology files: one per (n, kind, weights); generated once, reused.
# Weights "own": a time-varying kind (one-peer-exp, base) that carries its
# own weights (no --weights). In file and run names a kind's '-' becomes
# '_' (one_peer_exp), since names split on '-'.
tag_of() { echo "$1" | tr - _; }
# Data-aware kinds (issue 22) are learned from the partition's class
# counts, which depend on (n, partition, seed): aware (the learned search
# with --labels, --hetero-weight HETERO_WEIGHT), aware-dir (the same on
# D permutations: --kind learned --directed --labels; weights own), stl-fw
# (directed), stl-fw-sym (--symmetric), dcliques (weights mh or equal).
# Their counts file,
# written by dpsgd-train --epochs 0 --write-partition with the sweep's
# data settings, is kept beside the topology as
# OUT/topo/nN-PART-sS.counts, and both go into the run's settings record.
HETERO_WEIGHT=${HETERO_WEIGHT:-10}
is_data_kind() { case "$1" in aware|aware-dir|stl-fw|stl-fw-sym|dcliques) return 0;; esac; return 1; }
counts_file() { # n partition seed
    c="$OUT/topo/n$1-$(echo "$2" | tr ':' '-')-s$3.counts"
    if [ ! -s "$c" ]; then
        "$BIN/dpsgd-train" --dataset "$DATASET" --batch "$BATCH" $TRAIN_ARGS \
            --epochs 0 --workers "$1" --partition "$2" --seed "$3" --quiet \
            --write-partition "$c" \
            || die "dpsgd-train --write-partition failed for n=$1 partition=$2 seed=$3"
    fi
    echo "$c"
}
topo_file() { # n kind weights [partition seed: data-aware kinds]
    if is_data_kind "$2"; then
        c=$(counts_file "$1" "$4" "$5")
        f="$OUT/topo/n$1-$(tag_of "$2")-$3-$(echo "$4" | tr ':' '-')-s$5.txt"
        if [ ! -s "$f" ]; then
            case "$2" in
                aware) a="-n $1 -d $DEGREE --hetero-weight $HETERO_WEIGHT --weights $3" ;;
                aware-dir) a="-n $1 -d $DEGREE --kind learned --directed --hetero-weight $HETERO_WEIGHT" ;;
                stl-fw) a="--kind stl-fw -d $DEGREE" ;;
                stl-fw-sym) a="--kind stl-fw -d $DEGREE --symmetric" ;;
                dcliques) [ "$3" = equal ] && a="--kind dcliques --clique-weights equal" \
                              || a="--kind dcliques" ;;
            esac
            "$BIN/topogen" $a --labels "$c" --seed "$TOPO_SEED" --quiet -o "$f" \
                || die "topogen failed for n=$1 kind=$2 weights=$3 on $c"
        fi
        echo "$f"
        return
    fi
    # Two kinds that are a search objective rather than a --kind: the
    # learned graph of the measure that predicted training in issue 21's
    # pilot (learned-slem: --objective slem-mh, with the weights named)
    # and the learned directed graph (perm:learned: --kind learned
    # --directed, its objective neff, weights 1/(d+1)).
    f="$OUT/topo/n$1-$(tag_of "$2")-$3.txt"
    if [ ! -s "$f" ]; then
        kflag="--kind $2"
        wflag="--weights $3"
        # kinds whose degree is implied take no -d (topogen refuses
        # another)
        dflag="-d $DEGREE"
        case $2 in exponential|exponential-sym|hypercube|ring|torus|complete|one-peer-exp|exp-directed) dflag="";; esac
        [ "$3" = own ] && wflag=""
        [ "$2" = learned-slem ] && kflag="--kind learned --objective slem-mh"
        [ "$2:$3" = perm:learned ] && { kflag="--kind learned --directed --objective neff"; wflag=""; }
        "$BIN/topogen" -n "$1" $dflag $kflag $wflag \
            --seed "$TOPO_SEED" --quiet -o "$f" \
            || die "topogen failed for n=$1 kind=$2 weights=$3"
    fi
    echo "$f"
}

# Count the runs first, for progress.
total=0
for s in $SEEDS; do for n in $WORKERS; do for p in $PARTITIONS; do
    for kw in $SETTINGS; do total=$((total + 1)); done
    if [ "$ALLREDUCE" = 1 ]; then total=$((total + 1)); fi
done; done; done

i=0
t0=$(date +%s)
# stop_job CODE: a signal reached the sweep during a run: the run's
# mpirun gets SIGTERM (and ends its ranks), the sweep waits for it and
# exits CODE; the run has no .done marker, so the next sweep makes it again
stop_job() {
    echo "sweep: stopped by a signal: ending the run in progress" >&2
    kill -TERM "$job" 2>/dev/null || true
    wait "$job" 2>/dev/null || true
    exit "$1"
}
run() { # name np workers setting partition seed topology-file args...
    name=$1; np=$2
    i=$((i + 1))
    rec="$OUT/runs/$name.settings"
    # a data-aware topology's counts file lies beside it (counts_file)
    cf=""
    k1=${4%%:*}
    if [ -n "$7" ] && is_data_kind "$k1"; then
        cf="$OUT/topo/n$3-$(echo "$5" | tr ':' '-')-s$6.counts"
    fi
    settings_record "$rec.tmp" "$name" "$3" "$4" "$5" "$6" \
        "$(if [ -n "$7" ]; then id_of < "$7"; fi)" "$7" "$cf"
    run_id=$(record_value "$rec.tmp" RUN_ID)
    shift 7
    if [ -e "$OUT/runs/$name.done" ]; then
        if [ "$(cat "$OUT/runs/$name.done")" = "$run_id" ]; then
            rm -f "$rec.tmp"
            echo "[$i/$total] $name: done already, skipped"
            return 0
        fi
        echo "[$i/$total] $name: marker from other settings, run again"
        rm -f "$OUT/runs/$name.done"
    fi
    # NP is recorded but not part of the identity (same bits for any NP)
    printf 'NP="%s"\n' "$np" >> "$rec.tmp"
    mv "$rec.tmp" "$rec"
    # A CSV left by an earlier attempt or other settings must not be taken
    # for this run's log (plot.sh and summary.sh count a run complete when
    # its record exists and its CSV reached EPOCHS; scripts/lib/runs.sh).
    rm -f "$OUT/runs/$name.csv"
    start=$(date +%s)
    printf '[%d/%d] %s ... ' "$i" "$total" "$name"
    # in the background, so that a SIGTERM, SIGINT or SIGHUP to the sweep
    # stops the job too (mpirun passes it to the ranks) instead of leaving
    # it writing into OUT
    mpirun --oversubscribe --bind-to none -np "$np" "$BIN/dpsgd-train" \
           --dataset "$DATASET" --model "$MODEL" --epochs "$EPOCHS" \
           --batch "$BATCH" --lr "$LR" --momentum "$MOMENTUM" \
           --log "$OUT/runs/$name.csv" --quiet $TRAIN_ARGS "$@" \
           > "$OUT/logs/$name.log" 2>&1 </dev/null &
    job=$!
    trap 'stop_job 143' TERM
    trap 'stop_job 130' INT
    trap 'stop_job 129' HUP
    job_rc=0
    wait "$job" || job_rc=$?
    trap - TERM INT HUP
    if [ "$job_rc" = 0 ]; then
        echo "$run_id" > "$OUT/runs/$name.done.tmp"
        mv "$OUT/runs/$name.done.tmp" "$OUT/runs/$name.done"
        write_grid
        acc=$(tail -n 1 "$OUT/runs/$name.csv" | cut -d, -f5)
        echo "test_acc=$acc in $(( $(date +%s) - start ))s (sweep $(( $(date +%s) - t0 ))s)"
    else
        echo "FAILED; see $OUT/logs/$name.log"
        tail -n 5 "$OUT/logs/$name.log" >&2
        exit 1
    fi
}

for s in $SEEDS; do
    for n in $WORKERS; do
        np=$NP
        [ "$np" -gt "$n" ] && np=$n
        for p in $PARTITIONS; do
            ptag=$(echo "$p" | tr ':' '-')
            for kw in $SETTINGS; do
                k=${kw%%:*}; w=${kw#*:}
                f=$(topo_file "$n" "$k" "$w" "$p" "$s")
                run "n$n-$(tag_of "$k")-$w-$ptag-s$s" "$np" "$n" "$kw" "$p" "$s" "$f" \
                    --topology "$f" --partition "$p" --seed "$s"
            done
            if [ "$ALLREDUCE" = 1 ]; then
                run "n$n-allreduce-none-$ptag-s$s" "$np" "$n" allreduce:none \
                    "$p" "$s" "" --mode allreduce --workers "$n" --partition "$p" \
                    --seed "$s"
            fi
        done
    done
done
echo "sweep: $total runs complete in $OUT/runs ($(( $(date +%s) - t0 ))s)"
# Plots and the summary table of everything complete in OUT so far.
if command -v gnuplot >/dev/null 2>&1; then
    sh "$here/../reports/plot.sh" --into "$OUT/plots" "$OUT"
    sh "$here/../reports/summary.sh" "$OUT" > /dev/null
    echo "sweep: plots in $OUT/plots, table in $OUT/summary.md"
else
    echo "sweep: gnuplot not found: no plots (apt-get install gnuplot-nox)" >&2
fi

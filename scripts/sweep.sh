#!/bin/sh
# sweep.sh: train on a grid of worker counts x topologies x weights x data
# partitions x seeds, plus the centralized all-reduce baseline, and keep
# every run's CSV and topology file under $OUT.
#
#   scripts/sweep.sh                 the full grid (see the defaults below)
#   SMOKE=1 scripts/sweep.sh         a tiny grid on synthetic data (< 2 min)
#   WORKERS="16 64" SEEDS="1" EPOCHS=3 scripts/sweep.sh    a custom grid
#   SETTINGS="learned:laplacian rrl:mh" ...   explicit topology:weights
#                                    pairs instead of KINDS x WEIGHTS
#
# Runs are ordered seed by seed (all settings of seed 1 first), so a sweep
# stopped early still has every setting for the seeds it finished.
#
# A run is complete when OUT/runs/NAME.done exists; complete runs are
# skipped, so a stopped sweep resumes where it was. Partial CSVs of an
# interrupted run are never used: the trainer writes its log atomically and
# the .done marker is written only after it exits successfully.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BIN=${BIN:-$root/bin}
OUT=${OUT:-$root/results}
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

die() { echo "sweep: $*" >&2; exit 1; }
for b in topogen dpsgd-train; do
    [ -x "$BIN/$b" ] || die "$BIN/$b not found: run 'make' first"
done
command -v mpirun >/dev/null 2>&1 || die "mpirun not found (apt-get install openmpi-bin)"
case "$NP" in ''|*[!0-9]*) die "NP must be a positive integer, got '$NP'";; esac

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT/topo" "$OUT/runs" "$OUT/logs"

# Record the grid so plot.sh and summary.sh know what to expect.
cat > "$OUT/grid.env.tmp" <<GRID
WORKERS="$WORKERS"
SETTINGS="$SETTINGS"
PARTITIONS="$PARTITIONS"
SEEDS="$SEEDS"
EPOCHS="$EPOCHS"
DEGREE="$DEGREE"
DATASET="$DATASET"
MODEL="$MODEL"
BATCH="$BATCH"
LR="$LR"
MOMENTUM="$MOMENTUM"
ALLREDUCE="$ALLREDUCE"
NP="$NP"
GRID
mv "$OUT/grid.env.tmp" "$OUT/grid.env"

# Topology files: one per (n, kind, weights); generated once, reused.
topo_file() { # n kind weights
    f="$OUT/topo/n$1-$2-$3.txt"
    if [ ! -s "$f" ]; then
        "$BIN/topogen" -n "$1" -d "$DEGREE" --kind "$2" --weights "$3" \
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
run() { # name np args...
    name=$1; np=$2; shift 2
    i=$((i + 1))
    if [ -e "$OUT/runs/$name.done" ]; then
        echo "[$i/$total] $name: done already, skipped"
        return 0
    fi
    start=$(date +%s)
    printf '[%d/%d] %s ... ' "$i" "$total" "$name"
    if mpirun --oversubscribe --bind-to none -np "$np" "$BIN/dpsgd-train" \
           --dataset "$DATASET" --model "$MODEL" --epochs "$EPOCHS" \
           --batch "$BATCH" --lr "$LR" --momentum "$MOMENTUM" \
           --log "$OUT/runs/$name.csv" --quiet $TRAIN_ARGS "$@" \
           > "$OUT/logs/$name.log" 2>&1; then
        : > "$OUT/runs/$name.done"
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
                f=$(topo_file "$n" "$k" "$w")
                run "n$n-$k-$w-$ptag-s$s" "$np" --topology "$f" \
                    --partition "$p" --seed "$s"
            done
            if [ "$ALLREDUCE" = 1 ]; then
                run "n$n-allreduce-none-$ptag-s$s" "$np" --mode allreduce \
                    --workers "$n" --partition "$p" --seed "$s"
            fi
        done
    done
done
echo "sweep: $total runs complete in $OUT/runs ($(( $(date +%s) - t0 ))s)"
# Plots and the summary table of everything complete in OUT so far.
if command -v gnuplot >/dev/null 2>&1; then
    sh "$here/plot.sh" "$OUT"
    sh "$here/summary.sh" "$OUT" > /dev/null
    echo "sweep: plots in $OUT/plots, table in $OUT/summary.md"
else
    echo "sweep: gnuplot not found: no plots (apt-get install gnuplot-nox)" >&2
fi

#!/bin/sh
# modelled.sh: the modelled wall-clock time per training step of every
# setting of one or more sweep directories (scripts/experiments/sweep.sh), for the
# deployment "every worker on its own host", on the network presets of
# the placement issue's cost model (src/cm_net.h).
#
#   scripts/reports/modelled.sh [--allreduce ALG] SWEEP...
#                                    writes SWEEP/modelled.tsv; rerun to
#                                    resume (kept measurements are reused)
#   --allreduce ALG                  the algorithm that prices all-reduce
#                                    (topogen eval --allreduce): auto
#                                    (default), best, ring,
#                                    recursive-doubling, rabenseifner,
#                                    binomial, hierarchical
#   NETS="datacenter wan"            the presets (or intra=..;inter=..)
#   FORCE=1                          measure the compute time again
#
# A step costs t_step = t_compute + t_comm, with no overlap of the two:
# - t_compute: one step of the sweep's MODEL at its per-worker BATCH on
#   one thread, `dpsgd-train --bench` (random inputs, forward, backward
#   and update; best of BENCH_REPEAT timed runs of BENCH_STEPS steps),
#   measured once per batch in this session and recorded in the file
#   with the machine, the date and the bench line. Evaluation is not
#   counted (it is not training time).
# - t_comm, D-PSGD: the modelled gossip round of the topology file with
#   n ranks on n hosts (`topogen eval FILE --net NET --ranks n --hosts n
#   --json`); a time-varying file's rounds averaged over its period
#   (every round modelled on its own); an epidemic file (a fresh graph
#   each step) as S random permutations (S out-peers per node, like its
#   draws); a data-aware setting by the first of its per-partition
#   files. --algorithm gt sends two arrays
#   per round (x and y), so its arrays count twice; d2 and qgm send one.
# - t_comm, all-reduce: one all-reduce of the model over n hosts as
#   `topogen eval --net NET --allreduce ALG` prices it (src/cm_net.h:
#   auto is what Open MPI 4.1 runs for dpsgd-train's in-place
#   MPI_Iallreduce, libnbc's binomial reduce + broadcast,
#   2 ceil(lg n) (alpha + B / beta); best the cheapest; ring was the
#   model before, 2(n-1) alpha + 2(n-1)/n B / beta). The file's header
#   names the algorithm; a file priced by another one is redrawn.
# - a gossip round: the sends of a round are posted together, so one
#   latency per link class and the host link's bandwidth shared
#   (alpha + d B / beta for d peers on other hosts).
# The modelled time of a CSV row is then step x t_step. plot.sh draws
# accuracy against it (OUT/plots/acc-modelled-NET-PART.png) and
# summary.sh gives the modelled seconds to each accuracy target, both
# from SWEEP/modelled.tsv alone, so they redraw from committed files.
#
# SWEEP/modelled.tsv: '#' lines (what was measured and how), then one line
# per setting and preset: n<N>-<kind>-<weights> NET t_compute_s t_comm_s
# t_step_s, and for all-reduce a sixth column: the algorithm that priced
# it. A SWEEP whose file already covers every complete run's setting
# and every preset is left alone.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case "${1:-}" in -h|--help|'') sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; [ -n "${1:-}" ]; exit $?;; esac
BIN=${BIN:-$root/bin}
ALLREDUCE=auto
if [ "${1:-}" = --allreduce ]; then
    [ $# -ge 2 ] || { echo "modelled: --allreduce needs ALG" >&2; exit 2; }
    ALLREDUCE=$2
    shift 2
fi
case $ALLREDUCE in
auto|best|ring|recursive-doubling|rabenseifner|binomial|hierarchical) ;;
*) echo "modelled: --allreduce '$ALLREDUCE': expected auto, best, ring, recursive-doubling, rabenseifner, binomial or hierarchical" >&2; exit 2;;
esac
[ $# -gt 0 ] || { echo "modelled: no SWEEP directory given" >&2; exit 2; }
NETS=${NETS:-"datacenter wan"}
BENCH_STEPS=${BENCH_STEPS:-100}
BENCH_REPEAT=${BENCH_REPEAT:-5}
. "$here/../lib/runs.sh"
. "$here/../lib/common.sh" # die
need_programs topogen dpsgd-train
export OPENBLAS_NUM_THREADS=1

# params_of MODEL: floats per worker array (PARAMS overrides).
params_of() {
    if [ -n "${PARAMS:-}" ]; then echo "$PARAMS"; return; fi
    case $1 in
    lenet) echo 61706;;
    *) die "no parameter count known for model '$1': set PARAMS";;
    esac
}

# bench MODEL BATCH: "seconds_per_step<TAB>bench line" of dpsgd-train --bench
bench() {
    line=$("$BIN/dpsgd-train" --bench --model "$1" --batch "$2" --threads 1 \
               --bench-steps "$BENCH_STEPS" --bench-repeat "$BENCH_REPEAT" 2>&1 \
           | grep '^bench ') || die "dpsgd-train --bench --model $1 --batch $2 failed"
    ms=$(echo "$line" | sed -n 's/.* \([0-9.]*\) ms\/step.*/\1/p')
    [ -n "$ms" ] || die "no ms/step in the bench line: $line"
    printf '%s\t%s\n' "$(awk -v m="$ms" 'BEGIN { printf "%.6g", m / 1000 }')" "$line"
}

# json_num KEY: the first number after "KEY": on stdin
json_num() { sed -n "s/.*\"$1\":\([0-9.eE+-]*\).*/\1/p" | head -n 1; }

cache=$(mktemp -d "${TMPDIR:-/tmp}/modelled.XXXXXX")
trap 'rm -rf "$cache"' EXIT INT TERM
for dir in "$@"; do
    [ -d "$dir/runs" ] || die "$dir: no runs/ (not a sweep directory)"
    [ -f "$dir/grid.env" ] || die "$dir: no grid.env (its settings are unknown)"
    runs=$(complete_runs "$dir/runs")
    [ -n "$runs" ] || die "$dir: no complete runs"
    # the settings of a sweep directory: the same for all its runs
    MODEL="" BATCH="" TRAIN_ARGS=""
    load_env "$dir/grid.env"
    [ -n "$BATCH" ] && [ -n "$MODEL" ] || die "$dir/grid.env: no MODEL or BATCH"
    params=$(params_of "$MODEL")
    arrays=1
    case " $TRAIN_ARGS " in *" --algorithm gt "*) arrays=2;; esac
    # issue 31: how many communications of each kind a run makes (the
    # trainer's schedule, dt_local.h): --average-every H, --local-after S,
    # --global-every K (every K-th an all-reduce), clique-avg's gradient
    # round at each communication
    opt() { echo " $TRAIN_ARGS " | sed -n "s/.* $1 \([^ ]*\) .*/\1/p"; }
    H=$(opt --average-every); S=$(opt --local-after); K=$(opt --global-every)
    clique=0
    case " $TRAIN_ARGS " in *" --algorithm clique-avg "*) clique=1;; esac
    keys=$(echo "$runs" | cut -d- -f1-3 | sort -u)
    tsv="$dir/modelled.tsv"
    if [ -f "$tsv" ] && [ "${FORCE:-0}" != 1 ]; then
        missing=0
        for k in $keys; do for net in $NETS; do
            grep -q "^$k $net " "$tsv" || missing=1
        done; done
        grep -q "^# allreduce priced as $ALLREDUCE " "$tsv" || missing=1
        if [ "$missing" = 0 ]; then
            echo "modelled: $tsv covers every setting, kept"
            continue
        fi
    fi
    # the compute time: kept from an earlier file of the same batch and
    # model, else measured now
    comp=""
    if [ -f "$tsv" ] && [ "${FORCE:-0}" != 1 ]; then
        comp=$(sed -n "s/^# compute model=$MODEL batch=$BATCH s_per_step=\([0-9.eE+-]*\) .*/\1/p" "$tsv")
        cline=$(grep "^# compute model=$MODEL batch=$BATCH " "$tsv" || true)
    fi
    # measured once per model and batch in this invocation (e.g. OUT/n16
    # and OUT/n16-d2 share batch 64)
    memo="$cache/$MODEL-$BATCH"
    if [ -z "$comp" ] && [ -f "$memo" ]; then
        cline=$(cat "$memo")
        comp=$(echo "$cline" | sed -n 's/.* s_per_step=\([0-9.eE+-]*\) .*/\1/p')
    fi
    if [ -z "$comp" ]; then
        echo "modelled: measuring one training step of $MODEL at batch $BATCH (dpsgd-train --bench, 1 thread)"
        b=$(bench "$MODEL" "$BATCH")
        comp=$(echo "$b" | cut -f1)
        cline="# compute model=$MODEL batch=$BATCH s_per_step=$comp measured $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n) ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)): $(echo "$b" | cut -f2)"
        echo "$cline" > "$memo"
    fi
    tmp="$tsv.tmp"
    {
        echo "# modelled.sh: modelled seconds per training step, every worker on its own host (n ranks, n hosts)"
        echo "# t_step = t_compute + t_comm (no overlap); arrays of $params floats x $arrays per round"
        echo "# allreduce priced as $ALLREDUCE (topogen eval --allreduce $ALLREDUCE; the algorithm per preset in the allreduce rows' last column); gossip rounds with the sends of a round posted together"
        echo "$cline"
        echo "# setting net t_compute_s t_comm_s t_step_s"
        for k in $keys; do
            n=$(echo "$k" | cut -d- -f1 | sed 's/^n//')
            kind=$(echo "$k" | cut -d- -f2)
            if [ "$kind" = allreduce ]; then
                # any n-node file gives the ring all-reduce of n hosts
                f="$dir/.ring-n$n.txt"
                "$BIN/topogen" -n "$n" --kind ring --quiet -o "$f"
            else
                f="$dir/topo/$k.txt"
                if [ ! -f "$f" ]; then
                    # data-aware: one file per partition and seed, named in
                    # the run's record; the first (sorted) stands for the
                    # setting (the same degrees: the same modelled round)
                    r=$(ls "$dir/runs/$k"-*.settings 2>/dev/null | head -n 1)
                    [ -z "$r" ] || f=$(record_topology "$r" "$dir")
                fi
                [ -f "$f" ] || die "$dir: no topology file $f for $k"
                # epidemic (a fresh graph each step, no rounds in the file):
                # a round of S random out-peers per node is modelled on S
                # random permutations of the same n (topogen --kind perm)
                es=$(sed -n '1s/^# .*kind=epidemic.* s=\([0-9]*\).*/\1/p' "$f")
                if [ -n "$es" ]; then
                    "$BIN/topogen" -n "$n" -d "$es" --kind perm --quiet -o "$dir/.perm-n$n.txt" \
                        || die "topogen --kind perm -n $n -d $es failed"
                    f="$dir/.perm-n$n.txt"
                fi
            fi
            for net in $NETS; do
                j=$("$BIN/topogen" eval "$f" --net "$net" --ranks "$n" --hosts "$n" \
                        --params $((params * arrays)) --allreduce "$ALLREDUCE" --json) \
                    || die "topogen eval $f --net $net failed"
                alg=""
                if [ "$kind" = allreduce ]; then
                    comm=$(echo "$j" | json_num allreduce_s)
                    alg=" $(echo "$j" | sed -n 's/.*"allreduce_alg":"\([a-z-]*\)".*/\1/p')"
                elif echo "$j" | grep -q '"mean_round_s"'; then
                    comm=$(echo "$j" | json_num mean_round_s)
                else
                    comm=$(echo "$j" | sed 's/.*"block":{//' | json_num round_s)
                fi
                [ -n "$comm" ] || die "no modelled round in: $j"
                # per step: the run's communications (T steps: its CSV's
                # last row) priced each, gossip rounds at comm, exact
                # averages at the all-reduce --allreduce picks, clique rounds at the
                # clique graph's round (its `# cliques:` line as a file)
                if [ -n "$H$S$K" ] || [ "$clique" = 1 ]; then
                    csv=$(ls "$dir/runs/$k"-*.csv 2>/dev/null | head -n 1)
                    T=$(tail -n 1 "$csv" | cut -d, -f2)
                    ar=$(echo "$j" | json_num allreduce_s)
                    cq=0
                    if [ "$clique" = 1 ]; then
                        sed -n 's/^# cliques: //p' "$f" | awk '{ for (i = 1; i <= NF; i++) for (j = i + 1; j <= NF; j++) if ($i == $j) print i - 1, j - 1 }' > "$dir/.cliques-n$n.txt"
                        cq=$("$BIN/topogen" eval "$dir/.cliques-n$n.txt" --net "$net" --ranks "$n" --hosts "$n" \
                                 --params "$params" --json | sed 's/.*"block":{//' | json_num round_s)
                        rm -f "$dir/.cliques-n$n.txt"
                    fi
                    [ "$kind" = allreduce ] && ar=$comm
                    comm=$(awk -v T="$T" -v H="${H:-1}" -v S="${S:-0}" -v K="${K:-0}" -v g="$comm" -v ar="$ar" \
                               -v cq="$cq" -v ca="$clique" -v all="$([ "$kind" = allreduce ] && echo 1 || echo 0)" '
                        BEGIN { c = T <= S ? T : S + int((T - S) / H); e = K > 0 ? int(c / K) : 0
                                if (all) { e = c }
                                printf "%.6g", (T > 0 ? ((c - e) * g + e * ar + ca * c * cq) / T : 0) }')
                fi
                awk -v k="$k" -v net="$net" -v c="$comp" -v m="$comm" -v a="$alg" \
                    'BEGIN { printf "%s %s %.6g %.6g %.6g%s\n", k, net, c, m, c + m, a }'
            done
            rm -f "$dir/.ring-n$n.txt" "$dir/.perm-n$n.txt"
        done
    } > "$tmp"
    mv "$tmp" "$tsv"
    echo "modelled: wrote $tsv"
done

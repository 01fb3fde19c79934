#!/bin/sh
# smpi-scale.sh: one worker per simulated host at scale (issue 40): LeNet
# D^2 on Fashion-MNIST (partition dirichlet:0.1) under SimGrid's SMPI on
# the wan platform of N hosts, with docs/smpi.md's settings, then the same
# settings under the Open MPI build on 2 ranks. Prints the simulated
# seconds to the target accuracy (the CSV's wall_s of the first row with
# test_acc >= TARGET), the wall time and peak memory of the simulation
# (/usr/bin/time -v: elapsed, maximum resident set), and whether the two
# builds' final workers-hash agree.
#
#   sh scripts/experiments/smpi-scale.sh [-n N] [--epochs E] [--target A]
#       [--tcp cm02|lv08] [--partition P] [--train-limit K] [--no-ompi] [OUT]
#
#   -n N        simulated hosts and ranks (256)
#   --epochs E  epochs (12; docs/smpi.md's 1,024-host run used 1)
#   --target A  test accuracy whose simulated time is reported (0.85)
#   --tcp T     smpi-run.sh's TCP setting (cm02)
#   --partition P  the trainer's --partition (dirichlet:0.1; at 1,024
#               workers no draw of dirichlet:0.1 gives every worker a
#               batch, docs/smpi.md used dirichlet:0.2)
#   --train-limit K  only the first K training images (a quick check of
#               the script itself)
#   --no-ompi   skip the Open MPI run (no workers-hash comparison)
#   OUT         folder for the platform, graph, CSVs, summaries
#               (smpi.json, ompi.json: the trainer's --summary) and logs
#               (default: results/smpi-scale-N)
#
# Runs under `nice -n 5`. Measured here (docs/smpi.md, "At scale"): 256
# hosts, 12 epochs, 8.5 (LV08) to 12.4 (CM02, before the memory cuts)
# minutes of CPU, 22 to 52 minutes of wall time on 2 shared cores.
# Needs smpicc/smpirun (libsimgrid-dev), make and make smpi; BIN=bin.
set -eu
. "$(dirname "$0")/../lib/common.sh"
script_help "$@"
SCRIPT_NAME=smpi-scale
here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$TREE_BIN}
n=256 epochs=12 target=0.85 tcp=cm02 ompi=1 OUT="" part=dirichlet:0.1 limit=""
while [ $# -gt 0 ]; do
    case $1 in
    -n|--epochs|--target|--tcp|--partition|--train-limit)
        [ $# -ge 2 ] || { echo "smpi-scale: $1 needs a value" >&2; exit 2; }
        case $1 in
        -n) n=$2 ;; --epochs) epochs=$2 ;; --target) target=$2 ;; --tcp) tcp=$2 ;;
        --partition) part=$2 ;; --train-limit) limit=$2 ;;
        esac
        shift 2 ;;
    --no-ompi) ompi=0; shift ;;
    -*) echo "smpi-scale: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) [ -z "$OUT" ] || { echo "smpi-scale: one OUT expected (see --help)" >&2; exit 2; }
        OUT=$1; shift ;;
    esac
done
case $n in ''|*[!0-9]*) echo "smpi-scale: -n '$n': expected a number of hosts" >&2; exit 2 ;; esac
case $epochs in ''|*[!0-9]*) echo "smpi-scale: --epochs '$epochs': expected a whole number" >&2; exit 2 ;; esac
OUT=${OUT:-$TREE_OUT/smpi-scale-$n}
out_check smpi-scale "$OUT"
need_programs topogen dpsgd-train dpsgd-train-smpi
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
mkdir -p "$OUT"
"$BIN/topogen" platform --net wan -n "$n" -o "$OUT/wan.xml"
"$BIN/topogen" --kind random -n "$n" -d 4 --weights laplacian --seed 1 -q \
    -o "$OUT/g.txt"
set -- --topology "$OUT/g.txt" --algorithm d2 --partition "$part" \
    --data /usr/share/datasets/fashion-mnist --model lenet --batch 4 \
    --lr 0.05 --momentum 0.9 --local-eval 100 --warmup 1 --schedule step \
    --step-epochs 3.5 --eval-every 14 --seed 1 --epochs "$epochs"
[ -z "$limit" ] || set -- "$@" --train-limit "$limit"
nice -n 5 /usr/bin/time -v sh "$here/smpi-run.sh" --tcp "$tcp" \
    -platform "$OUT/wan.xml" -np "$n" "$BIN/dpsgd-train-smpi" "$@" \
    --log "$OUT/smpi.csv" --summary "$OUT/smpi.json" >"$OUT/smpi.out" 2>"$OUT/smpi.err" ||
    die "the simulation failed: $(tail -3 "$OUT/smpi.err")"
if [ "$ompi" = 1 ]; then
    OPENBLAS_NUM_THREADS=1 nice -n 5 mpirun --allow-run-as-root --oversubscribe \
        -np 2 "$BIN/dpsgd-train" "$@" --log "$OUT/ompi.csv" --summary "$OUT/ompi.json" \
        >"$OUT/ompi.out" 2>"$OUT/ompi.err" ||
        die "the Open MPI run failed: $(tail -3 "$OUT/ompi.err")"
fi
first() { awk -F, -v a="$target" 'NR > 1 && $5 >= a { print $3 " s (step " $2 ", epoch " $1 ")"; f = 1; exit } END { if (!f) print "not reached" }' "$1"; }
whash() { sed -n 's/.*workers-hash \([0-9a-f]*\).*/\1/p' "$1"; }
echo "smpi-scale: $n simulated hosts (wan, $tcp), $epochs epochs, LeNet D^2, $part${limit:+, $limit training images}"
echo "  simulated time to $target: $(first "$OUT/smpi.csv")"
echo "  whole run: $(awk -F, 'NR > 1 { t = $3 } END { print t }' "$OUT/smpi.csv") simulated s"
echo "  final: $(grep '^final' "$OUT/smpi.out" | sed 's/.*test_acc \([0-9.]*\).*/test_acc \1/')"
echo "  wall time: $(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/smpi.err"), CPU $(sed -n 's/.*User time (seconds): //p' "$OUT/smpi.err") s user + $(sed -n 's/.*System time (seconds): //p' "$OUT/smpi.err") s system"
echo "  peak memory: $(awk '/Maximum resident set size/ { printf "%.0f MB", $NF / 1024 }' "$OUT/smpi.err")"
if [ "$ompi" = 1 ]; then
    hs=$(whash "$OUT/smpi.out") ho=$(whash "$OUT/ompi.out")
    echo "  Open MPI (2 ranks): time to $target $(first "$OUT/ompi.csv") (its own clock)"
    if [ -n "$hs" ] && [ "$hs" = "$ho" ]; then
        echo "  workers-hash: $hs in both builds"
    else
        echo "  workers-hash: SMPI '$hs', Open MPI '$ho': DIFFERENT"
        exit 1
    fi
fi

#!/bin/sh
# bench-train.sh: training speed of the CNN engine against PyTorch.
#
# For lenet and cnn at batch 32 and 128, on one thread: images/s of full
# training steps (forward, loss, backward, SGD update) on random 1x28x28
# inputs held in memory, ours (dpsgd-train --bench) and PyTorch's
# (scripts/benches/bench_torch.py, when python3-torch is installed) measured in the
# same run, their ratio, each layer's share of our step and its GFLOP/s
# against a plain 512^3 sgemm measured in the same process; then both models
# at batch 128 on THREADS engine threads (dpsgd-train --threads) against
# one, and the final hash of a short training run on 1 and THREADS threads.
#
# The machine may be shared: ours and PyTorch alternate configuration by
# configuration, every figure is the best of REPEAT rounds, and the ratio
# is what to read, not the absolute numbers. Two ratios: by wall time and
# by process CPU time (what a step cost without the waits for a core; on a
# loaded machine the steadier of the two). The CPU model and the load
# average before and after are printed with the table.
#
#   BIN=bin REPEAT=5 STEPS=60 THREADS=2 sh scripts/benches/bench-train.sh
set -eu
. "$(dirname "$0")/../lib/common.sh"
script_help "$@"
BIN=${BIN:-bin}
REPEAT=${REPEAT:-5}
STEPS=${STEPS:-60}
THREADS=${THREADS:-2}
DT="$BIN/dpsgd-train"
OPENBLAS_NUM_THREADS=1
export OPENBLAS_NUM_THREADS
[ -x "$DT" ] || { echo "bench-train: $DT not built (make)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-train.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

# PyTorch: Debian's python3-torch lives in the system python.
PY=""
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import torch' 2>/dev/null; then PY=$p; break; fi
done
load() { cut -d' ' -f1-3 /proc/loadavg; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
flags=$(grep -m1 '^flags' /proc/cpuinfo)
isa=avx2
case "$flags" in *avx512f*) isa=avx512f ;; esac
load0=$(load)

# keep the best (largest) number after pattern $2 on line 1 of file $1 in
# file $3 (true when it was the best so far)
keep_best() {
    kb_new=$(sed -n "1s/.*$2 \([0-9.]*\).*/\1/p" "$1")
    kb_old=$(cat "$3" 2>/dev/null || echo 0)
    if awk -v a="$kb_new" -v b="$kb_old" 'BEGIN { exit !(a > b) }'; then
        echo "$kb_new" >"$3"
        return 0
    fi
    return 1
}

for r in $(seq "$REPEAT"); do
    for m in lenet cnn; do
        for b in 32 128; do
            s=$STEPS
            [ "$m" = cnn ] && s=$((STEPS / 4 > 5 ? STEPS / 4 : 5))
            "$DT" --bench --model "$m" --batch "$b" --bench-steps "$s" \
                --bench-repeat 1 >"$T/run.txt"
            # "bench M batch B: X images/s ... cpu Y images/s"
            sed -n '1s/.*: \([0-9.]*\) images\/s .*cpu \([0-9.]*\) images.*/ours \1 \2/p' \
                "$T/run.txt" >"$T/line"
            keep_best "$T/line" ours "$T/$m-$b.w" && cp "$T/run.txt" "$T/$m-$b.txt"
            keep_best "$T/line" "ours [0-9.]*" "$T/$m-$b.c" || true
            if [ -n "$PY" ]; then
                # PyTorch allocates and frees its activations every step;
                # glibc then maps and unmaps them (page faults each step)
                # unless told to keep them: its best case, measured
                MALLOC_MMAP_THRESHOLD_=268435456 \
                MALLOC_TRIM_THRESHOLD_=4294967296 \
                MALLOC_TOP_PAD_=268435456 \
                "$PY" "$(dirname "$0")/bench_torch.py" --models "$m" \
                    --batches "$b" --steps "$s" --repeat 1 >"$T/line"
                keep_best "$T/line" "torch $m $b" "$T/t-$m-$b.w" || true
                keep_best "$T/line" "torch $m $b [0-9.]*" "$T/t-$m-$b.c" || true
            fi
        done
    done
    # threads: both models at batch 128 on THREADS engine threads and on
    # one
    for m in lenet cnn; do
        s=$STEPS
        [ "$m" = cnn ] && s=$((STEPS / 4 > 5 ? STEPS / 4 : 5))
        for t in 1 "$THREADS"; do
            "$DT" --bench --model "$m" --batch 128 --threads "$t" \
                --bench-steps "$s" --bench-repeat 1 |
                sed -n '1s/.*: \([0-9.]*\) images\/s .*/thr \1/p' >"$T/line"
            keep_best "$T/line" thr "$T/thr-$m-$t" || true
        done
    done
done
# the bits do not depend on the thread count: one short training run each
hash_of() {
    "$DT" --dataset synthetic --synthetic-train 1024 --synthetic-test 64 \
        --model "$1" --epochs 1 --batch 128 --threads "$2" --quiet |
        sed -n 's/^final:.*hash //p'
}
[ -n "$PY" ] || echo "bench-train: python3-torch not installed: no PyTorch" \
    "reference (apt-get install python3-torch)" >&2

echo "CPU: $cpu ($isa kernels; $(nproc) cores)"
echo "load average before: $load0  after: $(load)"
echo "training images/s, one thread, best of $REPEAT rounds; wall and"
echo "process-CPU time; torch: PyTorch $("${PY:-false}" -c \
    'import torch; print(torch.__version__)' 2>/dev/null || echo -),"
echo "glibc told to keep freed memory (its best case)"
printf '%-6s %5s %9s %9s %7s %9s %9s %7s %8s\n' model batch ours torch \
    /torch ours-cpu torch-cpu /torch GFLOP/s
for m in lenet cnn; do
    for b in 32 128; do
        ow=$(cat "$T/$m-$b.w"); oc=$(cat "$T/$m-$b.c")
        tw=$(cat "$T/t-$m-$b.w" 2>/dev/null || echo 0)
        tc=$(cat "$T/t-$m-$b.c" 2>/dev/null || echo 0)
        gf=$(sed -n '1s/.*ms\/step  \([0-9.]*\) GFLOP.*/\1/p' "$T/$m-$b.txt")
        awk -v m="$m" -v b="$b" -v ow="$ow" -v oc="$oc" -v tw="$tw" \
            -v tc="$tc" -v gf="$gf" 'BEGIN {
            rw = tw > 0 ? sprintf("%.2f", ow / tw) : "-"
            rc = tc > 0 ? sprintf("%.2f", oc / tc) : "-"
            sw = tw > 0 ? tw : "-"; sc = tc > 0 ? tc : "-"
            printf "%-6s %5s %9s %9s %7s %9s %9s %7s %8s\n", m, b, ow,
                   sw, rw, oc, sc, rc, gf }'
    done
done
echo
for m in lenet cnn; do
    t1=$(cat "$T/thr-$m-1"); tn=$(cat "$T/thr-$m-$THREADS")
    h1=$(hash_of "$m" 1); hn=$(hash_of "$m" "$THREADS")
    same="same final hash $h1"
    [ "$h1" = "$hn" ] || same="DIFFERENT final hashes $h1 $hn"
    echo "threads: $m batch 128, $t1 images/s on 1 engine thread, $tn on" \
        "$THREADS: $(awk -v a="$tn" -v b="$t1" 'BEGIN { printf "%.2f", a / b }')x" \
        "($same)"
done
echo
echo "per layer (ours, best round): share of the step, ms, GFLOP/s and its"
echo "fraction of the 512^3 sgemm measured in the same process; relu fused:"
for m in lenet cnn; do
    for b in 32 128; do
        sed -n '1s/^bench \([a-z]*\) batch \([0-9]*\):.*(sgemm 512^3: \([0-9.]*\).*/\1 batch \2 (sgemm \3 GFLOP\/s):/p' \
            "$T/$m-$b.txt"
        sed -n 's/^layer/  layer/p; s/^update/  update/p' "$T/$m-$b.txt" |
            grep -v ' pool ' || true
    done
done

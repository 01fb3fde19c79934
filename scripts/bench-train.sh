#!/bin/sh
# bench-train.sh: training speed of the CNN engine against PyTorch.
#
# For lenet and cnn at batch 32 and 128, on one thread: images/s of full
# training steps (forward, loss, backward, SGD update) on random 1x28x28
# inputs held in memory, ours (dpsgd-train --bench) and PyTorch's
# (scripts/bench_torch.py, when python3-torch is installed) measured in the
# same run, their ratio, and the achieved GFLOP/s of each conv/fc layer
# against a plain 512^3 sgemm measured in the same process.
#
# The machine may be shared: every figure is the best of REPEAT runs, and
# the ratio is what to read, not the absolute numbers.
#
#   BIN=bin REPEAT=5 STEPS=60 sh scripts/bench-train.sh
set -eu
BIN=${BIN:-bin}
REPEAT=${REPEAT:-5}
STEPS=${STEPS:-60}
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

for m in lenet cnn; do
    for b in 32 128; do
        s=$STEPS
        [ "$m" = cnn ] && s=$((STEPS / 4 > 5 ? STEPS / 4 : 5))
        "$DT" --bench --model "$m" --batch "$b" --bench-steps "$s" \
            --bench-repeat "$REPEAT" >"$T/$m-$b.txt"
    done
done
if [ -n "$PY" ]; then
    "$PY" "$(dirname "$0")/bench_torch.py" --steps "$STEPS" \
        --repeat "$REPEAT" >"$T/torch.txt"
else
    echo "bench-train: python3-torch not installed: no PyTorch reference" \
        "(apt-get install python3-torch)" >&2
    : >"$T/torch.txt"
fi

echo "training images/s, one thread, best of $REPEAT runs"
printf '%-6s %5s %12s %12s %8s %10s %10s\n' model batch ours torch \
    ours/torch GFLOP/s sgemm
for m in lenet cnn; do
    for b in 32 128; do
        line=$(head -1 "$T/$m-$b.txt")
        ours=$(echo "$line" | sed 's/.*: \([0-9.]*\) images\/s.*/\1/')
        gf=$(echo "$line" | sed 's/.*ms\/step  \([0-9.]*\) GFLOP.*/\1/')
        sg=$(echo "$line" | sed 's/.*512^3: \([0-9.]*\) GFLOP.*/\1/')
        torch=$(awk -v m="$m" -v b="$b" '$2 == m && $3 == b { print $4 }' \
            "$T/torch.txt")
        ratio=$(awk -v a="$ours" -v t="${torch:-0}" \
            'BEGIN { if (t > 0) printf "%.2f", a / t; else print "-" }')
        printf '%-6s %5s %12s %12s %8s %10s %10s\n' "$m" "$b" "$ours" \
            "${torch:--}" "$ratio" "$gf" "$sg"
    done
done
echo
echo "per layer (ours; GFLOP/s against the sgemm figure above; relu fused):"
for m in lenet cnn; do
    for b in 32 128; do
        echo "$m batch $b:"
        sed -n 's/^layer/  layer/p; s/^update/  update/p' "$T/$m-$b.txt" |
            grep -v ' pool ' || true
    done
done

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
# The machine may be shared: ours and PyTorch alternate configuration by
# configuration, every figure is the best of REPEAT rounds, and the ratio
# is what to read, not the absolute numbers. The per-layer split comes from
# our best round.
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

# Ours and PyTorch alternate, configuration by configuration, REPEAT
# rounds, so both see the same background load; each keeps its best round.
for r in $(seq "$REPEAT"); do
    for m in lenet cnn; do
        for b in 32 128; do
            s=$STEPS
            [ "$m" = cnn ] && s=$((STEPS / 4 > 5 ? STEPS / 4 : 5))
            "$DT" --bench --model "$m" --batch "$b" --bench-steps "$s" \
                --bench-repeat 1 >"$T/$m-$b.$r.txt"
            ips=$(sed -n '1s/.*: \([0-9.]*\) images\/s.*/\1/p' "$T/$m-$b.$r.txt")
            best=$(cat "$T/$m-$b.best" 2>/dev/null || echo 0)
            if awk -v a="$ips" -v b="$best" 'BEGIN { exit !(a > b) }'; then
                echo "$ips" >"$T/$m-$b.best"
                cp "$T/$m-$b.$r.txt" "$T/$m-$b.txt"
            fi
            if [ -n "$PY" ]; then
                "$PY" "$(dirname "$0")/bench_torch.py" --models "$m" \
                    --batches "$b" --steps "$STEPS" --repeat 1 >>"$T/torch.all"
                # PyTorch allocates and frees its activations every step;
                # glibc then maps and unmaps them (page faults each step)
                # unless told to keep them: its best case, measured too
                MALLOC_MMAP_THRESHOLD_=268435456 \
                MALLOC_TRIM_THRESHOLD_=4294967296 \
                MALLOC_TOP_PAD_=268435456 \
                "$PY" "$(dirname "$0")/bench_torch.py" --models "$m" \
                    --batches "$b" --steps "$STEPS" --repeat 1 |
                    sed 's/^torch/torch+/' >>"$T/torch.all"
            fi
        done
    done
done
if [ -n "$PY" ]; then
    awk '{ k = $1 " " $2 " " $3; if ($4 > best[k]) best[k] = $4 }
         END { for (k in best) print k, best[k] }' \
        "$T/torch.all" >"$T/torch.txt"
else
    echo "bench-train: python3-torch not installed: no PyTorch reference" \
        "(apt-get install python3-torch)" >&2
    : >"$T/torch.txt"
fi

echo "training images/s, one thread, best of $REPEAT rounds; torch: default"
echo "malloc; torch+: glibc told to keep freed memory (PyTorch's best case)"
printf '%-6s %5s %9s %9s %9s %8s %8s %8s %8s\n' model batch ours torch \
    torch+ /torch /torch+ GFLOP/s sgemm
for m in lenet cnn; do
    for b in 32 128; do
        line=$(head -1 "$T/$m-$b.txt")
        ours=$(echo "$line" | sed 's/.*: \([0-9.]*\) images\/s.*/\1/')
        gf=$(echo "$line" | sed 's/.*ms\/step  \([0-9.]*\) GFLOP.*/\1/')
        sg=$(echo "$line" | sed 's/.*512^3: \([0-9.]*\) GFLOP.*/\1/')
        t0=$(awk -v m="$m" -v b="$b" \
            '$1 == "torch" && $2 == m && $3 == b { print $4 }' "$T/torch.txt")
        t1=$(awk -v m="$m" -v b="$b" \
            '$1 == "torch+" && $2 == m && $3 == b { print $4 }' "$T/torch.txt")
        r0=$(awk -v a="$ours" -v t="${t0:-0}" \
            'BEGIN { if (t > 0) printf "%.2f", a / t; else print "-" }')
        r1=$(awk -v a="$ours" -v t="${t1:-0}" \
            'BEGIN { if (t > 0) printf "%.2f", a / t; else print "-" }')
        printf '%-6s %5s %9s %9s %9s %8s %8s %8s %8s\n' "$m" "$b" "$ours" \
            "${t0:--}" "${t1:--}" "$r0" "$r1" "$gf" "$sg"
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

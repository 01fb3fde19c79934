#!/bin/sh
# torch_model.sh (make check-torch): a model saved by dpsgd-train loads
# into the PyTorch module of scripts/benches/bench_torch.py (Debian python3-torch,
# load_state_dict strict) and reaches the test accuracy dpsgd-train
# reported, within 0.1 point; for lenet and cnn, on a Fashion-MNIST subset
# (one short epoch each: what is checked is the file, not the training).
set -eu
BIN=${BIN:-bin}
PY=/usr/bin/python3
T=$(mktemp -d "${TMPDIR:-/tmp}/torch_model.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export OPENBLAS_NUM_THREADS=1
failed=0
theirs_lenet=""
for m in lenet cnn; do
    "$BIN/dpsgd-train" --model "$m" --epochs 1 --train-limit 2000 \
        --test-limit 1000 --quiet --save-model "$T/$m.safetensors" >"$T/out"
    ours=$(sed -n 's/^final:.*test_acc \([0-9.]*\) .*/\1/p' "$T/out")
    theirs=$("$PY" "$(dirname "$0")/../../scripts/benches/torch-eval-model.py" \
        "$T/$m.safetensors" --model "$m" --limit 1000 | cut -d' ' -f2)
    if awk -v a="$ours" -v b="$theirs" \
        'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 0.001) }'; then
        echo "torch_model: $m ok: dpsgd-train $ours, PyTorch $theirs"
        [ "$m" = lenet ] && theirs_lenet=$theirs
    else
        echo "torch_model: $m FAILED: dpsgd-train '$ours', PyTorch '$theirs'"
        failed=1
    fi
done
# the file's __metadata__ names the model: no --model needed, and a
# contradicting one is refused (exit 1, as dpsgd-train) naming it
alone=$("$PY" "$(dirname "$0")/../../scripts/benches/torch-eval-model.py" \
    "$T/lenet.safetensors" --limit 1000 | cut -d' ' -f2)
if [ -n "$alone" ] && [ "$alone" = "$theirs_lenet" ]; then
    echo "torch_model: metadata ok: lenet without --model, $alone"
else
    echo "torch_model: metadata FAILED: '$alone', with --model '$theirs_lenet'"
    failed=1
fi
rc=0
"$PY" "$(dirname "$0")/../../scripts/benches/torch-eval-model.py" "$T/lenet.safetensors" \
    --model cnn >/dev/null 2>"$T/err" || rc=$?
if [ "$rc" = 1 ] && grep -q "^torch-eval-model: --model cnn: .*holds a lenet model" "$T/err"; then
    echo "torch_model: a contradicting --model: exit 1"
else
    echo "torch_model: contradicting --model FAILED: exit $rc: $(cat "$T/err")"
    failed=1
fi
exit $failed

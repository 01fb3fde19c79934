#!/bin/sh
# cli/train.sh: dpsgd-train on one worker (no mpirun): flags, logs, --quiet,
# the same seed giving the same parameters; --save-model / --eval-model /
# --init-model and bad model files (model_cases).
#
#   BIN=bin sh tests/cli/train.sh  (make check-cli-train)
. "$(dirname "$0")/lib.sh"

train_cases() {
    dt=dt_run
    l="$T/train.csv"
    syn="--dataset synthetic --synthetic-train 256 --synthetic-test 64"

    expect_ok "dpsgd-train --help" "$dt" --help
    check 'grep -q -- "--weight-decay" "$T/out"' "--help lists the flags"
    # bad flags: exit 2, one message naming the flag, no log written
    expect_fail 2 "^dpsgd-train: --batch" "--batch 0" "$dt" --batch 0 --log "$l"
    expect_fail 2 "^dpsgd-train: --epochs" "--epochs 0" "$dt" --epochs 0 --log "$l"
    expect_fail 2 "^dpsgd-train: --epochs" "--epochs -1" "$dt" --epochs -1 --log "$l"
    expect_fail 2 "^dpsgd-train: --lr" "--lr -0.1" "$dt" --lr -0.1 --log "$l"
    expect_fail 2 "^dpsgd-train: --model.*resnet" "unknown model" "$dt" --model resnet --log "$l"
    expect_fail 2 "^dpsgd-train: --dataset.*imagenet" "unknown data set" "$dt" --dataset imagenet --log "$l"
    expect_fail 2 "^dpsgd-train: unknown flag '--bogus'" "unknown flag" "$dt" --bogus
    expect_fail 2 "^dpsgd-train: --epochs: missing value" "missing value" "$dt" --epochs
    expect_fail 2 "^dpsgd-train: unknown flag '--epoch' \\(did you mean '--epochs'\\?\\)" "near-miss flag" "$dt" --epoch 3
    expect_fail 2 "^dpsgd-train: --quiet: takes no value" "switch with a value" "$dt" -q=1
    run "$dt" --version
    check '[ "$rc" -eq 0 ] && grep -qE "^dpsgd-train [0-9]" "$T/out"' "dpsgd-train --version"
    check '[ ! -e "$l" ]' "no log after bad flags"
    # an output that cannot be written: exit 1 before any work, the
    # message naming its flag, one worker alone and on a topology
    printf '0 1\n1 2\n2 3\n3 0\n' >"$T/ring4.txt"
    for top in "" "--topology $T/ring4.txt --write-partition $T/wp.txt"; do
        for f in --log --summary --save-model; do
            expect_fail 1 "^dpsgd-train: $f: cannot write $T/no/x: No such file" "$f into a missing folder${top:+ (topology)}" "$dt" $top $syn --epochs 1 "$f" "$T/no/x"
        done
    done
    check '[ ! -e "$T/wp.txt" ] && [ ! -e "$T/no" ]' "nothing written by the unwritable outputs"
    # bad data: exit 1, message naming the directory or file, no log
    expect_fail 1 "^dpsgd-train: .*$T/none" "missing data dir" "$dt" --data "$T/none" --log "$l"
    expect_fail 1 "^dpsgd-train: data directory $T/ring4.txt is not a directory" "--data of a file" "$dt" --data "$T/ring4.txt" --log "$l"
    mkdir -p "$T/fm"
    expect_fail 1 "^dpsgd-train: .*$T/fm/train-images-idx3-ubyte" "missing data file" "$dt" --data "$T/fm" --log "$l"
    printf 'not an idx file at all, really' | gzip >"$T/fm/train-images-idx3-ubyte.gz"
    printf '\000\000\010\001\000\000\000\001\001' >"$T/fm/train-labels-idx1-ubyte"
    expect_fail 1 "^dpsgd-train: .*train-images-idx3-ubyte.gz.*magic" "wrong magic" "$dt" --data "$T/fm" --log "$l"
    printf '\000\000\010\003\000\000\000\002\000\000\000\034\000\000\000\034' >"$T/fm/hdr"
    cat "$T/fm/hdr" "$T/fm/hdr" "$T/fm/hdr" | gzip >"$T/fm/train-images-idx3-ubyte.gz"
    expect_fail 1 "^dpsgd-train: .*train-labels-idx1-ubyte.*1 labels" "count mismatch" "$dt" --data "$T/fm" --log "$l"
    printf '\000\000\010\001\000\000\000\002\001\002' >"$T/fm/train-labels-idx1-ubyte"
    expect_fail 1 "^dpsgd-train: .*train-images-idx3-ubyte.gz.*truncated" "truncated images" "$dt" --data "$T/fm" --log "$l"
    head -c 40 "$T/fm/train-images-idx3-ubyte.gz" >"$T/fm/x.gz"
    printf 'garbage-garbage-garbage-garbage' >>"$T/fm/x.gz"
    mv "$T/fm/x.gz" "$T/fm/train-images-idx3-ubyte.gz"
    expect_fail 1 "^dpsgd-train: .*train-images-idx3-ubyte.gz.*(gzip|truncated)" "corrupt gzip" "$dt" --data "$T/fm" --log "$l"
    expect_fail 1 "^dpsgd-train: .*$T/nodir/x.csv" "unwritable log" "$dt" $syn --log "$T/nodir/x.csv"
    check '[ ! -e "$l" ]' "no log after bad data"
    expect_fail 1 "^dpsgd-train: training diverged at epoch 1 \\(step [0-9]+\\): the training loss is NaN" \
        "--lr 100 diverges" "$dt" $syn --lr 100 --epochs 2 --log "$l"
    # a tiny synthetic run: progress lines, final line, a complete CSV
    expect_ok "synthetic run" "$dt" $syn --epochs 2 --log "$l"
    check '[ "$(grep -c "^epoch " "$T/out")" -eq 2 ]' "one progress line per epoch"
    check 'head -1 "$l" | grep -qx "epoch,step,wall_s,train_loss,test_acc,test_acc_local_mean,consensus,bytes_sent,lr,test_loss,train_loss_global"' "CSV header"
    check '[ "$(wc -l <"$l")" -eq 3 ] && awk -F, "NR > 1 && (NF != 11 || \$5 < 0 || \$5 > 1 || \$7 != 0 || \$8 != 0 || \$9 <= 0 || \$10 <= 0 || \$11 <= 0) { bad = 1 } END { exit bad }" "$l"' "CSV rows: acc in 0..1, consensus and bytes 0, lr, test loss and global loss"
    h1=$(sed -n 's/.*hash //p' "$T/out")
    # issue 10 item 3: a second writer of the same --log is refused (the
    # first holds LOG.lock: here flock(1) plays the first run)
    check '[ ! -e "$l.lock" ]' "no lock file left after a run"
    cp "$l" "$T/first.csv"
    expect_fail 1 "^dpsgd-train: --log $l is in use by another run \\($l.lock is locked\\)" "second writer of one --log" \
        flock -n "$l.lock" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$BIN/dpsgd-train" $syn --epochs 1 --log "$l"
    check 'cmp -s "$l" "$T/first.csv"' "the first run's log is untouched"
    rm -f "$l.lock"
    expect_ok "synthetic run, --quiet, same seed" "$dt" $syn --epochs 2 --quiet
    check '[ "$(grep -c "^epoch " "$T/out")" -eq 0 ] && [ "$(sed -n "s/.*hash //p" "$T/out")" = "$h1" ]' "--quiet; same seed, same parameters"
    model_cases
}

# --save-model / --eval-model / --init-model and bad model files.
model_cases() {
    m="$T/m.safetensors"
    expect_ok "--save-model" "$dt" $syn --epochs 1 --save-model "$m" --threads 2
    acc=$(sed -n 's/^final:.*test_acc \([0-9.]*\).*hash \([0-9a-f]*\).*/\1 \2/p' "$T/out")
    check '[ -s "$m" ] && head -c 2000 "$m" | grep -q "\"0.weight\":{\"dtype\":\"F32\""' "safetensors header, PyTorch names"
    check '[ -z "$(ls "$T" | grep "m.safetensors.tmp")" ]' "no temporary file left"
    expect_ok "--eval-model" "$dt" $syn --eval-model "$m"
    check '[ "$(sed -n "s/^eval:.*test_acc \([0-9.]*\).*hash \([0-9a-f]*\).*/\1 \2/p" "$T/out")" = "$acc" ]' "eval: the final accuracy and hash"
    expect_ok "--init-model" "$dt" $syn --epochs 1 --init-model "$m" --lr 0
    check '[ "$(sed -n "s/^final:.*hash //p" "$T/out")" = "${acc#* }" ]' "--init-model, lr 0: the model unchanged"
    expect_fail 1 "^dpsgd-train: .*$T/nodir/m.st" "unwritable model path" "$dt" $syn --epochs 1 --save-model "$T/nodir/m.st"
    expect_fail 1 "^dpsgd-train: --model cnn: $m holds a lenet model \(its __metadata__\)" \
        "another architecture" "$dt" $syn --model cnn --eval-model "$m"
    head -c 5000 "$m" >"$T/trunc.st"
    expect_fail 1 "^dpsgd-train: --eval-model: model file $T/trunc.st: tensor '[0-9]+.(weight|bias)' ends at byte" \
        "truncated model" "$dt" $syn --eval-model "$T/trunc.st"
    printf '\377\377\000\000\000\000\000\000{}' >"$T/lie.st"
    expect_fail 1 "^dpsgd-train: --eval-model: model file $T/lie.st: header length 65535 exceeds" \
        "header lying about its size" "$dt" $syn --eval-model "$T/lie.st"
    sed 's/"0.bias"/"0.bogus"/' "$m" >"$T/ren.st"
    expect_fail 1 "^dpsgd-train: --eval-model: model file $T/ren.st: tensor '0.bias' missing" \
        "missing tensor" "$dt" $syn --eval-model "$T/ren.st"
    expect_fail 1 "^dpsgd-train: --init-model: .*$T/none.st" "missing model file" "$dt" $syn --init-model "$T/none.st"
    # --summary: one JSON object, the final line's figures, atomically
    j="$T/run.json"
    expect_ok "--summary" "$dt" $syn --epochs 1 --summary "$j"
    h=$(sed -n 's/^final:.*hash //p' "$T/out")
    check '[ "$(tr -d "\n" <"$j" | head -c 1)" = "{" ] && [ "$(tail -c 2 "$j")" = "}" ] && grep -q "\"param_hash\": \"$h\"" "$j" && grep -q "\"version\": \"" "$j" && grep -q "\"batch\": 32," "$j"' "summary: version, settings, the final hash"
    check '/usr/bin/python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d[\"result\"][\"steps\"] == 8 and d[\"settings\"][\"model\"] == \"lenet\"" "$j"' "summary: valid JSON"
    expect_fail 1 "^dpsgd-train: --summary: .*$T/nodir/s.json" "unwritable summary" "$dt" $syn --epochs 1 --summary "$T/nodir/s.json"
    # the rate an epoch ran at (cosine over 2 epochs: its first step's,
    # 0.02 then 0.01; the last step's would be 0.0119 and 0.0001), in the
    # CSV, the progress lines and the summary; the summary has the CSV
    # last row's train_loss_global, epoch and wall_s
    expect_ok "--summary, 2 cosine epochs" "$dt" $syn --epochs 2 --lr 0.02 \
        --schedule cosine --log "$T/lr.csv" --summary "$T/lr.json"
    check '/usr/bin/python3 -c "
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))[\"result\"]
lr = [float(r[\"lr\"]) for r in rows]
assert len(lr) == 2 and abs(lr[0] - 0.02) < 1e-12 and abs(lr[1] - 0.01) < 1e-12, lr
assert abs(d[\"lr\"] - 0.01) < 1e-12, d
for k, tol in ((\"train_loss_global\", 1e-5), (\"epoch\", 0), (\"wall_s\", 1e-3)):
    assert abs(d[k] - float(rows[-1][k])) <= tol, (k, d[k], rows[-1][k])
assert d[\"model_s\"] is None
" "$T/lr.csv" "$T/lr.json"' "lr of the epoch's first step in CSV and summary; summary has the CSV's train_loss_global, epoch, wall_s"
    check '[ "$(sed -n "s/^epoch.* lr \([0-9.e-]*\) .*/\1/p" "$T/out" | tr "\n" " ")" = "0.02 0.01 " ]' "progress lines print the epoch's rate: $(grep -o "lr [0-9.e-]*" "$T/out" | tr "\n" " ")"
}

cli_run train

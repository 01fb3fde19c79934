#!/bin/sh
# cli/diverge.sh: the cases of issue 41 on the command line: a run whose
# workers drift apart without a NaN stops with exit 1, naming the rule
# (the CSV keeps the rows up to it); a run that ends at chance says so in
# its final line (and one that trains does not); D^2 and GT with local
# steps train wherever D-PSGD with the same H trains (a reduced grid of
# scripts/experiments/local-grid.sh).
#
#   BIN=bin sh tests/cli/diverge.sh  (make check-cli-diverge)
. "$(dirname "$0")/lib.sh"

diverge_cases() {
    syn="--dataset synthetic --batch 8 --epochs 2"
    "$BIN/topogen" --kind ring -n 16 --quiet -o "$T/ring16.txt"
    l="$T/div.csv"
    # D-PSGD, H = 4, lr 0.1 on a ring of 16: consensus 926 by step 8
    expect_fail 1 "^dpsgd-train: training diverged at epoch 1 \\(step 8\\): the consensus distance [0-9.]* exceeds 0.25 x the initial model's squared norm" \
        "consensus explosion" env OPENBLAS_NUM_THREADS=1 "$BIN/dpsgd-train" --topology "$T/ring16.txt" $syn \
        --average-every 4 --lr 0.1 --eval-every 8 --log "$l" --quiet
    check '[ "$(wc -l <"$l")" -eq 3 ]' "the CSV keeps the header, step 0 and step 8: $(wc -l <"$l") lines"
    # one worker, lr 1e-9: the initial model's 8.2%
    expect_ok "a run at chance" env OPENBLAS_NUM_THREADS=1 "$BIN/dpsgd-train" --dataset synthetic --synthetic-train 256 \
        --synthetic-test 256 --epochs 1 --lr 1e-9 --seed 2 --quiet
    check 'grep -q "^final: .*test_acc 0.0820 .*  AT CHANCE: test_acc 0.0820 is below 1.5/10, the run did not train$" "$T/out"' \
        "the final line says AT CHANCE: $(cat "$T/out")"
    expect_ok "a run that trains" env OPENBLAS_NUM_THREADS=1 "$BIN/dpsgd-train" --dataset synthetic --synthetic-train 256 \
        --synthetic-test 256 --epochs 1 --seed 2 --quiet
    check '! grep -q "AT CHANCE" "$T/out"' "no AT CHANCE when it trains: $(cat "$T/out")"
    expect_ok "d2 and gt train where dpsgd does (H 1, 4; lr 0.02, 0.05)" env BIN="$BIN" HS="1 4" LRS="0.02 0.05" \
        sh scripts/experiments/local-grid.sh --check "$T/grid.md"
    check 'grep -q "^| gt | 4 | 0\.9" "$T/grid.md" && grep -q "^| d2 | 4 | 0\.9" "$T/grid.md"' \
        "gt and d2 at H = 4, lr 0.02 train: $(grep '| 4 |' "$T/grid.md" | tr '\n' ' ')"
}

cli_run diverge

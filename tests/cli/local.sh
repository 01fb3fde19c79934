#!/bin/sh
# cli/local.sh: the cases of issue 31 (communicating less): --average-every,
# --local-after, --global-every and --outer on the command line: the bad
# values and combinations (exit 2, one message naming the flag), the
# summary's settings, communications and steps_to_target against the CSV,
# the bytes of a quarter at H = 4, the same bits on 1 and 3 ranks, the
# modelled line that names the communications.
#
#   BIN=bin sh tests/cli/local.sh  (make check-cli-local)
. "$(dirname "$0")/lib.sh"

local_cases() {
    dt=dt_run # the one-worker refusals run without mpirun
    dtb="$BIN/dpsgd-train"
    syn="--dataset synthetic --synthetic-train 512 --synthetic-test 64"
    "$BIN/topogen" -n 8 -d 3 --quiet -o "$T/l8.txt"
    expect_fail 2 "^dpsgd-train: --average-every: 0 is outside 1\.\.1000000000" \
        "--average-every 0" "$dt" $syn --average-every 0
    expect_fail 2 "^dpsgd-train: --outer: 'adam:1' is not none, sgd:LR or nesterov:LR,MOM" \
        "--outer adam:1" "$dt" $syn --outer adam:1
    expect_fail 2 "^dpsgd-train: --outer: 'nesterov:0.7,1' " \
        "--outer momentum 1" "$dt" $syn --outer nesterov:0.7,1
    expect_fail 2 "^dpsgd-train: --average-every is for distributed runs" \
        "--average-every with one worker" "$dt" $syn --average-every 4
    expect_fail 2 "^dpsgd-train: --outer is for distributed runs" \
        "--outer with one worker" "$dt" $syn --outer sgd:0.5
    command -v mpirun >/dev/null 2>&1 || return 0
    l="$T/local.csv"
    expect_fail 2 "^dpsgd-train: --local-after 3: it starts the local steps of --average-every H, which is 1 here" \
        "--local-after without H" mpi_run 2 "$dtb" --topology "$T/l8.txt" $syn --local-after 3 --log "$l"
    expect_fail 2 "^dpsgd-train: --global-every is for gossip runs" \
        "--global-every with all-reduce" mpi_run 2 "$dtb" --mode allreduce $syn --global-every 2 --log "$l"
    check '[ ! -e "$l" ]' "no log after the refusals"
    # 512 images, 8 workers of 32: 2 steps per epoch, 8 epochs = 16 steps
    expect_ok "H = 1" mpi_run 2 "$dtb" --topology "$T/l8.txt" $syn --epochs 8 --quiet --summary "$T/h1.json"
    expect_ok "H = 4, every step evaluated" mpi_run 2 "$dtb" --topology "$T/l8.txt" $syn --epochs 8 \
        --average-every 4 --eval-every 1 --log "$l" --summary "$T/h4.json" --quiet
    h4=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    check '/usr/bin/python3 -c "
import json, sys, csv
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert b[\"settings\"][\"average_every\"] == 4 and b[\"settings\"][\"outer\"] == \"none\", b[\"settings\"]
assert b[\"settings\"][\"local_after\"] == 0 and b[\"settings\"][\"global_every\"] == 0
c = b[\"result\"][\"communications\"]
assert c == {\"gossip_rounds\": 4, \"exact_averages\": 0, \"clique_rounds\": 0, \"gradient_allreduces\": 0, \"fragment_averages\": 0}, c
assert a[\"result\"][\"communications\"][\"gossip_rounds\"] == 16
assert a[\"result\"][\"bytes_sent\"] == 4 * b[\"result\"][\"bytes_sent\"] > 0, (a[\"result\"][\"bytes_sent\"], b[\"result\"][\"bytes_sent\"])
rows = list(csv.DictReader(open(sys.argv[3])))
for key, step in b[\"result\"][\"steps_to_target\"].items():
    first = [int(r[\"step\"]) for r in rows if float(r[\"test_acc\"]) >= float(key)]
    assert step == (first[0] if first else None), (key, step, first)
" "$T/h1.json" "$T/h4.json" "$l"' "summary: settings, communications, a quarter of the bytes, steps_to_target = the first CSV row at or above"
    expect_ok "H = 4 on 3 ranks" mpi_run 3 "$dtb" --topology "$T/l8.txt" $syn --epochs 8 --average-every 4 --quiet
    check '[ -n "$h4" ] && grep -q "$h4" "$T/out"' "H = 4: the same bits on 2 and 3 ranks"
    expect_ok "--global-every, --outer, --net" mpi_run 2 "$dtb" --topology "$T/l8.txt" $syn --epochs 8 \
        --average-every 2 --local-after 2 --global-every 3 --outer nesterov:0.7,0.9 --net wan --quiet
    # 16 steps: 2 warm-up + 7 communications = 9, every 3rd exact
    check 'grep -q "^modelled wall clock .* replaced by the model.s 6 gossip rounds, 3 exact averages, 0 clique rounds)" "$T/out"' \
        "the modelled line counts every communication: $(grep modelled "$T/out")"
    expect_ok "local all-reduce" mpi_run 2 "$dtb" --mode allreduce --workers 8 $syn --epochs 8 --average-every 4 \
        --outer sgd:0.5 --summary "$T/ar.json" --quiet
    check 'grep -q "\"exact_averages\": 4" "$T/ar.json" && grep -q "\"outer\": \"sgd:0.5\"" "$T/ar.json"' \
        "local all-reduce: 4 averages, the outer step in the settings"
    # the warm-up of --local-after averages the momentum too: after 31
    # every-step averages, one local step spreads the workers by their
    # gradients only, not by momenta that piled up each shard's gradient
    # (the code of before: 15x the spread of a run without momentum;
    # now 0.2x)
    wsyn="--dataset synthetic --synthetic-train 1024 --synthetic-test 64 --batch 8 --partition dirichlet:0.1 --quiet --mode allreduce --workers 8 --epochs 2 --average-every 1000 --local-after 31"
    expect_ok "local SGD warm-up, momentum 0.9" mpi_run 2 "$dtb" $wsyn --momentum 0.9 --summary "$T/wm9.json"
    expect_ok "local SGD warm-up, momentum 0" mpi_run 2 "$dtb" $wsyn --momentum 0 --summary "$T/wm0.json"
    check 'python3 -c "
import json, sys
a = json.load(open(sys.argv[1]))[\"result\"]; b = json.load(open(sys.argv[2]))[\"result\"]
assert a[\"steps\"] == 32 and 0 < a[\"consensus\"] < 2 * b[\"consensus\"], (a[\"consensus\"], b[\"consensus\"])
" "$T/wm9.json" "$T/wm0.json"' "the warm-up leaves one momentum: consensus after a local step $(grep -h '"consensus"' "$T/wm9.json" "$T/wm0.json" | tr -d ' \n')"
    local_sweep_cases
    local_results_cases
}

# scripts/experiments/sweep.sh takes H, K, S and the outer optimizer (AVERAGE_EVERY,
# GLOBAL_EVERY, LOCAL_AFTER, OUTER) into the settings line; summary.sh and
# plot.sh name them; modelled.sh prices one communication per H steps.
local_sweep_cases() {
    command -v mpirun >/dev/null 2>&1 && command -v gnuplot >/dev/null 2>&1 || return 0
    sw="$T/sw-local"
    a="--synthetic-train 1024 --synthetic-test 64 --local-eval 32"
    expect_ok "sweep with AVERAGE_EVERY and OUTER" env SMOKE=1 NP=2 WORKERS=4 SETTINGS="rrl:mh" PARTITIONS=iid \
        EPOCHS=2 AVERAGE_EVERY=2 OUTER=nesterov:0.7,0.9 TRAIN_ARGS="$a" sh "scripts/experiments/sweep.sh" "$sw"
    check 'grep -qx "TRAIN_ARGS=\"$a --average-every 2 --outer nesterov:0.7,0.9\"" "$sw/grid.env"' \
        "the settings line holds H and the outer step: $(grep TRAIN_ARGS "$sw/grid.env")"
    check 'grep -q "| 4 | iid | rrl + H2+nesterov-lr0.7-mom0.9 | mh |" "$sw/summary.md" && grep -q "| 4 | iid | all-reduce + H2+nesterov-lr0.7-mom0.9 | - |" "$sw/summary.md"' \
        "summary.md names them: $(grep "| 4 |" "$sw/summary.md" | cut -c1-60)"
    expect_ok "modelled.sh on it" env NETS=wan BENCH_STEPS=5 BENCH_REPEAT=1 sh "scripts/reports/modelled.sh" "$sw"
    # 32 steps, 16 communications: half of rrl's modelled round per step
    r=$("$BIN/topogen" eval "$sw/topo/n4-rrl-mh.txt" --net wan --ranks 4 --hosts 4 --json | sed 's/.*"block":{//' | sed -n 's/.*"round_s":\([0-9.eE+-]*\).*/\1/p')
    check 'awk -v r="$r" "\$1 == \"n4-rrl-mh\" && \$2 == \"wan\" { d = \$4 - r / 2; ok = d < 1e-6 && d > -1e-6 } END { exit !ok }" "$sw/modelled.tsv"' \
        "modelled: one round every 2 steps ($r s per round): $(grep n4-rrl "$sw/modelled.tsv")"
}

# results.sh checks its issue-31 settings before any run
local_results_cases() {
    expect_fail 1 "^results: LOCAL: 'h4' is not H\[/kK\]\[/sS\]\[/OUTER\]" \
        "results.sh LOCAL=h4" env BIN="$BIN" LOCAL="h4" sh scripts/experiments/results.sh "$T/res-local"
    expect_fail 1 "^results: EVAL_EVERY must be quarter or epoch, got 'often'" \
        "results.sh EVAL_EVERY=often" env BIN="$BIN" EVAL_EVERY=often sh scripts/experiments/results.sh "$T/res-local"
    check '[ ! -e "$T/res-local" ]' "no results directory after bad LOCAL or EVAL_EVERY"
}

cli_run local

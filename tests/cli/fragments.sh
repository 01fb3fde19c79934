#!/bin/sh
# cli/fragments.sh: --fragments P[:T] (Streaming DiLoCo, issue 41) on the
# command line: the form and the runs it does not apply to refused (exit
# 2, naming the flag), DiLoCo in fragments with the overlap and int4
# pseudo-gradients giving the same bits on 1 and 2 ranks, DiLoCo's bytes
# per step, the fragment averages in the summary and priced by --net.
#
#   BIN=bin sh tests/cli/fragments.sh  (make check-cli-fragments)
. "$(dirname "$0")/lib.sh"

fragments_cases() {
    syn="--dataset synthetic --synthetic-train 1024 --synthetic-test 64 --batch 8 --epochs 2 --quiet"
    expect_fail 2 "^dpsgd-train: --fragments: '4:x' is not P or P:T" \
        "--fragments 4:x" dt_run $syn --fragments 4:x
    expect_fail 2 "^dpsgd-train: --fragments is for distributed runs" \
        "--fragments with one worker" dt_run $syn --fragments 2
    command -v mpirun >/dev/null 2>&1 || return 0
    dtb="$BIN/dpsgd-train"
    ar="--mode allreduce --workers 8 --average-every 4"
    expect_fail 2 "^dpsgd-train: --fragments 2 is Streaming DiLoCo's: it needs --mode allreduce and --outer" \
        "--fragments without --outer" mpi_run 2 "$dtb" $ar $syn --fragments 2
    "$BIN/topogen" -n 8 -d 3 --quiet -o "$T/f8.txt"
    expect_fail 2 "^dpsgd-train: --fragments 2 is Streaming DiLoCo's" \
        "--fragments with gossip" mpi_run 2 "$dtb" --topology "$T/f8.txt" --average-every 4 --outer nesterov:0.7,0.9 $syn --fragments 2
    expect_fail 2 "^dpsgd-train: --fragments 8: at most H = --average-every = 4 fragments" \
        "--fragments P > H" mpi_run 2 "$dtb" $ar --outer nesterov:0.7,0.9 $syn --fragments 8
    expect_fail 2 "^dpsgd-train: --fragments 2:3: the overlap T = 3 must be at most H / P = 4 / 2" \
        "--fragments T > H / P" mpi_run 2 "$dtb" $ar --outer nesterov:0.7,0.9 $syn --fragments 2:3
    expect_fail 2 "^dpsgd-train: --fragments 2 with --checkpoint" \
        "--fragments with --checkpoint" mpi_run 2 "$dtb" $ar --outer nesterov:0.7,0.9 $syn --fragments 2 --checkpoint "$T/ck"
    expect_ok "DiLoCo, 2 ranks" mpi_run 2 "$dtb" $ar --outer nesterov:1,0.5 $syn
    h0=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    b0=$(sed -n 's/.*, \([0-9.]*\) kB sent per step per rank).*/\1/p' "$T/out")
    expect_ok "--fragments 1 is DiLoCo" mpi_run 2 "$dtb" $ar --outer nesterov:1,0.5 $syn --fragments 1
    h1=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    check '[ -n "$h0" ] && [ "$h0" = "$h1" ]' "--fragments 1: DiLoCo's bits ($h0, $h1)"
    f="--outer nesterov:1,0.5 --fragments 4:1 --compress int4"
    expect_ok "--fragments 4:1 int4, 1 rank" mpi_run 1 "$dtb" $ar $f $syn
    h1=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    expect_ok "--fragments 4:1 int4, 2 ranks" mpi_run 2 "$dtb" $ar $f $syn --summary "$T/s.json"
    h2=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    check '[ -n "$h1" ] && [ "$h1" = "$h2" ] && [ "$h1" != "$h0" ]' \
        "--fragments 4:1: the same bits on 1 and 2 ranks ($h1, $h2; DiLoCo $h0)"
    # 32 steps, H = 4, 4 fragments: 32 fragment averages; the whole array
    # once per 4 steps in 4 int4 pieces (61,706 floats: pieces of 15,426
    # and 15,427 floats, 7,713 or 7,714 code bytes + 4 x 61 scales each,
    # 31,830 bytes a period; DiLoCo's whole array: 31,821): 7,957.5 bytes
    # per step
    check 'grep -q "\"fragment_averages\": 32" "$T/s.json" && grep -q "\"exact_averages\": 32" "$T/s.json" && grep -q "\"fragments\": \"4:1\"" "$T/s.json"' \
        "the summary counts 32 fragment averages: $(grep -o '"fragment_averages": [0-9]*' "$T/s.json")"
    check 'grep -q "\"bytes_per_step\": 7958," "$T/s.json"' \
        "DiLoCo's int4 bytes per step in pieces: $(grep -o '"bytes_per_step": [0-9]*' "$T/s.json") (uncompressed DiLoCo $b0 kB)"
    expect_ok "--fragments 2 --net" mpi_run 2 "$dtb" $ar --outer nesterov:1,0.5 --fragments 2 $syn --net wan --net-hosts 8
    check 'grep -q "modelled fragment all-reduce .* (16 of the all-reduces below), arrays of 123412 bytes" "$T/out" && grep -q "replaced by 16 modelled all-reduces" "$T/out"' \
        "--net prices 16 fragment all-reduces of half the array: $(grep -o 'modelled fragment.*bytes' "$T/out")"
}

cli_run fragments

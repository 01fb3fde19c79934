#!/bin/sh
# cli/stale.sh: --staleness S on the command line (issue 41): the modes it
# does not apply to refused (exit 2, naming the flag), the same bits on 1
# and 3 ranks, a trained model, for dpsgd and d2 (its correction fed by
# the stale mix, dt_algo_stale_mix), and --net's round priced with S + 1
# rounds in flight (latency overlapped, bytes not); runs that end with
# rounds in flight (--stop-after, divergence) end cleanly. The overlap
# itself is timed under SMPI (tests/cli/smpi.sh), the bits against the
# build before it in tests/contract/same-bits.sh.
#
#   BIN=bin sh tests/cli/stale.sh  (make check-cli-stale)
. "$(dirname "$0")/lib.sh"

stale_cases() {
    syn="--dataset synthetic --synthetic-train 1024 --synthetic-test 64 --batch 8 --epochs 2 --quiet"
    expect_fail 2 "^dpsgd-train: --staleness: 65 is outside 0\.\.64" \
        "--staleness 65" dt_run $syn --staleness 65
    expect_fail 2 "^dpsgd-train: --staleness is for distributed runs" \
        "--staleness with one worker" dt_run $syn --staleness 2
    command -v mpirun >/dev/null 2>&1 || return 0
    dtb="$BIN/dpsgd-train"
    "$BIN/topogen" -n 8 -d 3 --quiet -o "$T/s8.txt"
    "$BIN/topogen" --kind one-peer-exp -n 8 --quiet -o "$T/op8.txt"
    expect_fail 2 "^dpsgd-train: --staleness 2 needs --algorithm dpsgd or d2" \
        "--staleness with gt" mpi_run 2 "$dtb" --topology "$T/s8.txt" --algorithm gt $syn --staleness 2
    expect_fail 2 "^dpsgd-train: --staleness 2 needs a gossip run" \
        "--staleness with all-reduce" mpi_run 2 "$dtb" --mode allreduce --workers 8 $syn --staleness 2
    expect_fail 2 "^dpsgd-train: --staleness 1 needs no --checkpoint" \
        "--staleness with --checkpoint" mpi_run 2 "$dtb" --topology "$T/s8.txt" $syn --staleness 1 --checkpoint "$T/ck"
    expect_fail 2 "^dpsgd-train: --staleness with .*op8.txt: the delayed mix is defined here for one fixed W" \
        "--staleness on a time-varying topology" mpi_run 2 "$dtb" --topology "$T/op8.txt" $syn --staleness 1
    big="--dataset synthetic --synthetic-train 4096 --synthetic-test 256 --batch 8 --epochs 2 --quiet"
    expect_ok "S = 2, 1 rank" mpi_run 1 "$dtb" --topology "$T/s8.txt" $big --staleness 2
    h1=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    expect_ok "S = 2, 3 ranks" mpi_run 3 "$dtb" --topology "$T/s8.txt" $big --staleness 2
    h3=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    expect_ok "S = 2, 2 ranks" mpi_run 2 "$dtb" --topology "$T/s8.txt" $big --staleness 2
    h2=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    check '[ -n "$h1" ] && [ "$h1" = "$h3" ] && [ "$h1" = "$h2" ]' "--staleness 2: the same bits on 1, 2 and 3 ranks ($h1, $h2, $h3)"
    check 'grep -q "^final: dpsgd .*test_acc 0\.[5-9]" "$T/out"' "S = 2 trains: $(grep -o 'test_acc [0-9.]*' "$T/out")"
    expect_ok "d2, S = 2, 1 rank" mpi_run 1 "$dtb" --topology "$T/s8.txt" --algorithm d2 $big --staleness 2
    d1=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    check 'grep -q "^final: d2 .*test_acc 0\.[5-9]" "$T/out"' "d2, S = 2 trains: $(grep -o 'test_acc [0-9.]*' "$T/out")"
    expect_ok "d2, S = 2, 3 ranks" mpi_run 3 "$dtb" --topology "$T/s8.txt" --algorithm d2 $big --staleness 2
    d3=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    check '[ -n "$d1" ] && [ "$d1" = "$d3" ] && [ "$d1" != "$h1" ]' "d2 --staleness 2: the same bits on 1 and 3 ranks ($d1, $d3), not dpsgd's"
    expect_ok "S = 0 is the default run" mpi_run 1 "$dtb" --topology "$T/s8.txt" $big --staleness 0
    h0=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    expect_ok "the default run" mpi_run 1 "$dtb" --topology "$T/s8.txt" $big
    check '[ "$(grep -o "workers-hash [0-9a-f]*" "$T/out")" = "$h0" ] && [ "$h0" != "$h1" ]' "S = 0 is the run of before, S = 2 another"
    expect_ok "S = 2, a consensus step of 0.2" mpi_run 1 "$dtb" --topology "$T/s8.txt" $big --staleness 2 --consensus-step 0.2
    check '[ "$(grep -o "workers-hash [0-9a-f]*" "$T/out")" != "$h1" ]' "--consensus-step changes S = 2's trajectory"
    # the rounds in flight at the end: a run stopped early by
    # --stop-after starts no round it will not finish; a run that
    # diverges stops at the next agreement with rounds in flight, which
    # every rank waits for (no hang), and exits 1
    expect_ok "S = 2, --stop-after 1 of 2 epochs, 3 ranks" mpi_run 3 "$dtb" --topology "$T/s8.txt" $syn --staleness 2 --stop-after 1
    expect_fail 1 "^dpsgd-train: training diverged at epoch 1" \
        "S = 2 diverging, rounds in flight, 2 ranks" mpi_run 2 "$dtb" --topology "$T/s8.txt" $syn --staleness 2 --lr 1000
    # WAN, 8 hosts, degree 3: a round of 3 arrays is 50 ms + 3 x 19.7 ms;
    # with 3 rounds in flight it costs its bytes, 3 x 19.7 ms = 59.2 ms
    expect_ok "S = 2 priced" mpi_run 1 "$dtb" --topology "$T/s8.txt" $syn --staleness 2 --net wan --net-hosts 8
    check 'grep -q "modelled round 59\.2 ms" "$T/out"' "the round priced by its bytes: $(grep -o 'modelled round [0-9.]* ms' "$T/out" | head -1)"
}

cli_run stale

#!/bin/sh
# cli/compress.sh: --compress on the command line (issue 41): the forms
# and the modes it does not apply to refused (exit 2, naming the flag),
# local SGD and DiLoCo with compressed pseudo-gradients (their average
# re-quantized for int8/int4, the summary's compress_reduce) and CHOCO-SGD
# (gossip) giving the same bits on 1 and 3 (2) ranks, the compressed bytes
# per step and the --net price of the compressed array.
#
#   BIN=bin sh tests/cli/compress.sh  (make check-cli-compress)
. "$(dirname "$0")/lib.sh"

compress_cases() {
    syn="--dataset synthetic --synthetic-train 1024 --synthetic-test 64 --batch 8 --epochs 2 --quiet"
    expect_fail 2 "^dpsgd-train: --compress: 'int2' is not none, int8, int4 or topk:F" \
        "--compress int2" dt_run $syn --compress int2
    expect_fail 2 "^dpsgd-train: --compress is for distributed runs" \
        "--compress with one worker" dt_run $syn --compress int8
    command -v mpirun >/dev/null 2>&1 || return 0
    dtb="$BIN/dpsgd-train"
    "$BIN/topogen" -n 8 -d 3 --quiet -o "$T/c8.txt"
    expect_fail 2 "^dpsgd-train: --compress int8 compresses the pseudo-gradients of local SGD / DiLoCo: give --average-every H > 1 or --outer" \
        "--compress with the gradient all-reduce" mpi_run 2 "$dtb" --mode allreduce --workers 8 $syn --compress int8
    expect_fail 2 "^dpsgd-train: --compress int4 is for --algorithm dpsgd \\(CHOCO-SGD\\) and for local SGD / DiLoCo \\(--mode allreduce\\); not for --algorithm d2" \
        "--compress with d2" mpi_run 2 "$dtb" --topology "$T/c8.txt" --algorithm d2 $syn --compress int4
    expect_fail 2 "^dpsgd-train: --compress int8 with --checkpoint: the error-feedback state is not checkpointed" \
        "--compress with --checkpoint" mpi_run 2 "$dtb" --mode allreduce --workers 8 --average-every 4 $syn --compress int8 --checkpoint "$T/ck"
    for c in int4 topk:0.1; do
        expect_ok "local SGD --compress $c, 1 rank" mpi_run 1 "$dtb" --mode allreduce --workers 8 --average-every 4 $syn --compress $c
        h1=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
        expect_ok "local SGD --compress $c, 3 ranks" mpi_run 3 "$dtb" --mode allreduce --workers 8 --average-every 4 $syn --compress $c --summary "$T/s-$c.json"
        h3=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
        check '[ -n "$h1" ] && [ "$h1" = "$h3" ]' "--compress $c: the same bits on 1 and 3 ranks ($h1, $h3)"
    done
    # int8/int4 average the pseudo-gradients re-quantized (two-way), top-k
    # exactly; the summary says which
    check 'grep -q "\"compress_reduce\": \"requantize\"" "$T/s-int4.json" && grep -q "\"compress_reduce\": \"exact\"" "$T/s-topk:0.1.json"' \
        "the summary's compress_reduce: $(grep -o '"compress_reduce": [a-z"]*' "$T/s-int4.json" "$T/s-topk:0.1.json" | tr '\n' ' ')"
    # DiLoCo (outer step on the re-quantized mean): the same bits on 1 and 2 ranks
    dl="--mode allreduce --workers 8 --average-every 4 --local-after 4 --outer nesterov:0.7,0.9 --compress int8"
    expect_ok "DiLoCo int8, 1 rank" mpi_run 1 "$dtb" $dl $syn
    h1=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    expect_ok "DiLoCo int8, 2 ranks" mpi_run 2 "$dtb" $dl $syn
    h2=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    check '[ -n "$h1" ] && [ "$h1" = "$h2" ]' "DiLoCo --compress int8: the same bits on 1 and 2 ranks ($h1, $h2)"
    # CHOCO-SGD (gossip, dpsgd): the same bits on 1 and 3 ranks; q's bytes
    "$BIN/topogen" --kind one-peer-exp -n 8 --quiet -o "$T/op8.txt"
    expect_fail 2 "^dpsgd-train: --compress with .*op8.txt: CHOCO-SGD keeps sum_j W_ij xh_j for one fixed W" \
        "--compress on a time-varying topology" mpi_run 2 "$dtb" --topology "$T/op8.txt" $syn --compress int8
    expect_fail 2 "^dpsgd-train: --consensus-step is CHOCO-SGD's gamma or --staleness's: it needs --compress or --staleness and a gossip run" \
        "--consensus-step without --compress" mpi_run 2 "$dtb" --topology "$T/c8.txt" $syn --consensus-step 0.5
    expect_fail 2 "^dpsgd-train: --compress int8 with --global-every" \
        "--compress with --global-every" mpi_run 2 "$dtb" --topology "$T/c8.txt" $syn --compress int8 --global-every 2
    expect_ok "CHOCO int4, 1 rank" mpi_run 1 "$dtb" --topology "$T/c8.txt" $syn --compress int4 --consensus-step 0.8
    h1=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    expect_ok "CHOCO int4, 3 ranks" mpi_run 3 "$dtb" --topology "$T/c8.txt" $syn --compress int4 --consensus-step 0.8
    h3=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    check '[ -n "$h1" ] && [ "$h1" = "$h3" ]' "CHOCO int4: the same bits on 1 and 3 ranks ($h1, $h3)"
    # the codes and scales on the wire (dt_gossip_new_placed_q): the same
    # bits on the point-to-point path, and Open MPI's own byte counter
    # (pml monitoring; it cannot count the neighbourhood collective:
    # scripts/experiments/wire-bytes.sh) sees the bytes the trainer counts
    export DT_GOSSIP_P2P=1
    expect_ok "CHOCO int4, 3 ranks, DT_GOSSIP_P2P=1" mpi_run 3 "$dtb" --topology "$T/c8.txt" $syn --compress int4 --consensus-step 0.8
    hp=$(grep -o "workers-hash [0-9a-f]*" "$T/out")
    check '[ -n "$hp" ] && [ "$hp" = "$h1" ]' "CHOCO int4: the same bits on the p2p path ($hp, $h1)"
    mon="--mca pml_monitoring_enable 1 --mca pml_monitoring_enable_output 1"
    for c in none int8 topk:0.1; do
        v=$(echo "$c" | tr -d ':.')
        set -- --compress "$c"
        [ "$c" = none ] && set --
        [ "$v" = topk01 ] && set -- "$@" --consensus-step 0.5
        expect_ok "D-PSGD / CHOCO $c, 2 ranks, monitored" mpi_run 2 $mon "$dtb" --topology "$T/c8.txt" $syn "$@" --summary "$T/w-$v.json"
        eval "w_$v=\$(cat \"\$T/out\" \"\$T/err\" | awk '\$1 == \"E\" { s += \$4 } END { print s + 0 }')"
        eval "b_$v=\$(sed -n 's/.*\"bytes_sent\": \\([0-9]*\\).*/\\1/p' \"\$T/w-$v.json\")"
    done
    unset DT_GOSSIP_P2P
    # the runs differ only in the gossip rounds: the measured difference is
    # 2 ranks x the trainer's (floats less codes and scales, 0.2539x)
    check '[ -n "$b_int8" ] && [ "$b_int8" -gt 0 ] && [ $((w_none - w_int8)) -eq $((2 * (b_none - b_int8))) ]' \
        "CHOCO int8 sends its codes: Open MPI counted $w_none - $w_int8 bytes, the trainer 2 x ($b_none - $b_int8)"
    check 'awk -v a="$b_int8" -v b="$b_none" "BEGIN { r = a / b; exit !(b > 0 && r > 0.2535 && r < 0.2543) }"' \
        "CHOCO int8's rounds: $b_int8 of $b_none bytes a rank"
    # top-k: values and 32-bit indices, 8 ceil(0.1 n) bytes an array (0.2x)
    check '[ -n "$b_topk01" ] && [ "$b_topk01" -gt 0 ] && [ $((w_none - w_topk01)) -eq $((2 * (b_none - b_topk01))) ]' \
        "CHOCO topk:0.1 sends values and indices: Open MPI counted $w_none - $w_topk01 bytes, the trainer 2 x ($b_none - $b_topk01)"
    expect_ok "D-PSGD uncompressed, 2 ranks" mpi_run 2 "$dtb" --topology "$T/c8.txt" $syn --placement block
    b0=$(sed -n 's/.*, \([0-9.]*\) kB sent per step per rank).*/\1/p' "$T/out")
    expect_ok "CHOCO int8, 2 ranks" mpi_run 2 "$dtb" --topology "$T/c8.txt" $syn --placement block --compress int8
    b8=$(sed -n 's/.*, \([0-9.]*\) kB sent per step per rank).*/\1/p' "$T/out")
    # 62,674 / 246,824 bytes per array = 0.2539
    check 'awk -v a="$b8" -v b="$b0" "BEGIN { r = a / b; exit !(b > 0 && r > 0.25 && r < 0.258) }"' \
        "CHOCO int8 sends a quarter of the bytes (+ scales): $b8 kB against $b0 kB per step"
    check 'grep -q "^final: dpsgd .*test_acc 0\.[5-9]" "$T/out"' "CHOCO int8 trains: $(grep -o 'test_acc [0-9.]*' "$T/out")"
    expect_ok "DiLoCo with int8 pseudo-gradients, --net" mpi_run 2 "$dtb" --mode allreduce --workers 8 --average-every 4 \
        --outer nesterov:0.7,0.9 $syn --compress int8 --net wan --net-hosts 8
    # 61,706 floats: 61,706 code bytes + 4 x 242 scales = 62,674 bytes per
    # average, one average per 4 steps: 15.7 kB per step
    check 'grep -q "arrays of 62674 bytes" "$T/out" && grep -q "(32 steps, 15.7 kB sent per step per rank)" "$T/out"' \
        "the compressed array is counted and priced: $(grep -o 'arrays of [0-9]* bytes\|[0-9.]* kB sent per step' "$T/out" | tr '\n' ' ')"
}

cli_run compress

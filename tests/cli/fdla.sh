#!/bin/sh
# cli/fdla.sh: FDLA weights (topo/tg_fdla.c): certified optimum in the file
# header, constant weights kept on a ring, negative weights accepted end to
# end.
#
#   BIN=bin sh tests/cli/fdla.sh  (make check-cli-fdla)
. "$(dirname "$0")/lib.sh"

fdla_cases() {
    tg="$BIN/topogen"
    dt="$BIN/dpsgd-train"
    f="$T/fdla16.txt"
    expect_ok "fdla weights" "$tg" -n 16 -d 3 --kind random --seed 1 --weights fdla -q -o "$f"
    check 'grep -q "^# topogen 2 n=16 d=3 kind=random objective=ratio weights=fdla seed=1 version=" "$f" && grep -q "^# fdla: slem=0.[0-9]* lower_bound=0.[0-9]* (certified gap [0-9.e-]*)" "$f"' \
        "fdla header with the certified bound"
    check 'grep -v "^#" "$f" | awk "\$1 != \$2 && \$3 < 0 { neg = 1 } END { exit !neg }"' \
        "fdla file has a negative edge weight"
    expect_ok "eval fdla file" "$tg" eval "$f" --json
    check 'grep -q "\"weights\":\"file\"" "$T/out" && awk -F"\"slem\":" "{ split(\$2, a, \",\"); exit !(a[1] < 0.9) }" "$T/out"' \
        "eval reads the negative-weight file"
    "$tg" -n 16 --kind ring -q -o "$T/fdla_ring.txt"
    expect_ok "eval --weights fdla" "$tg" eval "$T/fdla_ring.txt" --weights fdla --json
    check 'grep -q "\"fdla_lower_bound\":" "$T/out" && sed "s/.*\"slem\":\([0-9.]*\),\"slem_best_laplacian\":\([0-9.]*\),.*/\1 \2/" "$T/out" | awk "{ d = \$1 - \$2; exit !(d < 1e-6 && d > -1e-6) }"' \
        "fdla on a ring = best constant weights"
    # eval -o: a user's own graph gets FDLA weights in a file
    printf '0 1\n1 2\n2 3\n3 0\n0 2\n3 4\n' >"$T/own.txt"
    expect_ok "eval --weights fdla -o" "$tg" eval "$T/own.txt" --weights fdla -o "$T/own_fdla.txt"
    check 'grep -q "^# topogen 2 n=5 d=3 kind=file weights=fdla version=" "$T/own_fdla.txt" && grep -q "^# source: .*own.txt$" "$T/own_fdla.txt" && grep -q "^# fdla: slem=" "$T/own_fdla.txt"' \
        "eval -o: header names the source and the certificate"
    expect_ok "eval the written file" "$tg" eval "$T/own_fdla.txt" --json
    check 'grep -q "\"weights\":\"file\"" "$T/out"' "the written FDLA file is valid as it stands"
    expect_fail 2 "^topogen: -o: 'topogen eval' prints its report on stdout" "eval -o -" "$tg" eval "$T/own.txt" -o -
    expect_fail 1 "^topogen: -o: cannot write .*nodir/x.txt" "eval -o unwritable, named -o" "$tg" eval "$T/own.txt" --weights fdla -o "$T/nodir/x.txt"
    expect_fail 2 "^topogen: --weights: unknown weight rule 'fdlb' \(expected laplacian, mh, maxdeg, fdla[,)]" \
        "bad weights names fdla" "$tg" --weights fdlb -o "$T/none.txt"
    expect_fail 2 "^dpsgd-train: --weights: fdla weights come from an SDP solve in topogen" \
        "dpsgd-train --weights fdla points to topogen" dt_run --weights fdla
    command -v mpirun >/dev/null 2>&1 || return
    expect_ok "dpsgd-train on negative fdla weights" mpi_run 2 "$dt" --topology "$f" \
        --dataset synthetic --synthetic-train 512 --synthetic-test 64 --epochs 1 --quiet
}

cli_run fdla

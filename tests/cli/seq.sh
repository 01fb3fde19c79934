#!/bin/sh
# cli/seq.sh: Time-varying kinds (topo/tg_seq.c, src/cm_topo_seq.c): files,
# eval, simulation to round-off, bad sequences.
#
#   BIN=bin sh tests/cli/seq.sh  (make check-cli-seq)
. "$(dirname "$0")/lib.sh"

seq_cases() {
    tg="$BIN/topogen"
    f="$T/base24.txt"
    expect_ok "base kind" "$tg" --kind base -n 24 -d 2 -q -o "$f"
    check 'sed -n 1p "$f" | grep -q "^# topogen 2 n=24 d=2 kind=base period=[0-9]* seed=1 version=" && [ "$(grep -c "^# round " "$f")" -ge 2 ]' \
        "base file: header and round sections"
    expect_ok "eval base" "$tg" eval "$f" --json
    check 'grep -q "\"exact\":true" "$T/out" && grep -q "\"max_degree\":2," "$T/out"' "base: exact, degree <= 2"
    expect_ok "one-peer-exp" "$tg" --kind one-peer-exp -n 32 -q -o "$T/op.txt"
    expect_ok "eval one-peer-exp" "$tg" eval "$T/op.txt"
    check 'grep -q "^period *5$" "$T/out" && grep -q "^degree *1 1 1 1 1 " "$T/out" && grep -q "^rounds_1e-3 *5$" "$T/out"' \
        "one-peer-exp n=32: period 5, degree 1, exact after 5 rounds"
    expect_ok "simulate a sequence" "$tg" eval "$T/op.txt" --simulate 7
    check 'awk "!/^#/ && \$1 >= 5 && \$2 > 1e-13 { bad = 1 } !/^#/ && \$1 == 4 && \$2 < 1e-3 { bad = 1 } END { exit bad }" "$T/out"' \
        "simulation: round-off after one period, not before"
    sed -n '/^# round 2 /,/^# round 3 /p' "$T/op.txt" | grep -v '^#' >"$T/r2.txt"
    check '[ "$(wc -l <"$T/r2.txt")" -eq 16 ] && awk "\$2 != \$1 + 4 && \$2 != \$1 - 4 { bad = 1 } END { exit bad }" "$T/r2.txt"' \
        "one round cut out with sed: the 16 pairs i ~ i XOR 4"
    expect_fail 2 "^topogen: -n: one-peer-exp needs n a power of two" "one-peer-exp n=24" "$tg" --kind one-peer-exp -n 24 -o "$T/none.txt"
    expect_fail 2 "^topogen: --weights: --kind base carries its own weights" "base --weights" "$tg" --kind base -n 8 -d 1 --weights mh -o "$T/none.txt"
    expect_fail 2 "^topogen: --weights: .*op.txt is time-varying" "eval sequence --weights" "$tg" eval "$T/op.txt" --weights mh
    expect_fail 2 "^topogen: -o: .*op.txt is time-varying" "eval sequence -o" "$tg" eval "$T/op.txt" -o "$T/none.txt"
    awk '/^# round 1 /{ print "# round 1 n=33"; next } { print }' "$T/op.txt" >"$T/badn.txt"
    expect_fail 1 "^topogen: .*badn.txt:[0-9]+: round 1 has 33 nodes, but round 0 \(line [0-9]+\) has 32" "sections with different n" "$tg" eval "$T/badn.txt"
    sed 's/period=5/period=0/' "$T/op.txt" >"$T/p0.txt"
    expect_fail 1 "^topogen: .*p0.txt:1: period=0" "period 0" "$tg" eval "$T/p0.txt"
    awk '{ print } /^# round 3 /{ print "0 0 0.6" }' "$T/op.txt" >"$T/rows3.txt"
    expect_fail 1 "^topogen: .*rows3.txt: round 3 \(line [0-9]+\): row 0 of W sums to 1.1" "round not averaging" "$tg" eval "$T/rows3.txt"
    check '[ ! -e "$T/none.txt" ]' "no output after sequence errors"
    command -v mpirun >/dev/null 2>&1 || return
    dt="$BIN/dpsgd-train"
    syn="--dataset synthetic --synthetic-train 512 --synthetic-test 64"
    expect_ok "one-peer-exp" "$tg" --kind one-peer-exp -n 8 -q -o "$T/op8.txt"
    expect_ok "dpsgd-train on a sequence" mpi_run 2 "$dt" --topology "$T/op8.txt" $syn --epochs 1
    check 'grep -q "product-norm 0.0000" "$T/out" && grep -q "^time-varying topology: 3 rounds per period" "$T/out"' \
        "dpsgd-train reports the period and the product norm"
    expect_fail 1 "^dpsgd-train: --topology: .*rows3.txt: round 3 \(line [0-9]+\): row 0 of W sums to 1.1" \
        "dpsgd-train: bad round" mpi_run 2 "$dt" --topology "$T/rows3.txt" $syn
    expect_ok "gt on a sequence" mpi_run 2 "$dt" --topology "$T/op8.txt" --algorithm gt $syn --epochs 1
    check 'grep -q "^final: gt .*product-norm 0.0000" "$T/out"' "gt runs on a sequence"
    expect_fail 2 "^dpsgd-train: --algorithm d2 on .*op8.txt: the topology is time-varying \(period 3\), and D\^2 needs one fixed mixing matrix" \
        "dpsgd-train: d2 refuses a sequence" mpi_run 2 "$dt" --topology "$T/op8.txt" --algorithm d2 $syn
}

cli_run seq

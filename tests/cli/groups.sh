#!/bin/sh
# cli/groups.sh: topogen --groups G --max-cross C and eval --groups (issue
# 11): the bound holds, the header records the groups and re-creates the
# file, the cut is printed, and bad groups or bounds get one message naming
# the flag.
#
#   BIN=bin sh tests/cli/groups.sh  (make check-cli-groups)
. "$(dirname "$0")/lib.sh"

groups_cases() {
    tg="$BIN/topogen"
    gg="$T/groups.txt"
    expect_ok "--groups 4 --max-cross 6" "$tg" -n 32 -d 4 --groups 4 --max-cross 6 --iters 2000 --restarts 2 -o "$gg"
    cp "$T/err" "$T/err0"
    check 'grep -qE "; [0-6] of 64 edges between the 4 groups \(at most 6\)$" "$T/err"' \
        "summary line gives the cut: $(tail -1 "$T/err")"
    check 'sed -n 2p "$gg" | grep -qE -- "--groups 4 --max-cross 6 --format edgelist$" && grep -qE "^# groups=4 \(ids in blocks of 8\) cross_edges=[0-6] max_cross=6$" "$gg"' \
        "header records the groups: $(sed -n 2p "$gg")"
    expect_ok "re-run the grouped settings" "$tg" $(sed -n 's/^# settings: //p' "$gg") -q --threads 1 -o "$T/groups2.txt"
    check 'cmp -s "$gg" "$T/groups2.txt" && grep -q "2 threads" "$T/err0"' "the settings re-create a grouped file (1 thread vs 2)"
    # count edges between blocks of 8 ids ourselves
    cut=$(awk '/^[0-9]/ && int($1 / 8) != int($2 / 8) { c++ } END { print c + 0 }' "$gg")
    check '[ "$cut" -le 6 ] && [ "$cut" -ge 4 ]' "at most 6 edges between blocks of 8 ids (counted: $cut)"
    expect_ok "eval --groups" "$tg" eval "$gg" --groups 4
    check 'grep -qE "^cross_edges +$cut of 64 \([0-9.]+% of all edges\)$" "$T/out" && grep -qE "^groups +4 of 8 nodes" "$T/out" && grep -qE "^cross_group +[0-9]+ [0-9]+ [0-9]+ [0-9]+ " "$T/out"' \
        "eval prints the cut ($cut): $(grep cross "$T/out" | tr "\n" " ")"
    "$tg" -n 16 -d 4 --kind rrl -q -o "$T/rrl16.txt"
    expect_ok "eval --groups --json" "$tg" eval "$T/rrl16.txt" --groups 4 --json
    check 'grep -qE "\"groups\":4,\"cross_edges\":12,\"cross_fraction\":0\.375,\"cross_per_group\":\[6,6,6,6\]" "$T/out"' \
        "ring lattice cut in JSON: $(head -c 400 "$T/out")"
    expect_ok "default bound" "$tg" -n 32 -d 4 --groups 2 --iters 300 -q -o "$T/g2.txt"
    check 'grep -q -- "--groups 2 --max-cross 2 " "$T/g2.txt" && grep -q "cross_edges=2 " "$T/g2.txt"' \
        "default --max-cross is the least that connects (2 for G = 2)"
    o="$T/never.txt"
    expect_fail 2 "^topogen: --max-cross: needs --groups" "--max-cross alone" "$tg" --max-cross 4 -o "$o"
    expect_fail 2 "^topogen: --groups 3: does not divide the 64 nodes" "G not dividing n" "$tg" --groups 3 -o "$o"
    expect_fail 2 "^topogen: --groups 65: more groups than the 64 nodes" "G > n" "$tg" --groups 65 -o "$o"
    expect_fail 2 "^topogen: --max-cross 3: 4 groups of a connected 4-regular graph need at least 4 edges" \
        "C too small" "$tg" --groups 4 --max-cross 3 -o "$o"
    expect_fail 2 "^topogen: --groups 16: groups of 4 nodes cannot hold degree 4" "groups too small" "$tg" --groups 16 -o "$o"
    expect_fail 2 "^topogen: --groups 1: a grouped search needs at least 2 groups" "one group" "$tg" --groups 1 -o "$o"
    expect_fail 2 "^topogen: --groups 4: groups of 15 nodes with odd degree 3" "odd group degree sum" "$tg" -n 60 -d 3 --groups 4 -o "$o"
    expect_fail 2 "^topogen: --groups: only --kind learned" "--groups with a baseline" "$tg" --kind rrl --groups 4 -o "$o"
    expect_fail 2 "^topogen: --max-cross: not a flag of 'topogen eval'" "--max-cross in eval" "$tg" eval "$gg" --groups 4 --max-cross 4
    expect_fail 2 "^topogen: .*groups.txt: --groups 3: does not divide the 32 nodes" "eval: G not dividing n" "$tg" eval "$gg" --groups 3
    expect_fail 2 "^topogen: --groups: expected a positive integer" "--groups 0" "$tg" --groups 0 -o "$o"
    check '[ ! -e "$o" ]' "no output file after bad groups"
}

cli_run groups

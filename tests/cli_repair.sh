# cli_repair.sh: the failure cases of tests/cli.sh (sourced by it; uses its
# run/expect_ok/expect_fail/check/dt_run/mpi_run helpers and $T, $BIN), issue 34:
# a first checkpoint killed at each of its steps (worker files, run state,
# settings, marker) resumes to the bits of an uninterrupted run; topogen
# repair; dpsgd-train --resume --drop-workers.
repair_cases() {
    tg="$BIN/topogen"
    dtb="$BIN/dpsgd-train"
    syn="--dataset synthetic --synthetic-train 256 --synthetic-test 64 --batch 16 --quiet"
    wh() { sed -n 's/.*workers-hash \([0-9a-f]*\).*/\1/p' "$T/out"; }
    "$tg" -n 4 -d 2 -q -o "$T/rp4.txt"
    g="--topology $T/rp4.txt"
    # the uninterrupted run, and its first checkpoint alone (--stop-after 1)
    expect_ok "uninterrupted run" dt_run $g $syn --epochs 2
    h=$(wh)
    expect_ok "the first checkpoint" dt_run $g $syn --epochs 2 --stop-after 1 --checkpoint "$T/rp-half"
    # what a kill -9 at step k of the first save leaves (a save writes the
    # worker files, then state-000001.bin, then settings, then latest, each
    # through a temporary file renamed into place):
    #   1 inside the worker files  2 inside the run state
    #   3 inside the settings      4 inside the marker
    crash() {
        rm -rf "$T/rp-k$1"
        cp -r "$T/rp-half" "$T/rp-k$1"
        c=$T/rp-k$1
        rm -f "$c/latest"
        case $1 in
        1) rm -f "$c"/epoch-000001/worker-00000[23].ckpt "$c/state-000001.bin" "$c/settings"
           : >"$c/epoch-000001/worker-000002.ckpt.tmp.Ab12Cd" ;;
        2) rm -f "$c/state-000001.bin" "$c/settings"; : >"$c/state-000001.bin.tmp.Ab12Cd" ;;
        3) rm -f "$c/settings"; : >"$c/settings.tmp.Ab12Cd" ;;
        4) : >"$c/latest.tmp.Ab12Cd" ;;
        esac
    }
    for k in 1 2 3 4; do
        if [ "$k" -ge 3 ]; then # a complete epoch without a marker
            crash $k
            expect_fail 2 "^dpsgd-train: --checkpoint: $T/rp-k$k holds a complete checkpoint \\(epoch-000001\\) but $T/rp-k$k/latest is missing" \
                "killed at step $k: a fresh run still refuses" dt_run $g $syn --epochs 2 --checkpoint "$T/rp-k$k"
            check '[ ! -e "$T/rp-k$k/latest" ] && [ -f "$T/rp-k$k/state-000001.bin" ]' "killed at step $k: the fresh run changed nothing"
            crash $k
            expect_fail 2 "^dpsgd-train: --checkpoint: $T/rp-k$k (holds a complete checkpoint \\(epoch-000001\\) but $T/rp-k$k/latest is missing: it is another run's|was written with other settings: --lr 0.02, this run has --lr 0.05)" \
                "killed at step $k: --resume with another --lr refuses" dt_run $g $syn --epochs 2 --checkpoint "$T/rp-k$k" --resume --lr 0.05
            check '[ ! -e "$T/rp-k$k/latest" ]' "killed at step $k: the refused resume wrote no marker"
        fi
        crash $k
        # one rank for steps 1 and 3, two for 2 and 4: any rank count resumes
        if [ $((k % 2)) -eq 1 ]; then
            expect_ok "killed at step $k: --resume" dt_run $g $syn --epochs 2 --checkpoint "$T/rp-k$k" --resume
        else
            expect_ok "killed at step $k: --resume on 2 ranks" mpi_run 2 "$dtb" $g $syn --epochs 2 --checkpoint "$T/rp-k$k" --resume
        fi
        check '[ -n "$h" ] && [ "$(wh)" = "$h" ]' "killed at step $k: --resume gives the uninterrupted run's workers-hash ($h, got $(wh))"
        if [ "$k" -ge 3 ]; then
            check 'grep -q "^dpsgd-train: notice: --resume: $T/rp-k$k/latest was missing (a save killed before its marker): continuing from epoch-000001" "$T/err" && grep -q "after resume" "$T/out"' \
                "killed at step $k: the epoch is adopted, and said: $(head -c 300 "$T/err")"
        else
            check 'grep -q "^dpsgd-train: notice: --resume: no checkpoint in $T/rp-k$k yet: starting from scratch" "$T/err"' \
                "killed at step $k: nothing complete, a fresh start: $(head -c 300 "$T/err")"
        fi
        check '[ "$(cat "$T/rp-k$k/latest")" = epoch-000002 ] && [ -z "$(find "$T/rp-k$k" -name "*.tmp.*")" ]' \
            "killed at step $k: the resumed run's checkpoint is complete: $(ls "$T/rp-k$k" | tr '\n' ' ')"
    done

    repair_topogen_cases
}

# topogen repair: degrees kept, renumbered, weighted by the file's rule,
# deterministic; bad input refused with the flag's or the file's code
repair_topogen_cases() {
    tg="$BIN/topogen"
    degs() { "$tg" eval "$1" | sed -n 's/^degree *//p'; }
    "$tg" -n 16 --kind ring -q -o "$T/rr16.txt"
    expect_ok "repair a ring" "$tg" repair "$T/rr16.txt" --remove 3,9 -o "$T/rr14.txt"
    check 'head -1 "$T/rr14.txt" | grep -q "^# topogen 2 n=14 d=2 kind=repaired from=ring weights=laplacian " &&
           [ "$(degs "$T/rr14.txt")" = "min 2 max 2" ] && "$tg" eval "$T/rr14.txt" | grep -q "^components *1$"' \
        "a ring without 2 nodes is a ring of 14: $(head -2 "$T/rr14.txt" | tr '\n' ' ')"
    # the survivors of the cut edges 2-3-4 and 8-9-10 are joined, renumbered
    check 'grep -q "^2 3 " "$T/rr14.txt" && grep -q "^7 8 " "$T/rr14.txt" && ! grep -q "^2 4 " "$T/rr14.txt"' \
        "the bypass edges 2-4 -> new 2-3 and 8-10 -> new 7-8: $(grep -v "^#" "$T/rr14.txt" | cut -d" " -f1,2 | tr '\n' ',')"
    "$tg" -n 64 -d 4 --iters 2000 -q -o "$T/rl64.txt"
    expect_ok "repair a learned graph" "$tg" repair "$T/rl64.txt" --remove 48-63 -o "$T/rl48.txt"
    check '[ "$(degs "$T/rl48.txt")" = "min 4 max 4" ] && head -1 "$T/rl48.txt" | grep -q "n=48 d=4 kind=repaired from=learned weights=laplacian" &&
           grep -q "^# repaired: .* without nodes 48-63 (of 64): .* 0 nodes below their degree; then [1-9][0-9]* of 4800 search swaps kept" "$T/rl48.txt"' \
        "learned 64 without 48-63: 4-regular on 48, the search's swaps kept some: $(sed -n 2p "$T/rl48.txt")"
    check 'grep -q "every degree kept; [0-9]* of 4800 search swaps kept" "$T/err"' "the report: $(cat "$T/err")"
    expect_ok "repair again" "$tg" repair "$T/rl64.txt" --remove=63,48-62 --output "$T/rl48b.txt" -q
    check 'cmp -s "$T/rl48.txt" "$T/rl48b.txt" && [ ! -s "$T/err" ]' "one input, one output (and --quiet is quiet)"
    "$tg" -n 16 -d 3 --kind random --weights mh -q -o "$T/rm16.txt"
    expect_ok "repair, mh weights, odd cut" "$tg" repair "$T/rm16.txt" --remove 5 -o "$T/rm15.txt" --iters 0
    check 'head -1 "$T/rm15.txt" | grep -q "n=15 d=3 kind=repaired from=random weights=mh" &&
           [ "$(degs "$T/rm15.txt")" = "min 2 max 3" ] && grep -q " 1 nodes below their degree" "$T/rm15.txt" &&
           grep -v "^#" "$T/rm15.txt" | awk "\$3 != 0.25 && \$3 != 1/3 { bad = 1 } END { exit bad }"' \
        "a 3-regular graph without one node: 3 stubs, one node short, mh weights 1/(1+max deg): $(sed -n 2p "$T/rm15.txt")"
    printf '0 1\n1 2\n2 3\n3 0\n0 2\n' >"$T/plain.txt"
    expect_ok "repair an unweighted edge list" "$tg" repair "$T/plain.txt" --remove 1 -o "$T/plain3.txt"
    check 'head -1 "$T/plain3.txt" | grep -q "n=3 d=2 kind=repaired weights=none" && [ "$(grep -vc "^#" "$T/plain3.txt")" = 3 ] && ! grep -v "^#" "$T/plain3.txt" | grep -q " .* "' \
        "an unweighted file gives an unweighted triangle: $(grep -v "^#" "$T/plain3.txt" | tr '\n' ',')"
    printf '0 1 0.5\n1 2 0.5\n2 3 0.5\n3 0 0.5\n' >"$T/wnohdr.txt"
    expect_fail 1 "^topogen: $T/wnohdr.txt has weights but no weights= rule in its header: give --weights RULE" \
        "weights without a rule" "$tg" repair "$T/wnohdr.txt" --remove 1 -o "$T/rx.txt"
    expect_ok "--weights maxdeg for such a file" "$tg" repair "$T/wnohdr.txt" --remove 1 -o "$T/rw.txt" --weights maxdeg
    check 'head -1 "$T/rw.txt" | grep -q "weights=maxdeg"' "--weights applies"
    # bad input: the flag's code 2, the file's code 1; nothing written
    printf '0 1\n0 2\n0 3\n0 4\n' >"$T/star.txt"
    expect_fail 1 "^topogen: repair: $T/star.txt: removing 1 node leaves 2 components, even with the freed edge ends reconnected; nothing written" \
        "a cut that disconnects" "$tg" repair "$T/star.txt" --remove 0 -o "$T/rx.txt"
    expect_fail 2 "^topogen: repair: --remove '64': node 64 is not in $T/rl64.txt \(its nodes are 0..63\)" \
        "an unknown node" "$tg" repair "$T/rl64.txt" --remove 64 -o "$T/rx.txt"
    expect_fail 2 "^topogen: repair: --remove '0-63': removes 64 of the 64 nodes of $T/rl64.txt, leaving none" \
        "removing all" "$tg" repair "$T/rl64.txt" --remove 0-63 -o "$T/rx.txt"
    expect_fail 2 "^topogen: repair: --remove '0-62': removes 63 of the 64 nodes .* leaving 1" \
        "removing all but one" "$tg" repair "$T/rl64.txt" --remove 0-62 -o "$T/rx.txt"
    for bad in "3,,4" "5-3" "x" "3 4" "-1" "4,4" ""; do
        expect_fail 2 "^topogen: repair: --remove '$bad': (expected ids|the range 5-3 runs backwards|id 4 is given twice)" \
            "bad list '$bad'" "$tg" repair "$T/rl64.txt" --remove "$bad" -o "$T/rx.txt"
    done
    expect_fail 2 "^topogen: repair: give -o NEW" "no -o" "$tg" repair "$T/rl64.txt" --remove 3
    expect_fail 2 "^topogen: repair: give --remove LIST" "no --remove" "$tg" repair "$T/rl64.txt" -o "$T/rx.txt"
    expect_fail 2 "^topogen: repair: unknown flag --kind" "a flag of another command" "$tg" repair "$T/rl64.txt" --remove 3 -o "$T/rx.txt" --kind ring
    expect_fail 2 "^topogen: repair: --weights 'best'" "bad --weights" "$tg" repair "$T/rl64.txt" --remove 3 -o "$T/rx.txt" --weights best
    expect_fail 2 "^topogen: repair: --iters 'many'" "bad --iters" "$tg" repair "$T/rl64.txt" --remove 3 -o "$T/rx.txt" --iters many
    expect_fail 1 "^topogen: cannot open topology file $T/none.txt" "no such file" "$tg" repair "$T/none.txt" --remove 3 -o "$T/rx.txt"
    "$tg" -n 8 -d 2 --kind perm -q -o "$T/perm8.txt"
    expect_fail 1 "^topogen: $T/perm8.txt is directed: repair takes an undirected topology" "a directed file" \
        "$tg" repair "$T/perm8.txt" --remove 3 -o "$T/rx.txt"
    check '[ ! -e "$T/rx.txt" ] && [ -z "$(ls "$T" | grep "rx.txt.tmp")" ]' "no output after the errors"
    expect_ok "repair --help" "$tg" repair --help
    check 'grep -q "^usage: topogen repair FILE --remove LIST -o NEW" "$T/out" && grep -q -- "--drop-workers LIST --topology NEW" "$T/out"' "--help names the flags and the next step"
}

#!/bin/sh
# cli/repair.sh: the failure cases of issue 34: a first checkpoint killed at
# each of its steps (worker files, run state, settings, marker) resumes to
# the bits of an uninterrupted run; topogen repair; dpsgd-train --resume
# --drop-workers.
#
#   BIN=bin sh tests/cli/repair.sh  (make check-cli-repair)
. "$(dirname "$0")/lib.sh"

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
    command -v mpirun >/dev/null 2>&1 || { fail "mpirun not found"; return; }
    repair_drop_cases
    repair_crash_cases
    repair_join_cases
}

# Workers that join: topogen repair --add K; dpsgd-train --resume
# --add-workers K (the same bits on 1 and 3 ranks; after a drop; a plain
# --resume after it; a directed and a time-varying topology; a new
# worker reads its old neighbours' files only); refusals
# (an epidemic topology, for a join and a drop); d2 and gt restart
# their memory over all workers (lr ~0: the mean model stays); the join's
# first save stopped at each write (kill -9, SIGTERM, a full disk, and
# kill -9 after the marker) continues to the uninterrupted bits, and a
# plain --resume of a state before DIR/settings names --add-workers.
repair_join_cases() {
    tg="$BIN/topogen"
    dtb="$BIN/dpsgd-train"
    syn="--dataset synthetic --synthetic-train 512 --synthetic-test 64 --batch 16 --partition dirichlet:0.5 --quiet"
    wh() { sed -n 's/.*workers-hash \([0-9a-f]*\).*/\1/p' "$T/out"; }
    degs() { "$tg" eval "$1" | sed -n 's/^degree *//p'; }
    "$tg" -n 48 -d 4 --iters 1000 -q -o "$T/g48.txt"
    expect_ok "repair --add 16" "$tg" repair "$T/g48.txt" --add 16 -o "$T/g64.txt"
    check 'head -1 "$T/g64.txt" | grep -q "^# topogen 2 n=64 d=4 kind=grown from=learned weights=laplacian " &&
           grep -q "^# grown: $T/g48.txt with nodes 48-63 added (of 64): old ids kept; [0-9]* of its 96 edges split, each new node of degree 4" "$T/g64.txt" &&
           [ "$(degs "$T/g64.txt")" = "min 4 max 4" ] && "$tg" eval "$T/g64.txt" | grep -q "^components *1$"' \
        "48 + 16 nodes: 4-regular, connected, the header says what was added: $(sed -n 2p "$T/g64.txt")"
    check 'grep -q "48 -> 64 nodes (added 48-63)" "$T/err"' "the report: $(cat "$T/err")"
    expect_fail 2 "^topogen: repair: --remove and --add: give one of them" "--add with --remove" "$tg" repair "$T/g48.txt" --add 2 --remove 3 -o "$T/gx.txt"
    for bad in 0 x -1 ""; do
        expect_fail 2 "^topogen: repair: --add '$bad': expected a count of new nodes" "--add '$bad'" "$tg" repair "$T/g48.txt" --add "$bad" -o "$T/gx.txt"
    done
    "$tg" -n 6 -d 3 --kind random -q -o "$T/j6.txt"
    "$tg" repair "$T/j6.txt" --add 2 -o "$T/j8.txt" -q
    expect_ok "6 workers, stopped after epoch 1" dt_run --topology "$T/j6.txt" $syn --epochs 3 --stop-after 1 --checkpoint "$T/jk"
    for c in jk2 jkb jkc; do rm -rf "$T/$c"; cp -r "$T/jk" "$T/$c"; done
    expect_ok "--add-workers 2 on 1 rank" dt_run --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$T/jk" --resume --add-workers 2
    h=$(wh)
    check 'grep -q "^dpsgd-train: notice: --add-workers 2: the run of 6 workers continues from epoch 1 on 8; each new worker (6-7) starts from the mean of its old neighbours" "$T/err" &&
           grep -q "^joined: workers 6-7 (2 new) at epoch 1; continued on 8 workers$" "$T/out" && grep -q "^final: dpsgd  workers 8 .* epochs 3 " "$T/out" &&
           grep -qx "workers 8" "$T/jk/settings" && grep -qx "added-at-epoch 1" "$T/jk/settings" && head -1 "$T/jk/neighbours" | grep -q " n=8 "' \
        "the notice, the report, DIR/settings and DIR/neighbours of the grown run: $(grep -E "^(joined|final)" "$T/out")"
    expect_ok "--add-workers 2 on 3 ranks" mpi_run 3 "$dtb" --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$T/jk2" --resume --add-workers 2
    check '[ -n "$h" ] && [ "$(wh)" = "$h" ]' "--add-workers: the same workers-hash on 3 ranks as on 1 ($h, $(wh))"
    # refusals: the flag's code, the checkpoint untouched
    (cd "$T/jkb" && find . -type f | sort | xargs md5sum) >"$T/jkb.sums"
    expect_fail 2 "^dpsgd-train: --add-workers 2 continues a checkpoint's run with new workers: it needs --resume" \
        "--add-workers without --resume" dt_run --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$T/jkb" --add-workers 2
    expect_fail 2 "^dpsgd-train: --add-workers and --drop-workers in one start" \
        "--add-workers with --drop-workers" dt_run --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$T/jkb" --resume --add-workers 2 --drop-workers 1
    expect_fail 2 "^dpsgd-train: --resume: --add-workers 3: the checkpoint in $T/jkb \(epoch 1\) has 6 workers; with 3 more that is 9, but --topology has 8 nodes" \
        "a topology of another size" dt_run --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$T/jkb" --resume --add-workers 3
    expect_fail 2 "^dpsgd-train: --checkpoint: --add-workers: $T/jnone holds no checkpoint" \
        "--add-workers without a checkpoint" dt_run --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$T/jnone" --resume --add-workers 2
    expect_fail 2 "^dpsgd-train: --resume: the checkpoint in $T/jkb \(epoch 1\) is of 6 workers, --topology has 8: resume with --add-workers 2 to continue it with the new ones" \
        "a plain --resume with the grown topology names --add-workers" dt_run --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$T/jkb" --resume
    check '(cd "$T/jkb" && find . -type f | sort | xargs md5sum) | cmp -s - "$T/jkb.sums"' "the checkpoint is untouched by the refused runs"
    "$tg" -n 6 -d 2 --kind epidemic -q -o "$T/e6.txt"
    "$tg" -n 8 -d 2 --kind epidemic -q -o "$T/e8.txt"
    expect_ok "epidemic, stopped after epoch 1" dt_run --topology "$T/e6.txt" $syn --epochs 3 --stop-after 1 --checkpoint "$T/je"
    expect_fail 2 "^dpsgd-train: --add-workers 2: new workers start from their neighbours, which an epidemic topology \(or a run without --checkpoint\) does not fix" \
        "--add-workers on an epidemic topology" dt_run --topology "$T/e8.txt" $syn --epochs 3 --checkpoint "$T/je" --resume --add-workers 2
    "$tg" -n 5 -d 2 --kind epidemic -q -o "$T/e5.txt"
    expect_fail 2 "^dpsgd-train: --drop-workers: $T/je holds no neighbours file: the checkpoint does not say who the lost workers' neighbours were \(an epidemic topology has none" \
        "--drop-workers on an epidemic topology" dt_run --topology "$T/e5.txt" $syn --epochs 3 --checkpoint "$T/je" --resume --drop-workers 5
    # a new worker reads its old neighbours' files, not one donor's: under
    # strace, the join opens each old worker's file of epoch 1 as often
    # as a plain resume of the same checkpoint does, plus once per new
    # worker it neighbours in the grown topology
    if command -v strace >/dev/null 2>&1; then
        for c in jsj jsp; do rm -rf "$T/$c"; cp -r "$T/jkb" "$T/$c"; done
        expect_ok "a join under strace" strace -f -e trace=openat -o "$T/st-join" "$dtb" --topology "$T/j8.txt" $syn --epochs 2 --checkpoint "$T/jsj" --resume --add-workers 2
        expect_ok "a plain resume under strace" strace -f -e trace=openat -o "$T/st-plain" "$dtb" --topology "$T/j6.txt" $syn --epochs 2 --checkpoint "$T/jsp" --resume
        bad="" reads=""
        for k in 0 1 2 3 4 5; do
            f="epoch-000001/worker-00000$k.ckpt\""
            extra=$(( $(grep -c "$f" "$T/st-join") - $(grep -c "$f" "$T/st-plain") ))
            want=$(grep -v "^#" "$T/j8.txt" | awk -v k=$k '($1 == k && $2 >= 6) || ($2 == k && $1 >= 6)' | wc -l)
            reads="$reads $k:$extra/$want"
            [ "$extra" = "$want" ] || bad="$bad $k"
        done
        check '[ -z "$bad" ] && [ "$(grep -v "^#" "$T/j8.txt" | awk "\$1 >= 6 || \$2 >= 6" | wc -l)" -ge 2 ]' \
            "the new workers' reads of each old worker's file (worker:extra reads/new neighbours):$reads"
    else
        case_no=$((case_no + 1)); fail "strace is not installed (apt-get install strace)"
    fi
    # a directed and a time-varying topology join too (any topology of n
    # nodes whose first n - K are the old workers): the same bits on 2
    # ranks as on 1
    for kind in perm base; do
        "$tg" -n 6 -d 2 --kind $kind -q -o "$T/$kind-6.txt"
        "$tg" -n 8 -d 2 --kind $kind -q -o "$T/$kind-8.txt"
        expect_ok "$kind, stopped after epoch 1" dt_run --topology "$T/$kind-6.txt" $syn --epochs 3 --stop-after 1 --checkpoint "$T/jt-$kind"
        cp -r "$T/jt-$kind" "$T/jt2-$kind"
        expect_ok "$kind: --add-workers 2 on 1 rank" dt_run --topology "$T/$kind-8.txt" $syn --epochs 3 --checkpoint "$T/jt-$kind" --resume --add-workers 2
        hk=$(wh)
        expect_ok "$kind: --add-workers 2 on 2 ranks" mpi_run 2 "$dtb" --topology "$T/$kind-8.txt" $syn --epochs 3 --checkpoint "$T/jt2-$kind" --resume --add-workers 2
        check '[ -n "$hk" ] && [ "$(wh)" = "$hk" ] && grep -q "^joined: workers 6-7 (2 new) at epoch 1; continued on 8 workers$" "$T/out"' \
            "$kind: a join, the same workers-hash on 2 ranks as on 1 ($hk, $(wh))"
    done
    # d2 and gt with a learning rate of ~0 after the join: the mean model
    # stays put (a new worker's memory or tracker not restarted at its
    # parameters would move it by a constant each step)
    for a in d2 gt; do
        z="--schedule step --step-epochs 1 --lr-decay 1e-9 --lr 0.05 --algorithm $a"
        expect_ok "$a, stopped after epoch 1" dt_run --topology "$T/j6.txt" $syn $z --epochs 3 --stop-after 1 --checkpoint "$T/jz-$a"
        expect_ok "$a --add-workers, lr ~0" dt_run --topology "$T/j8.txt" $syn $z --epochs 3 --checkpoint "$T/jz-$a" --resume --add-workers 2 --log "$T/jz-$a.csv"
        check 'awk -F, "NR == 3 { a = \$11 } NR == 5 { b = \$11 } END { exit !(a > 0 && b < 1.01 * a && b > 0.99 * a) }" "$T/jz-$a.csv"' \
            "$a after a join at lr ~0: the mean model stays (global loss $(cut -d, -f11 "$T/jz-$a.csv" | tr "\n" " "))"
    done
    # lose 2 of 8, then add 2 back, then a plain --resume
    "$tg" -n 8 -d 3 --kind random -q -o "$T/k8.txt"
    "$tg" repair "$T/k8.txt" --remove 6-7 -o "$T/k6.txt" -q
    "$tg" repair "$T/k6.txt" --add 2 -o "$T/k8b.txt" -q
    expect_ok "8 workers to epoch 1" dt_run --topology "$T/k8.txt" $syn --epochs 4 --stop-after 1 --checkpoint "$T/dk8"
    expect_ok "... 6 to epoch 2" dt_run --topology "$T/k6.txt" $syn --epochs 4 --stop-after 2 --checkpoint "$T/dk8" --resume --drop-workers 6-7
    expect_ok "... 8 again to epoch 3" dt_run --topology "$T/k8b.txt" $syn --epochs 4 --stop-after 3 --checkpoint "$T/dk8" --resume --add-workers 2
    check 'grep -q "^joined: workers 6-7 (2 new) at epoch 2; continued on 8 workers$" "$T/out" && ! grep -q "drop-workers" "$T/dk8/settings"' \
        "a join after a drop: the run is one of 8 workers again: $(grep -E "^joined" "$T/out")"
    expect_ok "... and a plain --resume to epoch 4" dt_run --topology "$T/k8b.txt" $syn --epochs 4 --checkpoint "$T/dk8" --resume
    check 'grep -q "^final: dpsgd  workers 8 .* epochs 4 " "$T/out" && [ "$(cat "$T/dk8/latest")" = epoch-000004 ]' "the grown run continues plainly: $(grep "^final" "$T/out")"
    # the join's first save stopped at each write
    so="$T/fault_rename.so"
    [ -f "$so" ] || ${CC:-cc} -shared -fPIC -O1 -o "$so" "$(dirname "$0")/fault_rename.c" -ldl
    : >"$T/jwrites"
    run env LD_PRELOAD="$so" FAULT_MATCH="$T/jkc/" FAULT_LOG="$T/jwrites" \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0" \
        "$dtb" --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$T/jkc" --resume --add-workers 2
    K=$(grep -n "/latest$" "$T/jwrites" | head -n 1 | cut -d: -f1)
    check '[ "$(wh)" = "$h" ] && [ -n "$K" ] && sed -n "1,${K}p" "$T/jwrites" | grep -q "/neighbours$"' \
        "the join's first save: $K writes, DIR/neighbours among them: $(head -n "${K:-14}" "$T/jwrites" | sed "s|.*/||" | tr "\n" " ")"
    for how in kill term enospc after; do
        k=1
        [ "$how" = after ] && k=${K:-1}
        while [ "$k" -le "${K:-0}" ]; do
            crash_here $how $k || { k=$((k + 1)); continue; }
            c="$T/jc-$how-$k"
            rm -rf "$c" && cp -r "$T/jkb" "$c"
            run env LD_PRELOAD="$so" FAULT_MATCH="$c/" FAULT_AT=$k FAULT_HOW=$how \
                ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0" \
                "$dtb" --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$c" --resume --add-workers 2
            w=$(sed -n "${k}p" "$T/jwrites" | sed "s|.*/jkc/||")
            check '[ "$rc" -ne 0 ]' "join, $how at write $k ($w): the run stopped"
            [ "$how" != term ] || check 'grep -q "^dpsgd-train: stopped by SIGTERM .*(continue with --resume --add-workers 2 --topology $T/j8.txt)" "$T/err"' \
                "join, SIGTERM at write $k ($w): the message names the command: $(head -c 300 "$T/err")"
            if [ "$how" = kill ] && [ "$k" = 2 ]; then
                expect_fail 2 "^dpsgd-train: --resume: the checkpoint in $c \(epoch 1\) is of 6 workers, --topology has 8: resume with --add-workers 2" \
                    "join, kill at write $k ($w): a plain --resume names --add-workers" dt_run --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$c" --resume
            fi
            expect_ok "join, $how at write $k ($w): the same command continues" dt_run --topology "$T/j8.txt" $syn --epochs 3 --checkpoint "$c" --resume --add-workers 2
            check '[ "$(wh)" = "$h" ] && [ "$(cat "$c/latest")" = epoch-000003 ]' "join, $how at write $k ($w): the uninterrupted workers-hash ($h, got $(wh))"
            k=$((k + 1))
        done
    done
}

# The first save after --resume --drop-workers, stopped at each of its
# writes (tests/cli/fault_rename.c, preloaded, acts at the k-th rename(2)
# into the checkpoint: every file goes through a temporary and a rename):
# kill -9 before the rename, SIGTERM before it, a full disk (the rename
# fails with ENOSPC), and kill -9 after the marker's rename. Each time the
# same command continues to the uninterrupted run's workers-hash; after a
# full disk a plain --resume (the drop read from DIR/settings) does too.
# crash_here HOW K: whether the crash sweeps below stop a save at write K
# in way HOW. By default each write is stopped once, the way rotating
# (write 1 a full disk, 2 kill -9, 3 SIGTERM, 4 a full disk, ...), so
# every write and every way is covered at a third of the cost;
# CRASH_POINTS=all stops every write in all three ways (the full cross
# product: about 4 more minutes of CPU). The kill after the marker's
# rename (HOW=after) always runs.
crash_here() {
    case ${CRASH_POINTS:-rotate} in
    rotate | all) ;;
    *) echo "cli: repair: CRASH_POINTS='$CRASH_POINTS': expected rotate or all" >&2; exit 2 ;;
    esac
    [ "$1" = after ] || [ "${CRASH_POINTS:-rotate}" = all ] && return 0
    case $1 in kill) i=0 ;; term) i=1 ;; *) i=2 ;; esac
    [ $((($2 + 1) % 3)) -eq $i ]
}

repair_crash_cases() {
    tg="$BIN/topogen"
    dtb="$BIN/dpsgd-train"
    syn="--dataset synthetic --synthetic-train 256 --synthetic-test 64 --batch 16 --quiet"
    wh() { sed -n 's/.*workers-hash \([0-9a-f]*\).*/\1/p' "$T/out"; }
    so="$T/fault_rename.so"
    case_no=$((case_no + 1))
    if ! ${CC:-cc} -shared -fPIC -O1 -o "$so" "$(dirname "$0")/fault_rename.c" -ldl 2>"$T/err"; then
        fail "cannot build the fault shim: $(head -c 300 "$T/err")"
        return
    fi
    passed=$((passed + 1))
    "$tg" -n 8 -d 3 --kind random -q -o "$T/c8.txt"
    "$tg" repair "$T/c8.txt" --remove 2,6 -o "$T/c6.txt" -q
    g="--topology $T/c6.txt"
    expect_ok "crash points: 8 workers, stopped after epoch 1" dt_run --topology "$T/c8.txt" $syn --epochs 3 --stop-after 1 --checkpoint "$T/cc0"
    rm -rf "$T/ccref" && cp -r "$T/cc0" "$T/ccref"
    # the uninterrupted drop, and the list of the writes of its first save
    : >"$T/writes"
    expect_ok "crash points: the uninterrupted drop" env LD_PRELOAD="$so" FAULT_MATCH="$T/ccref/" FAULT_LOG="$T/writes" \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0" \
        "$dtb" $g $syn --epochs 3 --checkpoint "$T/ccref" --resume --drop-workers 2,6
    h=$(wh)
    K=$(grep -n "/latest$" "$T/writes" | head -n 1 | cut -d: -f1)
    check '[ -n "$h" ] && [ -n "$K" ] && [ "$K" -ge 9 ] && sed -n "1,${K}p" "$T/writes" | grep -q "/settings$" && sed -n "1,${K}p" "$T/writes" | grep -q "/state-000002.bin$"' \
        "the first save's writes are counted (workers, run state, settings, marker): K=$K, $(head -n "${K:-12}" "$T/writes" | sed "s|.*/||" | tr "\n" " ")"
    for how in kill term enospc after; do
        k0=1
        [ "$how" = after ] && k0=$K
        k=$k0
        while [ "$k" -le "$K" ]; do
            crash_here $how $k || { k=$((k + 1)); continue; }
            c="$T/cc-$how-$k"
            rm -rf "$c" && cp -r "$T/cc0" "$c"
            run env LD_PRELOAD="$so" FAULT_MATCH="$c/" FAULT_AT=$k FAULT_HOW=$how \
                ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0" \
                "$dtb" $g $syn --epochs 3 --checkpoint "$c" --resume --drop-workers 2,6
            case_no=$((case_no + 1))
            w=$(sed -n "${k}p" "$T/writes" | sed "s|.*/ccref/||")
            if [ "$rc" -eq 0 ]; then
                fail "$how at write $k ($w): the run did not stop"
            elif [ "$how" = term ] && ! grep -q "^dpsgd-train: stopped by SIGTERM .*(continue with --resume --drop-workers 2,6 --topology $T/c6.txt)" "$T/err"; then
                fail "$how at write $k ($w): the message does not name the command: $(head -c 300 "$T/err")"
            elif [ "$how" = enospc ] && ! grep -q "No space left on device" "$T/err"; then
                fail "$how at write $k ($w): $(head -c 300 "$T/err")"
            else
                passed=$((passed + 1))
            fi
            [ "$how" = enospc ] && rm -rf "$c.plain" && cp -r "$c" "$c.plain"
            expect_ok "$how at write $k ($w): the same command continues" dt_run $g $syn --epochs 3 --checkpoint "$c" --resume --drop-workers 2,6
            check '[ "$(wh)" = "$h" ] && [ "$(cat "$c/latest")" = epoch-000003 ] && [ -z "$(find "$c" -name "*.tmp.*")" ]' \
                "$how at write $k ($w): the uninterrupted run's workers-hash ($h, got $(wh)); $(head -c 300 "$T/err")"
            if [ "$how" = enospc ]; then
                expect_ok "$how at write $k ($w): a plain --resume continues" dt_run $g $syn --epochs 3 --checkpoint "$c.plain" --resume
                check '[ "$(wh)" = "$h" ] && grep -q "^dpsgd-train: notice: --resume: the run in $c.plain continues without workers 2,6" "$T/err"' \
                    "$how at write $k ($w): plain --resume, the same workers-hash ($h, got $(wh)): $(head -c 300 "$T/err")"
            fi
            k=$((k + 1))
        done
    done
    # on 2 ranks, from the state a kill between settings and marker leaves
    ks=$(grep -n "/settings$" "$T/writes" | head -n 1 | cut -d: -f1)
    c="$T/cc-mpi"
    rm -rf "$c" && cp -r "$T/cc0" "$c"
    run env LD_PRELOAD="$so" FAULT_MATCH="$c/" FAULT_AT=$((ks + 1)) FAULT_HOW=kill \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0" \
        "$dtb" $g $syn --epochs 3 --checkpoint "$c" --resume --drop-workers 2,6
    check 'grep -qx "dropped-at-epoch 1" "$c/settings" && [ "$(cat "$c/latest")" = epoch-000001 ]' \
        "killed between settings and marker: DIR/settings records the drop, DIR/latest the epoch before it"
    expect_fail 2 "^dpsgd-train: --drop-workers 2,6: the run in $c had 8 workers, 6 survive, but --topology $T/c8.txt has 8: give the topology of the survivors \(topogen repair FILE --remove 2,6 -o NEW\)" \
        "... a plain --resume with the old topology names the repair" dt_run --topology "$T/c8.txt" $syn --epochs 3 --checkpoint "$c" --resume
    expect_ok "... a plain --resume on 2 ranks" mpi_run 2 "$dtb" $g $syn --epochs 3 --checkpoint "$c" --resume
    check '[ "$(wh)" = "$h" ]' "... the same workers-hash on 2 ranks ($h, got $(wh))"
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
    expect_fail 2 "^topogen: repair: -o/--output given twice \('$T/ra.txt' and '$T/rx.txt'\): give it once" \
        "-o twice" "$tg" repair "$T/rl64.txt" --remove 3 -o "$T/ra.txt" -o "$T/rx.txt"
    expect_fail 2 "^topogen: repair: --remove given twice \('3' and '7'\)" "--remove twice" "$tg" repair "$T/rl64.txt" --remove 3 --remove 7 -o "$T/rx.txt"
    expect_fail 2 "^topogen: repair: --weights given twice" "--weights twice" "$tg" repair "$T/rl64.txt" --remove 3 --weights mh --weights=mh -o "$T/rx.txt"
    cp "$T/rl64.txt" "$T/rin.txt"
    expect_fail 2 "^topogen: repair: -o $T/./rin.txt is the input FILE" "-o FILE replaces its input" "$tg" repair "$T/rin.txt" --remove 3 -o "$T/./rin.txt"
    check 'cmp -s "$T/rl64.txt" "$T/rin.txt" && [ ! -e "$T/ra.txt" ]' "the input is untouched, nothing written"
    # a removed list of any length, whole in the header (was cut at 512 bytes)
    "$tg" -n 1000 -d 4 --kind random -q -o "$T/r1000.txt"
    long=$(seq 0 2 598 | tr '\n' ',' | sed 's/,$//')
    expect_ok "repair without 300 scattered nodes" "$tg" repair "$T/r1000.txt" --remove "$long" -o "$T/r700.txt" --iters 0 -q
    check 'grep -q "^# repaired: .* without nodes $long (of 1000):" "$T/r700.txt"' "the header holds the whole list ($(grep -c . "$T/r700.txt") lines)"
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

# rank_pid DIR MPIRUN_PID: the process of the highest rank of the run on
# --checkpoint DIR (not rank 0, which prints the messages)
rank_pid() {
    for p in $(pgrep -f -- "--checkpoint $1" | grep -vx "$2"); do
        r=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
        [ -n "$r" ] && echo "$r $p"
    done | sort -n | tail -n 1 | cut -d' ' -f2
}

# dpsgd-train --resume --drop-workers: the same bits on 1 and 4 ranks and
# after a second resume; what the summary records; bad input refused with
# the checkpoint untouched; the watchdog's two commands, run as printed
repair_drop_cases() {
    tg="$BIN/topogen"
    dtb="$BIN/dpsgd-train"
    syn="--dataset synthetic --synthetic-train 512 --synthetic-test 64 --batch 16 --partition dirichlet:0.5 --quiet"
    wh() { sed -n 's/.*workers-hash \([0-9a-f]*\).*/\1/p' "$T/out"; }
    sums() { (cd "$1" && find . -type f | sort | xargs -r md5sum); }
    "$tg" -n 8 -d 3 --kind random -q -o "$T/d8.txt"
    "$tg" repair "$T/d8.txt" --remove 6-7 -o "$T/d6.txt" -q
    expect_ok "8 workers, stopped after epoch 1" dt_run --topology "$T/d8.txt" $syn --epochs 3 --stop-after 1 --checkpoint "$T/dk"
    check 'head -1 "$T/dk/neighbours" | grep -q "^# dpsgd-train neighbours n=8 topology=edges-and-weights-hash:" && [ "$(grep -c "^[0-7]: " "$T/dk/neighbours")" = 8 ]' \
        "the checkpoint records the workers' neighbours"
    for c in dk2 dk3 dkb; do rm -rf "$T/$c"; cp -r "$T/dk" "$T/$c"; done
    expect_ok "--drop-workers 6-7 on 1 rank" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dk" \
        --resume --drop-workers 6-7 --summary "$T/drop.json"
    h=$(wh)
    check 'grep -q "^dpsgd-train: notice: --drop-workers 6-7: the run of 8 workers continues from epoch 1 on 6; the shards of the 2 lost workers go to their nearest survivors" "$T/err" &&
           grep -q "^dropped: workers 6-7 (2 of 8) at epoch 1; continued on 6 workers$" "$T/out" && grep -q "^final: dpsgd  workers 6 .* epochs 3 " "$T/out"' \
        "the notice and the report: $(head -c 300 "$T/err") $(grep -E "^(dropped|final):" "$T/out")"
    check 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d[\"result\"][\"dropped\"]; assert r == {\"workers\": \"6-7\", \"count\": 2, \"at_epoch\": 1, \"workers_before\": 8}, r; assert d[\"settings\"][\"drop_workers\"] == \"6-7\"" "$T/drop.json"' \
        "the summary records what was dropped and when: $(grep -A5 "\"dropped\"" "$T/drop.json" | tr -d "\n ")"
    check 'grep -qx "dropped-at-epoch 1" "$T/dk/settings" && grep -qx -- "--drop-workers 6-7" "$T/dk/settings" && [ -d "$T/dk/epoch-000001" ] && [ "$(cat "$T/dk/latest")" = epoch-000003 ]' \
        "DIR/settings records the drop; the checkpoint before it stays: $(ls "$T/dk" | tr "\n" " ")"
    expect_ok "--drop-workers 6-7 on 4 ranks" mpi_run 4 "$dtb" --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dk2" \
        --resume --drop-workers 7,6
    check '[ -n "$h" ] && [ "$(wh)" = "$h" ]' "--drop-workers: the same workers-hash on 4 ranks as on 1 ($h, $(wh))"
    check '[ "$(grep -c "^rank [0-3]: [0-5]" "$T/dk2/placement")" = 4 ] && [ "$(sed -n "s/^rank [0-3]: //p" "$T/dk2/placement" | tr "\n" "," | tr "," "\n" | grep -c .)" -ge 4 ]' \
        "DIR/placement lists the workers of each of the 4 ranks: $(tr "\n" " " <"$T/dk2/placement")"
    expect_ok "--drop-workers, stopped after epoch 2 (2 ranks)" mpi_run 2 "$dtb" --topology "$T/d6.txt" $syn --epochs 3 \
        --checkpoint "$T/dk3" --resume --drop-workers 6-7 --stop-after 2
    rm -rf "$T/dk3p" && cp -r "$T/dk3" "$T/dk3p"
    expect_ok "a dropped run resumed without --drop-workers (read from DIR/settings)" \
        dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dk3p" --resume
    check '[ -n "$h" ] && [ "$(wh)" = "$h" ] && grep -q "^dpsgd-train: notice: --resume: the run in $T/dk3p continues without workers 6-7 (recorded in its settings), as with --drop-workers 6-7" "$T/err"' \
        "a plain --resume after the drop: the same workers-hash ($h, $(wh)), and said: $(head -c 300 "$T/err")"
    expect_ok "... and continued after the drop (3 ranks)" mpi_run 3 "$dtb" --topology "$T/d6.txt" $syn --epochs 3 \
        --checkpoint "$T/dk3" --resume --drop-workers 6-7
    check '[ -n "$h" ] && [ "$(wh)" = "$h" ] && grep -q "^dropped: workers 6-7 (2 of 8) at epoch 1;" "$T/out"' \
        "a second resume after the drop: the same workers-hash ($h, $(wh))"
    # gt and d2 restart their trackers over the survivors (y = h_prev,
    # psi_prev = x): the same bits on 1 and 2 ranks
    for a in gt d2; do
        expect_ok "$a, stopped after epoch 1" dt_run --topology "$T/d8.txt" $syn --algorithm $a --epochs 2 --stop-after 1 --checkpoint "$T/dg1-$a"
        cp -r "$T/dg1-$a" "$T/dg2-$a"
        expect_ok "$a --drop-workers on 1 rank" dt_run --topology "$T/d6.txt" $syn --algorithm $a --epochs 2 --checkpoint "$T/dg1-$a" --resume --drop-workers 6-7
        hg=$(wh)
        expect_ok "$a --drop-workers on 2 ranks" mpi_run 2 "$dtb" --topology "$T/d6.txt" $syn --algorithm $a --epochs 2 --checkpoint "$T/dg2-$a" --resume --drop-workers 6-7
        check '[ -n "$hg" ] && [ "$(wh)" = "$hg" ] && grep -q "^final: $a  workers 6 " "$T/out"' "$a: the same workers-hash on 2 ranks as on 1 ($hg, $(wh))"
    done
    # d2 with a learning rate of ~0 after the drop: the survivors' mean
    # must stay put (a memory not restarted drifts it by a constant each
    # step: the global loss went 2.33 -> 16.4 -> 168.6)
    z="--schedule step --step-epochs 1 --gamma 1e-9 --lr 0.05 --algorithm d2"
    expect_ok "d2, stopped after epoch 1" dt_run --topology "$T/d8.txt" $syn $z --epochs 3 --stop-after 1 --checkpoint "$T/dz"
    expect_ok "d2 --drop-workers, lr ~0" dt_run --topology "$T/d6.txt" $syn $z --epochs 3 --checkpoint "$T/dz" --resume --drop-workers 6-7 --log "$T/dz.csv"
    check 'awk -F, "NR == 3 { a = \$11 } NR == 5 { b = \$11 } END { exit !(a > 0 && b < 1.01 * a && b > 0.99 * a) }" "$T/dz.csv"' \
        "d2 after a drop at lr ~0: the mean model stays (global loss $(cut -d, -f11 "$T/dz.csv" | tr "\n" " "))"
    # the same with an outer optimizer's anchor in the checkpoint (its
    # arrays come after d2's): the memory is restarted all the same (the
    # code of before compared the state count without the outer arrays:
    # the loss went 1.97 -> 10.1)
    expect_ok "d2 --outer sgd:0.5, stopped after epoch 1" dt_run --topology "$T/d8.txt" $syn $z --outer sgd:0.5 --epochs 3 --stop-after 1 --checkpoint "$T/dzo"
    expect_ok "d2 --outer sgd:0.5 --drop-workers, lr ~0" dt_run --topology "$T/d6.txt" $syn $z --outer sgd:0.5 --epochs 3 --checkpoint "$T/dzo" --resume --drop-workers 6-7 --log "$T/dzo.csv"
    check 'awk -F, "NR == 3 { a = \$11 } NR == 5 { b = \$11 } END { exit !(a > 0 && b < 1.01 * a && b > 0.99 * a) }" "$T/dzo.csv"' \
        "d2 + --outer after a drop at lr ~0: the mean model stays (global loss $(cut -d, -f11 "$T/dzo.csv" | tr "\n" " "))"
    # clique-avg: topogen repair keeps the survivors' `# cliques:` line,
    # so a D-Cliques run continues without workers; a line that puts two
    # nodes without an edge in one clique is the file's error (1, its line)
    dt_run --dataset synthetic --synthetic-train 1024 --epochs 0 --workers 20 --partition shards:1 --write-partition "$T/s20.txt" --quiet
    "$tg" --kind dcliques --labels "$T/s20.txt" -q -o "$T/dc20.txt"
    expect_ok "repair a D-Cliques file" "$tg" repair "$T/dc20.txt" --remove 3,11 -o "$T/dc18.txt" -q
    cl20=$(sed -n 's/^# cliques: //p' "$T/dc20.txt" | awk '{ for (i = 1; i <= NF; i++) if (i != 4 && i != 12) printf "%s ", $i }')
    check '[ "$(grep -c "^# cliques: " "$T/dc18.txt")" = 1 ] && [ "$(sed -n "s/^# cliques: //p" "$T/dc18.txt" | wc -w)" = 18 ] &&
           [ "$(sed -n "s/^# cliques: //p" "$T/dc18.txt" | tr " " "\n" | sort -u | tr "\n" " ")" = "$(echo "$cl20" | tr " " "\n" | grep . | sort -u | tr "\n" " ")" ]' \
        "the survivors keep their cliques: $(grep "^# cliques" "$T/dc18.txt") (of $cl20)"
    ca="--dataset synthetic --synthetic-train 1024 --synthetic-test 64 --batch 8 --partition shards:1 --quiet --algorithm clique-avg --epochs 2"
    expect_ok "clique-avg, stopped after epoch 1" dt_run --topology "$T/dc20.txt" $ca --stop-after 1 --checkpoint "$T/dcc"
    expect_ok "clique-avg --drop-workers 3,11" dt_run --topology "$T/dc18.txt" $ca --checkpoint "$T/dcc" --resume --drop-workers 3,11
    check 'grep -q "^dropped: workers 3,11 (2 of 20) at epoch 1; continued on 18 workers" "$T/out" && grep -q "^final: clique-avg  workers 18 " "$T/out"' \
        "clique-avg continued on 18: $(grep -E "^(dropped|final)" "$T/out")"
    # a join of clique-avg is refused up front: a grown file has no
    # `# cliques:` line
    "$tg" repair "$T/dc18.txt" --add 2 -o "$T/dc20b.txt" -q
    expect_fail 2 "^dpsgd-train: --algorithm clique-avg: $T/dc20b.txt has no .# cliques:. line" \
        "clique-avg --add-workers: refused, naming the file" dt_run --topology "$T/dc20b.txt" $ca --checkpoint "$T/dcc" --resume --add-workers 2
    l=$(grep -n "^# cliques: " "$T/dc18.txt" | cut -d: -f1)
    awk -v l="$l" 'NR == l { $0 = "# cliques: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" } { print }' "$T/dc18.txt" >"$T/dcbad.txt"
    expect_fail 1 "^dpsgd-train: .*$T/dcbad.txt:$l: the .# cliques:. line puts nodes [0-9]+ and [0-9]+ in clique 0, but the file has no edge" \
        "a clique whose nodes are not joined: the file's error, with its line" dt_run --topology "$T/dcbad.txt" $ca
    # bad input: refused (2: the flag; 1: the topology), DIR untouched
    sums "$T/dkb" >"$T/dkb.sums"
    printf '0 1\n1 2\n2 0\n3 4\n4 5\n5 3\n' >"$T/two3.txt"
    expect_fail 2 "^dpsgd-train: --drop-workers 9: worker 9 is not among the 8 workers of the run in $T/dkb \(ids 0..7\)" \
        "an unknown worker" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dkb" --resume --drop-workers 9
    expect_fail 2 "^dpsgd-train: --drop-workers 0-7: removes all 8 workers of the run in $T/dkb" \
        "removing all" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dkb" --resume --drop-workers 0-7
    expect_fail 2 "^dpsgd-train: --drop-workers 5-7: the run in $T/dkb had 8 workers, 5 survive, but --topology $T/d6.txt has 6: give the topology of the survivors \(topogen repair FILE --remove 5-7 -o NEW\)" \
        "a topology that does not match the survivors" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dkb" --resume --drop-workers 5-7
    expect_fail 2 "^dpsgd-train: --drop-workers 7,5: --topology $T/d6.txt was repaired without nodes 6-7 of 8 \(its header\), but the run in $T/dkb loses 5,7 of 8: give --drop-workers 6-7 with it" \
        "a drop list of the right length but other ids than the repaired file's" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dkb" --resume --drop-workers 7,5
    expect_fail 1 "^dpsgd-train: --topology: .*two3.txt.*(disconnected|components|connected)" \
        "a cut that disconnects (the survivors' topology in two parts)" dt_run --topology "$T/two3.txt" $syn --epochs 3 --checkpoint "$T/dkb" --resume --drop-workers 6-7
    expect_fail 2 "^dpsgd-train: --drop-workers given twice \(the second: '7'\): give it once \(a LIST joins ids with commas: 3,7\)" \
        "--drop-workers twice (only the last was used)" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dkb" --resume --drop-workers 6 --drop-workers 7
    expect_fail 2 "^dpsgd-train: --drop-workers: a LIST of 4444 characters, longer than 4095: give runs of ids as ranges" \
        "--drop-workers longer than the trainer keeps: refused, never cut" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dkb" --resume --drop-workers "$(seq -s, 0 2 1998)"
    expect_fail 2 "^dpsgd-train: --drop-workers: an empty LIST" \
        "--drop-workers ''" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dkb" --resume --drop-workers ""
    expect_fail 2 "^dpsgd-train: --drop-workers '6-x': expected ids" \
        "a bad list" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dkb" --resume --drop-workers 6-x
    expect_fail 2 "^dpsgd-train: --drop-workers continues a checkpoint's run without some of its workers: it needs --resume" \
        "--drop-workers without --resume" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dkb" --drop-workers 6-7
    expect_fail 2 "^dpsgd-train: --drop-workers: $T/dnone holds no checkpoint to continue without those workers" \
        "--drop-workers with no checkpoint" dt_run --topology "$T/d6.txt" $syn --epochs 3 --checkpoint "$T/dnone" --resume --drop-workers 6-7
    check 'sums "$T/dkb" | cmp -s - "$T/dkb.sums"' "the checkpoint is untouched by the refused runs"
    # a rank killed (-9): mpirun SIGTERMs the others, whose line says
    # where the workers of each rank are listed
    case_no=$((case_no + 1))
    ck="$T/dk-kill"
    env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        OMPI_MCA_odls_base_sigkill_timeout=10 \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OPENBLAS_NUM_THREADS=1 mpirun -q --oversubscribe --bind-to none \
        -np 3 "$dtb" --topology "$T/d6.txt" --dataset synthetic \
        --synthetic-train 2048 --synthetic-test 64 --epochs 500 \
        --checkpoint "$ck" --quiet >"$T/out" 2>"$T/err" &
    mp=$!
    i=0
    while [ ! -f "$ck/latest" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$(rank_pid "$ck" "$mp")"
    wait $mp
    if ! grep -q "^  or without a lost rank's workers (listed per rank in $ck/placement): topogen repair --remove LIST, then --resume --drop-workers LIST --topology NEW" "$T/err" ||
        [ "$(grep -c "^rank [0-2]: [0-5]" "$ck/placement")" != 3 ]; then
        fail "killed rank: no pointer to DIR/placement, or no placement: $(head -c 400 "$T/err") / $(cat "$ck/placement" 2>&1)"
    else
        passed=$((passed + 1))
    fi
    # a rank stopped (SIGSTOP): the watchdog prints the two commands that
    # continue without its workers; they run as printed (fewer epochs). A
    # time-varying topology (base) cannot be repaired: the printed command
    # makes one for the survivors
    # makes one for the survivors, as for a directed one (perm). Without
    # --timeout (adaptive): the
    # deadline is the floor here (rounds of a few ms), said in the message
    for kind in random base perm adaptive; do
        case_no=$((case_no + 1))
        ck="$T/dk-stop-$kind"
        to="--timeout 3" q=--quiet
        if [ $kind = adaptive ]; then
            q=""
            cp "$T/s6-random.txt" "$T/s6-$kind.txt"
            to="--timeout-floor 4"
        else
            "$tg" -n 6 -d 3 --kind $kind -q -o "$T/s6-$kind.txt"
        fi
        env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            OPENBLAS_NUM_THREADS=1 mpirun -q --oversubscribe --bind-to none \
            -np 3 "$dtb" --topology "$T/s6-$kind.txt" --dataset synthetic \
            --synthetic-train 2048 --synthetic-test 64 --epochs 500 \
            --checkpoint "$ck" $to $q >"$T/out" 2>"$T/err" &
        mp=$!
        i=0
        while [ ! -f "$ck/latest" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
        kill -STOP "$(rank_pid "$ck" "$mp")"
        t0=$(date +%s.%N)
        wait $mp
        took=$(echo "$(date +%s.%N) - $t0" | bc)
        # (on a loaded machine a slow rank may be named too: any count left)
        cp "$T/err" "$T/err.stop"
        cp "$T/out" "$T/out.stop"
        c1=$(sed -n 's/^    \(topogen .*\)/\1/p' "$T/err")
        np=$(sed -n 's/^    mpirun -np \([0-9]*\) .*/\1/p' "$T/err")
        c2=$(sed -n 's/^    mpirun -np [0-9]* [^ ]* \(.*\)/\1/p' "$T/err")
        want="no progress for 3 s .* not answer .*(--timeout 3)"
        [ $kind = adaptive ] && want="no progress for 2 s .* not answer .*(adaptive deadline 4 s in all: the floor 4 s (--timeout-floor), above [0-9A-Za-z +]* ([0-9.e-]* s; median round [0-9.e-]* s); --timeout SEC fixes one)"
        if ! grep -q "^dpsgd-train: $want; last good checkpoint: $ck/epoch-" "$T/err" ||
            ! grep -q "^  or continue without the silent rank\('s\|s'\) workers [0-9,-]*, on the [12] ranks\{0,1\} left:$" "$T/err" ||
            [ -z "$c1" ] || [ -z "$c2" ]; then
            fail "stopped rank: no commands to continue without it: $(head -c 600 "$T/err")"
        else
            passed=$((passed + 1))
        fi
        # the epoch the checkpoint had reached when the rank stopped (on a
        # loaded machine it may be past the first): one more epoch after it
        e0=$(sed -n 's/^epoch-0*\([0-9][0-9]*\)$/\1/p' "$ck/latest")
        e0=${e0:-1}
        e1=$((e0 + 1))
        c2=$(echo "$c2" | sed "s/--epochs 500/--epochs $e1/")
        abin=$(cd "$BIN" && pwd)
        expect_ok "the printed topogen repair" sh -c "PATH='$abin':\$PATH; $c1"
        expect_ok "the printed dpsgd-train, on the ranks left" sh -c "exec env ASAN_OPTIONS=detect_leaks=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 timeout 120 mpirun -q --oversubscribe --bind-to none -np ${np:-2} '$abin/dpsgd-train' $c2"
        check 'grep -q "^dropped: workers [0-9,-]* ([24] of 6) at epoch $e0; continued on [24] workers$" "$T/out" && [ "$(cat "$ck/latest")" = "$(printf epoch-%06d $e1)" ]' \
            "continued without the stopped rank's workers: $(grep -E "^(dropped|final)" "$T/out")"
        [ $kind != base ] || check 'grep -q "^    topogen -n [24] -d [1-3] --kind base --seed 1 -o " "$T/err.stop"' "time-varying: the printed command makes a base topology: $(grep "^    topogen" "$T/err.stop")"
        [ $kind != perm ] || check 'grep -q "^    topogen -n [24] -d 3 --kind perm --seed 1 -o " "$T/err.stop"' "directed: the printed command makes a perm topology: $(grep "^    topogen" "$T/err.stop")"
        if [ $kind = adaptive ]; then
            m=$(sed -n "s/.*median round \([0-9.e-]*\) s).*/\1/p" "$T/err.stop")
            check 'awk -v m="$m" -v t="$took" "BEGIN { exit !(m > 0 && 5 * m < 4 && t < 4 + 10) }"' \
                "adaptive: the floor (4 s) is above 5 median rounds ($m s), and the job ended $took s after the SIGSTOP (deadline 4 s, then the job's teardown)"
            check 'grep -q "^watchdog: the deadline adapts to the round times: median + 8 MAD of the last 64 rounds, 3 to 5 median rounds, at least 4 s (--timeout-floor); --timeout SEC fixes one" "$T/out.stop"' \
                "the deadline's rule is printed at start (not --quiet): $(grep "^watchdog" "$T/out.stop")"
        fi
    done
}

cli_run repair

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
}

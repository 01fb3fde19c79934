#!/bin/sh
# cli/sweep.sh: Sweep identity (issue 10 item 9): a run is reused only under
# the settings that made it; an OUT made with other sweep-wide settings is
# refused naming them; grid.env and each run's .settings tell the truth.
#
#   BIN=bin sh tests/cli/sweep.sh  (make check-cli-sweep)
. "$(dirname "$0")/lib.sh"

sweep_cases() {
    sw="$T/sweep"
    sweep() {
        env BIN="$BIN" OUT="$sw" SMOKE=1 \
            ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" NP=2 WORKERS=4 DEGREE_SMOKE=2 \
            SETTINGS=ring:mh PARTITIONS=iid ALLREDUCE=1 \
            TRAIN_ARGS="--synthetic-train 256 --synthetic-test 64" \
            "$@" sh scripts/experiments/sweep.sh
    }
    r="$sw/runs/n4-ring-mh-iid-s1"
    expect_ok "sweep EPOCHS=1" sweep EPOCHS=1
    check '[ -f "$r.csv" ] && grep -qx "EPOCHS=\"1\"" "$r.settings" && grep -qx "SETTING=\"ring:mh\"" "$r.settings"' \
        "settings written next to the CSV"
    check '[ "$(cat "$r.done")" = "$(sed -n "s/^RUN_ID=\"\(.*\)\"$/\1/p" "$r.settings")" ]' \
        ".done holds the run's RUN_ID"
    check 'grep -qx "SETTINGS=\"allreduce:none ring:mh\"" "$sw/grid.env" && grep -qx "EPOCHS=\"1\"" "$sw/grid.env"' \
        "grid.env lists every run: $(grep SETTINGS= "$sw/grid.env")"
    expect_ok "sweep again" sweep EPOCHS=1
    check '[ "$(grep -c "done already, skipped" "$T/out")" -eq 2 ]' "same settings: both runs skipped"
    cp "$r.csv" "$T/first.csv"
    expect_fail 1 "^sweep: .* other settings: EPOCHS 1 -> 2; LR 0.05 -> 0.01 \(use another OUT" \
        "other EPOCHS/LR into the same OUT" sweep EPOCHS=2 LR=0.01
    check 'cmp -s "$r.csv" "$T/first.csv" && grep -qx "EPOCHS=\"1\"" "$sw/grid.env"' \
        "refused sweep changed nothing"
    : > "$r.done" # a marker without this run's identity (older sweep.sh)
    expect_ok "stale marker" sweep EPOCHS=1
    check 'grep -q "n4-ring-mh-iid-s1: marker from other settings, run again" "$T/out" && [ -s "$r.done" ]' \
        "a marker from other settings is not reused"
    # modelled wall-clock (scripts/reports/modelled.sh): measured compute + the
    # modelled round, every worker on its own host; kept when complete
    # (no leak report: dpsgd-train --bench initializes Open MPI, whose
    # allocations at exit are not ours; see train_cases)
    md() { env BIN="$BIN" BENCH_STEPS=3 BENCH_REPEAT=1 \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@" sh scripts/reports/modelled.sh "$sw"; }
    expect_ok "modelled.sh" md
    # wan: the ring of 4 (degree 2) sends 2 x (50 ms + 246824 B / 12.5 MB/s);
    # the ring all-reduce of 4 hosts 6 x 50 ms + 6/4 x 246824 B / 12.5 MB/s
    check 'grep -q "^# compute model=lenet batch=16 s_per_step=[0-9.e-]* measured .*bench lenet batch 16: " "$sw/modelled.tsv" && [ "$(grep -vc "^#" "$sw/modelled.tsv")" -eq 4 ] && awk "!/^#/ && \$2 == \"wan\" { c[\$1] = \$4; d = \$5 - \$3 - \$4; if (d > 1e-6 || d < -1e-6) bad = 1 } END { exit bad || c[\"n4-ring-mh\"] != 0.0894918 || c[\"n4-allreduce-none\"] != 0.278984 }" "$sw/modelled.tsv" && grep -q "^n4-allreduce-none wan [0-9.e-]* 0.278984 [0-9.e-]* binomial$" "$sw/modelled.tsv" && grep -q "^# allreduce priced as auto " "$sw/modelled.tsv"' \
        "modelled.tsv: $(cat "$sw/modelled.tsv")"
    expect_ok "modelled.sh again" md
    check 'grep -q "covers every setting, kept" "$T/out"' "a complete modelled.tsv is kept: $(cat "$T/out")"
    expect_ok "summary.sh with modelled.tsv" env TARGETS=0.1 sh scripts/reports/summary.sh "$sw"
    check 'grep -q "modelled s to 0.1 (datacenter / wan)" "$sw/summary.md" && grep -q "^- 4 workers, all-reduce, iid, epochs 0-1: " "$sw/summary.md"' \
        "summary: modelled columns and the all-reduce convergence line: $(head -c 600 "$sw/summary.md")"
    # a sweep-wide --algorithm is named in the topology column
    cp -r "$sw" "$T/swd2"
    sed -i 's/^TRAIN_ARGS="\(.*\)"$/TRAIN_ARGS="\1 --algorithm d2"/' "$T/swd2/grid.env"
    expect_ok "summary.sh, --algorithm d2" env TARGETS=0.1 sh scripts/reports/summary.sh "$T/swd2"
    check 'grep -q "^| 4 | iid | ring + d2 | mh | " "$T/swd2/summary.md"' "d2 rows: $(grep "^| 4" "$T/swd2/summary.md")"
    if command -v gnuplot >/dev/null 2>&1; then
        expect_ok "plot.sh with modelled.tsv" sh scripts/reports/plot.sh "$sw"
        check '[ -s "$sw/plots/acc-modelled-wan-iid.png" ] && [ -s "$sw/plots/acc-modelled-datacenter-iid.png" ]' \
            "acc-modelled plots per preset"
    fi
    expect_fail 1 "^modelled: $T/nosuch: no runs/" "modelled.sh on no sweep" env BIN="$BIN" sh scripts/reports/modelled.sh "$T/nosuch"
    # import-results.sh: complete runs only, no .done markers, modelled.tsv kept
    mkdir -p "$T/imp" && cp -r "$sw" "$T/imp/n4"
    sed -i '$d' "$T/imp/n4/runs/n4-ring-mh-iid-s1.csv"  # a run in progress
    expect_ok "import-results.sh" sh scripts/reports/import-results.sh "$T/imp" "$T/impdest"
    check '[ -f "$T/impdest/n4/runs/n4-allreduce-none-iid-s1.csv" ] && [ -f "$T/impdest/n4/logs/n4-allreduce-none-iid-s1.log" ] && [ ! -e "$T/impdest/n4/runs/n4-ring-mh-iid-s1.csv" ] && [ -z "$(ls "$T/impdest/n4/runs" | grep "\.done$")" ] && [ -f "$T/impdest/n4/modelled.tsv" ] && grep -q "n4: 1 complete runs" "$T/out"' \
        "imported: $(ls "$T/impdest/n4/runs" | tr "\n" " ")"
    expect_fail 1 "^import-results: $T/nosuch: no such folder" "import from nothing" sh scripts/reports/import-results.sh "$T/nosuch" "$T/impdest"
    rm -f "$sw/grid.env"
    expect_fail 1 "^sweep: .*without a settings record" "runs of unknown settings" sweep EPOCHS=1
}

cli_run sweep

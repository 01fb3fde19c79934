#!/bin/sh
# cli/results.sh: plot.sh and summary.sh on committed results: a run counts
# when its settings record is there and its CSV reached the recorded epochs
#
#   BIN=bin sh tests/cli/results.sh  (make check-cli-results)
. "$(dirname "$0")/lib.sh"

results_cases() {
    tg="$BIN/topogen"
    rd="$T/results"
    mkdir -p "$rd"
    # scripts/reports/measure-correlation.py (issue 21's pilot): its numpy n_eff of
    # a static and of a periodic file equals topogen eval's (independent
    # code: closed form and Lyapunov over the period)
    expect_ok "measure-correlation on data/results/issue-15/n16" /usr/bin/python3 scripts/reports/measure-correlation.py --gamma 0.951 --topogen "$tg" data/results/issue-15/n16
    for f in learned:laplacian:n16-learned-laplacian one-peer-exp:own:n16-one_peer_exp-own; do
        set_=${f%:*}; file=${f##*:}
        mine=$(grep "^| $set_ |" "$T/out" | head -n 1 | cut -d'|' -f7 | tr -d ' ')
        theirs=$("$tg" eval "data/results/issue-15/n16/topo/$file.txt" --gamma 0.951 --json | /usr/bin/python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["neff"])')
        check '[ -n "$mine" ] && [ "$mine" = "$theirs" ]' "measure-correlation n_eff of $set_: $mine, topogen eval $theirs"
    done
    check 'grep -q "^| neff(0.951) | [+-][0-9.]* | [+-][0-9.]* | [+-][0-9.]* |$" "$T/out"' "measure-correlation prints the rank correlations"
    cp -r data/results/2025-sweep/runs data/results/2025-sweep/topo data/results/2025-sweep/grid.env "$rd/"
    expect_ok "summary.sh on data/results/2025-sweep" env TARGETS=0.80 sh scripts/reports/summary.sh "$rd"
    check '[ "$(grep -c "^| [0-9]" "$rd/summary.md")" -eq 28 ] && grep -q "^| 64 | dirichlet:0.1 | rrl | mh | 0.9904 | 77.74% ± 1.73 | 0.84 (ep 6-8) | - | - | 0.361 | 3 |$" "$rd/summary.md"' \
        "summary of the committed runs: 28 settings, the 64-worker lattice row"
    # a CSV cut short (an interrupted run) does not count; no record, no run
    sed -i '$d' "$rd/runs/n64-rrl-mh-dirichlet-0.1-s3.csv"
    rm "$rd/runs/n64-rrl-mh-dirichlet-0.1-s2.settings"
    expect_ok "summary.sh, one CSV short, one record missing" env TARGETS=0.80 sh scripts/reports/summary.sh "$rd"
    check 'grep -q "^| 64 | dirichlet:0.1 | rrl | mh | 0.9904 | .* | 1 |$" "$rd/summary.md"' \
        "only the complete run counts: $(grep "| 64 | dirichlet:0.1 | rrl | mh" "$rd/summary.md")"
    rm -f "$rd"/runs/*.settings
    expect_fail 1 "^summary: no complete runs in $rd/runs" "no records" sh scripts/reports/summary.sh "$rd"
    # issue 15's committed folders redraw from the committed files alone:
    # the table is the committed one, the measured compute time is kept
    # (no new measurement), a modelled plot per preset and partition
    for n in 16 256; do
        [ -d "data/results/issue-15/n$n/runs" ] || { fail "data/results/issue-15/n$n missing"; continue; }
        cp -r "data/results/issue-15/n$n" "$T/c$n"
        rm -rf "$T/c$n/plots" "$T/c$n/agg"
        expect_ok "summary.sh on data/results/issue-15/n$n" env TARGETS="0.80 0.85 0.88" sh scripts/reports/summary.sh "$T/c$n"
        check 'cmp -s "$T/c$n/summary.md" "data/results/issue-15/n$n/summary.md"' \
            "summary.sh remakes data/results/issue-15/n$n/summary.md: $(diff "$T/c$n/summary.md" "data/results/issue-15/n$n/summary.md" | head -c 300)"
        expect_ok "modelled.sh on data/results/issue-15/n$n" env BIN="$BIN" \
            ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" sh scripts/reports/modelled.sh "$T/c$n"
        check 'grep -q "covers every setting, kept" "$T/out" && cmp -s "$T/c$n/modelled.tsv" "data/results/issue-15/n$n/modelled.tsv"' \
            "committed modelled.tsv kept: $(cat "$T/out")"
    done
    if command -v gnuplot >/dev/null 2>&1 && [ -d "$T/c256" ]; then
        # one plot.sh run of issue 15's n256 sweep, the D^2 runs (their own
        # sweep directory) joining its plots (plot.sh without an EXTRA is
        # the 2025-sweep case below)
        if [ -d data/results/issue-15/n256-d2/runs ]; then
            expect_ok "plot.sh data/results/issue-15/n256 with n256-d2" sh scripts/reports/plot.sh "$T/c256" data/results/issue-15/n256-d2
            check '[ "$(ls "$T/c256"/plots/*.png | wc -l)" -eq 14 ] && [ -s "$T/c256/plots/acc-modelled-wan-dirichlet-0.1.png" ]' \
                "14 plots of data/results/issue-15/n256: $(ls "$T/c256/plots" | tr "\n" " ")"
            check '[ -s "$T/c256/agg/n256-learned-laplacian-dirichlet-0.1@d2.dat" ] && [ "$(ls "$T/c256"/agg/*@d2.dat | wc -l)" -eq 2 ]' \
                "the d2 lines aggregated: $(ls "$T/c256/agg" | tr "\n" " ")"
            expect_fail 1 "^plot: $T/c16: its grid.env names no --algorithm" "plot.sh EXTRA without --algorithm" \
                sh scripts/reports/plot.sh "$T/c256" "$T/c16"
            expect_fail 1 "^plot: $T/none: not a sweep directory" "plot.sh EXTRA missing" \
                sh scripts/reports/plot.sh "$T/c256" "$T/none"
        fi
    fi
    # results-every-topology.sh: ALGO (default d2) is checked before any run
    expect_fail 1 "^results-every-topology: ALGO must be d2, gt, qgm or none, got 'bogus'" \
        "results-every-topology.sh ALGO=bogus" env BIN="$BIN" ALGO=bogus sh scripts/experiments/results-every-topology.sh "$T/res-bogus"
    check '[ ! -e "$T/res-bogus" ]' "no results directory after a bad ALGO"
    # results.sh (issue 23): its cells are checked before any run
    expect_fail 1 "^results: CELLS: 'n64:bogus' is not nN:PARTITION" \
        "results.sh CELLS=n64:bogus" env BIN="$BIN" CELLS="n64:bogus" sh scripts/experiments/results.sh "$T/res-bogus"
    check '[ ! -e "$T/res-bogus" ]' "no results directory after bad CELLS"
    expect_fail 1 "^results: CELLS: n100:iid and n100:shards:1 share the folder n100 but not the lr" \
        "results.sh: two lrs in one folder" env BIN="$BIN" CELLS="n100:shards:1 n100:iid" sh scripts/experiments/results.sh "$T/res-bogus"
    check '[ ! -e "$T/res-bogus" ]' "no results directory after CELLS that share a folder"
    # results-tables.py (issue 23) on issue 15's 64-worker runs: the rows by
    # models sent per step, 1-seed rows marked, the goals checked
    expect_ok "results-tables.py on data/results/issue-15/n64" /usr/bin/python3 scripts/reports/results-tables.py \
        --topogen "$tg" data/results/issue-15/n64 data/results/issue-15/n64-d2
    check 'grep -q "^| about 4 models per step | learned:laplacian + d2 (learned) | 4.00 | 3 | 87.07 ± 0.12 | 4.33 | 0.292 | 32.6 |$" "$T/out" && grep -q "^| 1 model per step | one-peer-exp:own | 1.00 | 1 | 84.84 (1 seed) |" "$T/out" && grep -q "^| all-reduce | allreduce:none | 1.97 | 3 | 87.99 ± 0.26 | 3.00 |" "$T/out"' \
        "results-tables rows: $(grep "^| about 4" "$T/out" | head -n 2)"
    check 'grep -q "^- 64 workers, dirichlet:0.1, about 4 models per step: best learned learned:fdla 85.20 (1 seed) vs best hand-made base:own 85.05 (1 seed); .*: missed; " "$T/out" && grep -q "^- 64 workers, dirichlet:0.1, wan preset: .*learned:laplacian + d2 (32.6 s)" "$T/out"' \
        "results-tables goals: $(grep "^- " "$T/out" | head -c 400)"
    expect_fail 2 "^results-tables: --target: an accuracy in \(0, 1\)" "results-tables --target 85" \
        /usr/bin/python3 scripts/reports/results-tables.py --target 85 data/results/issue-15/n64
    expect_fail 1 "^results-tables: $T/none: no runs/ folder" "results-tables on no sweep" \
        /usr/bin/python3 scripts/reports/results-tables.py "$T/none"
    # issue 23's committed tables redraw from the committed files alone
    if [ -f data/results/summary.md ] && [ -d data/results/n256/runs ]; then
        expect_ok "results-tables.py on data/results" sh -c 'cd data/results && /usr/bin/python3 ../../scripts/reports/results-tables.py --topogen "$1" n100 n100-cliqueavg n16 n256 n256-d2 n64 n64-d2' sh "$(cd "$(dirname "$tg")" && pwd)/topogen"
        check 'cmp -s "$T/out" data/results/summary.md' "results-tables remakes data/results/summary.md: $(diff "$T/out" data/results/summary.md | head -c 300)"
        cp -r data/results/n256 "$T/r256"
        rm -rf "$T/r256/plots" "$T/r256/agg"
        expect_ok "summary.sh on data/results/n256" env TARGETS="0.80 0.85" sh scripts/reports/summary.sh "$T/r256"
        check 'cmp -s "$T/r256/summary.md" data/results/n256/summary.md' "summary.sh remakes data/results/n256/summary.md: $(diff "$T/r256/summary.md" data/results/n256/summary.md | head -c 300)"
    else
        fail "data/results/summary.md or data/results/n256 missing"
    fi
    if command -v gnuplot >/dev/null 2>&1; then
        expect_ok "measure-correlation --plot" /usr/bin/python3 scripts/reports/measure-correlation.py --gamma 0.951 \
            --topogen "$tg" --plot "$T/scatter" data/results/issue-15/n16
        check '[ -s "$T/scatter/measures-n16-dirichlet-0.1.png" ] && grep -q "<svg" "$T/scatter/measures-n16-dirichlet-0.1.svg" && [ "$(grep -vc "^#" "$T/scatter/measures-n16-dirichlet-0.1.dat")" -ge 3 ]' \
            "scatter files: $(ls "$T/scatter" | tr "\n" " ")"
    fi
    if command -v gnuplot >/dev/null 2>&1; then
        cp -r data/results/2025-sweep/runs "$rd/"
        expect_ok "plot.sh on data/results/2025-sweep" sh scripts/reports/plot.sh "$rd"
        check '[ "$(ls "$rd"/plots/*.png | wc -l)" -eq 10 ] && grep -q "^1 29 " "$rd/agg/n64-learned-laplacian-iid.dat" && [ "$(awk "!/^#/ { print \$11; exit }" "$rd/agg/n64-learned-laplacian-iid.dat")" = 3 ]' \
            "10 plots; aggregated series with 3 seeds"
    fi
}

cli_run results

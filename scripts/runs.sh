# runs.sh: which runs of a sweep directory are complete, from committed
# files only. Sourced by plot.sh and summary.sh, not run.
#
# A run NAME is complete when OUT/runs/NAME.settings (its settings record,
# written by sweep.sh before the run starts, or reconstructed by
# scripts/backfill-settings.sh for runs older than the records) exists and
# the last row of OUT/runs/NAME.csv reports the recorded EPOCHS. The
# trainer rewrites its CSV atomically after every evaluation and sweep.sh
# deletes a run's old CSV before it runs it again, so a CSV that reached
# EPOCHS is the whole log of the recorded settings. The .done markers
# (sweep.sh's skip logic) are not needed here and need not be committed.

# complete_runs DIR: the NAMEs (no suffix) of the complete runs in DIR,
# sorted; nothing when there are none.
complete_runs() {
    for rec in "$1"/*.settings; do
        [ -f "$rec" ] || continue
        name=$(basename "$rec" .settings)
        csv="$1/$name.csv"
        [ -f "$csv" ] || continue
        want=$(sed -n 's/^EPOCHS="\(.*\)"$/\1/p' "$rec")
        tail -n 1 "$csv" | awk -F, -v want="$want" \
            'want != "" && $1 ~ /^[0-9.]+$/ && $1 + 0 == want + 0 { ok = 1 }
             END { exit !ok }' && echo "$name"
    done | sort
}

# record_value FILE KEY: the value of KEY="..." in a settings record.
record_value() { sed -n "s/^$2=\"\(.*\)\"\$/\1/p" "$1" | head -n 1; }

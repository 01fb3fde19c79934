# runs.sh: which runs of a sweep directory are complete, from committed
# files only, how settings records and grid.env are written and read
# (load_env: as data), which run names are safe (check_run_names).
# Sourced by plot.sh, summary.sh, sweep.sh,
# modelled.sh and backfill-settings.sh, not run.
#
# A run NAME is complete when OUT/runs/NAME.settings (its settings record,
# written by sweep.sh before the run starts, or reconstructed by
# scripts/experiments/backfill-settings.sh for runs older than the records) exists and
# the last row of OUT/runs/NAME.csv reports the recorded EPOCHS. The
# trainer rewrites its CSV atomically after every evaluation and sweep.sh
# deletes a run's old CSV before it runs it again, so a CSV that reached
# EPOCHS is the whole log of the recorded settings. The .done markers
# (sweep.sh's skip logic) are not needed here and need not be committed.

# complete_runs DIR: the NAMEs (no suffix) of the complete runs in DIR,
# sorted; nothing when there are none.
complete_runs() {
    # one awk for every record (a basename, sed, tail and awk per run took
    # most of plot.sh's and summary.sh's time on a sweep of 64 runs)
    for rec in "$1"/*.settings; do
        [ -f "$rec" ] || continue
        printf '%s\n' "$rec"
    done | awk '{
        rec = $0; name = rec; sub(/^.*\//, "", name); sub(/\.settings$/, "", name)
        csv = rec; sub(/\.settings$/, ".csv", csv)
        want = ""
        while ((getline l < rec) > 0)
            if (l ~ /^EPOCHS=".*"$/) { want = l; sub(/^EPOCHS="/, "", want); sub(/"$/, "", want) }
        close(rec)
        last = ""; has = 0
        while ((getline l < csv) > 0) { last = l; has = 1 }
        close(csv)
        if (!has || want == "") next
        split(last, f, ",")
        if (f[1] ~ /^[0-9.]+$/ && f[1] + 0 == want + 0) print name
    }' | sort
}

# check_run_names PROG DIR: every DIR/*.settings and DIR/*.csv is named
# with the characters sweep.sh uses (letters, digits, '.', '_', '-'); the
# first that is not: "PROG: FILE: a run name of other characters ..."
# and return 1. Run names reach gnuplot's scripts and word lists.
check_run_names() {
    for _cn in "$2"/*.settings "$2"/*.csv; do
        [ -e "$_cn" ] || continue
        case $(basename "$_cn") in
        *[!A-Za-z0-9._-]*)
            printf '%s: %s: a run name of other characters than sweep.sh writes (letters, digits, ., _, -): rename or remove it\n' "$1" "$_cn" >&2
            return 1 ;;
        esac
    done
}

# The keys grid.env and the settings records hold.
GRID_KEYS="DATASET MODEL EPOCHS BATCH LR MOMENTUM DEGREE TOPO_SEED TRAIN_ARGS GLOBAL_ID WORKERS SETTINGS PARTITIONS SEEDS NP"

# load_env FILE [KEY...]: reads FILE (grid.env, a settings record) as data,
# never as shell code: KEY="value" lines, # comments and blank lines; no
# $, ` or \ in a value is expanded or run. Sets each KEY (default
# GRID_KEYS) that FILE has to its last value; other variables stay as they
# were. A line of another form: one message naming FILE:LINE, return 1.
load_env() {
    _le_file=$1
    shift
    [ $# -gt 0 ] || set -- $GRID_KEYS
    _le_bad=$(awk '!/^[ \t]*(#|$)/ && !/^[A-Za-z_][A-Za-z0-9_]*="[^"]*"[ \t]*$/ {
                       printf "%s:%d: not a KEY=\"value\" line: %.60s", FILENAME, FNR, $0; exit }' "$_le_file") || return 1
    if [ -n "$_le_bad" ]; then
        echo "$_le_bad" >&2
        return 1
    fi
    for _le_key in "$@"; do
        grep -q "^$_le_key=\"" "$_le_file" || continue
        _le_val=$(sed -n "s/^$_le_key=\"\(.*\)\"[ \t]*\$/\1/p" "$_le_file" | tail -n 1)
        eval "$_le_key=\$_le_val"
    done
}

# record_value FILE KEY: the value of KEY="..." in a settings record.
record_value() { sed -n "s/^$2=\"\(.*\)\"\$/\1/p" "$1" | head -n 1; }

# record_topology RECORD DIR: the topology file a run's record names
# (TOPOLOGY: data-aware runs, one file per partition and seed), or, when
# that path is gone (a folder moved, copied or committed), the file of
# the same name in DIR/topo; empty when the record names none.
record_topology() {
    _rt=$(record_value "$1" TOPOLOGY)
    [ -z "$_rt" ] || [ -f "$_rt" ] || _rt="$2/topo/$(basename "$_rt")"
    printf '%s\n' "$_rt"
}

# ---- writing records (sweep.sh, backfill-settings.sh) ----------------------
# The format of OUT/runs/NAME.settings and OUT/grid.env (see sweep.sh's
# header): KEY="value" lines. Identical bytes from both writers, so a sweep
# recognizes a backfilled run by its RUN_ID.

# global_settings: the sweep-wide settings that change results, one
# KEY="value" line each, from the caller's variables of those names.
global_settings() {
    for k in DATASET MODEL EPOCHS BATCH LR MOMENTUM DEGREE TOPO_SEED TRAIN_ARGS; do
        eval "v=\${$k}"
        printf '%s="%s"\n' "$k" "$v"
    done
}

# comm_label TRAIN_ARGS: issue 31's communication settings in TRAIN_ARGS
# as one word for legends, file and table names:
# "H16+K2+S100+nesterov-lr0.7-mom0.9" (--average-every, --global-every,
# --local-after, --outer); empty when TRAIN_ARGS has none of them.
comm_label() {
    echo " $1 " | awk '{ for (i = 1; i < NF; i++) {
            v = $(i + 1)
            if ($i == "--average-every") h = "H" v
            else if ($i == "--global-every") k = "K" v
            else if ($i == "--local-after") s = "S" v
            else if ($i == "--outer") { o = v; sub(":", "-lr", o); sub(",", "-mom", o) } }
        n = split(h " " k " " s " " o, w, " "); out = ""
        for (j = 1; j <= n; j++) if (w[j] != "") out = out (out == "" ? "" : "+") w[j]
        print out }'
}

# id_of: an 8-hex-digit id of stdin (POSIX cksum).
id_of() { cksum | awk '{ printf "%08x", $1 }'; }

# settings_record FILE NAME WORKERS SETTING PARTITION SEED TOPOLOGY_CKSUM
# [TOPOLOGY COUNTS]: writes FILE: global_settings, the caller's GLOBAL_ID,
# the run's own settings, then RUN_ID, the id of all the lines before it.
# With COUNTS (a data-aware topology's class-counts file, issue 22) the
# record also names the topology and the counts file and holds the
# counts' checksum (part of the identity); without, it is as before. The
# caller appends NP (not part of the identity) and renames FILE into place.
settings_record() {
    {
        global_settings
        printf 'GLOBAL_ID="%s"\nNAME="%s"\nWORKERS="%s"\nSETTING="%s"\n' \
            "$GLOBAL_ID" "$2" "$3" "$4"
        printf 'PARTITION="%s"\nSEED="%s"\nTOPOLOGY_CKSUM="%s"\n' "$5" "$6" "$7"
        if [ -n "${9:-}" ]; then
            printf 'TOPOLOGY="%s"\nCOUNTS="%s"\nCOUNTS_CKSUM="%s"\n' "$8" "$9" \
                "$(id_of < "$9")"
        fi
    } > "$1"
    printf 'RUN_ID="%s"\n' "$(id_of < "$1")" >> "$1"
}

# list_of DIR KEY: the sorted distinct values of KEY over DIR/*.settings,
# on one line separated by spaces.
list_of() {
    for f in "$1"/*.settings; do
        [ -f "$f" ] && sed -n "s/^$2=\"\(.*\)\"\$/\1/p" "$f"
    done | sort -u | sort -n | tr '\n' ' ' | sed 's/ $//'
}

# grid_env DIR NP: the body of grid.env for the runs recorded in DIR (a
# runs/ folder): global_settings, the caller's GLOBAL_ID, the union of
# the grid lists over DIR's records, and NP. On stdout.
grid_env() {
    global_settings
    printf 'GLOBAL_ID="%s"\n' "$GLOBAL_ID"
    printf 'WORKERS="%s"\n' "$(list_of "$1" WORKERS)"
    printf 'SETTINGS="%s"\n' "$(list_of "$1" SETTING)"
    printf 'PARTITIONS="%s"\n' "$(list_of "$1" PARTITION)"
    printf 'SEEDS="%s"\n' "$(list_of "$1" SEED)"
    printf 'NP="%s"\n' "$2"
}

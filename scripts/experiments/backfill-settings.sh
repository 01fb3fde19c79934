#!/bin/sh
# backfill-settings.sh: settings records (runs/NAME.settings) for runs made
# before sweep.sh kept them, reconstructed from the folder's grid.env and
# each run's name, and marked RECONSTRUCTED. Used once on data/results and
# data/results/long, today data/results/2025-sweep and its long/ (their grid.env described only the last invocation;
# the sweep-wide settings in it were the same for every run of the folder,
# as the run notes in data/results/README.md say). Rewrites DIR/grid.env
# in sweep.sh's format: the sweep-wide settings and the union of the grid
# over every run in DIR/runs.
#
#   scripts/experiments/backfill-settings.sh DIR [TRAIN_ARGS] [NOTE]
#
# A record that exists already is left alone. GLOBAL_ID and RUN_ID are
# computed as sweep.sh computes them, so a later sweep with the same
# settings into DIR recognizes the runs (it remakes them all the same,
# having no .done markers).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
script_help "$@"
. "$here/../lib/runs.sh" # global_settings, id_of, settings_record, grid_env
DIR=${1:?usage: backfill-settings.sh DIR [TRAIN_ARGS] [NOTE]}
TRAIN_ARGS=${2:-}
NOTE=${3:-"from grid.env and the run name by scripts/experiments/backfill-settings.sh"}
[ -f "$DIR/grid.env" ] || { echo "backfill: no $DIR/grid.env" >&2; exit 1; }
load_env "$DIR/grid.env"
TOPO_SEED=${TOPO_SEED:-1}
GLOBAL_ID=$(global_settings | id_of)
for csv in "$DIR"/runs/*.csv; do
    name=$(basename "$csv" .csv)
    rec="$DIR/runs/$name.settings"
    [ -f "$rec" ] && continue
    # NAME = n<workers>-<kind>-<weights>-<partition tag>-s<seed>
    n=$(echo "$name" | sed -n 's/^n\([0-9]*\)-.*/\1/p')
    kind=$(echo "$name" | cut -d- -f2); w=$(echo "$name" | cut -d- -f3)
    seed=$(echo "$name" | sed -n 's/.*-s\([0-9]*\)$/\1/p')
    part=$(echo "$name" | cut -d- -f4- | sed 's/-s[0-9]*$//; s/-/:/')
    [ -n "$n" ] && [ -n "$seed" ] || { echo "backfill: $name: not a sweep run name" >&2; exit 1; }
    topo="$DIR/topo/n$n-$kind-$w.txt"
    ck=""
    [ -f "$topo" ] && ck=$(id_of < "$topo")
    settings_record "$rec.tmp" "$name" "$n" "$kind:$w" "$part" "$seed" "$ck"
    printf 'NP="%s"\nRECONSTRUCTED="%s"\n' "${NP:-}" "$NOTE" >> "$rec.tmp"
    mv "$rec.tmp" "$rec"
done
{
    echo "# Sweep-wide settings of every run in runs/ and the union of their grid;"
    echo "# which seeds each setting has: runs/NAME.settings (RECONSTRUCTED: see there)."
    grid_env "$DIR/runs" "${NP:-}"
} > "$DIR/grid.env.tmp"
mv "$DIR/grid.env.tmp" "$DIR/grid.env"
echo "backfill: $(ls "$DIR"/runs/*.settings | wc -l) records in $DIR/runs, $DIR/grid.env rewritten"

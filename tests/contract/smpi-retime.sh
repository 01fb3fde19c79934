#!/bin/sh
# smpi-retime.sh: data/results-slow-network/smpi/ is what
# scripts/experiments/smpi-retime.py makes of the committed probes and
# runs: per-run.tsv, probes.tsv and table.md re-made in a copy of the
# folder (no figures, about a second) must equal the committed ones. A
# changed run, probe, pricing rule or table edited by hand fails it.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
S=$root/data/results-slow-network/smpi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for d in probes hosts64 hosts128 check64 full extra-runs; do
    [ ! -d "$S/$d" ] || cp -r "$S/$d" "$T/"
done
/usr/bin/python3 "$root/scripts/experiments/smpi-retime.py" --no-figures "$T" >/dev/null
for f in per-run.tsv probes.tsv table.md; do
    cmp -s "$S/$f" "$T/$f" || { echo "smpi-retime: $S/$f differs from what smpi-retime.py makes:" >&2; diff "$S/$f" "$T/$f" | head -20 >&2; exit 1; }
done
echo "smpi-retime: per-run.tsv, probes.tsv, table.md re-made from the committed probes and runs: equal"

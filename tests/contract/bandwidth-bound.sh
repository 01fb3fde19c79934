#!/bin/sh
# bandwidth-bound.sh: data/bandwidth-bound/n256/ (issue 45's 256-worker
# bandwidth-bound cell) is what scripts/experiments/bandwidth-bound.py
# makes of its committed runs, SMPI prices and compute time: pilot.tsv,
# per-run.tsv and table.md re-made in a copy of the folder (no figure,
# about a second) must equal the committed ones. A changed run, price,
# pricing rule or a table edited by hand fails it; so does a run whose
# communications are not the ones its schedule prices.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
S=$root/data/bandwidth-bound/n256
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for f in runs topo prices-cm02.tsv prices-lv08.tsv compute.txt targets.txt home256.xml; do
    cp -r "$S/$f" "$T/"
done
[ ! -d "$S/smpi" ] || cp -r "$S/smpi" "$T/"
/usr/bin/python3 "$root/scripts/experiments/bandwidth-bound.py" --no-figures "$T" >/dev/null
for f in pilot.tsv per-run.tsv table.md; do
    cmp -s "$S/$f" "$T/$f" || { echo "bandwidth-bound: $S/$f differs from what bandwidth-bound.py makes:" >&2; diff "$S/$f" "$T/$f" | head -20 >&2; exit 1; }
done
# a run whose schedule does not give its communications is refused
r=$(ls "$T"/runs/*.json | head -1)
python3 - "$r" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["result"]["communications"]
for k in ("gossip_rounds", "exact_averages", "gradient_allreduces"):
    if c.get(k):
        c[k] += 1
        break
else:
    c["gossip_rounds"] = 1
json.dump(j, open(sys.argv[1], "w"))
PY
if /usr/bin/python3 "$root/scripts/experiments/bandwidth-bound.py" --no-figures "$T" >"$T/out" 2>&1; then
    echo "bandwidth-bound: $(basename "$r") with one communication too many was priced" >&2
    exit 1
fi
grep -q "the schedule gives" "$T/out" || { echo "bandwidth-bound: a wrong count refused without saying why: $(cat "$T/out")" >&2; exit 1; }
echo "bandwidth-bound: pilot.tsv, per-run.tsv, table.md re-made from the committed runs and prices: equal"

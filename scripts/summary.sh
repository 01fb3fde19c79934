#!/bin/sh
# summary.sh: the markdown results table of a sweep (scripts/sweep.sh).
#
#   scripts/summary.sh [OUT]      writes OUT/summary.md and prints it
#   TARGETS="0.85 0.88" ...       the accuracy targets (fractions)
#
# One row per setting (workers, partition, topology, weights): the SLEM of
# the topology file, the final test accuracy of the average model (mean +-
# std over seeds), epochs and wall-clock seconds to reach each target (mean
# over the seeds that reached it; "-" when none did; "(k/S)" when only k of
# S seeds did), and the final consensus distance. A run counts when its
# settings record and a CSV that reached the recorded epochs are there
# (scripts/runs.sh), so it works on committed files such as data/results.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in -h|--help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0;; esac
. "$here/runs.sh"
OUT=${1:-${OUT:-$here/../results}}
TARGETS=${TARGETS:-"0.85 0.88"}
[ -d "$OUT/runs" ] || { echo "summary: no $OUT/runs (run scripts/sweep.sh first)" >&2; exit 1; }
runs=$(complete_runs "$OUT/runs")
settings=$(echo "$runs" | sed 's/-s[0-9][0-9]*$//' | sort -u | sort -s -t- -k1.2,1n -k4,4)
[ -n "$runs" ] || { echo "summary: no complete runs in $OUT/runs (a run needs NAME.settings and a CSV that reached its EPOCHS)" >&2; exit 1; }

tmp="$OUT/summary.md.tmp"
{
    printf '| workers | partition | topology | weights | SLEM | final acc (mean ± std) |'
    for t in $TARGETS; do printf ' epochs to %s | time to %s (s) |' "$t" "$t"; done
    printf ' final consensus | seeds |\n|---:|---|---|---|---:|---:|'
    for t in $TARGETS; do printf -- '---:|---:|'; done
    printf -- '---:|---:|\n'
    for set in $settings; do
        n=$(echo "$set" | cut -d- -f1 | sed 's/^n//')
        kind=$(echo "$set" | cut -d- -f2)
        w=$(echo "$set" | cut -d- -f3)
        part=$(echo "$set" | cut -d- -f4- | sed 's/-/:/')
        f="$OUT/topo/n$n-$kind-$w.txt"
        if [ "$kind" = allreduce ]; then
            slem="0 (exact)"; kind="all-reduce"; w="-"
        elif [ -f "$f" ]; then
            slem=$(sed -n 's/.*slem=\([0-9.eE+-]*\).*/\1/p' "$f" | head -n 1)
            # time-varying: the norm of the period's product instead
            [ -n "$slem" ] || slem=$(sed -n 's/.*product_norm=\([0-9.eE+-]*\).*/\1 (period product)/p' "$f" | head -n 1)
            [ -n "$slem" ] || slem="?"
        else
            slem="?"
        fi
        files=$(echo "$runs" | grep "^$set-s[0-9][0-9]*\$" | sed 's/$/.csv/')
        row=$(cd "$OUT/runs" && awk -F, -v targets="$TARGETS" '
            FNR == 1 { nf++; next }
            { last_acc[nf] = $5; last_cons[nf] = $7
              nt = split(targets, T, " ")
              for (k = 1; k <= nt; k++)
                  if (!((nf, k) in hit) && $5 + 0 >= T[k] + 0) {
                      hit[nf, k] = 1; ep[k] += $1; wall[k] += $3; cnt[k]++ } }
            END {
              s = s2 = c = 0
              for (f = 1; f <= nf; f++) { s += last_acc[f]; s2 += last_acc[f] ^ 2; c += last_cons[f] }
              m = s / nf; v = nf > 1 ? (s2 - nf * m * m) / (nf - 1) : 0
              out = sprintf("%.2f%% ± %.2f", 100 * m, 100 * sqrt(v > 0 ? v : 0))
              for (k = 1; k <= nt; k++) {
                  if (cnt[k] == 0) out = out " | - | -"
                  else {
                      sfx = cnt[k] < nf ? sprintf(" (%d/%d)", cnt[k], nf) : ""
                      out = out sprintf(" | %.2f%s | %.1f%s", ep[k] / cnt[k], sfx, wall[k] / cnt[k], sfx)
                  }
              }
              printf "%s | %.3g | %d", out, c / nf, nf
            }' $files)
        echo "| $n | $part | $kind | $w | $slem | $row |"
    done
} > "$tmp"
mv "$tmp" "$OUT/summary.md"
cat "$OUT/summary.md"

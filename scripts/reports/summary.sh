#!/bin/sh
# summary.sh: the markdown results table of a sweep (scripts/experiments/sweep.sh).
#
#   scripts/reports/summary.sh [--into DIR] [OUT]
#                                 writes OUT/summary.md (DIR/summary.md)
#                                 and prints it
#   TARGETS="0.85 0.88" ...       the accuracy targets (fractions)
#
# One row per setting (workers, partition, topology, weights): the SLEM of
# the topology file, the final test accuracy of the average model (mean +-
# std over seeds), the range of the mean accuracy over the last quarter of
# the run (issue 15's convergence test: under 0.2 points for all-reduce),
# epochs and wall-clock seconds to reach each target (mean over the seeds
# that reached it; "-" when none did; "(k/S)" when only k of S seeds did),
# and the final consensus distance. With OUT/modelled.tsv
# (scripts/reports/modelled.sh) the seconds are modelled, one figure per network
# preset ("datacenter / wan"), instead of measured on this machine. A run counts when its
# settings record and a CSV that reached the recorded epochs are there
# (scripts/lib/runs.sh), so it works on committed files such as data/results.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/common.sh"
script_help "$@"
INTO=""
if [ "${1:-}" = --into ]; then
    [ $# -ge 2 ] && [ -n "$2" ] || { echo "summary: --into needs a folder" >&2; exit 2; }
    INTO=$2
    shift 2
fi
case "${1:-}" in -*) echo "summary: unknown option '$1' (see --help)" >&2; exit 2;; esac
. "$here/../lib/runs.sh"
OUT=${1:-${OUT:-$TREE_OUT}}
INTO=${INTO:-$OUT}
out_check summary "$OUT"
out_check summary "$INTO"
mkdir -p "$INTO"
TARGETS=${TARGETS:-"0.85 0.88"}
[ -d "$OUT/runs" ] || { echo "summary: no $OUT/runs (run scripts/experiments/sweep.sh first)" >&2; exit 1; }
runs=$(complete_runs "$OUT/runs")
settings=$(echo "$runs" | sed 's/-s[0-9][0-9]*$//' | sort -u | sort -s -t- -k1.2,1n -k4,4)
[ -n "$runs" ] || { echo "summary: no complete runs in $OUT/runs (a run needs NAME.settings and a CSV that reached its EPOCHS)" >&2; exit 1; }

# modelled seconds per step (scripts/reports/modelled.sh): one column per target
# with the time on every preset instead of the measured seconds
nets=""
if [ -f "$OUT/modelled.tsv" ]; then
    nets=$(awk '!/^#/ && !seen[$2]++ { printf "%s%s", sep, $2; sep = " " }' "$OUT/modelled.tsv")
fi
tlabel="time to %s (s)"
[ -n "$nets" ] && tlabel="modelled s to %s ($(echo "$nets" | sed 's| | / |g'))"
# a sweep-wide --algorithm (results.sh's OUT/nN-d2) is named in the
# topology column: "learned + d2"
TRAIN_ARGS=""
if [ -f "$OUT/grid.env" ]; then load_env "$OUT/grid.env" TRAIN_ARGS || exit 1; fi
algo=$(echo "$TRAIN_ARGS" | sed -n 's/.*--algorithm[ =]\([a-z0-9]*\).*/\1/p')
[ "$algo" != dpsgd ] || algo=""
# issue 31's settings (runs.sh comm_label): "learned + d2+H16+nesterov-lr0.7-mom0.9"
cl=$(comm_label "$TRAIN_ARGS")
[ -z "$cl" ] || algo="${algo:+$algo+}$cl"
tmp="$INTO/summary.md.tmp"
conv="$(cd "$INTO" && pwd)/summary.conv.tmp"  # absolute: awk runs in OUT/runs
: > "$conv"
{
    printf '| workers | partition | topology | weights | SLEM | final acc (mean ± std) | last-quarter range |'
    for t in $TARGETS; do printf " epochs to %s | $tlabel |" "$t" "$t"; done
    printf ' final consensus | seeds |\n|---:|---|---|---|---:|---:|---:|'
    for t in $TARGETS; do printf -- '---:|---:|'; done
    printf -- '---:|---:|\n'
    for set in $settings; do
        n=$(echo "$set" | cut -d- -f1 | sed 's/^n//')
        kind=$(echo "$set" | cut -d- -f2)
        w=$(echo "$set" | cut -d- -f3)
        part=$(echo "$set" | cut -d- -f4- | sed 's/-/:/')
        f="$OUT/topo/n$n-$kind-$w.txt"
        if [ ! -f "$f" ]; then # data-aware: per seed, named in the record
            r=$(ls "$OUT/runs/$set"-s*.settings 2>/dev/null | head -n 1)
            [ -z "$r" ] || f=$(record_topology "$r" "$OUT")
        fi
        steps=""
        for net in $nets; do
            steps="$steps $(awk -v k="n$n-$kind-$w" -v net="$net" '!/^#/ && $1 == k && $2 == net { print $5; exit }' "$OUT/modelled.tsv")"
        done
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
        kind=$(echo "$kind" | tr _ -)  # one_peer_exp: the kind's name
        [ -z "$algo" ] || kind="$kind + $algo"
        files=$(echo "$runs" | grep "^$set-s[0-9][0-9]*\$" | sed 's/$/.csv/')
        row=$(cd "$OUT/runs" && awk -F, -v targets="$TARGETS" -v steps="$steps" \
                  -v tag="$n workers, $kind, $part" -v conv="$conv" '
            function secs(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
            # columns by the header'"'"'s names (a newer log may have more)
            FNR == 1 { nf++; r = 0; delete C; for (k = 1; k <= NF; k++) C[$k] = k
                       ca = C["test_acc"]; cc = C["consensus"]; cw = C["wall_s"]; cs = C["step"]; next }
            { r++; ep[r] = $1; A[r] += $ca; rows[nf] = r
              last_acc[nf] = $ca; last_cons[nf] = $cc
              nt = split(targets, T, " ")
              for (k = 1; k <= nt; k++)
                  if (!((nf, k) in hit) && $ca + 0 >= T[k] + 0) {
                      hit[nf, k] = 1; tep[k] += $1; wall[k] += $cw; st[k] += $cs; cnt[k]++ } }
            END {
              s = s2 = c = 0
              for (f = 1; f <= nf; f++) { s += last_acc[f]; s2 += last_acc[f] ^ 2; c += last_cons[f] }
              m = s / nf; v = nf > 1 ? (s2 - nf * m * m) / (nf - 1) : 0
              # one seed has no spread to give: said, not "± 0.00"
              out = nf > 1 ? sprintf("%.2f%% ± %.2f", 100 * m, 100 * sqrt(v > 0 ? v : 0)) \
                           : sprintf("%.2f%% (1 seed)", 100 * m)
              # the last quarter: from the last evaluation at or before
              # 3/4 of the run to its end, on the mean over seeds
              R = rows[1]; for (f = 2; f <= nf; f++) if (rows[f] < R) R = rows[f]
              E = ep[R]; start = ep[1]
              for (i = 1; i <= R; i++) if (ep[i] <= 0.75 * E) start = ep[i]
              lo = hi = ""
              for (i = 1; i <= R; i++) if (ep[i] >= start) {
                  a = A[i] / nf; if (lo == "" || a < lo) lo = a; if (hi == "" || a > hi) hi = a }
              out = out sprintf(" | %.2f (ep %g-%g)", 100 * (hi - lo), start, E)
              printf "%s, epochs %g-%g: %.2f points\n", tag, start, E, 100 * (hi - lo) >> conv
              ns = split(steps, SP, " ")
              for (k = 1; k <= nt; k++) {
                  if (cnt[k] == 0) out = out " | - | -"
                  else {
                      sfx = cnt[k] < nf ? sprintf(" (%d/%d)", cnt[k], nf) : ""
                      if (ns == 0) t = sprintf("%.1f", wall[k] / cnt[k])
                      else {
                          t = ""
                          for (j = 1; j <= ns; j++)
                              t = t (j > 1 ? " / " : "") (SP[j] == "" ? "?" : secs(st[k] / cnt[k] * SP[j]))
                      }
                      out = out sprintf(" | %.2f%s | %s%s", tep[k] / cnt[k], sfx, t, sfx)
                  }
              }
              printf "%s | %.3g | %d", out, c / nf, nf
            }' $files)
        echo "| $n | $part | $kind | $w | $slem | $row |"
    done
    echo
    echo "Last-quarter range: max - min of the mean test accuracy (points) from the last evaluation at or before 3/4 of the run to its end; issue 15 asks all-reduce to change by less than 0.2 points there."
    grep ' workers, all-reduce, ' "$conv" | sed 's/^/- /; s/$/./' || true
    if [ -n "$nets" ]; then
        echo
        echo "Modelled seconds: steps to the target (mean over the seeds that reached it) x the modelled seconds per step of OUT/modelled.tsv (scripts/reports/modelled.sh: measured compute + modelled communication, every worker on its own host)$(sed -n 's/^# allreduce priced as \([a-z-]*\) .*/; all-reduce priced as \1 (topogen eval --allreduce \1)/p' "$OUT/modelled.tsv" | head -n 1)."
    fi
} > "$tmp"
rm -f "$conv"
mv "$tmp" "$INTO/summary.md"
cat "$INTO/summary.md"

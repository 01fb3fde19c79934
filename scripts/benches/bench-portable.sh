#!/bin/sh
# bench-portable.sh: the search's speed, one build against another in the
# same run (issue 39: the fixed-order kernels of cm_dlin and the own
# dense eigensolver against OpenBLAS/LAPACK). For each n it runs the
# default learned search (`topogen -n N -d 4 --seed S --threads 1`) with
# OLD's and NEW's topogen, alternately, REPS times each, and prints the
# median CPU seconds (user + system: less sensitive than wall time to the
# other jobs of a shared machine) of each, their ratio new / old and both
# SLEMs (the graphs differ: the search's bits changed).
#
#   OLD=/tmp/old/bin NEW=bin sh scripts/benches/bench-portable.sh
#   NS="64 1024 4096" REPS=3 SEED=1 ITERS=    (ITERS: --iters, default the
#                                              search's own)
set -eu
OLD=${OLD:?set OLD to the directory of the old topogen}
NEW=${NEW:-bin}
NS=${NS:-"64 1024 4096"}
REPS=${REPS:-3}
SEED=${SEED:-1}
ITERS=${ITERS:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-portable.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export OPENBLAS_NUM_THREADS=1

# cpu BIN N: CPU seconds of one search, the file left in $T/out.txt
cpu() {
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S" -o "$T/time" "$1/topogen" -n "$2" -d 4 \
        --seed "$SEED" --threads 1 ${ITERS:+--iters $ITERS} -q \
        -o "$T/out.txt" >/dev/null
    awk '{ print $1 + $2 }' "$T/time"
}
median_of() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
slem() { sed -n 's/^# .* slem=\([0-9.]*\).*/\1/p' "$T/out.txt" | head -n 1; }

printf '%6s %10s %10s %8s %9s %9s\n' n old_cpu_s new_cpu_s new/old old_slem new_slem
for n in $NS; do
    : >"$T/old"
    : >"$T/new"
    for r in $(seq "$REPS"); do
        cpu "$OLD" "$n" >>"$T/old"
        so=$(slem)
        cpu "$NEW" "$n" >>"$T/new"
        sn=$(slem)
    done
    o=$(median_of <"$T/old")
    w=$(median_of <"$T/new")
    printf '%6s %10.2f %10.2f %8.2f %9s %9s\n' "$n" "$o" "$w" \
        "$(echo "$w $o" | awk '{ printf "%.2f", $1 / $2 }')" "$so" "$sn"
done

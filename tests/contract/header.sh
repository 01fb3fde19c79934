#!/bin/sh
# header_contract.sh: the topology file's header is read once, by the
# reader, with the graph (src/topo/cm_topo_header.h; issue 30), and the
# reader's refusals (issue 34).
#
#   BIN=bin sh tests/contract/header.sh  (make check-header)
#
# - strace -f -e trace=openat of a one-rank dpsgd-train --topology FILE
#   shows FILE opened once, with every consumer of the header at work:
#   --weights replacing the file's weights (a notice), a `# labels:` line
#   of another partition (a notice), --algorithm clique-avg (the
#   `# cliques:` line); so does `topogen eval` of an epidemic and of a
#   D-Cliques file;
# - a malformed `# cliques:` line, an epidemic header with local=2 or with
#   s=2 s=3 are bad files: exit 1 and one message naming file:line;
# - a file error reads `--topology: F:L: ...` once, and `topogen eval F
#   --labels C` names the counts file once.
# Prints one line per failure; exits non-zero on any. About 5 s.
set -u
BIN=${BIN:-bin}
T=$(mktemp -d "${TMPDIR:-/tmp}/header.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0
export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
syn="--dataset synthetic --synthetic-train 1024 --synthetic-test 64 --epochs 1 --quiet"

fail() {
    failed=$((failed + 1))
    echo "header: $1 FAILED: $2"
}

ok() {
    passed=$((passed + 1))
}

# bad CODE REGEX DESC CMD...: exit CODE, one stderr line matching REGEX.
bad() {
    code=$1
    pat=$2
    desc=$3
    shift 3
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" -ne "$code" ]; then
        fail "$desc" "exit $rc, expected $code: $(head -c 300 "$T/err")"
    elif ! grep -qE -- "$pat" "$T/err"; then
        fail "$desc" "message does not match /$pat/: $(head -c 300 "$T/err")"
    elif [ "$(wc -l <"$T/err")" -ne 1 ]; then
        fail "$desc" "not one message: $(head -c 300 "$T/err")"
    else
        ok
    fi
}

dt="$BIN/dpsgd-train"
tg="$BIN/topogen"
# (not $syn: its --epochs 1 with a second --epochs is refused, as every
# repeated value flag is)
"$dt" --write-partition "$T/lab16.txt" --workers 16 --partition shards:2 \
    --dataset synthetic --synthetic-train 1024 --synthetic-test 64 --quiet \
    --epochs 0 >/dev/null || fail setup "--write-partition"
"$tg" -n 16 --kind dcliques --labels "$T/lab16.txt" -q -o "$T/dc.txt" ||
    fail setup "topogen --kind dcliques"

# ---- one open --------------------------------------------------------------
if command -v strace >/dev/null 2>&1; then
    # partition iid: not the shards:2 the file was learned for (a notice)
    strace -f -e trace=openat -o "$T/trace" "$dt" --topology "$T/dc.txt" \
        --algorithm clique-avg --weights mh $syn >"$T/out" 2>"$T/err"
    rc=$?
    opens=$(grep -c "\"$T/dc.txt\"" "$T/trace")
    if [ "$rc" -ne 0 ]; then
        fail "one open" "dpsgd-train exit $rc: $(head -c 300 "$T/err")"
    elif [ "$opens" -ne 1 ]; then
        fail "one open" "$T/dc.txt opened $opens times"
    elif ! grep -q "notice: --weights mh replaces the weights in $T/dc.txt" "$T/err"; then
        fail "one open" "no --weights notice: $(head -c 300 "$T/err")"
    elif ! grep -q "notice: $T/dc.txt was learned for the partition" "$T/err"; then
        fail "one open" "no labels notice: $(head -c 300 "$T/err")"
    else
        ok
    fi
    # topogen eval: an epidemic file (no edges: its rounds are drawn) and a
    # D-Cliques file are read once too
    "$tg" -n 16 -d 3 --kind epidemic -q -o "$T/epi16.txt"
    for f in epi16 dc; do
        strace -f -e trace=openat -o "$T/trace" "$tg" eval "$T/$f.txt" \
            >"$T/out" 2>"$T/err"
        rc=$?
        opens=$(grep -c "\"$T/$f.txt\"" "$T/trace")
        if [ "$rc" -ne 0 ] || [ "$opens" -ne 1 ]; then
            fail "eval one open" "$f: exit $rc, opened $opens times: $(head -c 300 "$T/err")"
        else
            ok
        fi
    done
else
    fail "one open" "strace is not installed (apt-get install strace)"
fi

# ---- the reader's refusals ----------------------------------------------------
sed 's/^# cliques: [0-9]*/# cliques: x/' "$T/dc.txt" >"$T/cl-bad.txt"
bad 1 "^dpsgd-train: --topology: $T/cl-bad.txt:4: malformed .# cliques:. line" \
    "malformed cliques line" "$dt" --topology "$T/cl-bad.txt" \
    --algorithm clique-avg $syn
sed 's/^# cliques: \(.*\)$/# cliques: \1 0/' "$T/dc.txt" >"$T/cl-long.txt"
bad 1 "cl-long.txt:4: the .# cliques:. line has 17 ids for 16 nodes" \
    "cliques line too long" "$dt" --topology "$T/cl-long.txt" $syn
"$tg" -n 16 -d 3 --kind random -q -o "$T/r16.txt"
bad 2 "r16.txt has no .# cliques:. line" "clique-avg on a file without cliques" \
    "$dt" --topology "$T/r16.txt" --algorithm clique-avg $syn
printf '# directed=1 n=4 kind=epidemic s=2 local=2\n' >"$T/epi-local2.txt"
bad 1 "^dpsgd-train: --topology: $T/epi-local2.txt:1: bad local=" \
    "epidemic local=2" "$dt" --topology "$T/epi-local2.txt" $syn
printf '# directed=1 n=4 kind=epidemic s=2 s=3\n' >"$T/epi-s23.txt"
bad 1 "epi-s23.txt:1: s= given twice with different values" \
    "epidemic s=2 s=3" "$dt" --topology "$T/epi-s23.txt" $syn
printf '# n=4 kind=epidemic s=2 local=1 epidemic=oracle\n' >"$T/epi-mix.txt"
bad 1 "epi-mix.txt:1: local= \(or epidemic=\) given twice" \
    "epidemic local=1 epidemic=oracle" "$dt" --topology "$T/epi-mix.txt" $syn
printf '# n=4 s=x local=7\n0 1\n1 2\n2 3\n3 0\n' >"$T/not-epi.txt"
"$tg" eval "$T/not-epi.txt" >/dev/null 2>"$T/err" && ok ||
    fail "s=, local= outside an epidemic header" "refused: $(head -c 300 "$T/err")"

# ---- one prefix ----------------------------------------------------------------
printf '# n=4\n0 1\n1 x\n' >"$T/bad-id.txt"
bad 1 "^dpsgd-train: --topology: $T/bad-id.txt:3: node id" \
    "--topology prefix once" "$dt" --topology "$T/bad-id.txt" $syn
printf '# counts\n1 2 x\n' >"$T/bad-lab.txt"
bad 1 "^topogen: --labels: $T/bad-lab.txt:2: " "--labels names the file once" \
    "$tg" eval "$T/dc.txt" --labels "$T/bad-lab.txt"
bad 1 "^topogen: --labels $T/lab16.txt: the topology has 4 nodes, the counts file 16 workers$" \
    "--labels: size mismatch names the file once" \
    "$tg" eval "$T/not-epi.txt" --weights mh --labels "$T/lab16.txt"

echo "header: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

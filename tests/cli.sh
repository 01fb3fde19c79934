#!/bin/sh
# cli.sh: end-to-end tests of the two command lines: exit codes, the one
# message naming the flag or file at fault, no output file left behind on
# failure, and the output formats other tools rely on.
#
#   BIN=bin sh tests/cli.sh          (make check-cli)
#
# Each area adds a function of numbered cases (topogen_cases, train_cases,
# ...) and calls it at the bottom. Prints one line per failure and a final
# line `cli: N passed, M failed`; exits non-zero on any failure.
set -u
BIN=${BIN:-bin}
T=$(mktemp -d "${TMPDIR:-/tmp}/cli.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0
case_no=0

fail() {
    failed=$((failed + 1))
    echo "cli: case $case_no FAILED: $*"
}

# run CMD...: runs it with stdout in $T/out, stderr in $T/err; sets rc.
run() {
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
}

# expect_ok DESC CMD...: exit 0.
expect_ok() {
    case_no=$((case_no + 1))
    desc=$1
    shift
    run "$@"
    if [ "$rc" -ne 0 ]; then
        fail "$desc: exit $rc, expected 0: $(head -c 300 "$T/err")"
        return 1
    fi
    passed=$((passed + 1))
}

# expect_fail CODE REGEX DESC CMD...: exit CODE, stderr matches REGEX
# (grep -E), at most two lines (the message and a usage hint), nothing on
# stdout.
expect_fail() {
    case_no=$((case_no + 1))
    code=$1
    pat=$2
    desc=$3
    shift 3
    run "$@"
    if [ "$rc" -ne "$code" ]; then
        fail "$desc: exit $rc, expected $code: $(head -c 300 "$T/err")"
    elif ! grep -qE -- "$pat" "$T/err"; then
        fail "$desc: message does not match /$pat/: $(head -c 300 "$T/err")"
    elif [ "$(wc -l <"$T/err")" -gt 2 ]; then
        fail "$desc: more than one message: $(head -c 300 "$T/err")"
    elif [ -s "$T/out" ]; then
        fail "$desc: wrote to stdout on failure"
    else
        passed=$((passed + 1))
    fi
}

# check COND DESC: a plain assertion counted as a case.
check() {
    case_no=$((case_no + 1))
    if eval "$1"; then
        passed=$((passed + 1))
    else
        fail "$2"
    fi
}

topogen_cases() {
    tg="$BIN/topogen"
    g="$T/g16.txt"

    expect_ok "--help" "$tg" --help
    check 'grep -q "^usage: topogen" "$T/out"' "--help prints usage"
    check '! awk "length(\$0) > 79 { bad = 1 } END { exit !bad }" "$T/out" && grep -q -- "--format FMT" "$T/out"' \
        "--help: every flag from the table, lines within 79 columns"

    expect_ok "learn n=16" "$tg" -n 16 -d 4 --quiet -o "$g"
    check 'sed -n 1p "$g" | grep -qx "# topogen 2 n=16 d=4 kind=learned objective=ratio weights=laplacian seed=1 version=[0-9.]*"' \
        "header line 1 format: $(sed -n 1p "$g")"
    check 'sed -n 2p "$g" | grep -qE "^# settings: -n 16 -d 4 --kind learned --weights laplacian --objective ratio --init random --seed 1 --iters [0-9]+ --restarts [0-9]+ --candidates [0-9]+ --eigensolver (dense|sparse) --t0 [0-9.e+-]+ --t1 [0-9.e+-]+ --format edgelist$"' \
        "header line 2 format: $(sed -n 2p "$g")"
    check 'sed -n 3p "$g" | grep -qE "^# lambda2=[0-9]+\.[0-9]{4} lambdan=[0-9]+\.[0-9]{4} slem=0\.[0-9]{4}$"' \
        "header line 3 format: $(sed -n 3p "$g")"
    check '[ "$(grep -c "^[0-9]" "$g")" -eq 32 ] && ! awk "/^[0-9]/ && \$1 == \$2 { bad = 1 } END { exit !bad }" "$g"' \
        "32 edge lines, no self-loop lines"
    # the settings line re-creates the file byte for byte
    expect_ok "re-run the header's settings" "$tg" $(sed -n 's/^# settings: //p' "$g") -q -o "$T/g16b.txt"
    check 'cmp -s "$g" "$T/g16b.txt"' "settings in the header reproduce the file"
    # moves of several swaps (issue 26): recorded in the settings, which
    # re-create the file; the summary counts the swaps (2 restarts)
    expect_ok "learned, --swaps 4" "$tg" -n 300 -d 4 --iters 120 --candidates 64 --swaps 4 -o "$T/sw.txt"
    check 'sed -n 2p "$T/sw.txt" | grep -q -- "--candidates 64 --swaps 4 --eigensolver sparse"' \
        "--swaps in the settings: $(sed -n 2p "$T/sw.txt")"
    check 'grep -qE "240 moves \([0-9]+ swaps accepted\)" "$T/err"' "summary counts swaps: $(tail -n 1 "$T/err")"
    expect_ok "re-run --swaps settings" "$tg" $(sed -n 's/^# settings: //p' "$T/sw.txt") -q -o "$T/sw2.txt"
    check 'cmp -s "$T/sw.txt" "$T/sw2.txt"' "--swaps settings reproduce the file"
    expect_ok "random, --flag=value" "$tg" --kind=random -n=20 -d=3 --seed=9 --weights=mh -q -o "$T/r20.txt"
    expect_ok "re-run random" "$tg" $(sed -n 's/^# settings: //p' "$T/r20.txt") -q -o "$T/r20b.txt"
    check 'cmp -s "$T/r20.txt" "$T/r20b.txt"' "settings reproduce a random graph"
    expect_ok "random, other seed" "$tg" --kind random -n 20 -d 3 --seed 10 --weights mh -q -o "$T/r20c.txt"
    check '! cmp -s "$T/r20.txt" "$T/r20c.txt"' "another seed, another random graph"
    check '[ -z "$(ls "$T" | grep "\.tmp\.")" ]' "no temporary file left"
    expect_ok "eval learned" "$tg" eval "$g"
    check 'grep -qE "^diameter +[0-9]+$" "$T/out" && grep -qE "^rounds_1e-3 +[0-9.]+" "$T/out"' \
        "eval prints diameter and rounds"
    expect_ok "eval --json" "$tg" eval "$g" --json
    check 'grep -qE "^\{\"file\":.*\"n\":16,\"edges\":32,.*\"lambda2\":[0-9.]+,\"lambdan\":[0-9.]+,\"slem\":0\.[0-9]+.*\}$" "$T/out"' \
        "eval --json object: $(head -c 200 "$T/out")"

    expect_ok "same seed (1)" "$tg" -n 24 -d 3 --iters 400 --seed 5 -q -o "$T/a.txt"
    expect_ok "same seed (2)" "$tg" -n 24 -d 3 --iters 400 --seed 5 -q -o "$T/b.txt"
    check 'cmp -s "$T/a.txt" "$T/b.txt"' "same seed gives the same file"
    expect_ok "stdout" "$tg" -n 12 -d 4 --iters 200 -q
    check 'cmp -s "$T/out" "$T/out" && grep -q "^# topogen 2 n=12" "$T/out"' "default output is stdout"
    expect_ok "progress" "$tg" -n 12 -d 4 --iters 200
    check 'grep -q "^topogen: n=12 d=4" "$T/err"' "summary on stderr without --quiet"
    check 'grep -q "dense eigensolver" "$T/err"' "summary says which eigensolver ran (n=12: dense)"
    expect_ok "sparse path" "$tg" -n 120 -d 4 --iters 300 -o "$T/sp.txt"
    check 'grep -q "sparse eigensolver, 2 threads" "$T/err"' \
        "n=120: sparse eigensolver, 2 threads: $(tail -n 1 "$T/err")"
    expect_ok "threads 1" "$tg" -n 120 -d 4 --iters 300 --threads 1 -q -o "$T/sp1.txt"
    check 'cmp -s "$T/sp.txt" "$T/sp1.txt"' "same file with 1 and 2 threads"

    # SIGINT in a long search: the best graph so far is written, its header
    # says interrupted=1, the exit status is 128 + 2, and the file is valid
    case_no=$((case_no + 1))
    "$tg" -n 200 -d 4 --iters 100000000 -o "$T/int.txt" 2>"$T/int.err" &
    pid=$!
    sleep 2
    kill -INT "$pid"
    wait "$pid"
    rc=$?
    if [ "$rc" -eq 130 ] && grep -q "interrupted by signal 2" "$T/int.err"; then
        passed=$((passed + 1))
    else
        fail "SIGINT: exit $rc, expected 130: $(head -c 300 "$T/int.err")"
    fi
    check 'sed -n 1p "$T/int.txt" | grep -q " interrupted=1$"' "interrupted header: $(sed -n 1p "$T/int.txt")"
    check 'grep -q "^topogen: .*% 2 restarts ([012] running) moves [0-9]*/[0-9]* .* left$" "$T/int.err"' \
        "progress lines (not a terminal: plain lines) with the time left: $(head -n 1 "$T/int.err")"
    expect_ok "eval interrupted file" "$tg" eval "$T/int.txt"
    check 'grep -qE "^degree +min 4 max 4$" "$T/out"' "interrupted file is 4-regular"

    for k in ring rrl torus hypercube exponential random complete; do
        dflag="-d 4"; [ "$k" = exponential ] && dflag="" # its degree is 7
        expect_ok "kind $k" "$tg" -n 16 $dflag --kind "$k" --weights mh -q -o "$T/$k.txt"
        expect_ok "eval $k" "$tg" eval "$T/$k.txt" --json
    done
    printf '0 1\n1 2\n2 3\n3 0\n0 2\n' >"$T/nx.txt"
    expect_ok "eval plain edge list" "$tg" eval "$T/nx.txt" --weights maxdeg
    check 'grep -q "^weights *maxdeg" "$T/out"' "unweighted file gets --weights"
    expect_ok "eval stdin" sh -c "cat '$T/nx.txt' | '$tg' eval -"

    expect_ok "simulate" "$tg" eval "$g" --simulate 5 --seed 3
    check '[ "$(sed -n 1p "$T/out")" = "# round disagreement slem_bound" ]' "simulate header"
    check '[ "$(grep -vc "^#" "$T/out")" -eq 6 ] && grep -q "^0 1 1$" "$T/out"' "simulate rows 0..5"
    check 'grep -v "^#" "$T/out" | awk "NF != 3 || \$2 > \$3 * (1 + 1e-6) + 1e-12 { bad = 1 } END { exit bad }"' \
        "simulate: 3 columns, disagreement <= slem^t"

    # formats: every graph tool reads them (networkx and python-igraph
    # check degrees, weights and the SLEM they imply)
    for f in edgelist ncol graphml gml; do
        expect_ok "write $f" "$tg" -n 30 -d 3 --kind random --format "$f" -q -o "$T/r30.$f"
        expect_ok "eval $f" "$tg" eval "$T/r30.$f" --json
        check 'grep -q "\"format\":\"$( [ $f = ncol ] && echo edgelist || echo $f)\"" "$T/out"' "eval detects $f"
        s30=$(sed 's/.*"slem":\([^,]*\),.*/\1/' "$T/out")
        expect_ok "networkx and igraph read $f" /usr/bin/python3 tests/read_topo.py "$f" "$T/r30.$f" 3 "$s30"
    done
    check '! grep -q "^#" "$T/r30.ncol"' "ncol has no comment lines"
    expect_ok "learned file read by networkx and igraph" /usr/bin/python3 tests/read_topo.py edgelist "$g" 4 \
        "$("$tg" eval "$g" --json | sed 's/.*"slem":\([^,]*\),.*/\1/')"
    # explicit self-weight lines (older files) read the same; SLEM 0 takes 1 round
    printf '0 0 0.5\n1 1 0.5\n0 1 0.5\n' >"$T/self.txt"
    printf '0 1 0.5\n' >"$T/noself.txt"
    expect_ok "eval explicit self weights" "$tg" eval "$T/self.txt"
    cp "$T/out" "$T/self.out"
    expect_ok "eval implied self weights" "$tg" eval "$T/noself.txt"
    check '[ "$(sed 1d "$T/out")" = "$(sed 1d "$T/self.out")" ] && grep -qE "^slem +0\.000000 " "$T/out" && grep -qE "^rounds_1e-3 +1 " "$T/out"' \
        "same figures with and without self lines; SLEM 0: 1 round"
    for k in ring complete; do
        expect_ok "$k on 2 nodes" "$tg" --kind "$k" -n 2 -q -o "$T/two-$k.txt"
        check '[ "$(grep -c "^0 1 " "$T/two-$k.txt")" -eq 1 ]' "$k n=2: one edge"
    done
    # 1-based edge lists: detected with a notice, or forced
    printf '1 2\n2 3\n3 1\n' >"$T/one.txt"
    expect_ok "eval 1-based (detected)" "$tg" eval "$T/one.txt"
    check 'grep -q "notice: .*one.txt has no node 0" "$T/err" && grep -qE "^n +3$" "$T/out"' "1-based detected with a notice"
    expect_ok "eval --one-based" "$tg" eval "$T/one.txt" --one-based
    check '[ ! -s "$T/err" ] && grep -qE "^n +3$" "$T/out"' "--one-based: no notice"
    printf '# n=1\n' >"$T/n1.txt"
    expect_ok "eval a one-node file" "$tg" eval "$T/n1.txt"
    check 'grep -qE "^n +1$" "$T/out"' "one node"
    printf '0 1\n1 2\n2 0\n' >"$T/tri.txt"
    expect_ok "eval --weights on a weighted file" "$tg" eval "$T/self.txt" --weights mh
    check 'grep -q "notice: --weights mh replaces the weights" "$T/err"' "overriding weights says so"
    expect_ok "GraphML with settings" "$tg" -n 20 -d 3 --iters 300 --format graphml -q -o "$T/g20.graphml"
    expect_ok "re-run GraphML settings" "$tg" $(sed -n 's:.*<data key="settings">\(.*\)</data>:\1:p' "$T/g20.graphml") -q -o "$T/g20b.graphml"
    check 'cmp -s "$T/g20.graphml" "$T/g20b.graphml"' "GraphML graph attributes reproduce the file"
    expect_ok "ring of 1000, mh" "$tg" --kind ring -n 1000 --weights mh -q -o "$T/ring1000.txt"
    expect_ok "eval SLEM near 1" "$tg" eval "$T/ring1000.txt"
    check 'grep -qE "^slem +0\.9999868 " "$T/out"' "SLEM near 1 printed with enough digits: $(grep ^slem "$T/out")"
    expect_ok "--version" "$tg" --version
    check 'grep -qE "^topogen [0-9]+\.[0-9]+$" "$T/out"' "version printed"

    o="$T/none.txt"
    expect_fail 2 "^topogen: --format: unknown format 'dot'" "bad format" "$tg" --format dot -o "$o"
    expect_fail 2 "^topogen: --quiet: takes no value" "flag with =value" "$tg" --quiet=1 -o "$o"
    expect_fail 2 "^topogen: --one-based: only 'topogen eval FILE' takes it" "eval flag in generate" "$tg" --one-based -o "$o"
    printf '<graphml><graph><node id="a"/><edge source="a" target="b"/></graph></graphml>\n' >"$T/bad.graphml"
    expect_fail 1 "^topogen: .*bad.graphml:1: edge names an undeclared node 'b'" "graphml: undeclared node" "$tg" eval "$T/bad.graphml"
    printf 'graph [\n node [ id 0 ]\n edge [ source 0 ]\n]\n' >"$T/bad.gml"
    expect_fail 1 "^topogen: .*bad.gml:3: GML: edge without integer source and target" "gml: edge without target" "$tg" eval "$T/bad.gml"
    printf 'a b\nb c\n' >"$T/names.txt"
    expect_fail 1 "^topogen: .*names.txt: no .graph \[ node .* edge lists need integer node ids" "named nodes" "$tg" eval "$T/names.txt"
    expect_fail 2 "^topogen: -n: expected a positive integer" "-n abc" "$tg" -n abc -o "$o"
    expect_fail 2 "^topogen: -n: expected a positive integer" "-n -3" "$tg" -n -3 -o "$o"
    expect_fail 2 "^topogen: -n: expected a positive integer" "-n 0" "$tg" -n 0 -o "$o"
    expect_fail 2 "^topogen: -d: expected a positive integer" "-d 4x" "$tg" -d 4x -o "$o"
    expect_fail 2 "^topogen: -n/-d: n\*d = 9\*3 is odd" "n*d odd" "$tg" -n 9 -d 3 -o "$o"
    expect_fail 2 "^topogen: -d: degree 16 must be below" "d >= n" "$tg" -n 16 -d 16 -o "$o"
    expect_fail 2 "^topogen: --kind: unknown kind 'star'" "bad kind" "$tg" --kind star -o "$o"
    expect_fail 2 "^topogen: --weights: unknown weight rule 'uniform'" "bad weights" "$tg" --weights uniform -o "$o"
    expect_fail 2 "^topogen: --objective: unknown objective" "bad objective" "$tg" --objective speed -o "$o"
    expect_fail 2 "^topogen: --init: unknown start" "bad init" "$tg" --init ring -o "$o"
    expect_fail 2 "^topogen: -n: a hypercube needs n a power of two" "hypercube 24" "$tg" --kind hypercube -n 24 -o "$o"
    expect_fail 2 "^topogen: -n: a torus needs n = a\*b with a, b >= 3" "torus 13" "$tg" --kind torus -n 13 -o "$o"
    expect_fail 2 "^topogen: -n: missing value" "missing value" "$tg" -o "$o" -n
    expect_fail 2 "^topogen: unknown flag '--frobnicate'" "unknown flag" "$tg" --frobnicate -o "$o"
    expect_fail 2 "^topogen: unknown flag '--seeed' \\(did you mean '--seed'\\?\\)" "near-miss flag" "$tg" --seeed 3 -o "$o"
    expect_fail 2 "^topogen: --time-limit: expected a positive number" "time 0" "$tg" --time-limit 0 -o "$o"
    expect_fail 2 "^topogen: --iters: expected a positive integer" "iters 1e3" "$tg" --iters 1e3 -o "$o"
    expect_fail 2 "^topogen: --restarts: expected a positive integer" "restarts 0" "$tg" --restarts 0 -o "$o"
    expect_fail 2 "^topogen: --seed: expected a non-negative integer" "seed x" "$tg" --seed x -o "$o"
    expect_fail 2 "^topogen: --eigensolver: unknown solver 'qr'" "bad eigensolver" "$tg" --eigensolver qr -o "$o"
    expect_fail 2 "^topogen: --threads: expected a positive integer" "threads 0" "$tg" --threads 0 -o "$o"
    expect_fail 2 "^topogen: --threads: at most 64" "threads 65" "$tg" --threads 65 -o "$o"
    # issue 26: learned to 65,536 nodes, on the sparse path only
    expect_fail 2 "^topogen: --swaps: at most 64" "swaps 65" "$tg" --swaps 65 -o "$o"
    expect_fail 2 "^topogen: --swaps: expected a positive integer" "swaps 0" "$tg" --swaps 0 -o "$o"
    expect_fail 2 "^topogen: -n: 70000 nodes is too many to learn \\(at most 65536" "learned 70000" "$tg" -n 70000 -o "$o"
    expect_fail 2 "^topogen: -n: 5000 nodes: above 4096 nodes topogen learns only with the sparse eigensolver" "learned neff 5000" "$tg" -n 5000 --objective neff -o "$o"
    expect_fail 2 "^topogen: -n: 5000 nodes: above 4096 nodes" "learned dense 5000" "$tg" -n 5000 --eigensolver dense -o "$o"
    expect_fail 2 "^topogen: -n: 5000 nodes: --directed learns at most 4096" "directed 5000" "$tg" -n 5000 --directed -o "$o"
    check '[ ! -e "$o" ]' "no output file after bad flags"
    # issue 10 item 11: outputs follow the umask like open(..., 0666), a
    # replaced file keeps its mode, and a failed write names its cause
    # (ulimit -f: a full disk without root; EFBIG "File too large")
    m="$T/mode.txt"
    expect_ok "-o under umask 027" sh -c "umask 027 && exec '$BIN/topogen' -n 16 -d 4 --iters 50 -q -o '$m'"
    check '[ "$(stat -c %a "$m")" = 640 ]' "new file follows umask 027: mode $(stat -c %a "$m")"
    chmod 644 "$m"
    expect_ok "-o replacing under umask 077" sh -c "umask 077 && exec '$BIN/topogen' -n 16 -d 4 --iters 50 -q -o '$m'"
    check '[ "$(stat -c %a "$m")" = 644 ]' "replaced file keeps mode 644: $(stat -c %a "$m")"
    expect_fail 1 "^topogen: cannot write $T/fsize.txt: File too large" "write past the file-size limit" \
        sh -c "trap '' XFSZ; ulimit -f 2; exec '$BIN/topogen' -n 64 -d 4 --iters 50 -q -o '$T/fsize.txt'"
    check '[ ! -e "$T/fsize.txt" ] && [ -z "$(ls "$T" | grep "\.tmp\.")" ]' "nothing left after a failed write"
    expect_fail 1 "^topogen: -o: .*/no/such/dir/g.txt" "unwritable -o" "$tg" -n 16 -o "$T/no/such/dir/g.txt"
    expect_fail 2 "^topogen: --simulate: cannot be combined with --json" "simulate+json" "$tg" eval "$g" --json --simulate 3
    expect_fail 2 "^topogen: eval: missing FILE" "eval without file" "$tg" eval
    expect_fail 2 "^topogen: -n: not a flag of 'topogen eval'" "eval -n" "$tg" eval "$g" -n 3
    expect_fail 2 "^topogen: --simulate: expected a positive integer" "simulate -1" "$tg" eval "$g" --simulate -1
    expect_fail 1 "^topogen: .*$T/missing.txt" "eval missing file" "$tg" eval "$T/missing.txt"
    expect_fail 2 "^topogen: --simulate: at most 10000000 " "simulate huge" "$tg" eval "$g" --simulate 99999999999
    awk 'BEGIN { for (i = 0; i < 5000; i++) print i, (i + 1) % 5000 }' >"$T/big.txt"
    # above the dense limit the sparse solver runs; a 5000-node ring's
    # spectrum (lambda2/lambdan ~ 4e-7) needs shift-and-invert: in seconds
    expect_ok "eval of a large ring" "$tg" eval "$T/big.txt"
    check 'grep -qE "^lambda2 +1\.579136e-06$" "$T/out" && grep -qE "^lambdan +4\.000000$" "$T/out"' \
        "large ring: lambda2 = 4 sin^2(pi/5000), lambdan = 4"
    printf '0 1\n1 x\n' >"$T/bad.txt"
    expect_fail 1 "^topogen: .*bad.txt.*(line )?2" "eval malformed file" "$tg" eval "$T/bad.txt"
    printf '0 1\n2 3\n' >"$T/disc.txt"
    expect_ok "eval disconnected" "$tg" eval "$T/disc.txt"
    check 'grep -qE "^components +2 " "$T/out" && grep -qE "^slem +1\.000000 " "$T/out" && grep -qE "^rounds_1e-3 +inf" "$T/out" && grep -qE "^lambda2 +0\.000000$" "$T/out"' \
        "disconnected: 2 components, lambda2 0, SLEM 1, rounds inf"
    printf '0 0 0.5\n0 1 0.5\n1 1 0.6\n' >"$T/rows.txt"
    expect_fail 1 "^topogen: .*rows.txt.*row 1" "eval rows not summing to 1" "$tg" eval "$T/rows.txt"
}

# dpsgd-train initializes MPI even as a single worker, and Open MPI leaves
# allocations at exit (in plugins it has unloaded, so no suppression can
# name them): no leak report for it here. The same trainer runs
# leak-checked without MPI in check_unit (tests/check_train.c).
dt_run() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        "$BIN/dpsgd-train" "$@"
}

train_cases() {
    dt=dt_run
    l="$T/train.csv"
    syn="--dataset synthetic --synthetic-train 256 --synthetic-test 64"

    expect_ok "dpsgd-train --help" "$dt" --help
    check 'grep -q -- "--weight-decay" "$T/out"' "--help lists the flags"
    # bad flags: exit 2, one message naming the flag, no log written
    expect_fail 2 "^dpsgd-train: --batch" "--batch 0" "$dt" --batch 0 --log "$l"
    expect_fail 2 "^dpsgd-train: --epochs" "--epochs 0" "$dt" --epochs 0 --log "$l"
    expect_fail 2 "^dpsgd-train: --epochs" "--epochs -1" "$dt" --epochs -1 --log "$l"
    expect_fail 2 "^dpsgd-train: --lr" "--lr -0.1" "$dt" --lr -0.1 --log "$l"
    expect_fail 2 "^dpsgd-train: --model.*resnet" "unknown model" "$dt" --model resnet --log "$l"
    expect_fail 2 "^dpsgd-train: --dataset.*imagenet" "unknown data set" "$dt" --dataset imagenet --log "$l"
    expect_fail 2 "^dpsgd-train: unknown flag '--bogus'" "unknown flag" "$dt" --bogus
    expect_fail 2 "^dpsgd-train: --epochs: missing value" "missing value" "$dt" --epochs
    expect_fail 2 "^dpsgd-train: unknown flag '--epoch' \\(did you mean '--epochs'\\?\\)" "near-miss flag" "$dt" --epoch 3
    expect_fail 2 "^dpsgd-train: --quiet: takes no value" "switch with a value" "$dt" -q=1
    run "$dt" --version
    check '[ "$rc" -eq 0 ] && grep -qE "^dpsgd-train [0-9]" "$T/out"' "dpsgd-train --version"
    check '[ ! -e "$l" ]' "no log after bad flags"
    # bad data: exit 1, message naming the directory or file, no log
    expect_fail 1 "^dpsgd-train: .*$T/none" "missing data dir" "$dt" --data "$T/none" --log "$l"
    mkdir -p "$T/fm"
    expect_fail 1 "^dpsgd-train: .*$T/fm/train-images-idx3-ubyte" "missing data file" "$dt" --data "$T/fm" --log "$l"
    printf 'not an idx file at all, really' | gzip >"$T/fm/train-images-idx3-ubyte.gz"
    printf '\000\000\010\001\000\000\000\001\001' >"$T/fm/train-labels-idx1-ubyte"
    expect_fail 1 "^dpsgd-train: .*train-images-idx3-ubyte.gz.*magic" "wrong magic" "$dt" --data "$T/fm" --log "$l"
    printf '\000\000\010\003\000\000\000\002\000\000\000\034\000\000\000\034' >"$T/fm/hdr"
    cat "$T/fm/hdr" "$T/fm/hdr" "$T/fm/hdr" | gzip >"$T/fm/train-images-idx3-ubyte.gz"
    expect_fail 1 "^dpsgd-train: .*train-labels-idx1-ubyte.*1 labels" "count mismatch" "$dt" --data "$T/fm" --log "$l"
    printf '\000\000\010\001\000\000\000\002\001\002' >"$T/fm/train-labels-idx1-ubyte"
    expect_fail 1 "^dpsgd-train: .*train-images-idx3-ubyte.gz.*truncated" "truncated images" "$dt" --data "$T/fm" --log "$l"
    head -c 40 "$T/fm/train-images-idx3-ubyte.gz" >"$T/fm/x.gz"
    printf 'garbage-garbage-garbage-garbage' >>"$T/fm/x.gz"
    mv "$T/fm/x.gz" "$T/fm/train-images-idx3-ubyte.gz"
    expect_fail 1 "^dpsgd-train: .*train-images-idx3-ubyte.gz.*(gzip|truncated)" "corrupt gzip" "$dt" --data "$T/fm" --log "$l"
    expect_fail 1 "^dpsgd-train: .*$T/nodir/x.csv" "unwritable log" "$dt" $syn --log "$T/nodir/x.csv"
    check '[ ! -e "$l" ]' "no log after bad data"
    expect_fail 1 "^dpsgd-train: training diverged at epoch 1 \\(step [0-9]+\\): the training loss is NaN" \
        "--lr 100 diverges" "$dt" $syn --lr 100 --epochs 2 --log "$l"
    # a tiny synthetic run: progress lines, final line, a complete CSV
    expect_ok "synthetic run" "$dt" $syn --epochs 2 --log "$l"
    check '[ "$(grep -c "^epoch " "$T/out")" -eq 2 ]' "one progress line per epoch"
    check 'head -1 "$l" | grep -qx "epoch,step,wall_s,train_loss,test_acc,test_acc_local_mean,consensus,bytes_sent,lr,test_loss,train_loss_global"' "CSV header"
    check '[ "$(wc -l <"$l")" -eq 3 ] && awk -F, "NR > 1 && (NF != 11 || \$5 < 0 || \$5 > 1 || \$7 != 0 || \$8 != 0 || \$9 <= 0 || \$10 <= 0 || \$11 <= 0) { bad = 1 } END { exit bad }" "$l"' "CSV rows: acc in 0..1, consensus and bytes 0, lr, test loss and global loss"
    h1=$(sed -n 's/.*hash //p' "$T/out")
    # issue 10 item 3: a second writer of the same --log is refused (the
    # first holds LOG.lock: here flock(1) plays the first run)
    check '[ ! -e "$l.lock" ]' "no lock file left after a run"
    cp "$l" "$T/first.csv"
    expect_fail 1 "^dpsgd-train: $l is in use by another run \\($l.lock is locked\\)" "second writer of one --log" \
        flock -n "$l.lock" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$BIN/dpsgd-train" $syn --epochs 1 --log "$l"
    check 'cmp -s "$l" "$T/first.csv"' "the first run's log is untouched"
    rm -f "$l.lock"
    expect_ok "synthetic run, --quiet, same seed" "$dt" $syn --epochs 2 --quiet
    check '[ "$(grep -c "^epoch " "$T/out")" -eq 0 ] && [ "$(sed -n "s/.*hash //p" "$T/out")" = "$h1" ]' "--quiet; same seed, same parameters"
    model_cases
}

# --save-model / --eval-model / --init-model and bad model files.
model_cases() {
    m="$T/m.safetensors"
    expect_ok "--save-model" "$dt" $syn --epochs 1 --save-model "$m" --threads 2
    acc=$(sed -n 's/^final:.*test_acc \([0-9.]*\).*hash \([0-9a-f]*\).*/\1 \2/p' "$T/out")
    check '[ -s "$m" ] && head -c 2000 "$m" | grep -q "\"0.weight\":{\"dtype\":\"F32\""' "safetensors header, PyTorch names"
    check '[ -z "$(ls "$T" | grep "m.safetensors.tmp")" ]' "no temporary file left"
    expect_ok "--eval-model" "$dt" $syn --eval-model "$m"
    check '[ "$(sed -n "s/^eval:.*test_acc \([0-9.]*\).*hash \([0-9a-f]*\).*/\1 \2/p" "$T/out")" = "$acc" ]' "eval: the final accuracy and hash"
    expect_ok "--init-model" "$dt" $syn --epochs 1 --init-model "$m" --lr 0
    check '[ "$(sed -n "s/^final:.*hash //p" "$T/out")" = "${acc#* }" ]' "--init-model, lr 0: the model unchanged"
    expect_fail 1 "^dpsgd-train: .*$T/nodir/m.st" "unwritable model path" "$dt" $syn --epochs 1 --save-model "$T/nodir/m.st"
    expect_fail 1 "^dpsgd-train: --model cnn: $m holds a lenet model \(its __metadata__\)" \
        "another architecture" "$dt" $syn --model cnn --eval-model "$m"
    head -c 5000 "$m" >"$T/trunc.st"
    expect_fail 1 "^dpsgd-train: model file $T/trunc.st: tensor '[0-9]+.(weight|bias)' ends at byte" \
        "truncated model" "$dt" $syn --eval-model "$T/trunc.st"
    printf '\377\377\000\000\000\000\000\000{}' >"$T/lie.st"
    expect_fail 1 "^dpsgd-train: model file $T/lie.st: header length 65535 exceeds" \
        "header lying about its size" "$dt" $syn --eval-model "$T/lie.st"
    sed 's/"0.bias"/"0.bogus"/' "$m" >"$T/ren.st"
    expect_fail 1 "^dpsgd-train: model file $T/ren.st: tensor '0.bias' missing" \
        "missing tensor" "$dt" $syn --eval-model "$T/ren.st"
    expect_fail 1 "^dpsgd-train: .*$T/none.st" "missing model file" "$dt" $syn --init-model "$T/none.st"
    # --summary: one JSON object, the final line's figures, atomically
    j="$T/run.json"
    expect_ok "--summary" "$dt" $syn --epochs 1 --summary "$j"
    h=$(sed -n 's/^final:.*hash //p' "$T/out")
    check '[ "$(tr -d "\n" <"$j" | head -c 1)" = "{" ] && [ "$(tail -c 2 "$j")" = "}" ] && grep -q "\"param_hash\": \"$h\"" "$j" && grep -q "\"version\": \"" "$j" && grep -q "\"batch\": 32," "$j"' "summary: version, settings, the final hash"
    check '/usr/bin/python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d[\"result\"][\"steps\"] == 8 and d[\"settings\"][\"model\"] == \"lenet\"" "$j"' "summary: valid JSON"
    expect_fail 1 "^dpsgd-train: --summary: .*$T/nodir/s.json" "unwritable summary" "$dt" $syn --epochs 1 --summary "$T/nodir/s.json"
    # the rate an epoch ran at (cosine over 2 epochs: its first step's,
    # 0.02 then 0.01; the last step's would be 0.0119 and 0.0001), in the
    # CSV, the progress lines and the summary; the summary has the CSV
    # last row's train_loss_global, epoch and wall_s
    expect_ok "--summary, 2 cosine epochs" "$dt" $syn --epochs 2 --lr 0.02 \
        --schedule cosine --log "$T/lr.csv" --summary "$T/lr.json"
    check '/usr/bin/python3 -c "
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))[\"result\"]
lr = [float(r[\"lr\"]) for r in rows]
assert len(lr) == 2 and abs(lr[0] - 0.02) < 1e-12 and abs(lr[1] - 0.01) < 1e-12, lr
assert abs(d[\"lr\"] - 0.01) < 1e-12, d
for k, tol in ((\"train_loss_global\", 1e-5), (\"epoch\", 0), (\"wall_s\", 1e-3)):
    assert abs(d[k] - float(rows[-1][k])) <= tol, (k, d[k], rows[-1][k])
assert d[\"model_s\"] is None
" "$T/lr.csv" "$T/lr.json"' "lr of the epoch's first step in CSV and summary; summary has the CSV's train_loss_global, epoch, wall_s"
    check '[ "$(sed -n "s/^epoch.* lr \([0-9.e-]*\) .*/\1/p" "$T/out" | tr "\n" " ")" = "0.02 0.01 " ]' "progress lines print the epoch's rate: $(grep -o "lr [0-9.e-]*" "$T/out" | tr "\n" " ")"
}

# mpirun'd dpsgd-train: every rank stops within seconds (timeout 120 would
# turn a hang into a failure), rank 0 prints one message, non-zero exit, no
# log or checkpoint left behind.
mpi_run() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OPENBLAS_NUM_THREADS=1 timeout 120 mpirun -q --oversubscribe \
        --bind-to none -np "$@"
}

# Issue 10 items 2-5, 7, 8: checkpoints that protect a run, and the run's
# reports (mpi_cases calls this with $dt, $syn and $T/g4.txt set).
checkpoint_cases() {
    ck="$T/ck-life"
    # --resume with no checkpoint yet: a notice, then a fresh start
    expect_ok "--resume on an empty directory" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 2 --checkpoint "$ck" --resume --quiet --local-eval 0 --log "$T/life.csv"
    check 'grep -qx "dpsgd-train: notice: --resume: no checkpoint in $ck yet: starting from scratch" "$T/err" && [ "$(cat "$ck/latest")" = epoch-000002 ]' \
        "notice and a complete checkpoint: $(head -c 200 "$T/err")"
    check 'awk -F, "NR > 1 && \$6 != \"\" { bad = 1 } END { exit bad }" "$T/life.csv" && grep -q "  local_acc -  " "$T/out"' \
        "--local-eval 0: empty local-accuracy column, '-' on the final line"
    cp "$ck/latest" "$T/latest.before"
    # a fresh run refuses a directory that holds a checkpoint (it deleted it)
    expect_fail 2 "^dpsgd-train: --checkpoint: $ck holds the checkpoint of an earlier run \\(epoch 2\\): add --resume to continue it, or remove $ck" \
        "fresh run on an existing checkpoint" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 2 --checkpoint "$ck"
    check 'cmp -s "$ck/latest" "$T/latest.before" && [ -d "$ck/epoch-000002" ]' "the earlier checkpoint is intact"
    # a second run on the same directory is refused (flock(1) holds DIR/lock)
    expect_fail 1 "^dpsgd-train: --checkpoint: $ck is in use by another run \\($ck/lock is locked\\)" \
        "second run on one checkpoint directory" flock -n "$ck/lock" env OMPI_ALLOW_RUN_AS_ROOT=1 \
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=0 \
        mpirun -q --oversubscribe --bind-to none -np 2 "$dt" --topology "$T/g4.txt" $syn --epochs 3 --checkpoint "$ck" --resume
    rm -f "$ck/lock"
    # another setting: named, with both values
    expect_fail 2 "^dpsgd-train: --resume: $ck was written with other settings: --lr 0.02, this run has --lr 0.05: resume with the settings" \
        "resume with another --lr" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 3 --checkpoint "$ck" --resume --lr 0.05
    # a larger --epochs continues; --keep 2 keeps two generations
    expect_ok "--resume with more --epochs" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 4 --checkpoint "$ck" --resume --quiet
    check 'grep -q "^final: .*  epochs 4  " "$T/out" && grep -q "(8 steps after resume" "$T/out"' \
        "continued to epoch 4: $(grep final: "$T/out")"
    check '[ "$(ls -d "$ck"/epoch-* | wc -l)" -eq 2 ] && [ -d "$ck/epoch-000003" ] && [ -d "$ck/epoch-000004" ] && [ ! -e "$ck/lock" ]' \
        "--keep 2 (default): epochs 3 and 4 kept, no lock left: $(ls "$ck" | tr '\n' ' ')"
    expect_ok "--keep 1" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 5 --checkpoint "$ck" --resume --keep 1 --quiet
    check '[ "$(ls -d "$ck"/epoch-* | wc -l)" -eq 1 ] && [ "$(ls "$ck"/state-* | wc -l)" -eq 1 ]' "--keep 1: one generation"
    # start-up checks: an unwritable --checkpoint before any training
    : >"$T/plainfile"
    expect_fail 1 "^dpsgd-train: --checkpoint: cannot create checkpoint directory $T/plainfile/ck: Not a directory" \
        "unwritable --checkpoint at start-up" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 2 \
        --checkpoint "$T/plainfile/ck" --log "$T/unw.csv"
    check '[ ! -e "$T/unw.csv" ]' "no log row written"
    # divergence stops the run (--quiet: the epoch-0 row's progress line,
    # printed before the first step, is not part of the failure)
    expect_fail 1 "^dpsgd-train: training diverged at epoch 1 \\(step [0-9]+\\): the training loss is NaN" \
        "D-PSGD --lr 100 diverges" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --lr 100 --epochs 2 --quiet
    # --weights on a weighted file applies, with a notice
    "$BIN/topogen" -n 8 -d 2 --kind ring --weights laplacian -q -o "$T/ring8.txt"
    expect_ok "weighted file" mpi_run 2 "$dt" --topology "$T/ring8.txt" $syn --epochs 1 --quiet
    # the summary's start-up seconds, peak memory and in-memory gossip bytes
    check 'grep -qE "^time per rank: compute .* total [0-9.]+ s  start-up [0-9.]+ s \(CPU [0-9.]+ s\)  \([0-9]+ steps, [0-9.]+ kB sent per step per rank\)$" "$T/out" &&
           grep -qE "^memory per rank: peak RSS [0-9.]+ MB max, [0-9.]+ MB mean \([1-9][0-9]* bytes per worker\); gossip in memory [0-9.]+ MB streamed per step per rank$" "$T/out" &&
           ! grep -q "peak RSS 0.0 MB\|gossip in memory 0.0 MB" "$T/out"' \
        "start-up, memory and gossip bytes reported: $(grep -E "^(time|memory) per rank" "$T/out")"
    s1=$(sed -n 's/.*  slem \([0-9.]*\)  .*/\1/p' "$T/out")
    expect_ok "weighted file with --weights maxdeg" mpi_run 2 "$dt" --topology "$T/ring8.txt" $syn --epochs 1 --quiet --weights maxdeg
    s2=$(sed -n 's/.*  slem \([0-9.]*\)  .*/\1/p' "$T/out")
    check 'grep -qx "dpsgd-train: notice: --weights maxdeg replaces the weights in $T/ring8.txt" "$T/err" && [ -n "$s1" ] && [ "$s1" != "$s2" ]' \
        "--weights maxdeg applied with a notice (slem $s1 -> $s2)"
    # all-reduce reports the bytes it hands to MPI_Allreduce
    expect_ok "all-reduce bytes" mpi_run 2 "$dt" --mode allreduce $syn --epochs 1 --quiet --log "$T/ar.csv"
    check 'awk -F, "NR == 3 && \$8 > 0 { ok = 1 } END { exit !ok }" "$T/ar.csv" && ! grep -q "(.*, 0.0 kB sent per step" "$T/out"' \
        "all-reduce bytes_sent > 0: $(tail -n 1 "$T/ar.csv")"
    check 'grep -qE "^memory per rank: peak RSS [0-9.]+ MB max, [0-9.]+ MB mean \([1-9][0-9]* bytes per worker\)$" "$T/out"' \
        "all-reduce: memory line without the gossip bytes: $(grep "^memory per rank" "$T/out")"
}

# mk_idx DIR N SIDE t10k NT SIDE_T: an MNIST-style IDX directory, N
# SIDExSIDE training images and NT SIDE_TxSIDE_T test images, zero pixels
# and labels (plain files, big-endian headers written with printf).
be32() { printf "\\$(printf %03o $(($1 >> 24 & 255)))\\$(printf %03o $(($1 >> 16 & 255)))\\$(printf %03o $(($1 >> 8 & 255)))\\$(printf %03o $(($1 & 255)))"; }
mk_idx() {
    mkdir -p "$1"
    { printf '\0\0\10\3'; be32 "$2"; be32 "$3"; be32 "$3"
      head -c $(($2 * $3 * $3)) /dev/zero; } >"$1/train-images-idx3-ubyte"
    { printf '\0\0\10\1'; be32 "$2"; head -c "$2" /dev/zero; } >"$1/train-labels-idx1-ubyte"
    { printf '\0\0\10\3'; be32 "$5"; be32 "$6"; be32 "$6"
      head -c $(($5 * $6 * $6)) /dev/zero; } >"$1/$4-images-idx3-ubyte"
    { printf '\0\0\10\1'; be32 "$5"; head -c "$5" /dev/zero; } >"$1/$4-labels-idx1-ubyte"
}

mpi_cases() {
    command -v mpirun >/dev/null 2>&1 || { fail "mpirun not found"; return; }
    dt="$BIN/dpsgd-train"
    l="$T/mpi.csv"
    syn="--dataset synthetic --synthetic-train 512 --synthetic-test 64"
    "$BIN/topogen" -n 4 -d 3 --quiet -o "$T/g4.txt"
    "$BIN/topogen" -n 4 -d 3 --quiet --format ncol -o "$T/g4.ncol"
    "$BIN/topogen" -n 4 -d 3 --quiet --format graphml -o "$T/g4.graphml"
    # the shared reader: ncol (exact weights) trains bit for bit like the
    # edge list; GraphML (igraph's 15-digit weights) is read and trains
    expect_ok "train on an edge list" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 1 --quiet
    h_el=$(sed -n 's/.*workers-hash //p' "$T/out")
    expect_ok "train on ncol" mpi_run 2 "$dt" --topology "$T/g4.ncol" $syn --epochs 1 --quiet
    check '[ -n "$h_el" ] && [ "$(sed -n "s/.*workers-hash //p" "$T/out")" = "$h_el" ]' "ncol: same workers-hash as the edge list"
    expect_ok "train on GraphML" mpi_run 2 "$dt" --topology "$T/g4.graphml" $syn --epochs 1 --quiet
    printf '1 2\n2 3\n3 4\n4 1\n' >"$T/one4.txt"
    expect_ok "train on a 1-based edge list" mpi_run 2 "$dt" --topology "$T/one4.txt" $syn --epochs 1 --quiet
    check 'grep -q "notice: .*one4.txt has no node 0 and no n=: read as 1-based" "$T/err" && grep -q "workers 4 " "$T/out"' \
        "1-based list: 4 workers and a notice"
    awk 'BEGIN { for (i = 0; i < 999999; i++) print i, (i + 1) % 999999 }' >"$T/ring999999.txt"
    # its Laplacian weights are found now (shift-and-invert, seconds); the
    # run stops at the partition (and would at the worker-memory check)
    expect_fail 2 "^dpsgd-train: --partition: [0-9]+ training images are too few for 999999 workers" \
        "huge ring: validated, then a message, not GSL's abort" mpi_run 2 "$dt" --topology "$T/ring999999.txt" $syn --log "$l"
    awk 'BEGIN { for (i = 0; i < 5000; i++) print i, i, 0.5; for (i = 0; i < 5000; i++) print i, (i + 1) % 5000, 0.25 }' >"$T/wring5000.txt"
    # above the dense limit D^2's spectral check runs sparse: no n^2
    # buffer, then the partition's message
    expect_fail 2 "^dpsgd-train: --partition: 512 training images are too few for 5000 workers" \
        "d2 on a weighted file above the dense limit: no dense buffer" \
        mpi_run 2 "$dt" --topology "$T/wring5000.txt" --algorithm d2 $syn --log "$l"
    expect_fail 2 "^dpsgd-train: 5 MPI ranks but .*g4.txt has only 4 workers" \
        "more ranks than workers" mpi_run 5 "$dt" --topology "$T/g4.txt" $syn --log "$l"
    printf '0 0 0.5\n1 1 0.5\n0 1 0.5\n1 0 0.25\n' >"$T/asym.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*asym.txt:4: .*symmetric" \
        "asymmetric topology" mpi_run 2 "$dt" --topology "$T/asym.txt" $syn --log "$l"
    printf '0 0 0.5\n1 1 0.4\n0 1 0.5\n' >"$T/rows.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*rows.txt: row 1 of W sums to 0.9" \
        "non-stochastic topology" mpi_run 2 "$dt" --topology "$T/rows.txt" $syn --log "$l"
    printf '0 1\n2 3\n' >"$T/split.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*split.txt: the graph is disconnected" \
        "disconnected topology" mpi_run 2 "$dt" --topology "$T/split.txt" $syn --log "$l"
    expect_fail 1 "^dpsgd-train: --topology: cannot open .*missing.txt" \
        "missing topology" mpi_run 2 "$dt" --topology "$T/missing.txt" $syn --log "$l"
    expect_fail 1 "^dpsgd-train: .*$T/nodata" \
        "missing data" mpi_run 2 "$dt" --topology "$T/g4.txt" --data "$T/nodata" --log "$l"
    # issue 10 item 1: test images of another shape (14x14 vs 28x28) are
    # refused at set-up in both distributed modes, not read out of bounds
    mk_idx "$T/shape" 64 28 t10k 16 14
    for mode in "--topology $T/g4.txt" "--mode allreduce --workers 4"; do
        expect_fail 1 "^dpsgd-train: .*$T/shape: training images are 1x28x28 but test images 1x14x14" \
            "test shape differs ($mode)" mpi_run 2 "$dt" $mode --dataset mnist --data "$T/shape" --log "$l"
    done
    expect_fail 2 "^dpsgd-train: 2 MPI ranks need --topology" \
        "two ranks, no topology" mpi_run 2 "$dt" $syn --log "$l"
    expect_fail 2 "^dpsgd-train: --partition 'dirichlet:-1'" \
        "bad partition" mpi_run 2 "$dt" --topology "$T/g4.txt" --partition dirichlet:-1 $syn
    # --algorithm: unknown name; D^2 on a W at D^2's limit (the 4-cycle
    # with MH weights has lambda_min = -1/3) when told not to transform;
    # an algorithm with all-reduce
    expect_fail 2 "^dpsgd-train: --algorithm: unknown algorithm 'adam'" \
        "unknown algorithm" mpi_run 2 "$dt" --topology "$T/g4.txt" --algorithm adam $syn --log "$l"
    printf '0 1\n1 2\n2 3\n3 0\n' >"$T/ring4.txt"
    expect_fail 2 "^dpsgd-train: --algorithm d2 on .*ring4.txt: lambda_min of its mixing matrix .* is -0.3333 with C = 1 .*--d2-mixing auto or half" \
        "d2 on lambda_min(W) = -1/3" mpi_run 2 "$dt" --topology "$T/ring4.txt" --weights mh --algorithm d2 --d2-mixing w $syn --log "$l"
    expect_fail 2 "^dpsgd-train: --algorithm gt is for decentralized runs" \
        "gt with all-reduce" mpi_run 2 "$dt" --mode allreduce --algorithm gt $syn --log "$l"
    check '[ ! -e "$l" ]' "no log after MPI failures"
    expect_ok "d2 with the automatic mixing matrix" mpi_run 2 "$dt" --topology "$T/ring4.txt" \
        --weights mh --algorithm d2 $syn --epochs 1
    check 'grep -q "^final: d2 " "$T/out" && grep -q "^d2 mixing matrix: (1 - C) I + C W with C = 0.9375, SLEM 0.3750 (W: 0.3333)" "$T/out"' \
        "d2 reports its mixing matrix"
    checkpoint_cases
    # issue 10 item 7: after --stop-after the final line says the epochs done
    expect_ok "--stop-after 1 of 3" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 3 --stop-after 1 --checkpoint "$T/ck-stop" --quiet
    check 'grep -q "^final: .*  epochs 1 of 3  " "$T/out"' "final line: epochs 1 of 3: $(grep final: "$T/out")"
    # issue 10 item 6: SIGTERM to mpirun, and a rank killed with -9, end
    # the job with one dpsgd-train line naming the last good checkpoint
    # mpirun follows its SIGTERM to the ranks with a SIGKILL after
    # odls_base_sigkill_timeout (1 s by default); on a loaded machine a
    # rank may not run its handler within that second, so the case gives
    # it 10 (the README's "Stopping a run" says the same to users)
    for how in term kill; do
        case_no=$((case_no + 1))
        ck="$T/ck-$how"
        env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            OMPI_MCA_odls_base_sigkill_timeout=10 \
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            OPENBLAS_NUM_THREADS=1 mpirun -q --oversubscribe --bind-to none \
            -np 2 "$dt" --topology "$T/g4.txt" --dataset synthetic \
            --synthetic-train 2048 --synthetic-test 64 --epochs 500 \
            --checkpoint "$ck" --quiet >"$T/out" 2>"$T/err" &
        mp=$!
        i=0
        while [ ! -f "$ck/latest" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
        if [ "$how" = term ]; then
            kill -TERM $mp
        else # the newest rank process (ranks start after mpirun)
            kill -9 "$(pgrep -f -- "--checkpoint $ck" | grep -vx "$mp" | sort -n | tail -n 1)"
        fi
        wait $mp
        rc=$?
        if [ "$rc" -eq 0 ]; then
            fail "$how: exit 0 after a signal"
        elif [ "$(grep -c "^dpsgd-train: stopped by SIGTERM (the job was interrupted, or another rank died); last good checkpoint: $ck/epoch-[0-9]* (continue with --resume)$" "$T/err")" -ne 1 ]; then
            fail "$how: not one message naming the checkpoint: $(head -c 300 "$T/err")"
        else
            passed=$((passed + 1))
        fi
    done
    # issue 10 item 6: a rank stopped (SIGSTOP) ends the job after
    # --timeout with one message naming it and the last good checkpoint
    case_no=$((case_no + 1))
    ck="$T/ck-stop-rank"
    env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OPENBLAS_NUM_THREADS=1 mpirun -q --oversubscribe --bind-to none \
        -np 3 "$dt" --topology "$T/g4.txt" --dataset synthetic \
        --synthetic-train 2048 --synthetic-test 64 --epochs 500 \
        --checkpoint "$ck" --timeout 3 --quiet >"$T/out" 2>"$T/err" &
    mp=$!
    i=0
    while [ ! -f "$ck/latest" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    pid=$(pgrep -f -- "--checkpoint $ck" | grep -vx "$mp" | sort -n | tail -n 1)
    rank=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    kill -STOP "$pid"
    wait $mp
    rc=$?
    if [ "$rc" -eq 0 ]; then
        fail "stopped rank: exit 0"
    elif [ "$(grep -c "^dpsgd-train:" "$T/err")" -ne 1 ] || ! grep -q "^dpsgd-train: no progress for 3 s (waiting in .*): rank $rank does not answer (stopped, hung or unreachable); the job is ended (--timeout 3); last good checkpoint: $ck/epoch-" "$T/err"; then
        fail "stopped rank $rank: not one message naming it: $(head -c 400 "$T/err")"
    else
        passed=$((passed + 1))
    fi
    # a good run, and a corrupt checkpoint refused on resume
    expect_ok "4 workers on 2 ranks" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 2 --checkpoint "$T/ck" --log "$l"
    check '[ "$(wc -l <"$l")" -eq 4 ] && [ -f "$T/ck/latest" ]' "CSV rows (epochs 0, 1, 2) and a complete checkpoint"
    check 'sed -n 2p "$l" | grep -qE "^0,0,[0-9.]+,,0\.[0-9]+,.*,[0-9]+\.[0-9]+$"' "epoch-0 row: no minibatch loss, a global loss: $(sed -n 2p "$l")"
    f="$T/ck/$(cat "$T/ck/latest")/worker-000001.ckpt" # --keep 2: two epochs
    printf 'garbage' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
    expect_fail 1 "^dpsgd-train: --resume: .*worker-000001.ckpt: checksum mismatch" \
        "corrupt checkpoint" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 2 --checkpoint "$T/ck" --resume
    # the average model of a distributed run, saved and evaluated again
    expect_ok "--save-model under mpirun" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 1 --save-model "$T/avg.st"
    a1=$(sed -n 's/.*test_acc \([0-9.]*\) .*/\1/p' "$T/out" | tail -1)
    expect_ok "--eval-model of the average" dt_run $syn --eval-model "$T/avg.st"
    check '[ -n "$a1" ] && [ "$(sed -n "s/^eval:.*test_acc \([0-9.]*\).*/\1/p" "$T/out")" = "$a1" ]' "average model: the accuracy the run printed"
    expect_ok "--summary under mpirun" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 1 --summary "$T/mpi.json"
    check 'grep -q "\"mode\": \"dpsgd\"" "$T/mpi.json" && grep -q "\"ranks\": 2," "$T/mpi.json" && grep -q "\"workers\": 4," "$T/mpi.json"' "MPI summary: mode, ranks, workers"
    placement_cases
}

# --placement, --net, --bench-gossip under mpirun.
placement_cases() {
    rm -f "$l"
    expect_fail 2 "^dpsgd-train: --placement 'metis': expected block or graph" \
        "bad --placement" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --placement metis --log "$l"
    expect_fail 2 "^dpsgd-train: --net 'fast': " "bad --net" \
        mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --net fast --log "$l"
    expect_fail 2 "^dpsgd-train: --allreduce is for the network model: add --net" "--allreduce without --net" \
        mpi_run 2 "$dt" --mode allreduce $syn --allreduce ring --log "$l"
    expect_fail 2 "^dpsgd-train: --allreduce prices --mode allreduce" "--allreduce on gossip" \
        mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --net wan --allreduce ring --log "$l"
    expect_fail 2 "^dpsgd-train: --net-hosts 5: more hosts than the 4 workers" "--net-hosts > n" \
        mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --net wan --net-hosts 5 --log "$l"
    expect_fail 2 "^dpsgd-train: --allreduce 'tree': expected ring" "bad --allreduce" \
        mpi_run 2 "$dt" --mode allreduce $syn --net wan --allreduce tree --log "$l"
    expect_fail 2 "^dpsgd-train: --bench-gossip needs --topology" "--bench-gossip without topology" \
        mpi_run 2 "$dt" --bench-gossip 3
    check '[ ! -e "$l" ]' "no log after refused placement flags"
    # a 10 s latency makes the model's round 10 s: model_s - wall_s is
    # 10 s per step, less the few seconds of measured MPI time it replaces
    expect_ok "--net with a log" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 2 --net "intra=10s,1e12" --log "$l"
    check 'head -1 "$l" | grep -qx "epoch,step,wall_s,train_loss,test_acc,test_acc_local_mean,consensus,bytes_sent,lr,test_loss,train_loss_global,model_s"' \
        "CSV header with model_s last: $(head -1 "$l")"
    check 'awk -F, "NR > 1 { d = \$12 - \$3 - 10 * \$2; if (d > 0.01 || d < -3) bad = 1 } END { exit bad }" "$l"' \
        "model_s = wall_s - MPI time + 10 s per step: $(tail -1 "$l")"
    check 'grep -qE "^placement graph \((METIS|own bisection)[a-z0-9 ,-]*\): 4 workers on 2 ranks on 1 host: cut [0-9]+ edges \(0 across hosts\); per round .*modelled round 1e\+04 ms" "$T/out"' \
        "placement line: $(grep "^placement" "$T/out" | head -1)"
    check 'grep -q "^modelled wall clock" "$T/out"' "modelled wall clock line"
    check 'grep -q "^dpsgd-train: notice: --net: the modelled deployment has one host" "$T/err"' \
        "notice: no inter-host link on one machine: $(cat "$T/err")"
    # --mode allreduce --net: 4 workers modelled on 4 wan hosts, rd (best):
    # 2 steps of 50 ms + 246824 B / 12.5 MB/s = 139.49 ms per step
    expect_ok "--net on allreduce" mpi_run 2 "$dt" --mode allreduce --workers 4 $syn \
        --epochs 1 --net wan --net-hosts 4 --allreduce best --log "$l"
    check 'grep -qE "^modelled all-reduce 139 ms each: priced as best \(recursive-doubling\) on 4 ranks on 4 hosts" "$T/out" && head -1 "$l" | grep -q ",model_s$" && ! grep -q "notice: --net" "$T/err"' \
        "allreduce model line: $(grep modelled "$T/out")"
    # the gossip round of the 4 workers (K4) on 4 wan hosts: alpha + 3 B / beta
    expect_ok "--net-hosts on gossip" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 1 --net wan --net-hosts 4 --log "$l"
    check 'grep -qE "modelled round 109 ms" "$T/out"' "--net-hosts round: $(grep "^placement" "$T/out" | tail -1)"
    expect_ok "--bench-gossip" mpi_run 2 "$dt" --topology "$T/g4.txt" --bench-gossip 5 --bench-floats 1000 --placement block
    check 'grep -qE "^bench-gossip: 4 workers on 2 ranks on 1 host, placement block: cut [0-9]+ edges \(0 across hosts\), [0-9]+ arrays of 4000 bytes per round" "$T/out" && grep -qE "^bench-gossip: measured [0-9.]+ ms per round \(median of 5, slowest rank; fastest [0-9.]+ ms\); modelled [0-9.]+ ms \(datacenter" "$T/out"' \
        "bench-gossip lines: $(cat "$T/out")"
}

# topogen eval --net: the modelled round under block and graph placement.
net_cases() {
    tg="$BIN/topogen"
    "$tg" -n 32 -d 4 --kind ring --quiet -o "$T/ring32.txt"
    expect_ok "eval --net" "$tg" eval "$T/ring32.txt" --net "intra=0,1GB/s;inter=1ms,1MB/s" --params 250000 --ranks 4 --hosts 2
    # ring of 32 in blocks of 8 on 2 hosts: each rank sends 1 array to
    # each of its 2 neighbour ranks, one of them on the other host, so 2
    # arrays leave each host through its one link: 1 ms + 2 MB / (1 MB/s)
    check 'grep -qE "^  block +cut 4 edges \(2 across hosts\), 8 arrays per round \(4 across hosts, 8 MB\), modelled 2001 ms" "$T/out"' \
        "block line: $(grep block "$T/out")"
    check 'grep -qE "^  graph +cut 4 edges \(2 across hosts\), 8 arrays.*; placed by (METIS|own bisection)[a-z0-9 ,-]*$" "$T/out"' "graph line: $(grep graph "$T/out")"
    # ring all-reduce of 4 ranks on 2 hosts: 6 steps, in each one block
    # of 250 kB leaves each host: 6 x (1 ms + 250 ms); recursive doubling:
    # distance 1 inside the hosts (0 + 1 ms), distance 2 across with both
    # ranks of a host sending 1 MB: 1 ms + 2 s; auto prices it (binomial)
    check 'grep -qE "^  allreduce +ring +modelled 1506 ms \(6 steps; 6 messages, 1.5 MB sent per rank\)$" "$T/out" && grep -qE "^  allreduce +recursive-doubling +modelled 2002 ms " "$T/out" && grep -qE "^  allreduce +hierarchical +modelled [0-9.]+ ms .*among hosts\)$" "$T/out" && grep -qE "^  allreduce +priced as auto: binomial, modelled [0-9.]+ ms \(what Open MPI 4.1 runs" "$T/out"' \
        "allreduce lines: $(grep allreduce "$T/out")"
    # the issue's check: a 4-regular graph of 256 on 256 WAN hosts, LeNet:
    # ring 25.5 s, the best at most 1.2 s, a gossip round alpha + 4 B / beta
    # = 50 ms + 78.98 ms (the sends are posted together)
    "$tg" -n 256 -d 4 --kind random --quiet -o "$T/r256.txt"
    expect_ok "eval --net wan at 256" "$tg" eval "$T/r256.txt" --net wan --hosts 256 --params 61706 --allreduce best
    check 'grep -qE "^  block .*modelled 129 ms per round" "$T/out" && grep -qE "^  allreduce +ring +modelled 2.554e\+04 ms" "$T/out" && grep -qE "^  allreduce +priced as best: recursive-doubling, modelled 558 ms; best recursive-doubling 558 ms$" "$T/out"' \
        "wan 256: $(grep -E "block|allreduce" "$T/out")"
    expect_fail 2 "^topogen: --allreduce 'tree': expected ring" "bad --allreduce" "$tg" eval "$T/r256.txt" --net wan --allreduce tree
    expect_fail 2 "^topogen: --params, --ranks, --hosts and --allreduce need --net" "--allreduce without --net" "$tg" eval "$T/r256.txt" --allreduce ring
    expect_ok "eval --net --json" "$tg" eval "$T/ring32.txt" --net wan --json
    check 'grep -qE "\"graph\":\{[^}]*\"placed_by\":\"(METIS|own bisection)[a-z0-9 ,-]*\"\}" "$T/out"' \
        "JSON graph placement says its partitioner: $(grep -o "\"graph\":{[^}]*}" "$T/out")"
    check 'grep -qE "\"net\":\"wan \(.*\"ranks\":32,\"hosts\":32,\"array_bytes\":246824,\"block\":\{\"cut_edges\":32,.*\"round_s\":0\.0894[0-9]*\}" "$T/out"' \
        "JSON net members: $(head -c 400 "$T/out")"
    # every worker its own host: 62 x (50 ms + 1929 floats x 4 B / 12.5 MB/s)
    check 'grep -qE "\"allreduce_ring_s\":3\.13827[0-9]*," "$T/out" && grep -qE "\"allreduce_priced_by\":\"auto\",\"allreduce_alg\":\"binomial\",\"allreduce_s\":[0-9.]+,\"allreduce_best\":\"recursive-doubling\"" "$T/out"' \
        "JSON ring all-reduce on wan: $(grep -o "\"allreduce_ring_s\":[^,]*" "$T/out")"
    # a time-varying file: every round modelled, block placement
    "$tg" --kind one-peer-exp -n 8 --quiet -o "$T/op8net.txt"
    expect_ok "eval --net on a sequence" "$tg" eval "$T/op8net.txt" --net "inter=1ms,1MB/s" --params 250000
    check 'grep -qE "^  block +modelled 1001 ms per round on average over the period \(rounds: 1001 1001 1001 ms\)$" "$T/out" && grep -qE "^  allreduce +ring +modelled 1764 ms " "$T/out"' \
        "sequence --net lines: $(grep -A2 "^placement" "$T/out")"
    expect_ok "eval --net --json on a sequence" "$tg" eval "$T/op8net.txt" --net wan --json
    check 'grep -qE "\"block\":\{\"round_s\":\[0\.069745920*[0-9]*,0\.069745920*[0-9]*,0\.069745920*[0-9]*\],\"mean_round_s\":0\.069745920*[0-9]*\},\"allreduce_ring_s\":[0-9.]+,\"allreduce_priced_by\":\"auto\"" "$T/out"' \
        "sequence JSON: $(grep -o "\"block.*" "$T/out")"
    expect_fail 2 "^topogen: --ranks 9: .*op8net.txt has only 8 nodes" "sequence --ranks > n" "$tg" eval "$T/op8net.txt" --net wan --ranks 9
    expect_fail 2 "^topogen: --net 'fast': " "bad --net" "$tg" eval "$T/ring32.txt" --net fast
    expect_fail 2 "^topogen: --params, --ranks, --hosts and --allreduce need --net" "--ranks without --net" "$tg" eval "$T/ring32.txt" --ranks 2
    expect_fail 2 "^topogen: --net: only 'topogen eval FILE'" "--net without eval" "$tg" -n 8 --net wan
    expect_fail 2 "^topogen: --ranks 33: .*ring32.txt has only 32 nodes" "--ranks > n" "$tg" eval "$T/ring32.txt" --net wan --ranks 33
    expect_fail 2 "^topogen: --hosts 5: more hosts than the 4 ranks" "--hosts > ranks" "$tg" eval "$T/ring32.txt" --net wan --ranks 4 --hosts 5
    plan_cases
}

# topogen plan (issue 32): the ranked table, its JSON, --results, bad input.
plan_cases() {
    tg="$BIN/topogen"
    # 32 workers on 4 WAN hosts, a ResNet-18-sized array: hierarchical
    # all-reduce and the host-aware graph are ranked, above the learned
    # and random graphs placed by METIS; rows sorted by ms/comm
    expect_ok "plan on 4 hosts" "$tg" plan -n 32 --net wan --hosts 4 --params 11689512
    check 'grep -qE "^[0-9]+ +all-reduce hierarchical " "$T/out" && grep -qE "^[0-9]+ +gossip host-aware " "$T/out" && grep -q "graph: topogen -n 32 -d 4 --seed 1 --groups 4 -o hosts.txt" "$T/out" && grep -q "run: dpsgd-train --topology hosts.txt --placement block --net wan --net-hosts 4" "$T/out"' \
        "plan rows: $(grep -E "^[0-9]+ " "$T/out")"
    check 'awk "/^[0-9]+ / { if (\$1 == 1 && \$2 != \"all-reduce\") bad = 1; if (\$0 ~ /host-aware/) ha = \$1; if (\$0 ~ /gossip learned/) le = \$1; t = \$(NF - 3); if (t + 0 < last) bad = 1; last = t + 0; n++ } END { exit bad || n != 10 || ha >= le }" "$T/out"' \
        "plan ranking (sorted, all-reduce first, host-aware above learned): $(grep -E "^[0-9]+ " "$T/out")"
    check 'grep -q "^# ranked by the modelled time of one communication" "$T/out"' "the line saying what the ranking rests on"
    # every worker on its own WAN host (256, LeNet): one gossip round 129 ms,
    # all-reduce 558 ms at best; --results reprices the committed runs:
    # the old ring model's 3950 s to 85% next to the binomial Open MPI runs
    expect_ok "plan --results" "$tg" plan -n 256 --net wan --results data/results
    check 'grep -qE "^1 +gossip one-peer exponential .* 69.746 " "$T/out" && grep -qE "^[0-9] +gossip learned .* 128.98 " "$T/out" && grep -qE "^[0-9] +all-reduce recursive-doubling .* 557.97 " "$T/out"' \
        "plan at 256: $(grep -E "^[0-9]+ " "$T/out")"
    check 'grep -qE "^dirichlet-0.1 +all-reduce, ring \(ring: the old model\) \[n256\] +3/3 +155 +3950 " "$T/out" && grep -qE "^dirichlet-0.1 +all-reduce, binomial \(auto\) \[n256\] +3/3 +155 +17[23]\.[0-9] " "$T/out" && grep -qE "^dirichlet-0.1 +aware-laplacian \[n256-d2, --algorithm d2\] +3/3 " "$T/out"' \
        "plan --results rows: $(grep -E "^dirichlet-0.1" "$T/out" | head -6)"
    expect_ok "plan --json" "$tg" plan -n 16 --net datacenter --json --results data/results
    check 'python3 -c "import json, sys; o = json.load(open(sys.argv[1])); r = o[\"rows\"]; assert [x[\"rank\"] for x in r] == list(range(1, len(r) + 1)); assert all(set(x) >= {\"schedule\", \"weights\", \"messages_per_worker\", \"bytes_per_worker\", \"ms_per_communication\", \"ms_per_step_by_local_steps\", \"dpsgd_train\", \"topogen\"} for x in r); assert o[\"ranking_rests_on\"] and o[\"results\"] and o[\"target\"] == 0.85" "$T/out"' \
        "plan JSON: $(head -c 300 "$T/out")"
    expect_ok "plan --help" "$tg" plan --help
    check 'grep -q "^usage: topogen plan -n N" "$T/out" && grep -q -- "--results DIR" "$T/out" && ! grep -qE -- "^  --kind" "$T/out"' "plan --help: its flags alone"
    expect_ok "eval --help" "$tg" eval --help
    check 'grep -q "^usage: topogen eval FILE" "$T/out" && grep -q -- "--allreduce ALG" "$T/out" && ! grep -qE -- "^  --restarts" "$T/out"' "eval --help: its flags alone"
    expect_ok "compare --help" "$tg" compare --help
    check 'grep -q "^usage: topogen compare" "$T/out" && grep -q -- "--restarts" "$T/out" && ! grep -qE -- "^  --simulate" "$T/out"' "compare --help: generation flags"
    # what cannot be built is said, not dropped silently
    expect_ok "plan, 12 workers on 3 hosts" "$tg" plan -n 12 --net wan --hosts 3
    check 'grep -q "^# not ranked: one-peer exponential (n not a power of two); host-aware (--groups 3: groups of 4 nodes cannot hold degree 4" "$T/out"' \
        "not ranked line: $(grep "^# not" "$T/out")"
    expect_fail 2 "^topogen: plan: --net NET is required" "plan without --net" "$tg" plan -n 16
    expect_fail 2 "^topogen: plan: -n N is required" "plan without -n" "$tg" plan --net wan
    expect_fail 2 "^topogen: --hosts 17: more hosts than the 16 workers" "plan --hosts > n" "$tg" plan -n 16 --net wan --hosts 17
    expect_fail 2 "^topogen: --kind: not a flag of 'topogen plan'" "plan --kind" "$tg" plan -n 16 --net wan --kind ring
    expect_fail 2 "^topogen: --target: needs --results DIR" "--target without --results" "$tg" plan -n 16 --net wan --target 0.8
    expect_fail 2 "^topogen: --target: expected an accuracy in \(0, 1\]" "bad --target" "$tg" plan -n 16 --net wan --results "$T" --target 85
    expect_fail 2 "^topogen: --results: the experiment's modelled.tsv prices every worker on its own host" "--results with --hosts" "$tg" plan -n 16 --net wan --hosts 4 --results data/results
    expect_fail 2 "^topogen: plan: --results $T/nosuch: no experiment of 16 workers" "--results without experiments" "$tg" plan -n 16 --net wan --results "$T/nosuch"
    printf '1 2\n3 4\n' > "$T/lab2.txt"
    expect_fail 2 "^topogen: plan: --labels $T/lab2.txt: 2 workers, not -n 16" "--labels of another n" "$tg" plan -n 16 --net wan --labels "$T/lab2.txt"
    expect_fail 2 "^topogen: --results: only 'topogen plan' takes it" "--results outside plan" "$tg" -n 16 --results "$T"
}

# topogen --groups G --max-cross C and eval --groups (issue 11): the bound
# holds, the header records the groups and re-creates the file, the cut is
# printed, and bad groups or bounds get one message naming the flag.
groups_cases() {
    tg="$BIN/topogen"
    gg="$T/groups.txt"
    expect_ok "--groups 4 --max-cross 6" "$tg" -n 32 -d 4 --groups 4 --max-cross 6 --iters 2000 --restarts 2 -o "$gg"
    cp "$T/err" "$T/err0"
    check 'grep -qE "; [0-6] of 64 edges between the 4 groups \(at most 6\)$" "$T/err"' \
        "summary line gives the cut: $(tail -1 "$T/err")"
    check 'sed -n 2p "$gg" | grep -qE -- "--groups 4 --max-cross 6 --format edgelist$" && grep -qE "^# groups=4 \(ids in blocks of 8\) cross_edges=[0-6] max_cross=6$" "$gg"' \
        "header records the groups: $(sed -n 2p "$gg")"
    expect_ok "re-run the grouped settings" "$tg" $(sed -n 's/^# settings: //p' "$gg") -q --threads 1 -o "$T/groups2.txt"
    check 'cmp -s "$gg" "$T/groups2.txt" && grep -q "2 threads" "$T/err0"' "the settings re-create a grouped file (1 thread vs 2)"
    # count edges between blocks of 8 ids ourselves
    cut=$(awk '/^[0-9]/ && int($1 / 8) != int($2 / 8) { c++ } END { print c + 0 }' "$gg")
    check '[ "$cut" -le 6 ] && [ "$cut" -ge 4 ]' "at most 6 edges between blocks of 8 ids (counted: $cut)"
    expect_ok "eval --groups" "$tg" eval "$gg" --groups 4
    check 'grep -qE "^cross_edges +$cut of 64 \([0-9.]+% of all edges\)$" "$T/out" && grep -qE "^groups +4 of 8 nodes" "$T/out" && grep -qE "^cross_group +[0-9]+ [0-9]+ [0-9]+ [0-9]+ " "$T/out"' \
        "eval prints the cut ($cut): $(grep cross "$T/out" | tr "\n" " ")"
    "$tg" -n 16 -d 4 --kind rrl -q -o "$T/rrl16.txt"
    expect_ok "eval --groups --json" "$tg" eval "$T/rrl16.txt" --groups 4 --json
    check 'grep -qE "\"groups\":4,\"cross_edges\":12,\"cross_fraction\":0\.375,\"cross_per_group\":\[6,6,6,6\]" "$T/out"' \
        "ring lattice cut in JSON: $(head -c 400 "$T/out")"
    expect_ok "default bound" "$tg" -n 32 -d 4 --groups 2 --iters 300 -q -o "$T/g2.txt"
    check 'grep -q -- "--groups 2 --max-cross 2 " "$T/g2.txt" && grep -q "cross_edges=2 " "$T/g2.txt"' \
        "default --max-cross is the least that connects (2 for G = 2)"
    o="$T/never.txt"
    expect_fail 2 "^topogen: --max-cross: needs --groups" "--max-cross alone" "$tg" --max-cross 4 -o "$o"
    expect_fail 2 "^topogen: --groups 3: does not divide the 64 nodes" "G not dividing n" "$tg" --groups 3 -o "$o"
    expect_fail 2 "^topogen: --groups 65: more groups than the 64 nodes" "G > n" "$tg" --groups 65 -o "$o"
    expect_fail 2 "^topogen: --max-cross 3: 4 groups of a connected 4-regular graph need at least 4 edges" \
        "C too small" "$tg" --groups 4 --max-cross 3 -o "$o"
    expect_fail 2 "^topogen: --groups 16: groups of 4 nodes cannot hold degree 4" "groups too small" "$tg" --groups 16 -o "$o"
    expect_fail 2 "^topogen: --groups 1: a grouped search needs at least 2 groups" "one group" "$tg" --groups 1 -o "$o"
    expect_fail 2 "^topogen: --groups 4: groups of 15 nodes with odd degree 3" "odd group degree sum" "$tg" -n 60 -d 3 --groups 4 -o "$o"
    expect_fail 2 "^topogen: --groups: only --kind learned" "--groups with a baseline" "$tg" --kind rrl --groups 4 -o "$o"
    expect_fail 2 "^topogen: --max-cross: not a flag of 'topogen eval'" "--max-cross in eval" "$tg" eval "$gg" --groups 4 --max-cross 4
    expect_fail 2 "^topogen: .*groups.txt: --groups 3: does not divide the 32 nodes" "eval: G not dividing n" "$tg" eval "$gg" --groups 3
    expect_fail 2 "^topogen: --groups: expected a positive integer" "--groups 0" "$tg" --groups 0 -o "$o"
    check '[ ! -e "$o" ]' "no output file after bad groups"
}

# Sweep identity (issue 10 item 9): a run is reused only under the
# settings that made it; an OUT made with other sweep-wide settings is
# refused naming them; grid.env and each run's .settings tell the truth.
sweep_cases() {
    sw="$T/sweep"
    sweep() {
        env BIN="$BIN" OUT="$sw" SMOKE=1 \
            ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" NP=2 WORKERS=4 DEGREE_SMOKE=2 \
            SETTINGS=ring:mh PARTITIONS=iid ALLREDUCE=1 \
            TRAIN_ARGS="--synthetic-train 256 --synthetic-test 64" \
            "$@" sh scripts/sweep.sh
    }
    r="$sw/runs/n4-ring-mh-iid-s1"
    expect_ok "sweep EPOCHS=1" sweep EPOCHS=1
    check '[ -f "$r.csv" ] && grep -qx "EPOCHS=\"1\"" "$r.settings" && grep -qx "SETTING=\"ring:mh\"" "$r.settings"' \
        "settings written next to the CSV"
    check '[ "$(cat "$r.done")" = "$(sed -n "s/^RUN_ID=\"\(.*\)\"$/\1/p" "$r.settings")" ]' \
        ".done holds the run's RUN_ID"
    check 'grep -qx "SETTINGS=\"allreduce:none ring:mh\"" "$sw/grid.env" && grep -qx "EPOCHS=\"1\"" "$sw/grid.env"' \
        "grid.env lists every run: $(grep SETTINGS= "$sw/grid.env")"
    expect_ok "sweep again" sweep EPOCHS=1
    check '[ "$(grep -c "done already, skipped" "$T/out")" -eq 2 ]' "same settings: both runs skipped"
    cp "$r.csv" "$T/first.csv"
    expect_fail 1 "^sweep: .* other settings: EPOCHS 1 -> 2; LR 0.05 -> 0.01 \(use another OUT" \
        "other EPOCHS/LR into the same OUT" sweep EPOCHS=2 LR=0.01
    check 'cmp -s "$r.csv" "$T/first.csv" && grep -qx "EPOCHS=\"1\"" "$sw/grid.env"' \
        "refused sweep changed nothing"
    : > "$r.done" # a marker without this run's identity (older sweep.sh)
    expect_ok "stale marker" sweep EPOCHS=1
    check 'grep -q "n4-ring-mh-iid-s1: marker from other settings, run again" "$T/out" && [ -s "$r.done" ]' \
        "a marker from other settings is not reused"
    # modelled wall-clock (scripts/modelled.sh): measured compute + the
    # modelled round, every worker on its own host; kept when complete
    # (no leak report: dpsgd-train --bench initializes Open MPI, whose
    # allocations at exit are not ours; see train_cases)
    md() { env BIN="$BIN" BENCH_STEPS=3 BENCH_REPEAT=1 \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$@" sh scripts/modelled.sh "$sw"; }
    expect_ok "modelled.sh" md
    # wan: the ring of 4 (degree 2) sends 2 x (50 ms + 246824 B / 12.5 MB/s);
    # the ring all-reduce of 4 hosts 6 x 50 ms + 6/4 x 246824 B / 12.5 MB/s
    check 'grep -q "^# compute model=lenet batch=16 s_per_step=[0-9.e-]* measured .*bench lenet batch 16: " "$sw/modelled.tsv" && [ "$(grep -vc "^#" "$sw/modelled.tsv")" -eq 4 ] && awk "!/^#/ && \$2 == \"wan\" { c[\$1] = \$4; d = \$5 - \$3 - \$4; if (d > 1e-6 || d < -1e-6) bad = 1 } END { exit bad || c[\"n4-ring-mh\"] != 0.0894918 || c[\"n4-allreduce-none\"] != 0.278984 }" "$sw/modelled.tsv" && grep -q "^n4-allreduce-none wan [0-9.e-]* 0.278984 [0-9.e-]* binomial$" "$sw/modelled.tsv" && grep -q "^# allreduce priced as auto " "$sw/modelled.tsv"' \
        "modelled.tsv: $(cat "$sw/modelled.tsv")"
    expect_ok "modelled.sh again" md
    check 'grep -q "covers every setting, kept" "$T/out"' "a complete modelled.tsv is kept: $(cat "$T/out")"
    expect_ok "summary.sh with modelled.tsv" env TARGETS=0.1 sh scripts/summary.sh "$sw"
    check 'grep -q "modelled s to 0.1 (datacenter / wan)" "$sw/summary.md" && grep -q "^- 4 workers, all-reduce, iid, epochs 0-1: " "$sw/summary.md"' \
        "summary: modelled columns and the all-reduce convergence line: $(head -c 600 "$sw/summary.md")"
    # a sweep-wide --algorithm is named in the topology column
    cp -r "$sw" "$T/swd2"
    sed -i 's/^TRAIN_ARGS="\(.*\)"$/TRAIN_ARGS="\1 --algorithm d2"/' "$T/swd2/grid.env"
    expect_ok "summary.sh, --algorithm d2" env TARGETS=0.1 sh scripts/summary.sh "$T/swd2"
    check 'grep -q "^| 4 | iid | ring + d2 | mh | " "$T/swd2/summary.md"' "d2 rows: $(grep "^| 4" "$T/swd2/summary.md")"
    if command -v gnuplot >/dev/null 2>&1; then
        expect_ok "plot.sh with modelled.tsv" sh scripts/plot.sh "$sw"
        check '[ -s "$sw/plots/acc-modelled-wan-iid.png" ] && [ -s "$sw/plots/acc-modelled-datacenter-iid.png" ]' \
            "acc-modelled plots per preset"
    fi
    expect_fail 1 "^modelled: $T/nosuch: no runs/" "modelled.sh on no sweep" env BIN="$BIN" sh scripts/modelled.sh "$T/nosuch"
    # import-results.sh: complete runs only, no .done markers, modelled.tsv kept
    mkdir -p "$T/imp" && cp -r "$sw" "$T/imp/n4"
    sed -i '$d' "$T/imp/n4/runs/n4-ring-mh-iid-s1.csv"  # a run in progress
    expect_ok "import-results.sh" sh scripts/import-results.sh "$T/imp" "$T/impdest"
    check '[ -f "$T/impdest/n4/runs/n4-allreduce-none-iid-s1.csv" ] && [ -f "$T/impdest/n4/logs/n4-allreduce-none-iid-s1.log" ] && [ ! -e "$T/impdest/n4/runs/n4-ring-mh-iid-s1.csv" ] && [ -z "$(ls "$T/impdest/n4/runs" | grep "\.done$")" ] && [ -f "$T/impdest/n4/modelled.tsv" ] && grep -q "n4: 1 complete runs" "$T/out"' \
        "imported: $(ls "$T/impdest/n4/runs" | tr "\n" " ")"
    expect_fail 1 "^import-results: $T/nosuch: no such folder" "import from nothing" sh scripts/import-results.sh "$T/nosuch" "$T/impdest"
    rm -f "$sw/grid.env"
    expect_fail 1 "^sweep: .*without a settings record" "runs of unknown settings" sweep EPOCHS=1
}

# plot.sh and summary.sh on committed results: a run counts when its
# settings record is there and its CSV reached the recorded epochs
results_cases() {
    tg="$BIN/topogen"
    rd="$T/results"
    mkdir -p "$rd"
    # scripts/measure-correlation.py (issue 21's pilot): its numpy n_eff of
    # a static and of a periodic file equals topogen eval's (independent
    # code: closed form and Lyapunov over the period)
    expect_ok "measure-correlation on data/results/issue-15/n16" /usr/bin/python3 scripts/measure-correlation.py --gamma 0.951 --topogen "$tg" data/results/issue-15/n16
    for f in learned:laplacian:n16-learned-laplacian one-peer-exp:own:n16-one_peer_exp-own; do
        set_=${f%:*}; file=${f##*:}
        mine=$(grep "^| $set_ |" "$T/out" | head -n 1 | cut -d'|' -f7 | tr -d ' ')
        theirs=$("$tg" eval "data/results/issue-15/n16/topo/$file.txt" --gamma 0.951 --json | /usr/bin/python3 -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["neff"])')
        check '[ -n "$mine" ] && [ "$mine" = "$theirs" ]' "measure-correlation n_eff of $set_: $mine, topogen eval $theirs"
    done
    check 'grep -q "^| neff(0.951) | [+-][0-9.]* | [+-][0-9.]* | [+-][0-9.]* |$" "$T/out"' "measure-correlation prints the rank correlations"
    cp -r data/results/2025-sweep/runs data/results/2025-sweep/topo data/results/2025-sweep/grid.env "$rd/"
    expect_ok "summary.sh on data/results/2025-sweep" env TARGETS=0.80 sh scripts/summary.sh "$rd"
    check '[ "$(grep -c "^| [0-9]" "$rd/summary.md")" -eq 28 ] && grep -q "^| 64 | dirichlet:0.1 | rrl | mh | 0.9904 | 77.74% ± 1.73 | 0.84 (ep 6-8) | - | - | 0.361 | 3 |$" "$rd/summary.md"' \
        "summary of the committed runs: 28 settings, the 64-worker lattice row"
    # a CSV cut short (an interrupted run) does not count; no record, no run
    sed -i '$d' "$rd/runs/n64-rrl-mh-dirichlet-0.1-s3.csv"
    rm "$rd/runs/n64-rrl-mh-dirichlet-0.1-s2.settings"
    expect_ok "summary.sh, one CSV short, one record missing" env TARGETS=0.80 sh scripts/summary.sh "$rd"
    check 'grep -q "^| 64 | dirichlet:0.1 | rrl | mh | 0.9904 | .* | 1 |$" "$rd/summary.md"' \
        "only the complete run counts: $(grep "| 64 | dirichlet:0.1 | rrl | mh" "$rd/summary.md")"
    rm -f "$rd"/runs/*.settings
    expect_fail 1 "^summary: no complete runs in $rd/runs" "no records" sh scripts/summary.sh "$rd"
    # issue 15's committed folders redraw from the committed files alone:
    # the table is the committed one, the measured compute time is kept
    # (no new measurement), a modelled plot per preset and partition
    for n in 16 256; do
        [ -d "data/results/issue-15/n$n/runs" ] || { fail "data/results/issue-15/n$n missing"; continue; }
        cp -r "data/results/issue-15/n$n" "$T/c$n"
        rm -rf "$T/c$n/plots" "$T/c$n/agg"
        expect_ok "summary.sh on data/results/issue-15/n$n" env TARGETS="0.80 0.85 0.88" sh scripts/summary.sh "$T/c$n"
        check 'cmp -s "$T/c$n/summary.md" "data/results/issue-15/n$n/summary.md"' \
            "summary.sh remakes data/results/issue-15/n$n/summary.md: $(diff "$T/c$n/summary.md" "data/results/issue-15/n$n/summary.md" | head -c 300)"
        expect_ok "modelled.sh on data/results/issue-15/n$n" env BIN="$BIN" \
            ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" sh scripts/modelled.sh "$T/c$n"
        check 'grep -q "covers every setting, kept" "$T/out" && cmp -s "$T/c$n/modelled.tsv" "data/results/issue-15/n$n/modelled.tsv"' \
            "committed modelled.tsv kept: $(cat "$T/out")"
    done
    if command -v gnuplot >/dev/null 2>&1 && [ -d "$T/c256" ]; then
        expect_ok "plot.sh on data/results/issue-15/n256" sh scripts/plot.sh "$T/c256"
        check '[ "$(ls "$T/c256"/plots/*.png | wc -l)" -eq 14 ] && [ -s "$T/c256/plots/acc-modelled-wan-dirichlet-0.1.png" ]' \
            "14 plots of data/results/issue-15/n256: $(ls "$T/c256/plots" | tr "\n" " ")"
        # the D^2 runs (their own sweep directory) join the same plots
        if [ -d data/results/issue-15/n256-d2/runs ]; then
            rm -rf "$T/c256/agg"
            expect_ok "plot.sh data/results/issue-15/n256 with n256-d2" sh scripts/plot.sh "$T/c256" data/results/issue-15/n256-d2
            check '[ -s "$T/c256/agg/n256-learned-laplacian-dirichlet-0.1@d2.dat" ] && [ "$(ls "$T/c256"/agg/*@d2.dat | wc -l)" -eq 2 ] && [ "$(ls "$T/c256"/plots/*.png | wc -l)" -eq 14 ]' \
                "the d2 lines aggregated: $(ls "$T/c256/agg" | tr "\n" " ")"
            expect_fail 1 "^plot: $T/c16: its grid.env names no --algorithm" "plot.sh EXTRA without --algorithm" \
                sh scripts/plot.sh "$T/c256" "$T/c16"
            expect_fail 1 "^plot: $T/none: not a sweep directory" "plot.sh EXTRA missing" \
                sh scripts/plot.sh "$T/c256" "$T/none"
        fi
    fi
    # results-15.sh: ALGO (default d2) is checked before any run
    expect_fail 1 "^results: ALGO must be d2, gt, qgm or none, got 'bogus'" \
        "results-15.sh ALGO=bogus" env BIN="$BIN" ALGO=bogus sh scripts/results-15.sh "$T/res-bogus"
    check '[ ! -e "$T/res-bogus" ]' "no results directory after a bad ALGO"
    # results.sh (issue 23): its cells are checked before any run
    expect_fail 1 "^results: CELLS: 'n64:bogus' is not nN:PARTITION" \
        "results.sh CELLS=n64:bogus" env BIN="$BIN" CELLS="n64:bogus" sh scripts/results.sh "$T/res-bogus"
    check '[ ! -e "$T/res-bogus" ]' "no results directory after bad CELLS"
    expect_fail 1 "^results: CELLS: n100:iid and n100:shards:1 share the folder n100 but not the lr" \
        "results.sh: two lrs in one folder" env BIN="$BIN" CELLS="n100:shards:1 n100:iid" sh scripts/results.sh "$T/res-bogus"
    check '[ ! -e "$T/res-bogus" ]' "no results directory after CELLS that share a folder"
    # results-tables.py (issue 23) on issue 15's 64-worker runs: the rows by
    # models sent per step, 1-seed rows marked, the goals checked
    expect_ok "results-tables.py on data/results/issue-15/n64" /usr/bin/python3 scripts/results-tables.py \
        --topogen "$tg" data/results/issue-15/n64 data/results/issue-15/n64-d2
    check 'grep -q "^| about 4 models per step | learned:laplacian + d2 (learned) | 4.00 | 3 | 87.07 ± 0.12 | 4.33 | 0.292 | 32.6 |$" "$T/out" && grep -q "^| 1 model per step | one-peer-exp:own | 1.00 | 1 | 84.84 (1 seed) |" "$T/out" && grep -q "^| all-reduce | allreduce:none | 1.97 | 3 | 87.99 ± 0.26 | 3.00 |" "$T/out"' \
        "results-tables rows: $(grep "^| about 4" "$T/out" | head -n 2)"
    check 'grep -q "^- 64 workers, dirichlet:0.1, about 4 models per step: best learned learned:fdla 85.20 (1 seed) vs best hand-made base:own 85.05 (1 seed); .*: missed; " "$T/out" && grep -q "^- 64 workers, dirichlet:0.1, wan preset: .*learned:laplacian + d2 (32.6 s)" "$T/out"' \
        "results-tables goals: $(grep "^- " "$T/out" | head -c 400)"
    expect_fail 2 "^results-tables: --target: an accuracy in \(0, 1\)" "results-tables --target 85" \
        /usr/bin/python3 scripts/results-tables.py --target 85 data/results/issue-15/n64
    expect_fail 1 "^results-tables: $T/none: no runs/ folder" "results-tables on no sweep" \
        /usr/bin/python3 scripts/results-tables.py "$T/none"
    # issue 23's committed tables redraw from the committed files alone
    if [ -f data/results/summary.md ] && [ -d data/results/n256/runs ]; then
        expect_ok "results-tables.py on data/results" sh -c 'cd data/results && /usr/bin/python3 ../../scripts/results-tables.py --topogen "$1" n100 n100-cliqueavg n16 n256 n256-d2 n64 n64-d2' sh "$(cd "$(dirname "$tg")" && pwd)/topogen"
        check 'cmp -s "$T/out" data/results/summary.md' "results-tables remakes data/results/summary.md: $(diff "$T/out" data/results/summary.md | head -c 300)"
        cp -r data/results/n256 "$T/r256"
        rm -rf "$T/r256/plots" "$T/r256/agg"
        expect_ok "summary.sh on data/results/n256" env TARGETS="0.80 0.85" sh scripts/summary.sh "$T/r256"
        check 'cmp -s "$T/r256/summary.md" data/results/n256/summary.md' "summary.sh remakes data/results/n256/summary.md: $(diff "$T/r256/summary.md" data/results/n256/summary.md | head -c 300)"
    else
        fail "data/results/summary.md or data/results/n256 missing"
    fi
    if command -v gnuplot >/dev/null 2>&1; then
        expect_ok "measure-correlation --plot" /usr/bin/python3 scripts/measure-correlation.py --gamma 0.951 \
            --topogen "$tg" --plot "$T/scatter" data/results/issue-15/n16
        check '[ -s "$T/scatter/measures-n16-dirichlet-0.1.png" ] && grep -q "<svg" "$T/scatter/measures-n16-dirichlet-0.1.svg" && [ "$(grep -vc "^#" "$T/scatter/measures-n16-dirichlet-0.1.dat")" -ge 3 ]' \
            "scatter files: $(ls "$T/scatter" | tr "\n" " ")"
    fi
    if command -v gnuplot >/dev/null 2>&1; then
        cp -r data/results/2025-sweep/runs "$rd/"
        expect_ok "plot.sh on data/results/2025-sweep" sh scripts/plot.sh "$rd"
        check '[ "$(ls "$rd"/plots/*.png | wc -l)" -eq 10 ] && grep -q "^1 29 " "$rd/agg/n64-learned-laplacian-iid.dat" && [ "$(awk "!/^#/ { print \$11; exit }" "$rd/agg/n64-learned-laplacian-iid.dat")" = 3 ]' \
            "10 plots; aggregated series with 3 seeds"
    fi
}

# FDLA weights (topo/tg_fdla.c): certified optimum in the file header,
# constant weights kept on a ring, negative weights accepted end to end.
fdla_cases() {
    tg="$BIN/topogen"
    dt="$BIN/dpsgd-train"
    f="$T/fdla16.txt"
    expect_ok "fdla weights" "$tg" -n 16 -d 3 --kind random --seed 1 --weights fdla -q -o "$f"
    check 'grep -q "^# topogen 2 n=16 d=3 kind=random objective=ratio weights=fdla seed=1 version=" "$f" && grep -q "^# fdla: slem=0.[0-9]* lower_bound=0.[0-9]* (certified gap [0-9.e-]*)" "$f"' \
        "fdla header with the certified bound"
    check 'grep -v "^#" "$f" | awk "\$1 != \$2 && \$3 < 0 { neg = 1 } END { exit !neg }"' \
        "fdla file has a negative edge weight"
    expect_ok "eval fdla file" "$tg" eval "$f" --json
    check 'grep -q "\"weights\":\"file\"" "$T/out" && awk -F"\"slem\":" "{ split(\$2, a, \",\"); exit !(a[1] < 0.9) }" "$T/out"' \
        "eval reads the negative-weight file"
    "$tg" -n 16 --kind ring -q -o "$T/fdla_ring.txt"
    expect_ok "eval --weights fdla" "$tg" eval "$T/fdla_ring.txt" --weights fdla --json
    check 'grep -q "\"fdla_lower_bound\":" "$T/out" && sed "s/.*\"slem\":\([0-9.]*\),\"slem_best_laplacian\":\([0-9.]*\),.*/\1 \2/" "$T/out" | awk "{ d = \$1 - \$2; exit !(d < 1e-6 && d > -1e-6) }"' \
        "fdla on a ring = best constant weights"
    # eval -o: a user's own graph gets FDLA weights in a file
    printf '0 1\n1 2\n2 3\n3 0\n0 2\n3 4\n' >"$T/own.txt"
    expect_ok "eval --weights fdla -o" "$tg" eval "$T/own.txt" --weights fdla -o "$T/own_fdla.txt"
    check 'grep -q "^# topogen 2 n=5 d=3 kind=file weights=fdla version=" "$T/own_fdla.txt" && grep -q "^# source: .*own.txt$" "$T/own_fdla.txt" && grep -q "^# fdla: slem=" "$T/own_fdla.txt"' \
        "eval -o: header names the source and the certificate"
    expect_ok "eval the written file" "$tg" eval "$T/own_fdla.txt" --json
    check 'grep -q "\"weights\":\"file\"" "$T/out"' "the written FDLA file is valid as it stands"
    expect_fail 2 "^topogen: -o: 'topogen eval' prints its report on stdout" "eval -o -" "$tg" eval "$T/own.txt" -o -
    expect_fail 1 "^topogen: .*nodir/x.txt" "eval -o unwritable" "$tg" eval "$T/own.txt" --weights fdla -o "$T/nodir/x.txt"
    expect_fail 2 "^topogen: --weights: unknown weight rule 'fdlb' \(expected laplacian, mh, maxdeg, fdla[,)]" \
        "bad weights names fdla" "$tg" --weights fdlb -o "$T/none.txt"
    expect_fail 2 "^dpsgd-train: --weights: fdla weights come from an SDP solve in topogen" \
        "dpsgd-train --weights fdla points to topogen" dt_run --weights fdla
    command -v mpirun >/dev/null 2>&1 || return
    expect_ok "dpsgd-train on negative fdla weights" mpi_run 2 "$dt" --topology "$f" \
        --dataset synthetic --synthetic-train 512 --synthetic-test 64 --epochs 1 --quiet
}

# Time-varying kinds (topo/tg_seq.c, src/cm_topo_seq.c): files, eval,
# simulation to round-off, bad sequences.
seq_cases() {
    tg="$BIN/topogen"
    f="$T/base24.txt"
    expect_ok "base kind" "$tg" --kind base -n 24 -d 2 -q -o "$f"
    check 'sed -n 1p "$f" | grep -q "^# topogen 2 n=24 d=2 kind=base period=[0-9]* seed=1 version=" && [ "$(grep -c "^# round " "$f")" -ge 2 ]' \
        "base file: header and round sections"
    expect_ok "eval base" "$tg" eval "$f" --json
    check 'grep -q "\"exact\":true" "$T/out" && grep -q "\"max_degree\":2," "$T/out"' "base: exact, degree <= 2"
    expect_ok "one-peer-exp" "$tg" --kind one-peer-exp -n 32 -q -o "$T/op.txt"
    expect_ok "eval one-peer-exp" "$tg" eval "$T/op.txt"
    check 'grep -q "^period *5$" "$T/out" && grep -q "^degree *1 1 1 1 1 " "$T/out" && grep -q "^rounds_1e-3 *5$" "$T/out"' \
        "one-peer-exp n=32: period 5, degree 1, exact after 5 rounds"
    expect_ok "simulate a sequence" "$tg" eval "$T/op.txt" --simulate 7
    check 'awk "!/^#/ && \$1 >= 5 && \$2 > 1e-13 { bad = 1 } !/^#/ && \$1 == 4 && \$2 < 1e-3 { bad = 1 } END { exit bad }" "$T/out"' \
        "simulation: round-off after one period, not before"
    sed -n '/^# round 2 /,/^# round 3 /p' "$T/op.txt" | grep -v '^#' >"$T/r2.txt"
    check '[ "$(wc -l <"$T/r2.txt")" -eq 16 ] && awk "\$2 != \$1 + 4 && \$2 != \$1 - 4 { bad = 1 } END { exit bad }" "$T/r2.txt"' \
        "one round cut out with sed: the 16 pairs i ~ i XOR 4"
    expect_fail 2 "^topogen: -n: one-peer-exp needs n a power of two" "one-peer-exp n=24" "$tg" --kind one-peer-exp -n 24 -o "$T/none.txt"
    expect_fail 2 "^topogen: --weights: --kind base carries its own weights" "base --weights" "$tg" --kind base -n 8 -d 1 --weights mh -o "$T/none.txt"
    expect_fail 2 "^topogen: --weights: .*op.txt is time-varying" "eval sequence --weights" "$tg" eval "$T/op.txt" --weights mh
    expect_fail 2 "^topogen: -o: .*op.txt is time-varying" "eval sequence -o" "$tg" eval "$T/op.txt" -o "$T/none.txt"
    awk '/^# round 1 /{ print "# round 1 n=33"; next } { print }' "$T/op.txt" >"$T/badn.txt"
    expect_fail 1 "^topogen: .*badn.txt:[0-9]+: round 1 has 33 nodes, but round 0 \(line [0-9]+\) has 32" "sections with different n" "$tg" eval "$T/badn.txt"
    sed 's/period=5/period=0/' "$T/op.txt" >"$T/p0.txt"
    expect_fail 1 "^topogen: .*p0.txt:1: period=0" "period 0" "$tg" eval "$T/p0.txt"
    awk '{ print } /^# round 3 /{ print "0 0 0.6" }' "$T/op.txt" >"$T/rows3.txt"
    expect_fail 1 "^topogen: .*rows3.txt: round 3 \(line [0-9]+\): row 0 of W sums to 1.1" "round not averaging" "$tg" eval "$T/rows3.txt"
    check '[ ! -e "$T/none.txt" ]' "no output after sequence errors"
    command -v mpirun >/dev/null 2>&1 || return
    dt="$BIN/dpsgd-train"
    syn="--dataset synthetic --synthetic-train 512 --synthetic-test 64"
    expect_ok "one-peer-exp" "$tg" --kind one-peer-exp -n 8 -q -o "$T/op8.txt"
    expect_ok "dpsgd-train on a sequence" mpi_run 2 "$dt" --topology "$T/op8.txt" $syn --epochs 1
    check 'grep -q "product-norm 0.0000" "$T/out" && grep -q "^time-varying topology: 3 rounds per period" "$T/out"' \
        "dpsgd-train reports the period and the product norm"
    expect_fail 1 "^dpsgd-train: --topology: .*rows3.txt: round 3 \(line [0-9]+\): row 0 of W sums to 1.1" \
        "dpsgd-train: bad round" mpi_run 2 "$dt" --topology "$T/rows3.txt" $syn
    expect_ok "gt on a sequence" mpi_run 2 "$dt" --topology "$T/op8.txt" --algorithm gt $syn --epochs 1
    check 'grep -q "^final: gt .*product-norm 0.0000" "$T/out"' "gt runs on a sequence"
    expect_fail 2 "^dpsgd-train: --algorithm d2 on .*op8.txt: the topology is time-varying \(period 3\), and D\^2 needs one fixed mixing matrix" \
        "dpsgd-train: d2 refuses a sequence" mpi_run 2 "$dt" --topology "$T/op8.txt" --algorithm d2 $syn
}

# Issue 21: directed and epidemic topologies in dpsgd-train: the same
# workers-hash on 1, 3 and 4 ranks, resume equals an uninterrupted run,
# what each algorithm allows, and one message per bad directed file.
directed_cases() {
    command -v mpirun >/dev/null 2>&1 || { fail "mpirun not found"; return; }
    dt="$BIN/dpsgd-train"
    syn="--dataset synthetic --synthetic-train 512 --synthetic-test 64"
    awk 'BEGIN { print "# n=7 directed=1"; for (i = 0; i < 7; i++) { print i, (i + 1) % 7, 0.35; print i, (i + 3) % 7, 0.25 } }' >"$T/dir7.txt"
    printf '# topogen 2 n=8 kind=epidemic s=2 local=0\n' >"$T/elo8.txt"
    printf '# n=8 kind=epidemic s=2 local=1\n' >"$T/ell8.txt"
    for f in dir7 elo8 ell8; do
        h1=""
        for np in 1 3 4; do
            expect_ok "$f on $np ranks" mpi_run $np "$dt" --topology "$T/$f.txt" $syn --epochs 1 --quiet
            h=$(sed -n 's/.*workers-hash //p' "$T/out")
            [ "$np" = 1 ] && h1=$h
            check '[ -n "$h" ] && [ "$h" = "$h1" ]' "$f: the same workers-hash on $np ranks as on 1 ($h, $h1)"
        done
        # resume (on another rank count) equals the uninterrupted run
        expect_ok "$f: 3 epochs" mpi_run 3 "$dt" --topology "$T/$f.txt" $syn --epochs 3 --quiet
        hf=$(sed -n 's/.*workers-hash //p' "$T/out")
        expect_ok "$f: stopped after 1" mpi_run 3 "$dt" --topology "$T/$f.txt" $syn --epochs 3 --stop-after 1 --checkpoint "$T/ck-$f" --quiet
        expect_ok "$f: resumed" mpi_run 4 "$dt" --topology "$T/$f.txt" $syn --epochs 3 --checkpoint "$T/ck-$f" --resume --quiet
        check '[ -n "$hf" ] && [ "$(sed -n "s/.*workers-hash //p" "$T/out")" = "$hf" ]' "$f: resume equals the uninterrupted run"
    done
    expect_ok "epidemic, not quiet" mpi_run 4 "$dt" --topology "$T/elo8.txt" $syn --epochs 1
    check 'grep -qE "^placement graph \((METIS|own bisection)[a-z0-9 ,-]*\) \(for round 0.s graph of the epidemic topology\): 8 workers on 4 ranks .* cut [0-9]* arcs" "$T/out"' \
        "epidemic: the placement line says what it counts"
    expect_ok "gt on a directed file" mpi_run 3 "$dt" --topology "$T/dir7.txt" --algorithm gt $syn --epochs 1 --quiet
    expect_ok "qgm on EL-Oracle" mpi_run 3 "$dt" --topology "$T/elo8.txt" --algorithm qgm $syn --epochs 1 --quiet
    expect_fail 2 "^dpsgd-train: --algorithm d2 needs a symmetric W .*dir7.txt is a directed topology" \
        "d2 refuses a directed file" mpi_run 2 "$dt" --topology "$T/dir7.txt" --algorithm d2 $syn
    expect_fail 2 "^dpsgd-train: --algorithm d2 needs a symmetric W .*elo8.txt is an epidemic \(EL-Oracle\) topology" \
        "d2 refuses an epidemic topology" mpi_run 2 "$dt" --topology "$T/elo8.txt" --algorithm d2 $syn
    expect_fail 2 "^dpsgd-train: --algorithm gt needs a doubly stochastic W, but .*ell8.txt is EL-Local" \
        "gt refuses EL-Local" mpi_run 2 "$dt" --topology "$T/ell8.txt" --algorithm gt $syn
    expect_fail 2 "^dpsgd-train: --weights mh does not apply to .*dir7.txt \(a directed topology\): its weights are in the file" \
        "--weights on a directed file" mpi_run 2 "$dt" --topology "$T/dir7.txt" --weights mh $syn
    printf '# directed=1\n0 1 0.5\n1 2 0.5\n2 0 0.25\n' >"$T/dcol.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*dcol.txt:2: node 0 gives 1.25 in total .*column 0 of W.*doubly stochastic" \
        "not doubly stochastic" mpi_run 2 "$dt" --topology "$T/dcol.txt" $syn
    printf '# directed=1 n=3\n0 1 0.5\n1 3 0.5\n' >"$T/drange.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*drange.txt:3: node id 3 is beyond the node count n=3" \
        "node out of range" mpi_run 2 "$dt" --topology "$T/drange.txt" $syn
    printf '# directed=1\n0 1\n1 1\n1 0\n' >"$T/dloop.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*dloop.txt:3: self-loop 1 1 without a weight" \
        "self-loop" mpi_run 2 "$dt" --topology "$T/dloop.txt" $syn
    printf '# directed=1\n0 1 0.5\n1 0 0.5\n0 1 0.5\n' >"$T/ddup.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*ddup.txt:4: duplicate arc 0 -> 1 \(line 2 lists it\)" \
        "duplicate arc" mpi_run 2 "$dt" --topology "$T/ddup.txt" $syn
    # topogen's directed kinds train as they are written (d=S, epidemic=local)
    "$BIN/topogen" --kind epidemic --local -d 2 -n 8 --quiet -o "$T/tgel.txt"
    "$BIN/topogen" --kind perm -d 2 -n 8 --quiet -o "$T/tgperm.txt"
    for f in tgel tgperm; do
        expect_ok "topogen's $f on 1 rank" mpi_run 1 "$dt" --topology "$T/$f.txt" $syn --epochs 1 --quiet
        h1=$(sed -n 's/.*workers-hash //p' "$T/out")
        expect_ok "topogen's $f on 3 ranks" mpi_run 3 "$dt" --topology "$T/$f.txt" $syn --epochs 1 --quiet
        check '[ -n "$h1" ] && [ "$(sed -n "s/.*workers-hash //p" "$T/out")" = "$h1" ]' "topogen's $f: the same workers-hash on 3 ranks as on 1"
    done
    printf '# n=4 kind=epidemic s=4\n' >"$T/ebig.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*ebig.txt:1: epidemic s=4 needs 1 <= s <= n - 1 = 3" \
        "epidemic s too large" mpi_run 2 "$dt" --topology "$T/ebig.txt" $syn
}

# The readers (issue 20 items on GraphML/GML/JSON, issue 24 items 5, 6,
# 8, 11, 12, issue 25's model metadata and summary keys): the GraphML and
# GML that networkx and python-igraph wrote (tests/fixtures/) read as the
# same W in both programs; incomplete documents, limits, byte-order marks,
# CR-only files and bad model files are refused at once with the file's
# name. Every case here failed on the previous release.
readers_cases() {
    tg="$BIN/topogen"
    dt=dt_run
    dtb="$BIN/dpsgd-train"
    # under timeout (no shell function): dt_run's environment by hand
    nolk="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    fx=tests/fixtures
    syn="--dataset synthetic --synthetic-train 256 --synthetic-test 64"
    "$tg" eval "$fx/ring8.txt" --json | sed 's/"file":"[^"]*","format":"[^"]*",//' >"$T/ref.json"
    for f in ring8-networkx.graphml ring8-igraph.graphml ring8-networkx.gml ring8-igraph.gml; do
        expect_ok "eval fixture $f" "$tg" eval "$fx/$f" --json
        check '[ "$(sed "s/\"file\":\"[^\"]*\",\"format\":\"[^\"]*\",//" "$T/out")" = "$(cat "$T/ref.json")" ]' \
            "$f reads as ring8.txt: $(head -c 300 "$T/out")"
    done
    expect_ok "train on the edge list" mpi_run 2 "$dtb" --topology "$fx/ring8.txt" $syn --epochs 1
    wh=$(sed -n 's/.*workers-hash \([0-9a-f]*\).*/\1/p' "$T/out")
    for f in ring8-networkx.graphml ring8-igraph.graphml; do
        expect_ok "train on $f" mpi_run 2 "$dtb" --topology "$fx/$f" $syn --epochs 1
        check '[ -n "$wh" ] && grep -q "workers-hash $wh" "$T/out"' "dpsgd-train on $f: the edge list's workers-hash $wh: $(grep final: "$T/out")"
    done
    # issue 24 item 5: half documents are refused, by both programs
    head -n 30 "$fx/ring8-networkx.graphml" >"$T/cut.graphml"
    expect_fail 1 "^topogen: .*cut.graphml:[0-9]+: GraphML: XML error" "truncated GraphML" "$tg" eval "$T/cut.graphml"
    expect_fail 1 "^dpsgd-train: --topology: .*cut.graphml:[0-9]+: GraphML: XML error" "dpsgd-train: truncated GraphML" \
        mpi_run 2 "$dtb" --topology "$T/cut.graphml" $syn
    sed 's:<edge source="2" target="3"/>:<!-- <edge source="2" target="3"/>:' "$fx/ring8-networkx.graphml" >"$T/comment.graphml"
    expect_fail 1 "comment.graphml:[0-9]+: GraphML: XML error" "unterminated comment" "$tg" eval "$T/comment.graphml"
    # issue 24 item 12
    { cat "$fx/ring8-igraph.gml"; echo "]"; } >"$T/extra.gml"
    expect_fail 1 "extra.gml:[0-9]+: GML: '\]' without a matching '\['" "extra ] after a GML graph" "$tg" eval "$T/extra.gml"
    printf 'graph [\n node [ id 0 ]\n node [ id 1000000 ]\n]\n' >"$T/big-id.gml"
    expect_fail 1 "big-id.gml:3: GML: node id 1000000 is beyond the limit \(ids run from 0 to 999999\)" "GML id over the limit" \
        "$tg" eval "$T/big-id.gml"
    printf '\357\273\277' | cat - "$fx/ring8-igraph.graphml" >"$T/bom.graphml"
    expect_ok "GraphML after a byte-order mark" "$tg" eval "$T/bom.graphml" --json
    check 'grep -q "\"format\":\"graphml\"" "$T/out"' "BOM: read as GraphML"
    printf '\357\273\277' | cat - "$fx/ring8.txt" >"$T/bom.txt"
    expect_ok "edge list after a byte-order mark" "$tg" eval "$T/bom.txt"
    tr '\n' '\r' <"$fx/ring8.txt" >"$T/cr.txt"
    expect_fail 1 "cr.txt:1: carriage return inside a line: CR-only line endings" "CR-only line endings" "$tg" eval "$T/cr.txt"
    # issue 24 item 6: the size on the file, before reading, rank 0 first
    printf '0 1\n' >"$T/huge.txt"
    truncate -s 2147483649 "$T/huge.txt"
    expect_fail 1 "huge.txt: 2147483649 bytes, larger than the 2147483647-byte \(2 GiB\) limit of topology files" \
        "topology over the limit" timeout 20 "$tg" eval "$T/huge.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*huge.txt: 2147483649 bytes, larger than" "dpsgd-train: topology over the limit" \
        mpi_run 2 "$dtb" --topology "$T/huge.txt" $syn
    rm -f "$T/huge.txt"
    # model files: metadata, NaN, directory, FIFO, trailing bytes
    m="$T/meta.st"
    expect_ok "save a cnn model" "$dt" $syn --model cnn --epochs 1 --save-model "$m"
    expect_ok "--eval-model takes model and data set from the file" "$dt" --eval-model "$m" --synthetic-train 256 --synthetic-test 64
    check 'grep -q "^eval: model cnn .* dataset synthetic " "$T/out"' "eval from metadata: $(cat "$T/out")"
    expect_fail 1 "^dpsgd-train: --model lenet: .*meta.st holds a cnn model \(its __metadata__\)" "--model conflicts with the file" \
        "$dt" --eval-model "$m" --model lenet $syn
    /usr/bin/python3 -c "
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
n = struct.unpack('<Q', b[:8])[0]
b[8 + n + 4 * 3:8 + n + 4 * 4] = struct.pack('<f', float('nan'))
open(sys.argv[2], 'wb').write(b)
open(sys.argv[3], 'wb').write(bytes(open(sys.argv[1], 'rb').read()) + bytes(8))
" "$m" "$T/nan.st" "$T/trail.st"
    expect_fail 1 "^dpsgd-train: model file .*nan.st: tensor '0.weight' holds NaN at element 3" "--eval-model: NaN named" \
        "$dt" --eval-model "$T/nan.st" $syn
    expect_fail 1 "^dpsgd-train: .*nan.st: tensor '0.weight' holds NaN" "--init-model: NaN named" \
        "$dt" --init-model "$T/nan.st" --model cnn $syn --epochs 1
    expect_fail 1 "trail.st: 8 bytes after the last tensor belong to no tensor" "trailing bytes refused" "$dt" --eval-model "$T/trail.st" $syn
    expect_fail 1 "model file $T: not a regular file \(a directory\)" "--eval-model DIR" timeout 20 env "$nolk" "$dtb" --eval-model "$T" $syn
    mkfifo "$T/fifo.st"
    expect_fail 1 "fifo.st: not a regular file \(a FIFO\)" "--eval-model FIFO: no hang" timeout 20 env "$nolk" "$dtb" --eval-model "$T/fifo.st" $syn
    rm -f "$T/fifo.st"
    # issue 25: the summary identifies the run
    expect_ok "d2 with a summary" mpi_run 2 "$dtb" --topology "$fx/ring8.txt" --algorithm d2 $syn --epochs 1 --summary "$T/d2.json"
    check '/usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
s, r = d[\"settings\"], d[\"result\"]
assert r[\"mode\"] == \"d2\" and s[\"algorithm\"] == \"d2\", (r[\"mode\"], s[\"algorithm\"])
assert s[\"d2_mixing\"] == \"auto\" and 0 < r[\"d2_mixing\"] <= 1, r[\"d2_mixing\"]
for k in (\"placement\", \"net\", \"keep\", \"timeout\", \"data\"):
    assert k in s, k
assert s[\"placement\"] == \"graph\" and s[\"keep\"] == 2 and s[\"timeout\"] == 600
assert r[\"placed_by\"].startswith((\"METIS\", \"own bisection\")), r[\"placed_by\"]
" "$T/d2.json"' "summary: algorithm, d2_mixing, placement, net, keep, timeout, result.mode d2, placed_by"
    expect_ok "summary of a Fashion-MNIST run" "$dt" --dataset fashion-mnist --train-limit 128 --test-limit 64 --epochs 1 \
        --summary "$T/fm.json"
    check '/usr/bin/python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))[\"settings\"]
assert s[\"data\"].startswith(\"/\"), s[\"data\"]
" "$T/fm.json"' "summary: settings.data is the folder read: $(grep '"data"' "$T/fm.json")"
}

# n_eff (topo/tg_neff*.c): eval at several gammas, the optimal weights'
# certificate, the n_eff objectives, directed and epidemic kinds, compare.
neff_cases() {
    tg="$BIN/topogen"
    f="$T/neff_r.txt"
    "$tg" -n 32 -d 4 --kind random --seed 2 -q -o "$f"
    expect_ok "eval --gamma list" "$tg" eval "$f" --gamma 0.5,0.9,0.951,0.99
    check '[ "$(grep -c "^neff  .*closed form" "$T/out")" -eq 4 ] && grep -q "(gamma 0.99, closed form; [0-9.]* per message, 4 sent" "$T/out"' \
        "one neff line per gamma, with the per-message figure"
    expect_ok "eval --json one gamma" "$tg" eval "$f" --json
    check 'grep -q "\"neff\":[0-9.]*,\"neff_per_message\":[0-9.]*," "$T/out"' "neff is a number for one gamma"
    expect_ok "eval --json gammas" "$tg" eval "$f" --json --gamma 0.5,0.9
    check 'grep -q "\"neff\":{\"0.5\":[0-9.]*,\"0.9\":[0-9.]*}" "$T/out"' "neff is an object keyed by gamma"
    expect_fail 2 "^topogen: --gamma: expected numbers in \(0, 1\)" "bad gamma" "$tg" eval "$f" --gamma 0.5,1.5
    expect_fail 2 "^topogen: --gamma:" "empty gamma" "$tg" -n 16 --gamma ""
    # optimal weights: certified, and at least MH's n_eff
    w="$T/neff_w.txt"
    expect_ok "--weights neff" "$tg" -n 32 -d 4 --kind random --seed 2 --weights neff -q -o "$w"
    check 'grep -q "^# neff: gamma=0.951 neff=[0-9.]* upper_bound=[0-9.]* (certified gap [0-9.e+-]*)" "$w" && grep -q "^# settings: .*--gamma 0.951 --weights neff " "$w"' \
        "neff weights: header with the certificate and the gamma"
    "$tg" eval "$w" --json >"$T/neff_a.json"
    "$tg" eval "$f" --weights mh --json -q >"$T/neff_b.json"
    check 'a=$(sed "s/.*\"neff\":\([0-9.]*\).*/\1/" "$T/neff_a.json"); b=$(sed "s/.*\"neff\":\([0-9.]*\).*/\1/" "$T/neff_b.json"); awk -v a="$a" -v b="$b" "BEGIN { exit !(a >= b && a > 1) }"' \
        "neff weights beat mh"
    expect_ok "eval --weights neff-alpha" "$tg" eval "$f" --weights neff-alpha -q
    check 'grep -q "^weights       neff-alpha" "$T/out"' "neff-alpha scan"
    # the search's n_eff objective
    expect_ok "--objective neff:0.9" "$tg" -n 16 -d 3 --objective neff:0.9 --iters 300 -q -o "$T/neff_l.txt"
    check 'grep -q "^# settings: .*--objective neff:0.9 " "$T/neff_l.txt"' "objective with its gamma in the header"
    expect_ok "--objective neff-per-message" "$tg" -n 16 -d 3 --objective neff-per-message --iters 100 -q
    expect_fail 2 "^topogen: --objective: gamma '2' is not a number in \(0, 1\)" "objective gamma" "$tg" -n 16 --objective neff:2
    expect_fail 2 "^topogen: --objective: ratio takes no :GAMMA" "ratio gamma" "$tg" -n 16 --objective ratio:0.5
    # directed kinds
    p="$T/neff_p.txt"
    expect_ok "--kind perm" "$tg" -n 20 -d 3 --kind perm --seed 4 -q -o "$p"
    check 'head -1 "$p" | grep -q "kind=perm directed=1" && [ "$(grep -vc "^#" "$p")" -eq 60 ]' "perm: directed header, n*d edges"
    "$tg" -n 20 -d 3 --kind perm --seed 4 -q -o "$T/neff_p2.txt"
    "$tg" -n 20 -d 3 --kind perm --seed 5 -q -o "$T/neff_p3.txt"
    check 'cmp -s "$p" "$T/neff_p2.txt" && ! cmp -s "$p" "$T/neff_p3.txt"' "perm: same seed same bytes, another seed another graph"
    check 'awk "!/^#/ { if (\$1 == \$2) bad = 1; out[\$1]++; in_[\$2]++ } END { for (i in out) if (out[i] != 3 || in_[i] != 3) bad = 1; exit bad }" "$p"' \
        "perm: 3 out and 3 in per node, no self loop"
    expect_ok "--kind exp-directed" "$tg" -n 16 --kind exp-directed -q -o "$T/neff_e.txt"
    check '[ "$(grep -vc "^#" "$T/neff_e.txt")" -eq 64 ] && grep -q "^0 8 0.2" "$T/neff_e.txt"' "exp-directed: i -> i + 2^k"
    expect_ok "--kind learned --directed" "$tg" -n 16 -d 2 --kind learned --directed --iters 200 -q -o "$T/neff_d.txt"
    check 'grep -q "^# settings: .*--directed" "$T/neff_d.txt" && grep -q "neff=[0-9.]* (gamma 0.951)" "$T/neff_d.txt"' "learned directed header"
    expect_ok "--directed --objective ratio" "$tg" -n 16 -d 2 --kind learned --directed --objective ratio --iters 200 -o "$T/neff_dn.txt"
    check 'grep -q "objective=ratio (min ||W - J||_2)" "$T/err" && grep -q "^# settings: .*--directed --objective ratio " "$T/neff_dn.txt"' \
        "directed search for the spectral norm"
    expect_ok "--kind epidemic" "$tg" -n 24 -d 3 --kind epidemic -q -o "$T/neff_ep.txt"
    expect_ok "eval epidemic" "$tg" eval "$T/neff_ep.txt" --gamma 0.9
    check 'grep -q "^neff  .* +- [0-9.]*  (gamma 0.9, Monte Carlo, EL-Oracle" "$T/out"' "epidemic n_eff by simulation with its error"
    expect_ok "--kind epidemic --local" "$tg" -n 24 -d 3 --kind epidemic --local -q -o "$T/neff_el.txt"
    check 'head -1 "$T/neff_el.txt" | grep -q "epidemic=local"' "EL-Local header"
    expect_fail 2 "^topogen: --local: only --kind epidemic" "--local alone" "$tg" -n 16 --local
    expect_fail 2 "^topogen: --directed: only --kind learned" "--directed random" "$tg" -n 16 --kind random --directed
    expect_fail 2 "^topogen: --weights: --kind perm carries its own" "perm weights" "$tg" -n 16 --kind perm --weights mh
    expect_fail 2 "^topogen: -n: --kind perm needs n >= 3 and n > d" "perm too small" "$tg" -n 4 -d 4 --kind perm
    check '[ ! -e "$T/none.txt" ]' "no output after directed errors"
    # the symmetric exponential graph's names
    expect_ok "--kind exponential (alias)" "$tg" -n 16 --kind exponential -o "$T/neff_x1.txt"
    check 'grep -q "notice: --kind exponential is the symmetric" "$T/err"' "alias notice"
    "$tg" -n 16 --kind exponential-sym -q -o "$T/neff_x2.txt"
    check 'sed "s/exponential-sym/exponential/g" "$T/neff_x2.txt" | cmp -s - "$T/neff_x1.txt"' "exponential-sym: same graph, its own name"
    # a sequence reports n_eff too
    "$tg" -n 16 --kind one-peer-exp -q -o "$T/neff_op.txt"
    expect_ok "eval sequence" "$tg" eval "$T/neff_op.txt"
    check 'grep -q "^neff  .*Lyapunov; [0-9.]* per message, 1 sent" "$T/out"' "sequence n_eff, one message per round"
    expect_ok "compare" "$tg" compare -n 16 -d 3 --iters 300 --gamma 0.9,0.951
    check 'for r in "learned (ratio)" "random regular" "ring lattice" "one-peer exponential" "Base-3" "perm (directed)" "exp-directed" "epidemic" "Ramanujan bound"; do grep -q "^$r" "$T/out" || exit 1; done' \
        "compare prints every row"
    expect_fail 2 "^topogen: compare: takes -n, -d" "compare --kind" "$tg" compare -n 16 --kind ring
}

. "$(dirname "$0")/cli_dataaware.sh"
. "$(dirname "$0")/cli_repair.sh"
. "$(dirname "$0")/cli_local.sh"
# CLI_GROUPS="topogen readers ...": run only these groups (default: all,
# in this order); each prints its seconds
all_groups="topogen net groups train mpi sweep results fdla seq directed readers neff dataaware repair local"
for group in ${CLI_GROUPS:-$all_groups}; do
    case " $all_groups " in
    *" $group "*) ;;
    *) echo "cli: unknown group '$group' (groups: $all_groups)" >&2; exit 2 ;;
    esac
    g0=$(date +%s)
    "${group}_cases"
    echo "cli: $group: $(( $(date +%s) - g0 )) s"
done

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

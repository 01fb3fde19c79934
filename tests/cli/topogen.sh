#!/bin/sh
# cli/topogen.sh: topogen's command line: flags, kinds, output files, eval
# and its refusals.
#
#   BIN=bin sh tests/cli/topogen.sh  (make check-cli-topogen)
. "$(dirname "$0")/lib.sh"

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
    # a kind that fixes its degree: the settings line (no -d) re-creates
    # the file, and a -d other than the kind's is refused, not ignored
    for k in ring torus complete hypercube exponential-sym one-peer-exp exp-directed; do
        expect_ok "--kind $k -n 32" "$tg" -n 32 --kind "$k" -q -o "$T/fix-$k.txt"
        expect_ok "re-run $k's settings" "$tg" $(sed -n 's/^# settings: //p' "$T/fix-$k.txt") -q -o "$T/fix-$k-b.txt"
        check 'cmp -s "$T/fix-$k.txt" "$T/fix-$k-b.txt" && ! sed -n 2p "$T/fix-$k.txt" | grep -q -- " -d "' \
            "$k: its settings line reproduces the file, with no -d: $(sed -n 2p "$T/fix-$k.txt")"
    done
    expect_fail 2 "^topogen: -d 6: --kind ring on 32 nodes has degree 2 \(implied by the kind\): leave -d out" \
        "-d 6 --kind ring" "$tg" -n 32 -d 6 --kind ring -q -o "$T/fix-bad.txt"
    check '[ ! -e "$T/fix-bad.txt" ]' "no file after a refused -d"
    expect_ok "-d 2 --kind ring (its degree)" "$tg" -n 32 -d 2 --kind ring -q -o "$T/fix-ok.txt"
    check 'cmp -s "$T/fix-ok.txt" "$T/fix-ring.txt"' "-d 2 --kind ring: the same file as without -d"
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
    # says interrupted=1, the exit status is 128 + 2, and the file is valid.
    # The signal goes once the search runs (its first progress line, after
    # 1 s of search), not after a fixed sleep: sent before the search's
    # handler is in place it is ignored (a background job of sh starts with
    # SIGINT ignored: sent 0.05 s after the start, topogen still ran 3 s
    # later), and the search of 10^8 moves runs for a day; a fixed 2 s
    # need not reach the search on a loaded machine
    case_no=$((case_no + 1))
    "$tg" -n 200 -d 4 --iters 100000000 -o "$T/int.txt" 2>"$T/int.err" &
    pid=$!
    i=0
    while ! grep -q "^topogen: .*% 2 restarts" "$T/int.err" && [ $i -lt 600 ]; do
        sleep 0.1; i=$((i + 1))
    done
    # (no progress line in 60 s: SIGTERM, which is not ignored, and the
    # case fails on its exit 143 rather than hang)
    if [ $i -lt 600 ]; then kill -INT "$pid"; else kill -TERM "$pid"; fi
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
        # -d for the kinds that use it (and the torus and hypercube on 16
        # nodes, whose degree is 4); the others fix theirs
        dflag="-d 4"; case $k in exponential|ring|complete) dflag="" ;; esac
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
        expect_ok "networkx and igraph read $f" /usr/bin/python3 tests/python/read_topo.py "$f" "$T/r30.$f" 3 "$s30"
    done
    check '! grep -q "^#" "$T/r30.ncol"' "ncol has no comment lines"
    expect_ok "learned file read by networkx and igraph" /usr/bin/python3 tests/python/read_topo.py edgelist "$g" 4 \
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

cli_run topogen

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
    check 'sed -n 2p "$g" | grep -qE "^# settings: -n 16 -d 4 --kind learned --weights laplacian --objective ratio --init random --seed 1 --iters [0-9]+ --restarts [0-9]+ --t0 [0-9.e+-]+ --t1 [0-9.e+-]+ --format edgelist$"' \
        "header line 2 format: $(sed -n 2p "$g")"
    check 'sed -n 3p "$g" | grep -qE "^# lambda2=[0-9]+\.[0-9]{4} lambdan=[0-9]+\.[0-9]{4} slem=0\.[0-9]{4}$"' \
        "header line 3 format: $(sed -n 3p "$g")"
    check '[ "$(grep -c "^[0-9]" "$g")" -eq 32 ] && ! awk "/^[0-9]/ && \$1 == \$2 { bad = 1 } END { exit !bad }" "$g"' \
        "32 edge lines, no self-loop lines"
    # the settings line re-creates the file byte for byte
    expect_ok "re-run the header's settings" "$tg" $(sed -n 's/^# settings: //p' "$g") -q -o "$T/g16b.txt"
    check 'cmp -s "$g" "$T/g16b.txt"' "settings in the header reproduce the file"
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

    for k in ring rrl torus hypercube exponential random complete; do
        expect_ok "kind $k" "$tg" -n 16 -d 4 --kind "$k" --weights mh -q -o "$T/$k.txt"
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
    expect_fail 2 "^topogen: --time-limit: expected a positive number" "time 0" "$tg" --time-limit 0 -o "$o"
    expect_fail 2 "^topogen: --iters: expected a positive integer" "iters 1e3" "$tg" --iters 1e3 -o "$o"
    expect_fail 2 "^topogen: --restarts: expected a positive integer" "restarts 0" "$tg" --restarts 0 -o "$o"
    expect_fail 2 "^topogen: --seed: expected a non-negative integer" "seed x" "$tg" --seed x -o "$o"
    check '[ ! -e "$o" ]' "no output file after bad flags"
    expect_fail 1 "^topogen: -o: .*/no/such/dir/g.txt" "unwritable -o" "$tg" -n 16 -o "$T/no/such/dir/g.txt"
    expect_fail 2 "^topogen: --simulate: cannot be combined with --json" "simulate+json" "$tg" eval "$g" --json --simulate 3
    expect_fail 2 "^topogen: eval: missing FILE" "eval without file" "$tg" eval
    expect_fail 2 "^topogen: -n: not a flag of 'topogen eval'" "eval -n" "$tg" eval "$g" -n 3
    expect_fail 2 "^topogen: --simulate: expected a positive integer" "simulate -1" "$tg" eval "$g" --simulate -1
    expect_fail 1 "^topogen: .*$T/missing.txt" "eval missing file" "$tg" eval "$T/missing.txt"
    expect_fail 2 "^topogen: --simulate: at most 10000000 " "simulate huge" "$tg" eval "$g" --simulate 99999999999
    awk 'BEGIN { for (i = 0; i < 5000; i++) print i, (i + 1) % 5000 }' >"$T/big.txt"
    expect_fail 1 "^topogen: .*big.txt: laplacian weights of a 5000-node graph .*limited to 4096 nodes: use mh" "eval of a too large file" "$tg" eval "$T/big.txt"
    expect_fail 1 "^topogen: .*big.txt: Laplacian spectrum of a 5000-node graph: the dense eigensolver is limited to 4096" "eval of a too large file, mh" "$tg" eval "$T/big.txt" --weights mh
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
    expect_fail 2 "^dpsgd-train: unknown option '--bogus'" "unknown flag" "$dt" --bogus
    expect_fail 2 "^dpsgd-train: --epochs needs a value" "missing value" "$dt" --epochs
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
    # a tiny synthetic run: progress lines, final line, a complete CSV
    expect_ok "synthetic run" "$dt" $syn --epochs 2 --log "$l"
    check '[ "$(grep -c "^epoch " "$T/out")" -eq 2 ]' "one progress line per epoch"
    check 'head -1 "$l" | grep -qx "epoch,step,wall_s,train_loss,test_acc,test_acc_local_mean,consensus,bytes_sent"' "CSV header"
    check '[ "$(wc -l <"$l")" -eq 3 ] && awk -F, "NR > 1 && (\$5 < 0 || \$5 > 1 || \$7 != 0 || \$8 != 0) { bad = 1 } END { exit bad }" "$l"' "CSV rows: acc in 0..1, consensus and bytes 0"
    h1=$(sed -n 's/.*hash //p' "$T/out")
    expect_ok "synthetic run, --quiet, same seed" "$dt" $syn --epochs 2 --quiet
    check '[ "$(grep -c "^epoch " "$T/out")" -eq 0 ] && [ "$(sed -n "s/.*hash //p" "$T/out")" = "$h1" ]' "--quiet; same seed, same parameters"
    model_cases
}

# --save-model / --eval-model / --init-model and bad model files.
model_cases() {
    m="$T/m.safetensors"
    expect_ok "--save-model" "$dt" $syn --epochs 1 --save-model "$m" --threads 2
    acc=$(sed -n 's/^final:.*test_acc \([0-9.]*\).*hash \([0-9a-f]*\).*/\1 \2/p' "$T/out")
    check '[ -s "$m" ] && head -c 40 "$m" | tail -c 32 | grep -q "^{\"0.weight\":{\"dtype\":\"F32\""' "safetensors header, PyTorch names"
    check '[ -z "$(ls "$T" | grep "m.safetensors.tmp")" ]' "no temporary file left"
    expect_ok "--eval-model" "$dt" $syn --eval-model "$m"
    check '[ "$(sed -n "s/^eval:.*test_acc \([0-9.]*\).*hash \([0-9a-f]*\).*/\1 \2/p" "$T/out")" = "$acc" ]' "eval: the final accuracy and hash"
    expect_ok "--init-model" "$dt" $syn --epochs 1 --init-model "$m" --lr 0
    check '[ "$(sed -n "s/^final:.*hash //p" "$T/out")" = "${acc#* }" ]' "--init-model, lr 0: the model unchanged"
    expect_fail 1 "^dpsgd-train: .*$T/nodir/m.st" "unwritable model path" "$dt" $syn --epochs 1 --save-model "$T/nodir/m.st"
    expect_fail 1 "^dpsgd-train: model file $m: tensor '0.weight' has shape \[6,1,5,5\], expected \[32,1,3,3\]" \
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
    expect_fail 2 "^dpsgd-train: --topology: laplacian weights of a 999999-node graph .* use mh or maxdeg" \
        "huge ring: a message, not GSL's abort" mpi_run 2 "$dt" --topology "$T/ring999999.txt" $syn --log "$l"
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
    expect_fail 2 "^dpsgd-train: 2 MPI ranks need --topology" \
        "two ranks, no topology" mpi_run 2 "$dt" $syn --log "$l"
    expect_fail 2 "^dpsgd-train: --partition 'dirichlet:-1'" \
        "bad partition" mpi_run 2 "$dt" --topology "$T/g4.txt" --partition dirichlet:-1 $syn
    expect_fail 1 "^dpsgd-train: --resume: no complete checkpoint in $T/ck" \
        "resume without checkpoint" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --checkpoint "$T/ck" --resume --log "$l"
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
    # a good run, and a corrupt checkpoint refused on resume
    expect_ok "4 workers on 2 ranks" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 2 --checkpoint "$T/ck" --log "$l"
    check '[ "$(wc -l <"$l")" -eq 3 ] && [ -f "$T/ck/latest" ]' "CSV rows and a complete checkpoint"
    f=$(ls "$T"/ck/epoch-*/worker-000001.ckpt)
    printf 'garbage' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
    expect_fail 1 "^dpsgd-train: --resume: .*worker-000001.ckpt: checksum mismatch" \
        "corrupt checkpoint" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --epochs 2 --checkpoint "$T/ck" --resume
    # the average model of a distributed run, saved and evaluated again
    expect_ok "--save-model under mpirun" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 1 --save-model "$T/avg.st"
    a1=$(sed -n 's/.*test_acc \([0-9.]*\) .*/\1/p' "$T/out" | tail -1)
    expect_ok "--eval-model of the average" dt_run $syn --eval-model "$T/avg.st"
    check '[ -n "$a1" ] && [ "$(sed -n "s/^eval:.*test_acc \([0-9.]*\).*/\1/p" "$T/out")" = "$a1" ]' "average model: the accuracy the run printed"
    placement_cases
}

# --placement, --net, --bench-gossip under mpirun.
placement_cases() {
    rm -f "$l"
    expect_fail 2 "^dpsgd-train: --placement 'metis': expected block or graph" \
        "bad --placement" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --placement metis --log "$l"
    expect_fail 2 "^dpsgd-train: --net 'fast': " "bad --net" \
        mpi_run 2 "$dt" --topology "$T/g4.txt" $syn --net fast --log "$l"
    expect_fail 2 "^dpsgd-train: --net models gossip rounds" "--net with allreduce" \
        mpi_run 2 "$dt" --mode allreduce $syn --net wan --log "$l"
    expect_fail 2 "^dpsgd-train: --bench-gossip needs --topology" "--bench-gossip without topology" \
        mpi_run 2 "$dt" --bench-gossip 3
    check '[ ! -e "$l" ]' "no log after refused placement flags"
    # a 10 s latency makes the model's round 10 s: model_s - wall_s is
    # 10 s per step, less the few seconds of measured MPI time it replaces
    expect_ok "--net with a log" mpi_run 2 "$dt" --topology "$T/g4.txt" $syn \
        --epochs 2 --net "intra=10s,1e12" --log "$l"
    check 'head -1 "$l" | grep -qx "epoch,step,wall_s,model_s,train_loss,test_acc,test_acc_local_mean,consensus,bytes_sent"' \
        "CSV header with model_s: $(head -1 "$l")"
    check 'awk -F, "NR > 1 { d = \$4 - \$3 - 10 * \$2; if (d > 0.01 || d < -3) bad = 1 } END { exit bad }" "$l"' \
        "model_s = wall_s - MPI time + 10 s per step: $(tail -1 "$l")"
    check 'grep -qE "^placement graph: 4 workers on 2 ranks on 1 host: cut [0-9]+ edges \(0 across hosts\); per round .*modelled round 1e\+04 ms" "$T/out"' \
        "placement line: $(grep "^placement" "$T/out" | head -1)"
    check 'grep -q "^modelled wall clock" "$T/out"' "modelled wall clock line"
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
    check 'grep -qE "^  graph +cut 4 edges \(2 across hosts\), 8 arrays" "$T/out"' "graph line: $(grep graph "$T/out")"
    expect_ok "eval --net --json" "$tg" eval "$T/ring32.txt" --net wan --json
    check 'grep -qE "\"net\":\"wan \(.*\"ranks\":32,\"hosts\":32,\"array_bytes\":246824,\"block\":\{\"cut_edges\":32,.*\"round_s\":0\.139[0-9]*\}" "$T/out"' \
        "JSON net members: $(head -c 400 "$T/out")"
    expect_fail 2 "^topogen: --net 'fast': " "bad --net" "$tg" eval "$T/ring32.txt" --net fast
    expect_fail 2 "^topogen: --params, --ranks and --hosts need --net" "--ranks without --net" "$tg" eval "$T/ring32.txt" --ranks 2
    expect_fail 2 "^topogen: --net: only 'topogen eval FILE'" "--net without eval" "$tg" -n 8 --net wan
    expect_fail 1 "^topogen: --ranks 33: .*ring32.txt has only 32 nodes" "--ranks > n" "$tg" eval "$T/ring32.txt" --net wan --ranks 33
    expect_fail 1 "^topogen: --hosts 5: more hosts than the 4 ranks" "--hosts > ranks" "$tg" eval "$T/ring32.txt" --net wan --ranks 4 --hosts 5
}

topogen_cases
net_cases
train_cases
mpi_cases

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

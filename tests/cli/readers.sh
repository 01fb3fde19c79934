#!/bin/sh
# cli/readers.sh: The readers (issue 20 items on GraphML/GML/JSON, issue 24
# items 5, 6, 8, 11, 12, issue 25's model metadata and summary keys): the
# GraphML and GML that networkx and python-igraph wrote (tests/fixtures/)
# read as the same W in both programs; incomplete documents, limits,
# byte-order marks, CR-only files and bad model files are refused at once
# with the file's name. Every case here failed on the previous release.
#
#   BIN=bin sh tests/cli/readers.sh  (make check-cli-readers)
. "$(dirname "$0")/lib.sh"

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
    # issue 44: a named format reads what auto reads (BOM, blank lines)
    printf '\357\273\277\n \n' | cat - "$fx/ring8-igraph.graphml" >"$T/bomnl.graphml"
    printf '\n\n' | cat - "$fx/ring8-networkx.gml" >"$T/nl.gml"
    for f in bom.graphml:graphml bomnl.graphml:graphml nl.gml:gml; do
        expect_ok "--format ${f#*:} after a BOM or blank lines (${f%:*})" "$tg" eval "$T/${f%:*}" --format "${f#*:}"
        check 'grep -q "^n  *8$" "$T/out"' "--format ${f#*:} reads ${f%:*} as auto does"
    done
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
    expect_fail 1 "^dpsgd-train: --eval-model: model file .*nan.st: tensor '0.weight' holds NaN at element 3" "--eval-model: NaN named" \
        "$dt" --eval-model "$T/nan.st" $syn
    expect_fail 1 "^dpsgd-train: --init-model: .*nan.st: tensor .0.weight. holds NaN" "--init-model: NaN named" \
        "$dt" --init-model "$T/nan.st" --model cnn $syn --epochs 1
    expect_fail 1 "trail.st: 8 bytes after the last tensor belong to no tensor" "trailing bytes refused" "$dt" --eval-model "$T/trail.st" $syn
    expect_fail 1 "model file $T: not a regular file \(a directory\)" "--eval-model DIR" timeout 20 env "$nolk" "$dtb" --eval-model "$T" $syn
    mkfifo "$T/fifo.st"
    expect_fail 1 "fifo.st: not a regular file \(a FIFO\)" "--eval-model FIFO: no hang" timeout 20 env "$nolk" "$dtb" --eval-model "$T/fifo.st" $syn
    rm -f "$T/fifo.st"
    # a topogen file cut inside a line (a copy stopped half way) is
    # refused by both programs, naming file and line, writing nothing; a
    # hand-made file without a last line end is still read
    "$tg" -n 8 -d 2 --kind ring -q -o "$T/r8.txt"
    head -c "$(( $(wc -c <"$T/r8.txt") - 5 ))" "$T/r8.txt" >"$T/r8cut.txt"
    "$tg" --kind one-peer-exp -n 8 -q -o "$T/op8.txt"
    head -c "$(( $(wc -c <"$T/op8.txt") - 3 ))" "$T/op8.txt" >"$T/op8cut.txt"
    expect_fail 1 "^topogen: .*r8cut.txt:[0-9]+: the file ends inside a line.*truncated" "eval of a cut file" "$tg" eval "$T/r8cut.txt" -o "$T/cut-out.txt"
    expect_fail 1 "^topogen: .*op8cut.txt:[0-9]+: the file ends inside a line" "eval of a cut sequence" "$tg" eval "$T/op8cut.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*r8cut.txt:[0-9]+: the file ends inside a line" "dpsgd-train of a cut file" $dt --topology "$T/r8cut.txt" $syn --epochs 1 --log "$T/cut.csv" --summary "$T/cut.json"
    check '[ ! -e "$T/cut-out.txt" ] && [ ! -e "$T/cut.csv" ] && [ ! -e "$T/cut.json" ]' "no output left by the cut files"
    printf '0 1\n1 2\n2 0' >"$T/hand.txt"
    expect_ok "a hand-made file without a last line end" "$tg" eval "$T/hand.txt"
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

cli_run readers

#!/bin/sh
# cross-kernel.sh: the same settings give the same topology file, byte for
# byte, on every kernel path OpenBLAS can take and with any number of
# threads (issue 39; docs/topo/portable-bits.md). Runs topogen (learned,
# --labels, --objective neff, --weights fdla and neff at 64 and 1,024
# nodes) and `topogen eval --json` under each OPENBLAS_CORETYPE of
# CORETYPES (plus the library's own choice, "default"), with --threads 1
# and 2, and compares every output with the first run's bytes; on the
# trainer's AVX-512 engine path, also the hashes of a LeNet and a CNN run.
#
#   BIN=bin sh tests/contract/cross-kernel.sh          (about 1.5 minutes of CPU)
#   FULL=1 BIN=bin sh tests/contract/cross-kernel.sh   (the default
#       --iters, --weights fdla at 1,024 nodes: 20-30 minutes)
#   CORETYPES="Haswell SkylakeX" ...                   (fewer paths)
#
# A core type whose instructions this CPU lacks (SkylakeX without
# AVX-512, Haswell without AVX2) cannot run here; it is named, and the
# script fails when fewer than two kernel paths ran.
set -u
BIN=${BIN:-bin}
FULL=${FULL:-0}
SEED=${SEED:-7}
CORETYPES=${CORETYPES:-"Haswell SkylakeX Cooperlake Zen Sandybridge Prescott"}
T=$(mktemp -d "${TMPDIR:-/tmp}/cross-kernel.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
unset OPENBLAS_CORETYPE
export OPENBLAS_NUM_THREADS=1
failed=0
passed=0

flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { case " $flags " in *" $1 "*) return 0 ;; esac; return 1; }
# runnable CORE: this CPU has the instructions of OpenBLAS's CORE kernels
runnable() {
    case $1 in
    default | Prescott | Core2 | Nehalem) return 0 ;;
    Sandybridge) has avx ;;
    Haswell | Zen) has avx2 && has fma ;;
    SkylakeX) has avx512f && has avx512dq && has avx512bw ;;
    Cooperlake) has avx512f && has avx512_bf16 ;;
    *) return 1 ;;
    esac
}

if [ "$FULL" = 1 ]; then
    I64="" I1024="" IN1024="" FDLA1024=1
else
    I64="--iters 3000" I1024="--iters 100" IN1024="--iters 30" FDLA1024=0
fi

# labels files of 64 and 1,024 workers (two classes each)
for w in 64 1024; do
    "$BIN/dpsgd-train" --write-partition "$T/labels$w.txt" --workers $w \
        --partition shards:2 --epochs 0 --dataset synthetic \
        --synthetic-train $((w * 64)) --synthetic-test 64 >/dev/null \
        2>"$T/err" || { echo "cross-kernel: labels: $(head -c 300 "$T/err")"; exit 1; }
done

"$BIN/topogen" -n 16 -d 3 --kind random -q -o "$T/g16.txt" || exit 1
avx512=0
case "${DPSGD_NO_AVX512:-}" in "" | 0) has avx512f && avx512=1 ;; esac
[ "$avx512" = 1 ] ||
    echo "cross-kernel: the engine's AVX-512 path is not in use here: its" \
        "hashes follow OpenBLAS's kernels (docs/topo/portable-bits.md), not compared"

# the cases: NAME then topogen's arguments (the seed and threads added)
cases() {
    echo "learned64 -n 64 -d 4 $I64"
    echo "labels64 -n 64 -d 4 --labels $T/labels64.txt $I64"
    echo "neffobj64 -n 64 -d 4 --objective neff $I64"
    echo "fdla64 -n 64 -d 4 --weights fdla $I64"
    echo "neffw64 -n 64 -d 4 --weights neff $I64"
    echo "learned1024 -n 1024 -d 4 $I1024"
    echo "labels1024 -n 1024 -d 4 --labels $T/labels1024.txt $I1024"
    echo "neffobj1024 -n 1024 -d 4 --objective neff $IN1024"
    echo "neffw1024 -n 1024 -d 4 --kind random --weights neff"
    echo "random1024 -n 1024 -d 4 --kind random"
    [ "$FDLA1024" = 1 ] && echo "fdla1024 -n 1024 -d 4 --weights fdla"
    return 0
}

# train TAG: the trainer's final hashes (LeNet, CNN) into $T/TAG/train.hash,
# on the engine path this CPU and DPSGD_NO_AVX512 give (the AVX-512 path
# sums in its own order whatever OpenBLAS's kernels:
# docs/topo/portable-bits.md)
train() {
    for model in lenet cnn; do
        "$BIN/dpsgd-train" --topology "$T/g16.txt" --model $model \
            --dataset synthetic --synthetic-train 256 --synthetic-test 64 \
            --batch 8 --epochs 1 --threads "$THREADS" --quiet 2>&1 |
            sed -n "s/^final: .*  hash \([0-9a-f]*\)  workers-hash \([0-9a-f]*\)\( .*\)\{0,1\}$/$model \1 \2/p"
    done >"$T/$1/train.hash"
    [ -s "$T/$1/train.hash" ] || echo "FAILED: no final line" >"$T/$1/train.hash"
}

# run TAG: every case under the current environment into $T/TAG/
run() {
    mkdir -p "$T/$1"
    [ "$avx512" = 1 ] && train "$1"
    cases | while read -r name args; do
        # shellcheck disable=SC2086
        if ! "$BIN/topogen" $args --seed "$SEED" --threads "$THREADS" -q \
                -o "$T/$1/$name.txt" 2>"$T/$1/$name.err"; then
            echo "FAILED topogen $args: $(head -c 300 "$T/$1/$name.err")" \
                >"$T/$1/$name.txt"
            continue
        fi
        # quick: eval's O(n^3) figures at 1,024 nodes on two files only
        case $FULL-$name in 0-*1024) case $name in random* | neffw*) ;; *) continue ;; esac ;; esac
        lab=
        case $name in labels*) lab="--labels $T/labels${name#labels}.txt" ;; esac
        # shellcheck disable=SC2086
        "$BIN/topogen" eval "$T/$1/$name.txt" --json $lab 2>&1 |
            sed "s|$T/$1/||g" >"$T/$1/$name.json"
    done
}

ran=""
first=""
for core in default $CORETYPES; do
    if ! runnable "$core"; then
        echo "cross-kernel: $core: this CPU lacks its instructions, not run"
        continue
    fi
    for THREADS in 1 2; do
        [ "$THREADS" = 2 ] && [ "$FULL" != 1 ] && [ -n "$first" ] &&
            [ "$core" != SkylakeX ] && [ "$core" != Haswell ] && continue
        tag="$core-t$THREADS"
        if [ "$core" = default ]; then
            run "$tag"
        else
            OPENBLAS_CORETYPE=$core run "$tag"
        fi
        case " $ran " in *" $core "*) ;; *) ran="$ran $core" ;; esac
        if [ -z "$first" ]; then
            first=$tag
            continue
        fi
        for f in "$T/$first"/*.txt "$T/$first"/*.json "$T/$first"/*.hash; do
            [ -e "$f" ] || continue
            b=$(basename "$f")
            if cmp -s "$f" "$T/$tag/$b"; then
                passed=$((passed + 1))
            else
                failed=$((failed + 1))
                echo "cross-kernel: $b differs between $first and $tag:" \
                    "$(diff "$f" "$T/$tag/$b" | head -n 4 | tr '\n' ' ' | head -c 300)"
            fi
        done
    done
done
# a failed topogen run is a failure even if every path failed alike
if grep -q '^FAILED' "$T/$first"/*.txt "$T/$first"/*.hash 2>/dev/null; then
    failed=$((failed + 1))
    echo "cross-kernel: a run failed: $(grep -h '^FAILED' "$T/$first"/*.txt "$T/$first"/*.hash 2>/dev/null | head -c 300)"
fi
for f in "$T/$first"/*.json; do
    if [ -e "$f" ] && ! head -c 1 "$f" | grep -q '{'; then
        failed=$((failed + 1))
        echo "cross-kernel: eval failed: $(head -c 300 "$f")"
    fi
done
n=$(echo $ran | wc -w)
echo "cross-kernel: kernel paths run:$ran; $passed identical, $failed differ"
if [ "$n" -lt 2 ]; then
    echo "cross-kernel: fewer than two kernel paths could run on this CPU" >&2
    exit 1
fi
[ "$failed" -eq 0 ]

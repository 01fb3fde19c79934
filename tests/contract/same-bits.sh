#!/bin/sh
# same_bits.sh: behaviour unchanged (issue 30). The same seed gives the same
# topology file (edges and weights), the same spectra and the same trainer
# hashes as the build recorded in tests/fixtures/same-bits/, for learned,
# random, one-peer, data-aware, n_eff, directed and FDLA graphs at 64 and
# 1,024 nodes and for D-PSGD, D^2, GT, QGM, clique-avg and all-reduce runs
# (LeNet, and the CNN with its Winograd convolutions).
#
#   BIN=bin sh tests/contract/same-bits.sh     (make check-same-bits)
#   RECORD=1 BIN=bin sh tests/contract/same-bits.sh  (re-record: only when a
#                                               change of bits is intended)
#   CORETYPES="default Haswell SkylakeX" BIN=bin sh tests/contract/same-bits.sh
#       the whole comparison once per OpenBLAS kernel path (issue 39;
#       "default": OpenBLAS's own choice for this CPU); a core type this
#       CPU cannot run is named and left out, and fewer than two run fails
#
# A topology is compared on its edge lines and on its `#` header lines (the
# one header writer's output, the temporary directory's name dropped);
# `topogen eval --json` on the keys the fixture holds (new keys may
# appear; a value that changes fails); a training run on the `hash` and
# `workers-hash` of its final line. Takes about 20 s per kernel path.
#
# Which bits hold where (docs/topo/portable-bits.md): topogen's files and
# eval's figures are the same on every kernel path. The trainer's hashes
# are those of its engine path: train.txt holds the AVX-512 path's (any
# OPENBLAS_CORETYPE); on a CPU without AVX-512 or with DPSGD_NO_AVX512=1
# the engine sums in OpenBLAS's order, so there the training runs are
# compared with themselves (--threads 1 against 2) instead.
set -u
if [ -n "${CORETYPES:-}" ]; then
    flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
    has() { case " $flags " in *" $1 "*) return 0 ;; esac; return 1; }
    rc=0
    ran=0
    for c in $CORETYPES; do
        case $c in
        default | Prescott) ok=1 ;;
        Sandybridge) has avx && ok=1 || ok=0 ;;
        Haswell | Zen) has avx2 && has fma && ok=1 || ok=0 ;;
        SkylakeX) has avx512f && has avx512bw && ok=1 || ok=0 ;;
        Cooperlake) has avx512_bf16 && ok=1 || ok=0 ;;
        *) ok=0 ;;
        esac
        if [ "$ok" = 0 ]; then
            echo "same-bits: OPENBLAS_CORETYPE=$c: not runnable on this CPU"
            continue
        fi
        echo "same-bits: OpenBLAS kernel path $c"
        ran=$((ran + 1))
        if [ "$c" = default ]; then
            (unset OPENBLAS_CORETYPE; CORETYPES= sh "$0") || rc=1
        else
            OPENBLAS_CORETYPE=$c CORETYPES= sh "$0" || rc=1
        fi
    done
    [ "$ran" -ge 2 ] || { echo "same-bits: fewer than two kernel paths ran" >&2; exit 1; }
    exit $rc
fi
BIN=${BIN:-bin}
F=${FIXTURES:-tests/fixtures/same-bits}
RECORD=${RECORD:-0}
T=$(mktemp -d "${TMPDIR:-/tmp}/same-bits.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0
export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

fail() {
    failed=$((failed + 1))
    echo "same-bits: $1 FAILED: $2"
}

# same NAME FILE: FILE equals the fixture NAME (or becomes it, RECORD=1).
same() {
    if [ "$RECORD" = 1 ]; then
        cp "$2" "$F/$1"
    elif [ ! -r "$F/$1" ]; then
        fail "$1" "no fixture $F/$1"
    elif cmp -s "$2" "$F/$1"; then
        passed=$((passed + 1))
    else
        fail "$1" "differs from $F/$1: $(diff "$F/$1" "$2" | head -n 4 | tr '\n' ' ')"
    fi
}

# topo NAME TOPOGEN-ARGS...: the graph's edge lines against NAME.edges,
# its header lines against NAME.header.
topo() {
    name=$1
    shift
    if ! "$BIN/topogen" "$@" --threads 1 -q -o "$T/$name.txt" 2>"$T/err"; then
        fail "$name" "topogen $*: $(head -c 300 "$T/err")"
        return
    fi
    grep -v '^#' "$T/$name.txt" >"$T/$name.edges"
    same "$name.edges" "$T/$name.edges"
    grep '^#' "$T/$name.txt" | sed "s|$T/||g" >"$T/$name.header"
    same "$name.header" "$T/$name.header"
}

# evaljson NAME FILE EVAL-ARGS...: `topogen eval FILE --json` holds every
# key and value of NAME.json.
evaljson() {
    name=$1
    file=$2
    shift 2
    if ! "$BIN/topogen" eval "$file" --json "$@" >"$T/$name.json" 2>"$T/err"; then
        fail "$name" "topogen eval $*: $(head -c 300 "$T/err")"
        return
    fi
    # file names are the temporary directory's
    jq -S 'del(.file, .heterogeneity.labels)' "$T/$name.json" >"$T/$name.sorted"
    if [ "$RECORD" = 1 ]; then
        cp "$T/$name.sorted" "$F/$name.json"
    elif [ ! -r "$F/$name.json" ]; then
        fail "$name" "no fixture $F/$name.json"
    elif jq -e -n --slurpfile old "$F/$name.json" \
            --slurpfile new "$T/$name.sorted" \
            '$old[0] | to_entries | all(.value == $new[0][.key])' \
            >/dev/null; then
        passed=$((passed + 1))
    else
        fail "$name" "eval --json differs from $F/$name.json: $(tr -d '\n' <"$T/$name.sorted" | head -c 400)"
    fi
}

# train NAME DPSGD-TRAIN-ARGS...: the final line's hash and workers-hash,
# appended to $T/train.txt as "NAME hash H workers-hash W".
train() {
    name=$1
    shift
    if ! "$BIN/dpsgd-train" "$@" --threads "$THREADS_TRAIN" --quiet \
            >"$T/out" 2>"$T/err"; then
        fail "$name" "dpsgd-train $*: $(head -c 300 "$T/err")"
        return
    fi
    h=$(sed -n 's/^final: .*  hash \([0-9a-f]*\)  workers-hash \([0-9a-f]*\)\(  AT CHANCE: .*\)\{0,1\}$/hash \1 workers-hash \2/p' "$T/out")
    if [ -z "$h" ]; then
        fail "$name" "no final line: $(head -c 300 "$T/out")"
        return
    fi
    echo "$name $h" >>"$T/train.txt"
}

command -v jq >/dev/null || { echo "same-bits: needs jq" >&2; exit 1; }
[ "$RECORD" = 1 ] && mkdir -p "$F"

# ---- topologies ------------------------------------------------------------
L="$T/labels64.txt"
if ! "$BIN/dpsgd-train" --write-partition "$L" --workers 64 \
        --partition shards:2 --epochs 0 --dataset synthetic \
        --synthetic-train 4096 --synthetic-test 64 >/dev/null 2>"$T/err"; then
    fail labels "dpsgd-train --write-partition: $(head -c 300 "$T/err")"
else
    grep -v '^#' "$L" >"$T/labels64.counts"
    same labels64.counts "$T/labels64.counts"
fi

topo learned64      -n 64 -d 4 --iters 2000
topo learned1024    -n 1024 -d 4 --iters 300
topo random64-mh    -n 64 -d 4 --kind random --weights mh
topo random1024     -n 1024 -d 4 --kind random
topo onepeer1024    -n 1024 --kind one-peer-exp
topo labels-learned64 -n 64 -d 4 --labels "$L" --iters 2000
topo stlfw64        -n 64 -d 4 --kind stl-fw --labels "$L"
topo dcliques64     -n 64 --kind dcliques --labels "$L"
topo neff-obj64     -n 64 -d 4 --objective neff --iters 2000
topo neff-obj1024   -n 1024 -d 4 --objective neff --iters 300
topo neff-w1024     -n 1024 -d 4 --kind random --weights neff
topo directed64     -n 64 -d 4 --directed --iters 500
topo fdla64         -n 64 -d 4 --kind random --weights fdla
topo base48         -n 48 -d 2 --kind base
topo perm100        -n 100 -d 3 --kind perm
topo epidemic16     -n 16 -d 2 --kind epidemic --local
topo directed-neffw16 -n 16 -d 2 --directed --iters 200 --weights neff

# ---- spectra and measures of those files ------------------------------------
evaljson eval-learned1024  "$T/learned1024.txt"
evaljson eval-onepeer1024  "$T/onepeer1024.txt"
evaljson eval-neff-w1024   "$T/neff-w1024.txt"
evaljson eval-fdla64       "$T/fdla64.txt"
evaljson eval-directed64   "$T/directed64.txt"
evaljson eval-net1024      "$T/random1024.txt" --net datacenter
evaljson eval-base48       "$T/base48.txt"
evaljson eval-perm100      "$T/perm100.txt"
# the sparse spectra (cm_shiftinv, from 2,048 nodes): the file's Laplacian
# weights and its figures, through eval's 17 digits
"$BIN/topogen" -n 4096 -d 4 --kind random -q -o "$T/random4096.txt" &&
    evaljson eval-random4096 "$T/random4096.txt"
evaljson eval-labels64     "$T/labels-learned64.txt" --labels "$L"

# ---- training runs (one rank, no mpirun: the same bits on any number) -------
# the engine's AVX-512 path (its own GEMMs and convolutions, in a fixed
# order whatever OpenBLAS's kernels) is the one train.txt was recorded on
avx512=0
case "${DPSGD_NO_AVX512:-}" in "" | 0)
    grep -q '^flags.* avx512f' /proc/cpuinfo 2>/dev/null && avx512=1 ;;
esac
THREADS_TRAIN=1
: >"$T/train.txt"
"$BIN/topogen" -n 16 -d 3 --kind random -q -o "$T/g16.txt"
"$BIN/topogen" -n 16 -d 3 --kind epidemic -q -o "$T/epi16.txt"
"$BIN/topogen" -n 16 --kind one-peer-exp -q -o "$T/onepeer16.txt"
"$BIN/topogen" -n 16 --kind exp-directed -q -o "$T/dir16.txt"
syn="--dataset synthetic --synthetic-train 512 --synthetic-test 64 --batch 8 --epochs 1"
trainings() {
    for a in dpsgd d2 gt qgm; do
        train "train-$a" --topology "$T/g16.txt" $syn --algorithm $a
    done
    train train-allreduce  --mode allreduce --workers 16 $syn
    # the CNN: its 3x3 convolutions run the Winograd kernels (dt_wino.c), whose
    # order of operations these bits pin (tests/unit/check_wino.c checks accuracy)
    train train-cnn --topology "$T/g16.txt" --model cnn --dataset synthetic \
        --synthetic-train 256 --synthetic-test 64 --batch 8 --epochs 1
    train train-mh-dirichlet --topology "$T/g16.txt" $syn --weights mh \
        --partition dirichlet:1
    train train-epidemic   --topology "$T/epi16.txt" $syn
    train train-onepeer    --topology "$T/onepeer16.txt" $syn
    train train-directed   --topology "$T/dir16.txt" $syn
    train train-clique-avg --topology "$T/dcliques64.txt" --dataset synthetic \
        --synthetic-train 4096 --synthetic-test 64 --batch 8 --epochs 1 \
        --partition shards:2 --algorithm clique-avg
    # --staleness: recorded before its rounds were put in flight (S + 1
    # gossip plans, issue 41); the overlap must not move a bit
    train train-dpsgd-stale2 --topology "$T/g16.txt" $syn --staleness 2
    train train-d2-stale1-h2 --topology "$T/g16.txt" $syn --algorithm d2 \
        --staleness 1 --average-every 2
}
trainings
if [ "$avx512" = 1 ]; then
    same train.txt "$T/train.txt"
elif [ "$RECORD" = 1 ]; then
    echo "same-bits: train.txt not recorded: it holds the AVX-512 path's hashes"
else
    # another engine path: its own bits, the same on 1 and 2 threads
    echo "same-bits: the engine's AVX-512 path is not in use (no avx512f, or" \
        "DPSGD_NO_AVX512): training runs compared on --threads 1 and 2"
    mv "$T/train.txt" "$T/train1.txt"
    : >"$T/train.txt"
    THREADS_TRAIN=2
    trainings
    if cmp -s "$T/train1.txt" "$T/train.txt"; then
        passed=$((passed + 1))
    else
        fail train.txt "--threads 1 and 2 differ: $(diff "$T/train1.txt" "$T/train.txt" | head -n 4 | tr '\n' ' ')"
    fi
fi

if [ "$RECORD" = 1 ]; then
    echo "same-bits: recorded in $F"
    exit 0
fi
echo "same-bits: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

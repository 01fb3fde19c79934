#!/bin/sh
# lib.sh (make check-lib): what `make install` gives a user, checked in a
# scratch PREFIX: the C example topo/api/examples/learn.c built with
# `pkg-config --cflags --libs topogen` (PKG_CONFIG_PATH to the install),
# shared and static, writes the file the installed topogen writes for the
# same settings (learned and time-varying); dpsgd-train does not link
# igraph nor libtopogen.so; `man -l` opens both man pages; the bash
# completion completes flags and values; the installed Python module
# imports from PREFIX/lib/python3/dist-packages, loads PREFIX's library
# and passes check_load.py; each installed script's --help works and a
# smoke sweep.sh runs from the installed tree into ./results (issue 34);
# PREFIX/DESTDIR with a space or a shell metacharacter are refused;
# every relative link in the installed READMEs and docs/ resolves
# (doc-links.py: README.md, topo/, train/, topo/python/, docs/ and the
# data/ pages they link to, in the source tree's layout);
# `make uninstall` leaves no file behind.
set -eu
BIN=${BIN:-bin}
MAKE=${MAKE:-make}
PY=${PY:-/usr/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/check_lib.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
P=$T/prefix
failed=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $1"; failed=1; }
check() { # check WHAT COMMAND...: passes when COMMAND succeeds
    what=$1; shift
    if "$@" >"$T/last" 2>&1; then ok "$what"; else
        cat "$T/last"; fail "$what"; fi
}

$MAKE -s -C "$ROOT" BIN="$BIN" install PREFIX="$P" >"$T/install.log" 2>&1 \
    || { cat "$T/install.log"; echo "check-lib: make install FAILED"; exit 1; }
export PKG_CONFIG_PATH="$P/lib/pkgconfig" OPENBLAS_NUM_THREADS=1
CFLAGS_TG=$(pkg-config --cflags topogen)
LIBS_TG=$(pkg-config --libs topogen)
check "example compiles with pkg-config --cflags --libs topogen" \
    cc -std=c11 -Wall -Wextra -Werror "$ROOT/topo/api/examples/learn.c" \
    $CFLAGS_TG $LIBS_TG -o "$T/learn"
check "example links the static libtopogen.a (pkg-config --static)" \
    cc -std=c11 "$ROOT/topo/api/examples/learn.c" $CFLAGS_TG "$P/lib/libtopogen.a" \
    $(pkg-config --static --libs topogen | sed 's/-ltopogen//') \
    -o "$T/learn_static"
check "the example loads PREFIX's libtopogen.so.1" \
    sh -c "LD_LIBRARY_PATH='$P/lib' ldd '$T/learn' | grep -q '$P/lib/libtopogen.so.1'"
for s in "16 3 1 2000 learned" "24 4 5 500 learned" "16 2 1 1 base" \
         "12 2 3 1 perm" "8 3 1 1 exp-directed" \
         "12 3 9 1 random"; do
    set -- $s
    LD_LIBRARY_PATH="$P/lib" "$T/learn" "$1" "$2" "$3" "$4" "$5" \
        "$T/lib.txt" >"$T/learn.out"
    "$T/learn_static" "$1" "$2" "$3" "$4" "$5" "$T/static.txt" >/dev/null
    iters=""
    [ "$5" = learned ] && iters="--iters $4"
    "$P/bin/topogen" -n "$1" -d "$2" --seed "$3" $iters --kind "$5" -q \
        -o "$T/cli.txt"
    if cmp -s "$T/lib.txt" "$T/cli.txt" && cmp -s "$T/static.txt" "$T/cli.txt"
    then ok "C example, n=$1 d=$2 seed=$3 $5: the same file as topogen" \
            "($(cat "$T/learn.out"))"
    else fail "C example, n=$1 d=$2 seed=$3 $5: file differs from topogen's"
    fi
done
if ldd "$P/bin/dpsgd-train" | grep -q 'igraph\|libtopogen'; then
    fail "dpsgd-train links igraph or libtopogen.so"
else ok "dpsgd-train links neither igraph nor libtopogen.so"; fi
for m in topogen dpsgd-train; do
    check "man -l $m.1 opens" sh -c "MANWIDTH=80 man -P cat -l \
        '$P/share/man/man1/$m.1' | grep -q '^NAME'"
done
for m in topogen dpsgd-train; do
    v=$("$P/bin/$m" --version | awk '{ print $2 }')
    if [ -n "$v" ] && grep -q "^\.TH .*\"$m $v\"" "$P/share/man/man1/$m.1"; then
        ok "man $m names the version $m --version prints ($v)"
    else fail "man $m: $(grep '^\.TH' "$P/share/man/man1/$m.1"), but $m --version says $v"; fi
done
comp() { # comp CMD WORD...: the completions of the last word
    bash -c '. "$0"; PATH="$1:$PATH"; shift; COMP_WORDS=("$@");
        COMP_CWORD=$(($# - 1)); _topogen_complete; echo "${COMPREPLY[*]}"' \
        "$P/share/bash-completion/completions/topogen" "$P/bin" "$@"
}
[ "$(comp topogen --ob)" = --objective ] && ok "completion: topogen --ob" \
    || fail "completion: topogen --ob gave '$(comp topogen --ob)'"
[ "$(comp topogen --kind one)" = one-peer-exp ] \
    && ok "completion: topogen --kind one" \
    || fail "completion: --kind one gave '$(comp topogen --kind one)'"
[ "$(comp topogen com)" = compare ] && ok "completion: topogen com" \
    || fail "completion: topogen com gave '$(comp topogen com)'"
[ "$(comp topogen platform --net h)" = home ] \
    && [ -z "$(comp topogen platform --ki)" ] \
    && [ "$(comp topogen platform --se)" = --seed ] \
    && ok "completion: topogen platform's --net kinds and its own flags" \
    || fail "completion: platform --net h gave '$(comp topogen platform --net h)', --ki '$(comp topogen platform --ki)'"
[ "$(comp dpsgd-train --partition sh)" = shards: ] \
    && ok "completion: dpsgd-train --partition sh" \
    || fail "completion: --partition sh gave '$(comp dpsgd-train --partition sh)'"
[ "$(comp dpsgd-train --topol)" = --topology ] \
    && ok "completion: dpsgd-train --topol" \
    || fail "completion: dpsgd-train --topol gave '$(comp dpsgd-train --topol)'"
[ -L "$P/share/bash-completion/completions/dpsgd-train" ] \
    && ok "completion installed for dpsgd-train" \
    || fail "no completion for dpsgd-train"
PYP="$P/lib/python3/dist-packages"
check "the installed module imports and finds PREFIX's library" \
    env -u TOPOGEN_LIBRARY PYTHONPATH="$PYP" "$PY" -c "
import topogen, sys
assert topogen.__file__.startswith('$PYP'), topogen.__file__
assert topogen._lib.lib()._name.startswith('$P/lib/'), topogen._lib.lib()._name
print(topogen.version())"
mkdir -p "$T/load"
check "installed module: check_load.py (load(f).W == networkx reading)" \
    env -u TOPOGEN_LIBRARY PYTHONPATH="$PYP" "$PY" "$ROOT/tests/python/check_load.py" \
    "$P/bin" "$T/load"
# the installed scripts (issue 34): each one's --help from another folder
# creates nothing; a smoke sweep from the installed tree finds PREFIX's
# programs (not PREFIX/share/topogen/bin) and writes ./results in the
# current folder, here one whose path holds a space and a backslash
S=$P/share/topogen/scripts
mkdir -p "$T/cwd"
for f in experiments/sweep reports/plot reports/summary experiments/results \
         experiments/results-every-topology experiments/consensus \
         experiments/algorithms reports/modelled; do
    if (cd "$T/cwd" && env -u BIN -u OUT sh "$S/$f.sh" --help >"$T/help" 2>"$T/last") &&
        [ -s "$T/help" ] && [ -z "$(ls -A "$T/cwd")" ]; then
        ok "installed $f.sh --help"
    else cat "$T/last"; fail "installed $f.sh --help"; fi
done
check "every relative link of the installed READMEs and docs/ resolves" \
    "$PY" "$HERE/doc-links.py" "$P/share/doc/topogen"
[ -x "$P/share/topogen/examples/dpsgd.py" ] && ok "the installed Python example is executable" \
    || fail "share/topogen/examples/dpsgd.py is not executable"
W="$T/run d\\ir"
mkdir -p "$W"
if (cd "$W" && env -u BIN -u OUT OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OMPI_MCA_rmaps_base_oversubscribe=1 SMOKE=1 WORKERS=4 \
        SETTINGS=learned:laplacian PARTITIONS=iid EPOCHS=1 NP=2 \
        TRAIN_ARGS="--synthetic-train 512 --synthetic-test 128 --local-eval 64" \
        sh "$S/experiments/sweep.sh" >"$T/last" 2>&1) &&
    [ -f "$W/results/runs/n4-learned-laplacian-iid-s1.done" ] &&
    [ -f "$W/results/runs/n4-allreduce-none-iid-s1.done" ] &&
    [ -s "$W/results/summary.md" ] && [ -s "$W/results/plots/acc-epoch-iid.png" ] &&
    [ ! -e "$P/share/topogen/results" ]; then
    ok "installed sweep.sh (SMOKE=1, 2 runs) in '$W': results, table and plots in ./results"
else cat "$T/last"; fail "installed sweep.sh smoke run in '$W'"; fi
# PREFIX or DESTDIR with a space or a shell metacharacter: refused before
# anything is copied or deleted (uninstall of "T/tools T/pfx" deleted the
# file T/tools)
echo mine >"$T/tools"
for bad in "$T/tools $T/pfx" "$T/a&b" "$T/a;b" "$T/a'b"; do
    for tgt in install uninstall; do
        if $MAKE -s -C "$ROOT" BIN="$BIN" $tgt PREFIX="$bad" >"$T/last" 2>&1 ||
            ! grep -q "PREFIX=.*a space or shell metacharacter" "$T/last" ||
            [ "$(cat "$T/tools")" != mine ] || [ -e "$T/pfx" ] || [ -e "$T/a" ]; then
            cat "$T/last"; fail "make $tgt PREFIX='$bad' was not refused cleanly"
        else ok "make $tgt PREFIX='$bad' refused"; fi
    done
done
if $MAKE -s -C "$ROOT" BIN="$BIN" install PREFIX="$P" DESTDIR="$T/d d" >"$T/last" 2>&1 ||
    ! grep -q "DESTDIR=.*a space or shell metacharacter" "$T/last" || [ -e "$T/d d" ]; then
    cat "$T/last"; fail "make install DESTDIR='$T/d d' was not refused"
else ok "make install DESTDIR with a space refused"; fi
$MAKE -s -C "$ROOT" BIN="$BIN" uninstall PREFIX="$P" >/dev/null 2>&1
left=$(find "$P" ! -type d | head -5)
[ -z "$left" ] && ok "make uninstall removed every installed file" \
    || fail "make uninstall left: $left"
[ $failed = 0 ] && echo "check-lib: all passed"
exit $failed

#!/bin/sh
# python.sh (make check-python): the Python module topogen and its
# torch.distributed gossip, from the source tree (topo/python) over
# $BIN/libtopogen.so.1, with Debian's python3 (python3-torch, -numpy,
# -networkx: scripts/install-deps.sh). Nothing is skipped: a missing
# package fails. Every process runs one thread, under nice.
#   check_load.py    topogen.load(f).W == networkx's reading (node order)
#   check_api.py     the pure reader == libtopogen's W; learn(labels=) ==
#                    `topogen --labels`; refusals; C API NULL/directed
#                    GraphML/set_weights; no signal handler; two threads;
#                    Ctrl-C in learn returns within a second
#   fuzz_reader.py   1,500 mutated files: the pure Python reader and
#                    libtopogen's accept the same ones, with the same W
#   pip              `pip install --no-index --no-build-isolation` of a
#                    copy of topo/python into a fresh venv
#                    (--system-site-packages), then, with libtopogen off
#                    every path, check_torch.py: 4 gloo processes, async
#                    == blocking, GossipAverager == PeriodicModelAverager,
#                    D2 and GradientTracking == NumPy, epidemic, refusals
#   wheel            make_wheel.py (stdlib only) writes the wheel, `pip
#                    install --no-index` of it into fresh venvs of the
#                    PATH's python3 (without its site-packages: no
#                    numpy) and of Debian's
#                    (--system-site-packages: numpy, torch), then
#                    check_wheel.py: builders' files == bin/topogen's
#                    byte for byte, topogen.eval == `topogen eval
#                    --json`, fallbacks, refusals
#   check_optim.py   8 gloo processes: PeriodicModelAverager ->
#                    GossipAverager, SGD -> D2(SGD)/GradientTracking with
#                    StepLR, state_dict resume, add_param_group,
#                    GradScaler (an inf on one worker: all skip)
#   check_gossip.py  4 gloo processes: one mix_ == W X to 1e-12; plans
#                    reused (flatten_parameters_, packed, p.data replaced);
#                    then check_overlap.py's checks in the same processes:
#                    BackwardGossip (step + gossip per bucket from gradient
#                    hooks) == step then mix_; the README's DDP +
#                    post_localSGD_hook recipe == the run without DDP
#   check_interrupt.py  Ctrl-C in Gossip.mix_ with a peer 8 s late returns
#                    within 1 s
#   examples/dpsgd.py  the user example trains (loss goes down); again
#                    without libtopogen (a pure-Python random regular
#                    graph)
#   check_dpsgd.py   LeNet D-PSGD in torch within 1.5 points of dpsgd-train
set -eu
BIN=${BIN:-bin}
PY=${PY:-/usr/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/check_python.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
BIN=$(cd "$BIN" && pwd)
export PYTHONPATH="$ROOT/topo/python" TOPOGEN_LIBRARY="$BIN/libtopogen.so.1"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
"$PY" -c 'import numpy, networkx, torch, torch.distributed' || {
    echo "check-python: FAILED: python3-numpy, -networkx and -torch are" \
         "needed (scripts/install-deps.sh)"; exit 1; }
failed=0
run() {
    name=$1; shift
    mkdir -p "$T/$name"
    t=$(date +%s)
    if (cd "$T" && nice -n 5 "$@" >"$T/$name.out" 2>&1); then
        tail -n 4 "$T/$name.out"
        echo "check-python: $name passed, $(( $(date +%s) - t )) s"
    else
        cat "$T/$name.out"; echo "check-python: $name FAILED"; failed=1
    fi
}
run load "$PY" "$HERE/check_load.py" "$BIN" "$T/load"
run api "$PY" "$HERE/check_api.py" "$BIN" "$T/api"
run fuzz "$PY" "$HERE/fuzz_reader.py" "$BIN" "$T/fuzz" 1500 1
# the pip-installed package without libtopogen (a copy: pip's build
# leaves build/ and *.egg-info/ beside pyproject.toml)
cp -R "$ROOT/topo/python" "$T/pkg"
run pip "$PY" -m venv --system-site-packages "$T/venv"
run pip-install "$T/venv/bin/pip" install --quiet --no-index \
    --no-build-isolation "$T/pkg"
mkdir -p "$T/torch"
run torch env -u PYTHONPATH -u TOPOGEN_LIBRARY -u LD_LIBRARY_PATH \
    "$T/venv/bin/python" "$HERE/check_torch.py" "$T/torch"
# the wheel, as a user installs it: no build step, no libtopogen
PATHPY=$(command -v python3)
run wheel "$PATHPY" "$ROOT/topo/python/make_wheel.py" "$T/dist"
run wheel-venv-path "$PATHPY" -m venv "$T/wv1"
run wheel-venv-debian "$PY" -m venv --system-site-packages "$T/wv2"
for v in wv1 wv2; do
    run "$v-install" "$T/$v/bin/pip" install --quiet --no-index \
        "$T"/dist/dpsgd_topogen-*-py3-none-any.whl
done
# (wv1 sees no site-packages but its own: never numpy, whatever the
# PATH's python3 has)
run wheel-path env -u PYTHONPATH -u TOPOGEN_LIBRARY -u LD_LIBRARY_PATH \
    "$T/wv1/bin/python" "$HERE/check_wheel.py" "$BIN" "$T/wheel-path" \
    nonumpy
run wheel-debian env -u PYTHONPATH -u TOPOGEN_LIBRARY -u LD_LIBRARY_PATH \
    "$T/wv2/bin/python" "$HERE/check_wheel.py" "$BIN" "$T/wheel-debian" \
    numpy
run optim "$PY" "$HERE/check_optim.py" "$T/optim"
run gossip "$PY" "$HERE/check_gossip.py" "$BIN" "$T/gossip"
run interrupt "$PY" "$HERE/check_interrupt.py" "$T/interrupt"
run example "$PY" "$ROOT/topo/python/examples/dpsgd.py" --workers 4 \
    --steps 150
if [ -s "$T/example.out" ] && ! awk '/^after/ { gsub(/[(),]/, " ");
        for (i = 1; i <= NF; i++) { if ($i == "loss") a = $(i + 1);
            if ($i == "start") b = $(i + 1) }
        ok = a + 0 < b + 0 } END { exit !ok }' "$T/example.out"; then
    echo "check-python: example: the loss did not go down"; failed=1
fi
# the example without libtopogen (a pip-only install): a pure-Python graph
run example-nolib env TOPOGEN_LIBRARY=/nonexistent/libtopogen.so.1 \
    "$PY" "$ROOT/topo/python/examples/dpsgd.py" --workers 4 --steps 30
if ! grep -q "no libtopogen" "$T/example-nolib.out" ||
        ! grep -q "^after 30 steps" "$T/example-nolib.out"; then
    echo "check-python: example without libtopogen did not run"; failed=1
fi
run dpsgd "$PY" "$HERE/check_dpsgd.py" "$BIN" "$T/dpsgd"
[ $failed = 0 ] && echo "check-python: all passed"
exit $failed

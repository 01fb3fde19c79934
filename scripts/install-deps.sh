#!/bin/sh
# Installs the Debian packages the project needs, if any are missing.
# As root with apt-get: installs them. Otherwise: prints the exact command.
#   scripts/install-deps.sh        what building, testing and the demo need
#   scripts/install-deps.sh fuzz   also clang and its libFuzzer runtime
#                                  (only `make fuzz` needs them)
set -eu
. "$(dirname "$0")/lib/common.sh"
script_help "$@"
PKGS="build-essential pkg-config iproute2 libigraph-dev libgsl-dev libopenmpi-dev openmpi-bin check libopenblas-dev zlib1g-dev libxml2-dev libjansson-dev gnuplot-nox dataset-fashion-mnist python3-networkx python3-igraph python3-numpy python3-scipy python3-torch python3-venv python3-setuptools liblapacke-dev help2man man-db libsimgrid-dev libmetis-dev libsuitesparse-dev nauty jq strace"
if [ "${1:-}" = fuzz ]; then
    PKGS="$PKGS clang libclang-rt-14-dev"
fi
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: missing Debian packages:$missing" >&2
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $missing
else
    echo "install-deps: run as root:  apt-get install -y$missing" >&2
    exit 1
fi

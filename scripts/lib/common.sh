# common.sh: the shell library of scripts/ (sourced, not run): the first
# lines of every user-facing script, sourced before anything is created or
# run, so `--help` never has side effects, and the helpers the scripts
# share (die, need_programs).
#
#   . "$(dirname "$0")/../lib/common.sh"; script_help "$@"
#   script_out NAME DEFAULT "$@"     (scripts whose one argument is OUT)

# script_help ARGS...: on -h or --help as the first argument, prints the
# script's header comment (its lines 2.. up to the first line that is not
# a comment) and exits 0.
script_help() {
    case "${1:-}" in
    -h|--help)
        sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p;}' "$0"
        exit 0 ;;
    esac
}

# script_out NAME DEFAULT [OUT]: sets OUT to the argument, else to $OUT
# from the environment, else to DEFAULT. An option (-x) or a second
# argument: one message and exit 2.
script_out() {
    _so_name=$1 _so_default=$2
    shift 2
    script_help "$@"
    case "${1:-}" in
    -*) echo "$_so_name: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    [ $# -le 1 ] || { echo "$_so_name: one argument (OUT) expected, got $# (see --help)" >&2; exit 2; }
    OUT=${1:-${OUT:-$_so_default}}
    out_check "$_so_name" "$OUT"
}

# out_check NAME PATH: a folder path with a newline is refused (exit 2)
# before any work: the run lists and word lists of the reports are
# newline-separated, so such an OUT broke summary.sh after a whole sweep.
out_check() {
    case $2 in
    *'
'*) printf '%s: OUT %s holds a newline: the reports list runs one a line; choose a path without one\n' "$1" "$(printf '%s' "$2" | tr '\n' '?')" >&2
        exit 2 ;;
    esac
}

# echo prints its arguments as they are, in every script that sources
# this file: dash's builtin echo turns a backslash sequence of a path
# (OUT=/data/x\new) into a control character.
echo() { printf '%s\n' "$*"; }

# TREE_BIN, TREE_OUT: the defaults of BIN and OUT for the tree the script
# runs from. SCRIPTS: the scripts/ folder (a script in scripts/ROOM/ or in
# scripts/ itself). In a source tree (scripts/ beside bin/): ROOT/bin and
# ROOT/results. Installed (`make install`: PREFIX/share/topogen/scripts):
# PREFIX/bin, and results in the current directory (./results), never
# under PREFIX/share.
_us_here=$(cd "$(dirname "$0")" && pwd)
case $_us_here in
*/scripts) SCRIPTS=$_us_here ;;
*) SCRIPTS=$(cd "$_us_here/.." && pwd) ;;
esac
case $SCRIPTS in
*/share/topogen/scripts)
    TREE_BIN=${SCRIPTS%/share/topogen/scripts}/bin
    TREE_OUT=$PWD/results ;;
*)
    TREE_BIN=$(cd "$SCRIPTS/.." && pwd)/bin
    TREE_OUT=$(cd "$SCRIPTS/.." && pwd)/results ;;
esac

# die MESSAGE: "NAME: MESSAGE" on stderr and exit 1; NAME is $SCRIPT_NAME,
# else the script's file name without .sh.
die() {
    echo "${SCRIPT_NAME:-$(basename "$0" .sh)}: $*" >&2
    exit 1
}

# need_programs NAME...: dies unless every $BIN/NAME is an executable
# ("run 'make' first").
need_programs() {
    for _np in "$@"; do
        [ -x "$BIN/$_np" ] || die "$BIN/$_np not found: run 'make' first"
    done
}

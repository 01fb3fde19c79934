# usage.sh: the first lines of every user-facing script, sourced before
# anything is created or run, so `--help` never has side effects.
#
#   . "$(dirname "$0")/usage.sh"; script_help "$@"
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
}

# echo prints its arguments as they are, in every script that sources
# this file: dash's builtin echo turns a backslash sequence of a path
# (OUT=/data/x\new) into a control character.
echo() { printf '%s\n' "$*"; }

# TREE_BIN, TREE_OUT: the defaults of BIN and OUT for the tree the script
# runs from. In a source tree (scripts/ beside bin/): ROOT/bin and
# ROOT/results. Installed (`make install`: PREFIX/share/topogen/scripts):
# PREFIX/bin, and results in the current directory (./results), never
# under PREFIX/share.
_us_here=$(cd "$(dirname "$0")" && pwd)
case $_us_here in
*/share/topogen/scripts)
    TREE_BIN=${_us_here%/share/topogen/scripts}/bin
    TREE_OUT=$PWD/results ;;
*)
    TREE_BIN=$(cd "$_us_here/.." && pwd)/bin
    TREE_OUT=$(cd "$_us_here/.." && pwd)/results ;;
esac

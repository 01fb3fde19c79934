# cli/lib.sh: the harness every group of tests/cli/ sources (not a group
# itself): the end-to-end tests of the two command lines: exit codes, the
# one message naming the flag or file at fault, no output file left behind
# on failure, and the output formats other tools rely on.
#
#   BIN=bin sh tests/cli/GROUP.sh             one group
#   make check-cli                                every tests/cli/*.sh
#   make -j2 check-cli CLI_GROUPS="topogen readers"   only these
#
# A group is one file: it sources this harness, defines GROUP_cases (a
# function of numbered cases, with any helper groups it calls) and ends
# with `cli_run GROUP`. A new file in tests/cli/ is a new group that
# `make check-cli` runs. Each group prints one line per failure
# (`cli: GROUP: case N FAILED: ...`) and a final line
# `cli: GROUP: N passed, M failed, S s`; it exits non-zero on any failure.
# Each group has its own scratch folder $T, removed at exit.
set -u
BIN=${BIN:-bin}
cli_group=$(basename "$0" .sh)
T=$(mktemp -d "${TMPDIR:-/tmp}/cli-$cli_group.XXXXXX")
trap 'rm -rf "$T"' EXIT
# a signal ends the group (a trap that returns would let it run on
# without $T); the EXIT trap then removes $T
trap 'exit 130' INT
trap 'exit 143' TERM
passed=0
failed=0
case_no=0

fail() {
    failed=$((failed + 1))
    echo "cli: $cli_group: case $case_no FAILED: $*"
}

# run CMD...: runs it with stdout in $T/out, stderr in $T/err; sets rc.
# CLI_TIMES=1: also prints each command's seconds on stderr (where the
# time of a group goes).
run() {
    [ -z "${CLI_TIMES:-}" ] || _cli_c0=$(date +%s.%N)
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    [ -z "${CLI_TIMES:-}" ] ||
        echo "cli: $cli_group: $(echo "$(date +%s.%N) - $_cli_c0" | bc) s: case $((case_no)): ${desc:-$*}" >&2
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


# dpsgd-train initializes MPI even as a single worker, and Open MPI leaves
# allocations at exit (in plugins it has unloaded, so no suppression can
# name them): no leak report for it here. The same trainer runs
# leak-checked without MPI in check_unit (tests/unit/check_train.c).
dt_run() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        "$BIN/dpsgd-train" "$@"
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

# cli_run GROUP: runs GROUP_cases, prints the tally and the seconds, exits
# non-zero on any failure.
cli_run() {
    _cli_t0=$(date +%s)
    "$1_cases"
    echo "cli: $1: $passed passed, $failed failed, $(( $(date +%s) - _cli_t0 )) s"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

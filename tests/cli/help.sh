#!/bin/sh
# cli/help.sh: every --help of both programs fits an 80-column terminal:
# each line at most 79 columns (an 80th character would wrap the cursor
# onto a blank line in many terminals), no tab. The subcommands are read
# from `topogen --help` itself, so a new one is checked without a change
# here.
#
#   BIN=bin sh tests/cli/help.sh  (make check-cli-help)
. "$(dirname "$0")/lib.sh"

# wide FILE: "LINE: WIDTH: TEXT" of each line over 79 columns or with a
# tab (columns counted as bytes: an over-count only for non-ASCII text)
wide() {
    awk 'length($0) > 79 || /\t/ { print NR ": " length($0) ": " $0 }' "$1"
}

# help_fits NAME CMD...: CMD --help exits 0, prints a usage, fits
help_fits() {
    name=$1
    shift
    expect_ok "$name --help" "$@" --help
    check 'grep -q "usage" "$T/out" && [ -z "$(wide "$T/out")" ]' \
        "$name --help: lines over 79 columns: $(wide "$T/out" | head -3)"
}

help_cases() {
    tg="$BIN/topogen"
    help_fits topogen "$tg"
    subs=$(grep -o '`topogen [a-z]* --help`' "$T/out" | sed 's/`topogen \([a-z]*\) --help`/\1/')
    check '[ "$(echo $subs | wc -w)" -ge 5 ]' "topogen --help names its subcommands' --help: '$subs'"
    for s in $subs; do
        help_fits "topogen $s" "$tg" "$s"
    done
    help_fits dpsgd-train "$BIN/dpsgd-train"
    # the checker itself: a line of 80 is caught
    printf 'usage: x\n%080d\n' 0 >"$T/w.txt"
    check '[ "$(wide "$T/w.txt" | cut -d: -f1,2)" = "2: 80" ]' "the width check catches an 80-column line"
}

cli_run help

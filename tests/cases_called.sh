#!/bin/sh
# cases_called.sh: fails when a case group of tests/cli.sh is defined but
# never runs. A group is a shell function named *_cases; it runs when it
# is called at the top level of the script, or from a group that runs
# (model_cases from train_cases, ...), or when its name (without _cases)
# is in the script's all_groups="..." list. A call is a line holding only the
# name (indentation and a trailing `;` allowed); a commented-out call does
# not count. Run by `make check-cli` before the cases themselves.
#   sh tests/cases_called.sh [tests/cli.sh]
set -eu
f=${1:-tests/cli.sh}
[ -r "$f" ] || { echo "cases_called: cannot read $f" >&2; exit 1; }
awk -v file="$f" '
    # a definition "name_cases() {" opens a function, a "}" alone at
    # column 0 closes it
    /^[A-Za-z0-9_]+_cases\(\)[ \t]*\{?[ \t]*$/ {
        cur = $0; sub(/\(\).*/, "", cur); def[cur] = NR; order[++nd] = cur
        next
    }
    /^\}/ { cur = ""; next }
    # the top-level list the script loops over: all_groups="a b ..."
    /^all_groups="/ {
        list = $0; sub(/^all_groups="/, "", list); sub(/".*/, "", list)
        nw = split(list, w, " ")
        for (i = 1; i <= nw; i++) root[w[i] "_cases"] = 1
        next
    }
    /^[ \t]*[A-Za-z0-9_]+_cases[ \t]*;?[ \t]*$/ {
        name = $0; gsub(/[ \t;]/, "", name)
        if (name == cur) next
        calls[cur, name] = 1; callers[name] = callers[name] " " cur
        if (cur == "") root[name] = 1
    }
    END {
        # reachable from the top level
        for (n in root) run[n] = 1
        do {
            changed = 0
            for (k in calls) {
                split(k, p, SUBSEP)
                if (p[1] != "" && (p[1] in run) && !(p[2] in run)) {
                    run[p[2]] = 1; changed = 1
                }
            }
        } while (changed)
        bad = 0
        for (i = 1; i <= nd; i++) {
            n = order[i]
            if (!(n in run)) {
                printf "cases_called: %s:%d: %s is defined but never runs " \
                       "(call it at the bottom of %s)\n", file, def[n], n, file
                bad = 1
            }
        }
        if (!bad) printf "cases_called: all %d case groups of %s run\n", nd, file
        exit bad
    }' "$f"

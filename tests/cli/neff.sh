#!/bin/sh
# cli/neff.sh: n_eff (topo/tg_neff*.c): eval at several gammas, the optimal
# weights' certificate, the n_eff objectives, directed and epidemic kinds,
# compare.
#
#   BIN=bin sh tests/cli/neff.sh  (make check-cli-neff)
. "$(dirname "$0")/lib.sh"

neff_cases() {
    tg="$BIN/topogen"
    f="$T/neff_r.txt"
    "$tg" -n 32 -d 4 --kind random --seed 2 -q -o "$f"
    expect_ok "eval --gamma list" "$tg" eval "$f" --gamma 0.5,0.9,0.951,0.99
    check '[ "$(grep -c "^neff  .*closed form" "$T/out")" -eq 4 ] && grep -q "(gamma 0.99, closed form; [0-9.]* per message, 4 sent" "$T/out"' \
        "one neff line per gamma, with the per-message figure"
    expect_ok "eval --json one gamma" "$tg" eval "$f" --json
    check 'grep -q "\"neff\":[0-9.]*,\"neff_per_message\":[0-9.]*," "$T/out"' "neff is a number for one gamma"
    expect_ok "eval --json gammas" "$tg" eval "$f" --json --gamma 0.5,0.9
    check 'grep -q "\"neff\":{\"0.5\":[0-9.]*,\"0.9\":[0-9.]*}" "$T/out"' "neff is an object keyed by gamma"
    expect_fail 2 "^topogen: --gamma: expected numbers in \(0, 1\)" "bad gamma" "$tg" eval "$f" --gamma 0.5,1.5
    expect_fail 2 "^topogen: --gamma:" "empty gamma" "$tg" -n 16 --gamma ""
    # optimal weights: certified, and at least MH's n_eff
    w="$T/neff_w.txt"
    expect_ok "--weights neff" "$tg" -n 32 -d 4 --kind random --seed 2 --weights neff -q -o "$w"
    check 'grep -q "^# neff: gamma=0.951 neff=[0-9.]* upper_bound=[0-9.]* (certified gap [0-9.e+-]*)" "$w" && grep -q "^# settings: .*--gamma 0.951 --weights neff " "$w"' \
        "neff weights: header with the certificate and the gamma"
    "$tg" eval "$w" --json >"$T/neff_a.json"
    "$tg" eval "$f" --weights mh --json -q >"$T/neff_b.json"
    check 'a=$(sed "s/.*\"neff\":\([0-9.]*\).*/\1/" "$T/neff_a.json"); b=$(sed "s/.*\"neff\":\([0-9.]*\).*/\1/" "$T/neff_b.json"); awk -v a="$a" -v b="$b" "BEGIN { exit !(a >= b && a > 1) }"' \
        "neff weights beat mh"
    expect_ok "eval --weights neff-alpha" "$tg" eval "$f" --weights neff-alpha -q
    check 'grep -q "^weights       neff-alpha" "$T/out"' "neff-alpha scan"
    # the search's n_eff objective
    expect_ok "--objective neff:0.9" "$tg" -n 16 -d 3 --objective neff:0.9 --iters 300 -q -o "$T/neff_l.txt"
    check 'grep -q "^# settings: .*--objective neff:0.9 " "$T/neff_l.txt"' "objective with its gamma in the header"
    expect_ok "--objective neff-per-message" "$tg" -n 16 -d 3 --objective neff-per-message --iters 100 -q
    expect_fail 2 "^topogen: --objective: gamma '2' is not a number in \(0, 1\)" "objective gamma" "$tg" -n 16 --objective neff:2
    expect_fail 2 "^topogen: --objective: ratio takes no :GAMMA" "ratio gamma" "$tg" -n 16 --objective ratio:0.5
    # directed kinds
    p="$T/neff_p.txt"
    expect_ok "--kind perm" "$tg" -n 20 -d 3 --kind perm --seed 4 -q -o "$p"
    check 'head -1 "$p" | grep -q "kind=perm directed=1" && [ "$(grep -vc "^#" "$p")" -eq 60 ]' "perm: directed header, n*d edges"
    "$tg" -n 20 -d 3 --kind perm --seed 4 -q -o "$T/neff_p2.txt"
    "$tg" -n 20 -d 3 --kind perm --seed 5 -q -o "$T/neff_p3.txt"
    check 'cmp -s "$p" "$T/neff_p2.txt" && ! cmp -s "$p" "$T/neff_p3.txt"' "perm: same seed same bytes, another seed another graph"
    # a directed W has no Laplacian spectrum: eval prints none (null in
    # --json, as the library's measures), and its slem is ||W - J||_2
    expect_ok "eval directed" "$tg" eval "$p"
    check 'grep -q "^lambda2       -  (a directed topology has no Laplacian spectrum" "$T/out" && ! grep -q "^lambdan\|^slem_best" "$T/out" && grep -q "^slem .*||W - 11^T/n||_2 of the directed W" "$T/out"' \
        "eval directed: no Laplacian figures: $(sed -n 7,9p "$T/out" | tr "\n" " ")"
    expect_ok "eval directed --json" "$tg" eval "$p" --json
    check 'grep -q "\"lambda2\":null,\"lambdan\":null,\"slem\":0\.[0-9]*,\"slem_best_laplacian\":null" "$T/out"' \
        "eval directed --json: null Laplacian figures: $(cat "$T/out")"
    # a directed file's weights are its own: eval refuses a rule for them
    # (it wrote a file labelled weights=mh with the file's W), as
    # dpsgd-train does
    expect_fail 2 "^topogen: --weights mh does not apply to .*neff_p.txt \(a directed topology\)" "eval directed --weights" "$tg" eval "$p" --weights mh -o "$T/p-mh.txt"
    check '[ ! -e "$T/p-mh.txt" ]' "eval directed --weights wrote nothing"
    check 'awk "!/^#/ { if (\$1 == \$2) bad = 1; out[\$1]++; in_[\$2]++ } END { for (i in out) if (out[i] != 3 || in_[i] != 3) bad = 1; exit bad }" "$p"' \
        "perm: 3 out and 3 in per node, no self loop"
    expect_ok "--kind exp-directed" "$tg" -n 16 --kind exp-directed -q -o "$T/neff_e.txt"
    check '[ "$(grep -vc "^#" "$T/neff_e.txt")" -eq 64 ] && grep -q "^0 8 0.2" "$T/neff_e.txt"' "exp-directed: i -> i + 2^k"
    expect_ok "--kind learned --directed" "$tg" -n 16 -d 2 --kind learned --directed --iters 200 -q -o "$T/neff_d.txt"
    check 'grep -q "^# settings: .*--directed" "$T/neff_d.txt" && grep -q "neff=[0-9.]* (gamma 0.951)" "$T/neff_d.txt"' "learned directed header"
    expect_ok "--directed --objective ratio" "$tg" -n 16 -d 2 --kind learned --directed --objective ratio --iters 200 -o "$T/neff_dn.txt"
    check 'grep -q "objective=ratio (min ||W - J||_2)" "$T/err" && grep -q "^# settings: .*--directed --objective ratio " "$T/neff_dn.txt"' \
        "directed search for the spectral norm"
    expect_ok "--kind epidemic" "$tg" -n 24 -d 3 --kind epidemic -q -o "$T/neff_ep.txt"
    expect_ok "eval epidemic" "$tg" eval "$T/neff_ep.txt" --gamma 0.9
    check 'grep -q "^neff  .* +- [0-9.]*  (gamma 0.9, Monte Carlo, EL-Oracle" "$T/out"' "epidemic n_eff by simulation with its error"
    # what an epidemic file has no use for is refused, not ignored
    for f in "--weights mh" "-o $T/ep-out.txt" "--simulate 5" "--groups 2" "--net wan"; do
        expect_fail 2 "^topogen: ${f%% *}: .*neff_ep.txt is an epidemic file .* takes no ${f%% *}$" "eval epidemic $f" "$tg" eval "$T/neff_ep.txt" $f
    done
    check '[ ! -e "$T/ep-out.txt" ]' "eval epidemic -o wrote nothing"
    expect_ok "--kind epidemic --local" "$tg" -n 24 -d 3 --kind epidemic --local -q -o "$T/neff_el.txt"
    check 'head -1 "$T/neff_el.txt" | grep -q "epidemic=local"' "EL-Local header"
    expect_fail 2 "^topogen: --local: only --kind epidemic" "--local alone" "$tg" -n 16 --local
    expect_fail 2 "^topogen: --directed: only --kind learned" "--directed random" "$tg" -n 16 --kind random --directed
    expect_fail 2 "^topogen: --weights: --kind perm carries its own" "perm weights" "$tg" -n 16 --kind perm --weights mh
    expect_fail 2 "^topogen: -n: --kind perm needs n >= 3 and n > d" "perm too small" "$tg" -n 4 -d 4 --kind perm
    check '[ ! -e "$T/none.txt" ]' "no output after directed errors"
    # the symmetric exponential graph's names
    expect_ok "--kind exponential (alias)" "$tg" -n 16 --kind exponential -o "$T/neff_x1.txt"
    check 'grep -q "notice: --kind exponential is the symmetric" "$T/err"' "alias notice"
    "$tg" -n 16 --kind exponential-sym -q -o "$T/neff_x2.txt"
    check 'sed "s/exponential-sym/exponential/g" "$T/neff_x2.txt" | cmp -s - "$T/neff_x1.txt"' "exponential-sym: same graph, its own name"
    # a sequence reports n_eff too
    "$tg" -n 16 --kind one-peer-exp -q -o "$T/neff_op.txt"
    expect_ok "eval sequence" "$tg" eval "$T/neff_op.txt"
    check 'grep -q "^neff  .*Lyapunov; [0-9.]* per message, 1 sent" "$T/out"' "sequence n_eff, one message per round"
    expect_ok "compare" "$tg" compare -n 16 -d 3 --iters 300 --gamma 0.9,0.951
    check 'for r in "learned (ratio)" "random regular" "ring lattice" "one-peer exponential" "Base-3" "perm (directed)" "exp-directed" "epidemic" "Ramanujan bound"; do grep -q "^$r" "$T/out" || exit 1; done' \
        "compare prints every row"
    expect_fail 2 "^topogen: compare: takes -n, -d" "compare --kind" "$tg" compare -n 16 --kind ring
}

cli_run neff

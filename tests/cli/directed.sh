#!/bin/sh
# cli/directed.sh: Issue 21: directed and epidemic topologies in
# dpsgd-train: the same workers-hash on 1, 3 and 4 ranks, resume equals an
# uninterrupted run, what each algorithm allows, and one message per bad
# directed file.
#
#   BIN=bin sh tests/cli/directed.sh  (make check-cli-directed)
. "$(dirname "$0")/lib.sh"

directed_cases() {
    command -v mpirun >/dev/null 2>&1 || { fail "mpirun not found"; return; }
    dt="$BIN/dpsgd-train"
    syn="--dataset synthetic --synthetic-train 512 --synthetic-test 64"
    awk 'BEGIN { print "# n=7 directed=1"; for (i = 0; i < 7; i++) { print i, (i + 1) % 7, 0.35; print i, (i + 3) % 7, 0.25 } }' >"$T/dir7.txt"
    printf '# topogen 2 n=8 kind=epidemic s=2 local=0\n' >"$T/elo8.txt"
    printf '# n=8 kind=epidemic s=2 local=1\n' >"$T/ell8.txt"
    for f in dir7 elo8 ell8; do
        h1=""
        for np in 1 3 4; do
            expect_ok "$f on $np ranks" mpi_run $np "$dt" --topology "$T/$f.txt" $syn --epochs 1 --quiet
            h=$(sed -n 's/.*workers-hash //p' "$T/out")
            [ "$np" = 1 ] && h1=$h
            check '[ -n "$h" ] && [ "$h" = "$h1" ]' "$f: the same workers-hash on $np ranks as on 1 ($h, $h1)"
        done
        # resume (on another rank count) equals the uninterrupted run
        expect_ok "$f: 3 epochs" mpi_run 3 "$dt" --topology "$T/$f.txt" $syn --epochs 3 --quiet
        hf=$(sed -n 's/.*workers-hash //p' "$T/out")
        expect_ok "$f: stopped after 1" mpi_run 3 "$dt" --topology "$T/$f.txt" $syn --epochs 3 --stop-after 1 --checkpoint "$T/ck-$f" --quiet
        expect_ok "$f: resumed" mpi_run 4 "$dt" --topology "$T/$f.txt" $syn --epochs 3 --checkpoint "$T/ck-$f" --resume --quiet
        check '[ -n "$hf" ] && [ "$(sed -n "s/.*workers-hash //p" "$T/out")" = "$hf" ]' "$f: resume equals the uninterrupted run"
    done
    expect_ok "epidemic, not quiet" mpi_run 4 "$dt" --topology "$T/elo8.txt" $syn --epochs 1
    check 'grep -qE "^placement graph \((METIS|own bisection)[a-z0-9 ,-]*\) \(for round 0.s graph of the epidemic topology\): 8 workers on 4 ranks .* cut [0-9]* arcs" "$T/out"' \
        "epidemic: the placement line says what it counts"
    expect_ok "gt on a directed file" mpi_run 3 "$dt" --topology "$T/dir7.txt" --algorithm gt $syn --epochs 1 --quiet
    expect_ok "qgm on EL-Oracle" mpi_run 3 "$dt" --topology "$T/elo8.txt" --algorithm qgm $syn --epochs 1 --quiet
    expect_fail 2 "^dpsgd-train: --algorithm d2 needs a symmetric W .*dir7.txt is a directed topology" \
        "d2 refuses a directed file" mpi_run 2 "$dt" --topology "$T/dir7.txt" --algorithm d2 $syn
    expect_fail 2 "^dpsgd-train: --algorithm d2 needs a symmetric W .*elo8.txt is an epidemic \(EL-Oracle\) topology" \
        "d2 refuses an epidemic topology" mpi_run 2 "$dt" --topology "$T/elo8.txt" --algorithm d2 $syn
    expect_fail 2 "^dpsgd-train: --algorithm gt needs a doubly stochastic W, but .*ell8.txt is EL-Local" \
        "gt refuses EL-Local" mpi_run 2 "$dt" --topology "$T/ell8.txt" --algorithm gt $syn
    expect_fail 2 "^dpsgd-train: --weights mh does not apply to .*dir7.txt \(a directed topology\): its weights are in the file" \
        "--weights on a directed file" mpi_run 2 "$dt" --topology "$T/dir7.txt" --weights mh $syn
    printf '# directed=1\n0 1 0.5\n1 2 0.5\n2 0 0.25\n' >"$T/dcol.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*dcol.txt:2: node 0 gives 1.25 in total .*column 0 of W.*doubly stochastic" \
        "not doubly stochastic" mpi_run 2 "$dt" --topology "$T/dcol.txt" $syn
    printf '# directed=1 n=3\n0 1 0.5\n1 3 0.5\n' >"$T/drange.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*drange.txt:3: node id 3 is beyond the node count n=3" \
        "node out of range" mpi_run 2 "$dt" --topology "$T/drange.txt" $syn
    printf '# directed=1\n0 1\n1 1\n1 0\n' >"$T/dloop.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*dloop.txt:3: self-loop 1 1 without a weight" \
        "self-loop" mpi_run 2 "$dt" --topology "$T/dloop.txt" $syn
    printf '# directed=1\n0 1 0.5\n1 0 0.5\n0 1 0.5\n' >"$T/ddup.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*ddup.txt:4: duplicate arc 0 -> 1 \(line 2 lists it\)" \
        "duplicate arc" mpi_run 2 "$dt" --topology "$T/ddup.txt" $syn
    # topogen's directed kinds train as they are written (d=S, epidemic=local)
    "$BIN/topogen" --kind epidemic --local -d 2 -n 8 --quiet -o "$T/tgel.txt"
    "$BIN/topogen" --kind perm -d 2 -n 8 --quiet -o "$T/tgperm.txt"
    for f in tgel tgperm; do
        expect_ok "topogen's $f on 1 rank" mpi_run 1 "$dt" --topology "$T/$f.txt" $syn --epochs 1 --quiet
        h1=$(sed -n 's/.*workers-hash //p' "$T/out")
        expect_ok "topogen's $f on 3 ranks" mpi_run 3 "$dt" --topology "$T/$f.txt" $syn --epochs 1 --quiet
        check '[ -n "$h1" ] && [ "$(sed -n "s/.*workers-hash //p" "$T/out")" = "$h1" ]' "topogen's $f: the same workers-hash on 3 ranks as on 1"
    done
    printf '# n=4 kind=epidemic s=4\n' >"$T/ebig.txt"
    expect_fail 1 "^dpsgd-train: --topology: .*ebig.txt:1: epidemic s=4 needs 1 <= s <= n - 1 = 3" \
        "epidemic s too large" mpi_run 2 "$dt" --topology "$T/ebig.txt" $syn
}

cli_run directed

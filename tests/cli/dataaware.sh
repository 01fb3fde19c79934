#!/bin/sh
# cli/dataaware.sh: the data-aware cases: the counts file of dpsgd-train
# --write-partition is the partition a training run uses (iid, dirichlet,
# shards), shards:C has exactly C classes per worker, topogen --labels
# (stl-fw, dcliques, learned, eval) and its errors.
#
#   BIN=bin sh tests/cli/dataaware.sh  (make check-cli-dataaware)
. "$(dirname "$0")/lib.sh"

dataaware_cases() {
    tg="$BIN/topogen"
    dt=dt_run # no leak report: Open MPI's singleton init leaks in the sanitizer build
    dtb="$BIN/dpsgd-train" # under mpirun (mpi_run has no leak report either)
    syn="--dataset synthetic --synthetic-train 1024 --synthetic-test 64 --batch 8"
    # classes with a non-zero count on each worker line, as "n n n ..."
    classes() { grep -v '^#' "$1" | awk '{ c = 0; for (i = 1; i <= NF; i++) c += $i > 0; printf "%d ", c }'; }
    for p in iid dirichlet:0.3 shards:2; do
        f=$(echo "$p" | tr ':.' '__')
        expect_ok "--write-partition $p, --epochs 0" "$dt" $syn --epochs 0 --workers 8 --partition "$p" --write-partition "$T/wp_$f.txt"
        check 'grep -q "^# labels 1 dataset=synthetic partition='"$p"' seed=1 workers=8 images=1024" "$T/wp_$f.txt"' "$p: identity header"
        if command -v mpirun >/dev/null 2>&1; then
            expect_ok "--write-partition $p in an all-reduce run" mpi_run 2 "$dtb" $syn --epochs 1 --mode allreduce --workers 8 --partition "$p" --write-partition "$T/wr_$f.txt"
            check 'cmp -s "$T/wp_$f.txt" "$T/wr_$f.txt"' "$p: --epochs 0 wrote another partition than the run used"
        fi
    done
    check '[ "$(classes "$T/wp_shards_2.txt")" = "2 2 2 2 2 2 2 2 " ]' "shards:2 gives 2 classes per worker: $(classes "$T/wp_shards_2.txt")"
    expect_ok "--write-partition shards:1" "$dt" $syn --epochs 0 --workers 20 --partition shards:1 --write-partition "$T/s1.txt"
    check '[ "$(classes "$T/s1.txt" | tr -d " ")" = "11111111111111111111" ]' "shards:1 gives one class per worker"
    expect_fail 2 "^dpsgd-train: --partition 'shards:0': expected shards:C" "shards:0" "$dt" $syn --epochs 0 --workers 8 --partition shards:0 --write-partition "$T/x.txt"
    expect_fail 2 "^dpsgd-train: --partition: --partition shards:11: the data set has only 10 classes" "shards:11" "$dt" $syn --epochs 0 --workers 8 --partition shards:11 --write-partition "$T/x.txt"
    expect_fail 2 "^dpsgd-train: --epochs: at least 1 \(0 only with --write-partition" "--epochs 0 alone" "$dt" $syn --epochs 0
    expect_fail 2 "^dpsgd-train: --epochs 0 --write-partition: give the workers" "no workers" "$dt" $syn --epochs 0 --write-partition "$T/x.txt"
    check '[ ! -e "$T/x.txt" ]' "no counts file after errors"
    # topogen from the counts file
    expect_ok "stl-fw" "$tg" --kind stl-fw -d 2 --labels "$T/wp_dirichlet_0_3.txt" -q -o "$T/stl.txt"
    check 'grep -q "directed=1" "$T/stl.txt" && grep -q "^# labels: dataset=synthetic partition=dirichlet:0.3 seed=1 workers=8" "$T/stl.txt"' "stl-fw: directed header and the partition's identity"
    expect_ok "stl-fw --symmetric" "$tg" --kind stl-fw -d 4 --symmetric --labels "$T/wp_dirichlet_0_3.txt" -q -o "$T/stls.txt"
    expect_ok "eval --labels" "$tg" eval "$T/stls.txt" --labels "$T/wp_dirichlet_0_3.txt" --json
    check 'grep -q "\"heterogeneity\":{\"labels\":" "$T/out"' "eval --json has heterogeneity"
    expect_ok "re-run stl-fw --symmetric from its settings" "$tg" $(sed -n 's/^# settings: //p' "$T/stls.txt") -q -o "$T/stls2.txt"
    check 'cmp -s "$T/stls.txt" "$T/stls2.txt"' "stl-fw settings re-create the file"
    expect_ok "dcliques" "$tg" --kind dcliques --labels "$T/s1.txt" --inter ring -q -o "$T/dc.txt"
    expect_ok "learned --labels" "$tg" -n 8 -d 3 --iters 300 --labels "$T/wp_dirichlet_0_3.txt" --hetero-weight 5 -q -o "$T/la.txt"
    check 'grep -q "^# settings: .*--labels .*--hetero-weight 5" "$T/la.txt"' "learned --labels: settings record them"
    expect_fail 2 "^topogen: --kind stl-fw: needs --labels" "stl-fw without labels" "$tg" --kind stl-fw -d 2 -o "$T/y.txt"
    expect_fail 2 "^topogen: --labels: only --kind learned, stl-fw and dcliques" "labels with ring" "$tg" --kind ring -n 8 --labels "$T/s1.txt" -o "$T/y.txt"
    expect_fail 2 "^topogen: --labels: .* has 8 workers, but -n is 16" "labels n mismatch" "$tg" -n 16 -d 4 --labels "$T/wp_iid.txt" -q -o "$T/y.txt"
    printf '# labels 1 dataset=x partition=iid seed=1 workers=3 images=9\n1 2 0\n1 x 0\n3 3 3\n' >"$T/bad1.txt"
    expect_fail 1 "^topogen: .*bad1.txt:3: expected a non-negative integer count, got 'x 0'" "bad count" "$tg" --kind stl-fw -d 2 --labels "$T/bad1.txt" -o "$T/y.txt"
    printf '1 2 0\n1 1\n' >"$T/bad2.txt"
    expect_fail 1 "^topogen: .*bad2.txt:2: 2 counts, but the first worker's line has 3" "ragged counts" "$tg" --kind dcliques --labels "$T/bad2.txt" -o "$T/y.txt"
    printf '1 2 0\n0 0 0\n' >"$T/bad3.txt"
    expect_fail 1 "^topogen: .*bad3.txt:2: worker 1 has no images" "empty worker" "$tg" eval "$T/stls.txt" --labels "$T/bad3.txt"
    check '[ ! -e "$T/y.txt" ]' "no topology after counts-file errors"
    if command -v mpirun >/dev/null 2>&1; then
        "$tg" -n 8 -d 3 --iters 200 --weights mh -q --labels "$T/wp_dirichlet_0_3.txt" -o "$T/la8.txt"
        expect_ok "a run on a topology learned for another partition" mpi_run 2 "$dtb" $syn --epochs 1 --topology "$T/la8.txt" --partition iid
        check 'grep -q "^dpsgd-train: notice: .*la8.txt was learned for the partition .*partition=dirichlet:0.3.* but this run uses dataset=synthetic partition=iid seed=1" "$T/err"' "notice for another partition"
        expect_ok "--write-partition in a gossip run" mpi_run 2 "$dtb" $syn --epochs 1 --topology "$T/la8.txt" --partition dirichlet:0.3 --write-partition "$T/wg.txt"
        check 'cmp -s "$T/wp_dirichlet_0_3.txt" "$T/wg.txt" && ! grep -q notice "$T/err"' "gossip run: same partition, no notice"
        # clique averaging on D-Cliques at one class per worker: the same
        # bits on 1 and 3 ranks, and better than plain dpsgd there
        "$dt" $syn --epochs 0 --workers 20 --partition shards:1 --write-partition "$T/s20.txt" --quiet
        "$tg" --kind dcliques --labels "$T/s20.txt" -q -o "$T/dc20.txt"
        check 'grep -q "^# cliques: " "$T/dc20.txt"' "dcliques writes its cliques"
        ca="$syn --epochs 2 --partition shards:1 --topology $T/dc20.txt"
        expect_ok "clique-avg, 1 rank" mpi_run 1 "$dtb" $ca --algorithm clique-avg
        h1=$(grep -o "hash [0-9a-f]*  workers-hash [0-9a-f]*" "$T/out"); a1=$(sed -n 's/^final:.*test_acc \([0-9.]*\).*/\1/p' "$T/out")
        expect_ok "clique-avg, 3 ranks" mpi_run 3 "$dtb" $ca --algorithm clique-avg
        check '[ -n "$h1" ] && grep -q "^final: clique-avg .*$h1" "$T/out"' "clique-avg: same bits on 1 and 3 ranks"
        expect_ok "dpsgd on the same D-Cliques" mpi_run 2 "$dtb" $ca
        a0=$(sed -n 's/^final:.*test_acc \([0-9.]*\).*/\1/p' "$T/out")
        check 'awk -v a="$a1" -v b="$a0" "BEGIN { exit !(a > b + 0.1) }"' "clique-avg ($a1) beats dpsgd ($a0) at one class per worker"
        expect_fail 2 "^dpsgd-train: --algorithm clique-avg: .*la8.txt has no \`# cliques:\` line" "clique-avg needs cliques" mpi_run 2 "$dtb" $syn --topology "$T/la8.txt" --algorithm clique-avg
    fi
}

cli_run dataaware

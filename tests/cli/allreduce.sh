#!/bin/sh
# cli/allreduce.sh: dpsgd-train --mode allreduce --allreduce ALG runs the
# all-reduce it names: auto (the library's), direct (all-to-all, local sum,
# all-gather) and hierarchical (reduce per group, leaders' all-reduce,
# broadcast) train to the same accuracy, their final parameters within
# float rounding of auto's (direct sums in another order), hierarchical in
# groups of --net-hosts; the names the model only prices are refused
# without --net.
#
#   BIN=bin sh tests/cli/allreduce.sh  (make check-cli-allreduce)
. "$(dirname "$0")/lib.sh"

# params_diff A B: "rel R max M same S" of two saved models (safetensors)
params_diff() {
    /usr/bin/python3 - "$1" "$2" <<'EOF'
import json, struct, sys
import numpy as np
def load(p):
    b = open(p, "rb").read(); n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n]); d = b[8 + n:]
    return {k: np.frombuffer(d[v["data_offsets"][0]:v["data_offsets"][1]], dtype=np.float32)
            for k, v in h.items() if k != "__metadata__"}
a, b = load(sys.argv[1]), load(sys.argv[2])
x = np.concatenate([a[k] for k in sorted(a)]); y = np.concatenate([b[k] for k in sorted(a)])
print("rel %.3g max %.3g same %d" % (np.linalg.norm(x - y) / np.linalg.norm(x), np.abs(x - y).max(), int(np.array_equal(x, y))))
EOF
}

acc() { sed -n 's/^final:.* test_acc \([0-9.]*\) .*/\1/p' "$T/out"; }

allreduce_cases() {
    dt="$BIN/dpsgd-train"
    syn="--mode allreduce --workers 4 --dataset synthetic --synthetic-train 2048 --synthetic-test 256 --batch 8 --epochs 2 --quiet"
    expect_ok "auto" mpi_run 4 "$dt" $syn --save-model "$T/auto.st"
    a_auto=$(acc)
    for alg in direct hierarchical; do
        expect_ok "$alg" mpi_run 4 "$dt" $syn --allreduce $alg --save-model "$T/$alg.st"
        a=$(acc)
        check '[ -n "$a" ] && [ "$a" = "$a_auto" ]' "$alg: test_acc $a, auto $a_auto"
    done
    expect_ok "hierarchical in 2 groups" mpi_run 4 "$dt" $syn --allreduce hierarchical --net-hosts 2 --save-model "$T/hier2.st"
    # hierarchical-site (issue 42): 4 ranks on 4 hosts on 2 sites, one
    # group per site, {0, 1} and {2, 3}: the groups of --net-hosts 2, so
    # the same sums bit for bit; priced by the three-level model
    net3='inter=25us,3GB/s;site=50ms,12.5MB/s;sites=2'
    expect_ok "hierarchical-site, 2 sites" mpi_run 4 "$dt" $syn --allreduce hierarchical-site --net "$net3" --net-hosts 4 --save-model "$T/hsite.st"
    d_site=$(params_diff "$T/hier2.st" "$T/hsite.st")
    check 'echo "$d_site" | awk "{ exit !(\$6 == 1) }" && grep -q "priced as hierarchical-site (hierarchical-site) on 4 ranks on 4 hosts" "$T/out"' "hierarchical-site against hierarchical in 2 groups: $d_site; $(grep -i "modelled all-reduce" "$T/out")"
    expect_fail 2 "^dpsgd-train: --allreduce hierarchical-site groups the ranks by site: it needs --net-hosts H" "hierarchical-site without --net-hosts" \
        mpi_run 2 "$dt" $syn --allreduce hierarchical-site --net "$net3"
    expect_fail 2 "^dpsgd-train: --allreduce hierarchical-site groups the ranks by site: it needs --net with a site level" "hierarchical-site on a net without sites" \
        mpi_run 2 "$dt" $syn --allreduce hier-site --net wan --net-hosts 2
    # han: the blocking MPI_Allreduce (on one host coll/han steps aside and
    # coll/tuned's runs; tests/system/cluster.sh checks han itself)
    expect_ok "han" mpi_run 4 "$dt" $syn --allreduce han --save-model "$T/han.st"
    a=$(acc)
    d_han=$(params_diff "$T/auto.st" "$T/han.st")
    check '[ "$a" = "$a_auto" ] && echo "$d_han" | awk "{ exit !(\$2 < 1e-5) }"' "han: test_acc $a (auto $a_auto), against auto: $d_han"
    d_direct=$(params_diff "$T/auto.st" "$T/direct.st")
    d_hier=$(params_diff "$T/auto.st" "$T/hierarchical.st")
    d_hier2=$(params_diff "$T/auto.st" "$T/hier2.st")
    # direct sums ((x0 + x1) + x2) + x3, Open MPI's binomial (x0 + x1) +
    # (x2 + x3): other last bits, after 128 steps within 1e-5 (relative
    # 2-norm); the hierarchical ones reduce as the binomial tree does
    check 'echo "$d_direct" | awk "{ exit !(\$2 > 0 && \$2 < 1e-5 && \$6 == 0) }"' "direct against auto: $d_direct"
    check 'echo "$d_hier" | awk "{ exit !(\$2 < 1e-5) }" && echo "$d_hier2" | awk "{ exit !(\$2 < 1e-5) }"' "hierarchical against auto: $d_hier; 2 groups: $d_hier2"
    # --net prices what runs: direct's two steps
    expect_ok "direct, priced" mpi_run 4 "$dt" $syn --allreduce direct --net wan
    check 'grep -qE "direct" "$T/out"' "--net: the direct all-reduce priced: $(grep -i allreduce "$T/out" | head -3)"
    expect_fail 2 "^dpsgd-train: --allreduce ring is only priced by the network model: add --net NET" "a priced-only name without --net" \
        mpi_run 2 "$dt" $syn --allreduce ring
    expect_fail 2 "^dpsgd-train: --allreduce is --mode allreduce's all-reduce; a gossip run" "--allreduce in gossip mode" \
        dt_run --topology "$T/none.txt" --allreduce direct
    expect_fail 2 "^dpsgd-train: --net-hosts is for the network model" "--net-hosts without --net, not hierarchical" \
        mpi_run 2 "$dt" $syn --allreduce direct --net-hosts 2
    expect_fail 2 "^dpsgd-train: --net-hosts is for the network model" "--net-hosts with han (its groups are Open MPI's)" \
        dt_run $syn --allreduce han --net-hosts 2
    expect_fail 2 "^dpsgd-train: --allreduce han runs the gradients' all-reduce; local SGD" "han with local SGD" \
        dt_run $syn --allreduce han --average-every 4
    expect_fail 2 "^dpsgd-train: --allreduce 'tree': expected ring" "a bad name" \
        mpi_run 2 "$dt" $syn --allreduce tree
}

cli_run allreduce

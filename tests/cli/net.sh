#!/bin/sh
# cli/net.sh: topogen eval --net: the modelled round under block and graph
# placement.
#
#   BIN=bin sh tests/cli/net.sh  (make check-cli-net)
. "$(dirname "$0")/lib.sh"

net_cases() {
    tg="$BIN/topogen"
    "$tg" -n 32 --kind ring --quiet -o "$T/ring32.txt"
    expect_ok "eval --net" "$tg" eval "$T/ring32.txt" --net "intra=0s,1GB/s;inter=1ms,1MB/s" --params 250000 --ranks 4 --hosts 2
    # ring of 32 in blocks of 8 on 2 hosts: each rank sends 1 array to
    # each of its 2 neighbour ranks, one of them on the other host, so 2
    # arrays leave each host through its one link: 1 ms + 2 MB / (1 MB/s)
    check 'grep -qE "^  block +cut 4 edges \(2 across hosts\), 8 arrays per round \(4 across hosts, 8 MB\), modelled 2001 ms" "$T/out"' \
        "block line: $(grep block "$T/out")"
    check 'grep -qE "^  graph +cut 4 edges \(2 across hosts\), 8 arrays.*; placed by (METIS|own bisection)[a-z0-9 ,-]*$" "$T/out"' "graph line: $(grep graph "$T/out")"
    # ring all-reduce of 4 ranks on 2 hosts: 6 steps, in each one block
    # of 250 kB leaves each host: 6 x (1 ms + 250 ms); recursive doubling:
    # distance 1 inside the hosts (0 + 1 ms), distance 2 across with both
    # ranks of a host sending 1 MB: 1 ms + 2 s; auto prices it (binomial)
    check 'grep -qE "^  allreduce +ring +modelled 1506 ms \(6 steps; 6 messages, 1.5 MB sent per rank\)$" "$T/out" && grep -qE "^  allreduce +recursive-doubling +modelled 2002 ms " "$T/out" && grep -qE "^  allreduce +hierarchical +modelled [0-9.]+ ms .*among hosts\)$" "$T/out" && grep -qE "^  allreduce +priced as auto: binomial, modelled [0-9.]+ ms \(what Open MPI 4.1 runs" "$T/out"' \
        "allreduce lines: $(grep allreduce "$T/out")"
    # the issue's check: a 4-regular graph of 256 on 256 WAN hosts, LeNet:
    # ring 25.5 s, the best at most 1.2 s, a gossip round alpha + 4 B / beta
    # = 50 ms + 78.98 ms (the sends are posted together)
    "$tg" -n 256 -d 4 --kind random --quiet -o "$T/r256.txt"
    expect_ok "eval --net wan at 256" "$tg" eval "$T/r256.txt" --net wan --hosts 256 --params 61706 --allreduce best
    check 'grep -qE "^  block .*modelled 129 ms per round" "$T/out" && grep -qE "^  allreduce +ring +modelled 2.554e\+04 ms" "$T/out" && grep -qE "^  allreduce +priced as best: recursive-doubling, modelled 558 ms; best recursive-doubling 558 ms$" "$T/out"' \
        "wan 256: $(grep -E "block|allreduce" "$T/out")"
    # the direct all-reduce (dpsgd-train --allreduce direct): 2 x (50 ms +
    # 255 blocks of ceil(61706/256) = 242 floats / 12.5 MB/s) = 139.5 ms
    check 'grep -qE "^  allreduce +direct +modelled 139.5 ms \(2 steps; 510 messages" "$T/out"' \
        "wan 256 direct: $(grep direct "$T/out")"
    expect_fail 2 "^topogen: --allreduce 'tree': expected ring" "bad --allreduce" "$tg" eval "$T/r256.txt" --net wan --allreduce tree
    expect_fail 2 "^topogen: --params, --ranks, --hosts and --allreduce need --net" "--allreduce without --net" "$tg" eval "$T/r256.txt" --allreduce ring
    expect_ok "eval --net --json" "$tg" eval "$T/ring32.txt" --net wan --json
    check 'grep -qE "\"graph\":\{[^}]*\"placed_by\":\"(METIS|own bisection)[a-z0-9 ,-]*\"\}" "$T/out"' \
        "JSON graph placement says its partitioner: $(grep -o "\"graph\":{[^}]*}" "$T/out")"
    check 'grep -qE "\"net\":\"wan \(.*\"ranks\":32,\"hosts\":32,\"array_bytes\":246824,\"block\":\{\"cut_edges\":32,.*\"round_s\":0\.0894[0-9]*\}" "$T/out"' \
        "JSON net members: $(head -c 400 "$T/out")"
    # every worker its own host: 62 x (50 ms + 1929 floats x 4 B / 12.5 MB/s)
    check 'grep -qE "\"allreduce_ring_s\":3\.13827[0-9]*," "$T/out" && grep -qE "\"allreduce_priced_by\":\"auto\",\"allreduce_alg\":\"binomial\",\"allreduce_s\":[0-9.]+,\"allreduce_best\":\"recursive-doubling\"" "$T/out"' \
        "JSON ring all-reduce on wan: $(grep -o "\"allreduce_ring_s\":[^,]*" "$T/out")"
    # a time-varying file: every round modelled, block placement
    "$tg" --kind one-peer-exp -n 8 --quiet -o "$T/op8net.txt"
    expect_ok "eval --net on a sequence" "$tg" eval "$T/op8net.txt" --net "inter=1ms,1MB/s" --params 250000
    check 'grep -qE "^  block +modelled 1001 ms per round on average over the period \(rounds: 1001 1001 1001 ms\)$" "$T/out" && grep -qE "^  allreduce +ring +modelled 1764 ms " "$T/out"' \
        "sequence --net lines: $(grep -A2 "^placement" "$T/out")"
    expect_ok "eval --net --json on a sequence" "$tg" eval "$T/op8net.txt" --net wan --json
    check 'grep -qE "\"block\":\{\"round_s\":\[0\.069745920*[0-9]*,0\.069745920*[0-9]*,0\.069745920*[0-9]*\],\"mean_round_s\":0\.069745920*[0-9]*\},\"allreduce_ring_s\":[0-9.]+,\"allreduce_priced_by\":\"auto\"" "$T/out"' \
        "sequence JSON: $(grep -o "\"block.*" "$T/out")"
    expect_fail 2 "^topogen: --ranks 9: .*op8net.txt has only 8 nodes" "sequence --ranks > n" "$tg" eval "$T/op8net.txt" --net wan --ranks 9
    expect_fail 2 "^topogen: --net 'fast': " "bad --net" "$tg" eval "$T/ring32.txt" --net fast
    expect_fail 2 "^topogen: --params, --ranks, --hosts and --allreduce need --net" "--ranks without --net" "$tg" eval "$T/ring32.txt" --ranks 2
    expect_fail 2 "^topogen: --net: only 'topogen eval FILE'" "--net without eval" "$tg" -n 8 --net wan
    expect_fail 2 "^topogen: --ranks 33: .*ring32.txt has only 32 nodes" "--ranks > n" "$tg" eval "$T/ring32.txt" --net wan --ranks 33
    expect_fail 2 "^topogen: --hosts 5: more hosts than the 4 ranks" "--hosts > ranks" "$tg" eval "$T/ring32.txt" --net wan --ranks 4 --hosts 5
    # three levels (issue 42): ring of 32 on 8 ranks, 2 per host, 2 hosts
    # per site. Every host sends 2 arrays (1 MB) to other hosts (2 s at
    # 1 MB/s), every site 2 to the other (4 s at 0.5 MB/s); rank 0's peer
    # on the other site: 10 ms + max(2, 4) s
    net3='intra=0s,1GB/s;inter=1ms,1MB/s;site=10ms,0.5MB/s;sites=2'
    expect_ok "eval --net three levels" "$tg" eval "$T/ring32.txt" --net "$net3" --params 250000 --ranks 8 --hosts 4
    check 'grep -qE "^net +custom \(intra 0 us, 1 GB/s; inter 1 ms, 1 MB/s; site 10 ms, 500 kB/s; 2 sites\)" "$T/out" && grep -qE "^  block +cut 8 edges \(4 across hosts\), 16 arrays per round \(8 across hosts, 16 MB\), modelled 4010 ms" "$T/out" && grep -qE "^  allreduce +hierarchical-site +modelled [0-9.]+ ms .*among sites\)$" "$T/out" && grep -qE "^placement +32 workers on 8 ranks on 4 hosts on 2 sites, arrays" "$T/out"' \
        "three levels: $(grep -E "^net|block|hierarchical" "$T/out")"
    # one host per site with site = inter: today's two-level price
    expect_ok "eval --net two levels" "$tg" eval "$T/ring32.txt" --net "inter=1ms,1MB/s" --params 250000 --ranks 8 --hosts 4
    two=$(grep -E "^  (block|allreduce)" "$T/out")
    expect_ok "eval --net site = inter" "$tg" eval "$T/ring32.txt" --net "inter=1ms,1MB/s;site=1ms,1MB/s;sites=4" --params 250000 --ranks 8 --hosts 4
    check '[ -n "$two" ] && [ "$(grep -E "^  (block|allreduce)" "$T/out" | grep -v hierarchical-site)" = "$(echo "$two" | grep -v hierarchical-site)" ]' "site = inter, one host per site: the two-level lines"
    expect_ok "eval --allreduce hier-site" "$tg" eval "$T/ring32.txt" --net "$net3" --ranks 8 --hosts 4 --allreduce hier-site --json
    check 'python3 -c "import json, sys; o = json.load(open(sys.argv[1])); assert o[\"allreduce_alg\"] == \"hierarchical-site\", o; assert \"hierarchical-site\" in o[\"allreduce_by_alg\"]; assert o[\"sites\"] == 2 and o[\"hosts\"] == 4, o" "$T/out"' "--allreduce hier-site and sites in the JSON"
    expect_fail 2 "^topogen: --net 'site=50ms,12.5MB/s': site=ALPHA,BETA needs sites=S" "site= without sites=" "$tg" eval "$T/ring32.txt" --net 'site=50ms,12.5MB/s'
    expect_fail 2 "^topogen: --net 'inter=1ms,1MB/s;sites=2': sites=S needs site=ALPHA,BETA" "sites= without site=" "$tg" eval "$T/ring32.txt" --net 'inter=1ms,1MB/s;sites=2'
    expect_fail 2 "^topogen: --net 'site=50,12.5MB/s;sites=2': latency '50' has no unit" "site latency without a unit" "$tg" eval "$T/ring32.txt" --net 'site=50,12.5MB/s;sites=2'
    expect_fail 2 "^topogen: --net 'site=5ms,1MB/s;sites=0': 'sites=0' is not sites=S" "sites=0" "$tg" eval "$T/ring32.txt" --net 'site=5ms,1MB/s;sites=0'
}

cli_run net

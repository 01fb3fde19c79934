#!/bin/sh
# cli/platform.sh: topogen platform --net KIND -n N [--seed S] -o P.xml:
# the SimGrid platform files of the presets (their links and duplex, the
# home draws by seed), and the refusals. Running them under smpirun is
# tests/cli/smpi.sh's part.
#
#   BIN=bin sh tests/cli/platform.sh  (make check-cli-platform)
. "$(dirname "$0")/lib.sh"

# xml_facts FILE: "hosts H links L splitduplex S shared X routes R" of a
# platform file, or nothing if it is not well-formed XML
xml_facts() {
    python3 - "$1" <<'EOF' 2>/dev/null
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == "platform" and r.get("version") == "4.1"
h = r.findall(".//host"); l = r.findall(".//link")
sd = [x for x in l if x.get("sharing_policy") == "SPLITDUPLEX"]
sh = [x for x in l if x.get("sharing_policy") == "SHARED"]
assert len(sd) + len(sh) == len(l)  # duplex stated on every link
assert [x.get("id") for x in h] == ["h%04d" % i for i in range(len(h))]
print("hosts %d links %d splitduplex %d shared %d routes %d" % (len(h), len(l), len(sd), len(sh), len(r.findall(".//zoneRoute"))))
EOF
}

platform_cases() {
    tg="$BIN/topogen"
    expect_ok "platform --help" "$tg" platform --help
    check 'grep -q "^usage: topogen platform --net KIND -n N" "$T/out" && grep -q "sites:K" "$T/out"' "--help: usage and the kinds"
    expect_ok "wan 8" "$tg" platform --net wan -n 8 -o "$T/wan.xml"
    check '[ "$(xml_facts "$T/wan.xml")" = "hosts 8 links 8 splitduplex 8 shared 0 routes 0" ]' "wan: $(xml_facts "$T/wan.xml")"
    check 'grep -q "<link id=\"h0007_link\" bandwidth=\"12500000Bps\" latency=\"0.025000000s\" sharing_policy=\"SPLITDUPLEX\"/>" "$T/wan.xml"' "wan: 25 ms, 12.5 MB/s per host link"
    expect_ok "datacenter 4" "$tg" platform --net datacenter -n 4 -o "$T/dc.xml"
    check 'grep -q "bandwidth=\"3000000000Bps\" latency=\"0.000012500s\" sharing_policy=\"SPLITDUPLEX\"" "$T/dc.xml"' "datacenter: 12.5 us, 3 GB/s"
    expect_ok "sites:3 of 10" "$tg" platform --net sites:3 -n 10 -o "$T/sites.xml"
    # 10 host links and 3 WAN uplinks; 3 x 2 routes between the sites;
    # hosts in blocks of 4, 3, 3
    check '[ "$(xml_facts "$T/sites.xml")" = "hosts 10 links 13 splitduplex 13 shared 0 routes 6" ]' "sites: $(xml_facts "$T/sites.xml")"
    check '[ "$(sed -n "/<zone id=\"site1\"/,/<\/zone>/p" "$T/sites.xml" | grep -c "<host ")" = 3 ] && grep -q "<host id=\"h0004\"" "$T/sites.xml" && sed -n "/<zone id=\"site1\"/,/<\/zone>/p" "$T/sites.xml" | grep -q "h0004"' "sites: site1 holds h0004-h0006"
    expect_ok "home 6 seed 3" "$tg" platform --net home -n 6 --seed 3 -o "$T/home.xml"
    check '[ "$(xml_facts "$T/home.xml")" = "hosts 6 links 12 splitduplex 0 shared 12 routes 0" ]' "home: $(xml_facts "$T/home.xml")"
    # up 10-50 Mb/s (1.25-6.25 MB/s), down 50-300 Mb/s, latency 5-75 ms
    check 'awk -F"\"" "/<link.*_up\"/ { if (\$4+0 < 1250000 || \$4+0 > 6250000) bad = 1 } /<link.*_down\"/ { if (\$4+0 < 6250000 || \$4+0 > 37500000) bad = 1 } /<link/ { l = \$6 + 0; if (l < 0.005 || l > 0.075) bad = 1 } END { exit bad }" "$T/home.xml"' "home: draws in their ranges"
    expect_ok "home, same seed" "$tg" platform --net home -n 6 --seed 3 -o "$T/home2.xml"
    check 'cmp -s "$T/home.xml" "$T/home2.xml"' "home: the same seed, the same file"
    expect_ok "home, other seed" "$tg" platform --net home -n 6 --seed 4 -o "$T/home3.xml"
    check '! cmp -s "$T/home.xml" "$T/home3.xml"' "home: another seed, other links"
    # -q, taken as by every subcommand: the same file, nothing on stderr
    expect_ok "wan 8 -q" "$tg" platform -q --net wan -n 8 --quiet -o "$T/wan-q.xml"
    check 'cmp -s "$T/wan.xml" "$T/wan-q.xml" && [ ! -s "$T/err" ]' "platform -q: the same file, quietly"
    check '"$tg" platform --help | grep -q "^  -q, --quiet "' "platform --help lists -q"
    expect_ok "to stdout" "$tg" platform --net wan -n 2 -o -
    check 'grep -q "<platform version=\"4.1\">" "$T/out"' "-o -: the file on stdout"
    expect_fail 2 "^topogen: platform: --net 'lan': expected wan, datacenter, sites:K or home" "bad --net" "$tg" platform --net lan -n 4 -o "$T/x.xml"
    expect_fail 2 "^topogen: platform: --net 'sites:0': K of sites:K" "sites:0" "$tg" platform --net sites:0 -n 4 -o "$T/x.xml"
    expect_fail 2 "at least one host per site" "sites:5 of 4" "$tg" platform --net sites:5 -n 4 -o "$T/x.xml"
    expect_fail 2 "^topogen: platform: -n '0': expected a number of hosts, 1 to 9999" "-n 0" "$tg" platform --net wan -n 0 -o "$T/x.xml"
    expect_fail 2 "^topogen: platform: -n '1x'" "-n 1x" "$tg" platform --net wan -n 1x -o "$T/x.xml"
    expect_fail 2 "^topogen: platform: --seed: only --net home" "--seed for wan" "$tg" platform --net wan -n 4 --seed 2 -o "$T/x.xml"
    expect_fail 2 "^topogen: platform: unknown flag '--bogus'" "unknown flag" "$tg" platform --net wan -n 4 --bogus -o "$T/x.xml"
    expect_fail 2 "^topogen: platform: give -o P.xml" "no -o" "$tg" platform --net wan -n 4
    expect_fail 2 "^topogen: platform: -n given twice" "-n twice" "$tg" platform --net wan -n 4 -n 5 -o "$T/x.xml"
    check '[ ! -e "$T/x.xml" ] && [ -z "$(ls "$T" | grep "\.tmp\.")" ]' "no output left by the refusals"
    # --net P.xml: the model reads the platform it prices (cm_platform_net)
    "$tg" -n 16 -d 4 --kind random -q -o "$T/g16.txt"
    expect_ok "platform wan 16" "$tg" platform --net wan -n 16 -o "$T/w16.xml"
    expect_ok "eval --net wan" "$tg" eval "$T/g16.txt" --net wan --hosts 16 --ranks 16
    r_preset=$(sed -n 's/^  block .*modelled \([0-9.e+]*\) ms.*/\1/p' "$T/out")
    expect_ok "eval --net w16.xml" "$tg" eval "$T/g16.txt" --net "$T/w16.xml" --hosts 16 --ranks 16
    check '[ -n "$r_preset" ] && [ "$(sed -n "s/^  block .*modelled \([0-9.e+]*\) ms.*/\1/p" "$T/out")" = "$r_preset" ] && grep -q "^net  *w16.xml (intra 1 us, 10 GB/s; inter 50 ms, 12.5 MB/s)" "$T/out"' \
        "--net w16.xml prices as --net wan ($r_preset ms): $(grep -E "^net|block" "$T/out")"
    expect_ok "platform sites:4 16" "$tg" platform --net sites:4 -n 16 -o "$T/s16.xml"
    expect_ok "eval --net s16.xml" "$tg" eval "$T/g16.txt" --net "$T/s16.xml" --hosts 4 --ranks 16
    check 'grep -q "^net  *s16.xml (intra 1 us, 10 GB/s; inter 25 us, 3 GB/s; site 50 ms, 12.5 MB/s; 4 sites of 16 hosts)" "$T/out"' "sites: three levels: $(grep "^net" "$T/out")"
    # three levels (issue 42): 2 sites of 4 hosts, 2 ranks per host. A
    # ring of 16: every host 2 arrays (1 MB) across hosts, every site 2
    # across sites: 50.025 ms + 2 MB / 12.5 MB/s = 217.8 ms
    expect_ok "platform sites:2 --hosts-per-site 4" "$tg" platform --net sites:2 --hosts-per-site 4 -o "$T/s2x4.xml"
    check '[ "$(xml_facts "$T/s2x4.xml")" = "hosts 8 links 10 splitduplex 10 shared 0 routes 2" ]' "sites:2 x 4: $(xml_facts "$T/s2x4.xml")"
    "$tg" -n 16 -d 2 --kind ring -q -o "$T/ring16.txt"
    expect_ok "eval --platform s2x4.xml, 2 ranks per host" "$tg" eval "$T/ring16.txt" --platform "$T/s2x4.xml" --hosts 8 --params 262144
    check 'grep -q "^net  *s2x4.xml (intra 1 us, 10 GB/s; inter 25 us, 3 GB/s; site 50 ms, 12.5 MB/s; 2 sites of 8 hosts)" "$T/out" && grep -q "^  block .*modelled 217.8 ms" "$T/out" && grep -q "^  allreduce   hierarchical-site " "$T/out"' \
        "s2x4.xml: three levels, ring 217.8 ms: $(grep -E "^net|block" "$T/out")"
    # the file and its --net spelling price alike
    expect_ok "eval --platform s2x4.xml, d4" "$tg" eval "$T/g16.txt" --platform "$T/s2x4.xml" --hosts 8 --json
    python3 -c "import json, sys; o = json.load(open(sys.argv[1])); print(o['block']['round_s'], o['allreduce_best_s'])" "$T/out" >"$T/px" 2>&1
    expect_ok "eval --net site=, d4" "$tg" eval "$T/g16.txt" --net "inter=25us,3GB/s;site=50.025ms,12.5MB/s;sites=2" --hosts 8 --json
    check '[ -s "$T/px" ] && [ "$(python3 -c "import json, sys; o = json.load(open(sys.argv[1])); print(o[\"block\"][\"round_s\"], o[\"allreduce_best_s\"])" "$T/out")" = "$(cat "$T/px")" ]' "--platform s2x4.xml = --net inter=..;site=..;sites=2: $(cat "$T/px")"
    # the file's hosts are the deployment's: more is a bad --hosts (exit 2)
    expect_fail 2 "^topogen: --hosts 16: s2x4.xml has 8 hosts on 2 sites and the deployment 16 hosts: give at most 8 hosts" "more hosts than the platform of sites" "$tg" eval "$T/g16.txt" --platform "$T/s2x4.xml"
    # sites that do not hold the hosts in blocks: a bad file, exit 1
    sed '/<host id="h0000"/d' "$T/s2x4.xml" >"$T/s-uneven.xml"
    expect_fail 1 "^topogen: --platform: .*s-uneven.xml: site 0 holds 3 hosts: the model puts the 7 hosts on the 2 sites in blocks" "--platform of sites not in blocks" "$tg" eval "$T/g16.txt" --platform "$T/s-uneven.xml" --hosts 7
    expect_fail 2 "^topogen: platform: --hosts-per-site: only --net sites:K has sites" "--hosts-per-site for wan" "$tg" platform --net wan --hosts-per-site 4 -o "$T/x.xml"
    expect_fail 2 "^topogen: platform: --hosts-per-site '0': expected a number of hosts per site" "--hosts-per-site 0" "$tg" platform --net sites:2 --hosts-per-site 0 -o "$T/x.xml"
    expect_fail 2 "^topogen: platform: -n and --hosts-per-site together" "-n and --hosts-per-site" "$tg" platform --net sites:2 -n 8 --hosts-per-site 4 -o "$T/x.xml"
    check '[ ! -e "$T/x.xml" ]' "no output left by the --hosts-per-site refusals"
    # a file the model cannot read or price is a bad input file: exit 1
    # home: each host its own up and down links and latency (issue 42): a
    # round is its slowest host's, lat_h (its farthest peer's path, l_h +
    # l_q) + max(arrays out x B / up_h, arrays in x B / down_h); computed
    # here from the XML for the 6-ring (2 arrays out and in per host)
    "$tg" -n 6 -d 2 --kind rrl -q -o "$T/ring6.txt"
    expect_ok "eval --net home.xml" "$tg" eval "$T/ring6.txt" --net "$T/home.xml" --params 262144
    home_round() { # BYTES DIGITS: the round of the 6-ring on home.xml, ms
        python3 - "$T/home.xml" "$T/ring6.txt" "$1" "$2" <<'EOF2'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
L = {l.get("id"): (float(l.get("bandwidth")[:-3]), float(l.get("latency")[:-1])) for l in r.iter("link")}
H = [(L[h + "_up"], L[h + "_down"]) for h in ["h%04d" % i for i in range(6)]]
E = [tuple(map(int, x.split()[:2])) for x in open(sys.argv[2]) if x.strip() and not x.startswith("#")]
nb = {i: set() for i in range(6)}
for a, b in E:
    nb[a].add(b); nb[b].add(a)
B = float(sys.argv[3])
t = max(max(H[h][0][1] + H[q][1][1] for q in nb[h]) + max(len(nb[h]) * B / H[h][0][0], len(nb[h]) * B / H[h][1][0]) for h in range(6))
print("%.*g" % (int(sys.argv[4]), t * 1e3))
EOF2
    }
    want=$(home_round 1048576 4)
    check '[ -n "$want" ] && [ "$(sed -n "s/^  block .*modelled \([0-9.e+]*\) ms.*/\1/p" "$T/out")" = "$want" ] && grep -q "^net  *home.xml (6 hosts with their own links: path latency .*, up .*, down .*; intra 1 us, 10 GB/s)" "$T/out"' \
        "home.xml: the round is the slowest host's, $want ms: $(grep -E "^net|block" "$T/out")"
    check 'grep -q "^  allreduce   recursive-doubling  modelled" "$T/out" && grep -q "^  allreduce   direct  *modelled" "$T/out"' "home.xml: every all-reduce priced"
    expect_fail 2 "^topogen: --hosts 16: home.xml has 6 hosts with links of their own and the deployment 16 hosts" "home.xml: more hosts than the platform's" "$tg" eval "$T/g16.txt" --net "$T/home.xml"
    expect_ok "eval home.xml, 16 ranks on 6 hosts" "$tg" eval "$T/g16.txt" --net "$T/home.xml" --hosts 6
    # a time-varying file: the same refusal (it named the network, exit 1)
    "$tg" --kind one-peer-exp -n 8 -q -o "$T/op8.txt"
    expect_fail 2 "^topogen: --hosts 8: home.xml has 6 hosts with links of their own" "home.xml: a sequence on more hosts than the platform's" "$tg" eval "$T/op8.txt" --platform "$T/home.xml"
    expect_ok "eval a sequence on home.xml, 8 ranks on 6 hosts" "$tg" eval "$T/op8.txt" --platform "$T/home.xml" --hosts 6
    expect_fail 1 "^topogen: --net: .*nothere.xml: No such file or directory" "--net of a missing file, naming --net" "$tg" eval "$T/g16.txt" --net "$T/nothere.xml"
    # --platform P.xml (the issue's flag): the same model as --net P.xml,
    # a platform file only, never with --net
    expect_ok "eval --platform w16.xml" "$tg" eval "$T/g16.txt" --platform "$T/w16.xml" --hosts 16 --ranks 16
    check '[ "$(sed -n "s/^  block .*modelled \([0-9.e+]*\) ms.*/\1/p" "$T/out")" = "$r_preset" ] && grep -q "^net  *w16.xml (intra 1 us, 10 GB/s; inter 50 ms, 12.5 MB/s)" "$T/out"' \
        "--platform w16.xml prices as --net wan ($r_preset ms): $(grep -E "^net|block" "$T/out")"
    expect_ok "eval --platform --json" "$tg" eval "$T/g16.txt" --platform "$T/s16.xml" --hosts 4 --ranks 16 --json
    check 'python3 -c "import json, sys; o = json.load(open(sys.argv[1])); assert o[\"net\"].startswith(\"s16.xml (intra 1 us, 10 GB/s; inter 25 us, 3 GB/s; site 50\"), o[\"net\"]; assert o[\"hosts\"] == 4" "$T/out"' "--platform in the JSON net key: $(head -c 300 "$T/out")"
    expect_fail 2 "^topogen: --platform 'wan': expected a SimGrid platform file P.xml .*goes to --net" "--platform of a preset" "$tg" eval "$T/g16.txt" --platform wan
    expect_fail 2 "^topogen: --platform '.*g16.txt': expected a SimGrid platform file" "--platform of a non-.xml file" "$tg" eval "$T/g16.txt" --platform "$T/g16.txt"
    expect_fail 2 "^topogen: --net and --platform together: give one" "--net then --platform" "$tg" eval "$T/g16.txt" --net wan --platform "$T/w16.xml"
    expect_fail 2 "^topogen: --net and --platform together: give one" "--platform then --net" "$tg" eval "$T/g16.txt" --platform "$T/w16.xml" --net "$T/w16.xml"
    expect_fail 1 "^topogen: --platform: .*nothere.xml: No such file or directory" "--platform of a missing file" "$tg" eval "$T/g16.txt" --platform "$T/nothere.xml"
    # sites whose uplinks differ: no model for them (hosts' own links only)
    sed 's/\(<link id="site1_wan" bandwidth="\)12500000/\16250000/' "$T/sites.xml" >"$T/sites-odd.xml"
    expect_fail 1 "^topogen: --platform: .*sites-odd.xml: sites or clusters whose hosts have different links" "--platform of sites with different uplinks" "$tg" eval "$T/g16.txt" --platform "$T/sites-odd.xml" --hosts 3 --ranks 10
    expect_ok "dpsgd-train --net w16.xml" dt_run --topology "$T/g16.txt" --dataset synthetic --synthetic-train 256 --synthetic-test 64 --batch 8 --epochs 1 --quiet --net "$T/w16.xml" --net-hosts 16
    check 'grep -q "w16.xml (intra 1 us, 10 GB/s; inter 50 ms, 12.5 MB/s)" "$T/out"' "dpsgd-train --net w16.xml: $(grep -i modelled "$T/out" | head -2)"
    expect_ok "dpsgd-train --platform w16.xml" dt_run --topology "$T/g16.txt" --dataset synthetic --synthetic-train 256 --synthetic-test 64 --batch 8 --epochs 1 --quiet --platform "$T/w16.xml" --net-hosts 16 --summary "$T/s.json"
    check 'grep -q "modelled round 129 ms (w16.xml (intra 1 us, 10 GB/s; inter 50 ms, 12.5 MB/s))" "$T/out" && python3 -c "import json, sys; s = json.load(open(sys.argv[1]))[\"settings\"]; assert s[\"net\"] == \"w16.xml (intra 1 us, 10 GB/s; inter 50 ms, 12.5 MB/s)\", s[\"net\"]" "$T/s.json"' \
        "dpsgd-train --platform: the model and the summary's net: $(grep -i modelled "$T/out" | head -2)"
    expect_ok "dpsgd-train --platform s2x4.xml" dt_run --topology "$T/g16.txt" --dataset synthetic --synthetic-train 256 --synthetic-test 64 --batch 8 --epochs 1 --quiet --platform "$T/s2x4.xml" --net-hosts 8 --summary "$T/s3.json"
    check 'python3 -c "import json, sys; s = json.load(open(sys.argv[1]))[\"settings\"]; assert s[\"net\"] == \"s2x4.xml (intra 1 us, 10 GB/s; inter 25 us, 3 GB/s; site 50 ms, 12.5 MB/s; 2 sites of 8 hosts)\", s[\"net\"]" "$T/s3.json" && grep -q "modelled round [0-9.]* ms (s2x4.xml (intra 1 us, 10 GB/s; inter 25 us, 3 GB/s; site 50 ms, 12.5 MB/s; 2 sites of 8 hosts)" "$T/out"' \
        "dpsgd-train --platform of sites: $(grep -i modelled "$T/out" | head -2)"
    expect_fail 2 "^dpsgd-train: --net 'site=50ms,12.5MB/s': site=ALPHA,BETA needs sites=S" "dpsgd-train --net site= without sites=" dt_run --topology "$T/g16.txt" --dataset synthetic --synthetic-train 256 --synthetic-test 64 --batch 8 --epochs 1 --quiet --net 'site=50ms,12.5MB/s'
    expect_ok "dpsgd-train --platform home.xml" dt_run --topology "$T/ring6.txt" --dataset synthetic --synthetic-train 256 --synthetic-test 64 --batch 8 --epochs 1 --quiet --platform "$T/home.xml" --net-hosts 6
    want=$(home_round 246824 3) # LeNet's arrays, as dpsgd-train prints
    check '[ -n "$want" ] && grep -q "modelled round $want ms (home.xml (6 hosts with their own links" "$T/out"' "dpsgd-train --platform home.xml: the round of the 6-ring, $want ms: $(grep -i modelled "$T/out" | head -2)"
    expect_fail 2 "^dpsgd-train: --net-hosts 16: home.xml has 6 hosts with links of their own" "dpsgd-train: more hosts than the platform's" dt_run --topology "$T/g16.txt" --dataset synthetic --synthetic-train 256 --synthetic-test 64 --batch 8 --epochs 1 --quiet --platform "$T/home.xml" --net-hosts 16 --summary "$T/s2.json"
    # a message after the flags were read names the flag that gave the
    # network: --platform and its file, never --net
    expect_ok "dpsgd-train --platform, one host" dt_run --topology "$T/g16.txt" --dataset synthetic --synthetic-train 128 --synthetic-test 16 --batch 8 --epochs 1 --quiet --platform "$T/w16.xml"
    check 'grep -q "^dpsgd-train: notice: --platform w16.xml: the modelled deployment has one host" "$T/err" && ! grep -q -- "--net:" "$T/err"' "dpsgd-train --platform's one-host notice names --platform: $(cat "$T/err")"
    expect_fail 2 "^dpsgd-train: --platform 'wan': expected a SimGrid platform file P.xml .*goes to --net" "dpsgd-train --platform of a preset" dt_run --topology "$T/g16.txt" --dataset synthetic --epochs 1 --quiet --platform wan --summary "$T/s2.json"
    expect_fail 2 "^dpsgd-train: --net and --platform together: give one" "dpsgd-train --net and --platform" dt_run --topology "$T/g16.txt" --dataset synthetic --epochs 1 --quiet --platform "$T/w16.xml" --net wan --summary "$T/s2.json"
    expect_fail 1 "^dpsgd-train: --platform: .*nothere.xml: No such file or directory" "dpsgd-train --platform of a missing file" dt_run --topology "$T/g16.txt" --dataset synthetic --epochs 1 --quiet --platform "$T/nothere.xml" --summary "$T/s2.json"
    check '[ ! -e "$T/s2.json" ]' "no summary left by the refusals"
    expect_fail 1 "^topogen: platform: -o: cannot write $T/nodir/p.xml" "unwritable output, named -o" "$tg" platform --net wan -n 4 -o "$T/nodir/p.xml"
}

cli_run platform

#!/usr/bin/python3
"""plan-vs-smpi.py [BIN]: `topogen plan`'s first rows against the SMPI
re-timing of the same committed runs (issue 42 after issue 45), on the
three 256-host cells of data/results-slow-network/smpi/ (wan, sites:4,
datacenter).

plan: `BIN/topogen plan -n 256 --eval-every 14 --json -q` with `--net wan`,
`--platform sites4.xml` (`topogen platform --net sites:4 -n 256`, the
file SMPI simulated) and `--net datacenter`, over the committed
experiments (its default --results); --eval-every 14 is the committed
runs' evaluation interval, the one SMPI priced. SMPI: table.md's "s to
85%, best" column (every all-reduce at the cheapest algorithm measured in
the cell), the settings whose every seed reached 85% and that SMPI
priced (not GT, not int8: "n/a" there), both TCP settings; the pilots
(i41-pilot) left out. Prints a markdown table (docs/topo/plan-vs-smpi.md)
and, per cell, whether plan's first row is SMPI's fastest. Cost: three
plans, about 30 s of one core (the 4-site host-aware graph's search).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TABLE = "data/results-slow-network/smpi/table.md"
SECTIONS = {"WAN": "wan", "4 sites": "sites4", "datacenter": "datacenter"}


def smpi_order(path):
    """{(cell, tcp): [(seconds, setting, seeds)] fastest first}"""
    out, key = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                key = None
                for label, cell in SECTIONS.items():
                    if line[3:].startswith(label):
                        key = (cell, "cm02" if "CM02" in line else "lv08")
                        out[key] = []
                continue
            if key is None or not line.startswith("| ") or \
                    line.startswith(("| setting", "| ---")):
                continue
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            if "(i41-pilot)" in c[0]:
                continue
            k, n = c[1].split("/")
            m = re.match(r"([0-9.]+)", c[4])
            if k == n and m:
                out[key].append((float(m.group(1)), c[0], int(n)))
    for v in out.values():
        v.sort()
    return out


def plan_rows(binary, flags):
    cmd = [binary, "plan", "-n", "256", "--eval-every", "14", "--json",
           "-q"] + flags
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit("plan-vs-smpi: %s: exit %d: %s" % (" ".join(cmd),
                                                     p.returncode,
                                                     p.stderr[:300]))
    return json.loads(p.stdout)["rows"]


def fmt(t):
    return "%.3g" % t if t < 100 else "%.0f" % t


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    binary = sys.argv[1] if len(sys.argv) > 1 else "bin/topogen"
    if not os.path.exists(TABLE):
        sys.exit("plan-vs-smpi: %s: not found (run from the checkout)"
                 % TABLE)
    smpi = smpi_order(TABLE)
    tmp = tempfile.mkdtemp(prefix="plan-vs-smpi.")
    xml = os.path.join(tmp, "sites4.xml")
    subprocess.run([binary, "platform", "--net", "sites:4", "-n", "256",
                    "-o", xml, "-q"], check=True)
    cells = [("wan", ["--net", "wan"], "--net wan"),
             ("sites4", ["--platform", xml],
              "--platform sites4.xml"),
             ("datacenter", ["--net", "datacenter"], "--net datacenter")]
    print("| cell | plan (`topogen plan -n 256 --eval-every 14 ...`): rows "
          "1-3, modelled s | SMPI CM02, best pricing: fastest 3, "
          "simulated s | SMPI LV08: fastest 3 | plan's first row = SMPI's "
          "fastest |")
    print("| --- | --- | --- | --- | --- |")
    agree = 0
    for cell, flags, shown in cells:
        rows = plan_rows(binary, flags)
        top = ["%s (%s, %s)" % (r["setting"] or r["schedule"],
                                fmt(r["seconds_to_target"]),
                                r["basis"]) for r in rows[:3]]
        first = rows[0]["setting"]
        sm = []
        ok = True
        for tcp in ("cm02", "lv08"):
            o = smpi[(cell, tcp)]
            sm.append(", ".join("%s (%s)" % (s, fmt(t)) for t, s, _ in o[:3]))
            ok = ok and o[0][1] == first
        agree += ok
        print("| %s (`%s`) | %s | %s | %s | %s |"
              % (cell, shown, "; ".join(top), sm[0], sm[1],
                 "yes" if ok else "no"))
    print()
    print("plan's first row is SMPI's fastest (both TCP settings) in %d of "
          "%d cells" % (agree, len(cells)))
    os.remove(xml)
    os.rmdir(tmp)


if __name__ == "__main__":
    main()

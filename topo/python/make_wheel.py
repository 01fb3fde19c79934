#!/usr/bin/env python3
"""make_wheel.py OUTDIR: writes the pure-Python wheel of the package
(`make wheel`: dist/dpsgd_topogen-VERSION-py3-none-any.whl) with the
standard library alone, following the wheel format (PEP 427, metadata
2.1 of PEP 566): no setuptools, no `wheel`, no network, any Python 3.9+.
The same sources give the same bytes (fixed timestamps, sorted names).

The distribution is `dpsgd-topogen` (the name `topogen` on the public
index belongs to another project); the import name stays `topogen`.
Install: `pip install dist/dpsgd_topogen-*.whl`; numpy, torch and
networkx are extras (`...whl[numpy]`): the builders, eval and save need
none of them.
"""
import base64
import hashlib
import os
import re
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "dpsgd-topogen"
DIST = "dpsgd_topogen"
SUMMARY = ("Topologies for decentralized SGD (topogen's graphs, weights and "
           "measures in pure Python) and gossip, averagers, D^2 and "
           "gradient tracking for torch.distributed")
EXTRAS = {"numpy": ["numpy"], "torch": ["torch", "numpy"],
          "networkx": ["networkx", "numpy"]}
STAMP = (2020, 1, 1, 0, 0, 0)


def version():
    with open(os.path.join(HERE, "topogen", "__init__.py")) as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if not m:
        sys.exit("make_wheel.py: no __version__ in topogen/__init__.py")
    return m.group(1)


def metadata(ver):
    lines = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + ver,
             "Summary: " + SUMMARY, "License: see the topogen source tree",
             "Requires-Python: >=3.9"]
    for extra, reqs in EXTRAS.items():
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (r, extra)
                  for r in reqs]
    lines.append("Description-Content-Type: text/markdown")
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return ("\n".join(lines) + "\n\n" + readme).encode("utf-8")


def record_line(path, data):
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (path, h.decode(), len(data))


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: make_wheel.py OUTDIR")
    out = argv[1]
    ver = version()
    info = "%s-%s.dist-info" % (DIST, ver)
    files = []
    pkg = os.path.join(HERE, "topogen")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name), "rb") as f:
                files.append(("topogen/" + name, f.read()))
    files.append((info + "/METADATA", metadata(ver)))
    files.append((info + "/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: topogen make_wheel.py\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n").encode()))
    files.append((info + "/top_level.txt", b"topogen\n"))
    record = [record_line(p, d) for p, d in files]
    record.append(info + "/RECORD,,")
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
    os.makedirs(out, exist_ok=True)
    whl = os.path.join(out, "%s-%s-py3-none-any.whl" % (DIST, ver))
    tmp = whl + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            zi = zipfile.ZipInfo(path, STAMP)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    os.replace(tmp, whl)  # never a half-written wheel
    print(whl)


if __name__ == "__main__":
    main(sys.argv)

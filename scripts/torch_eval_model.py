#!/usr/bin/python3
"""torch_eval_model.py: evaluates a dpsgd-train model file in PyTorch.

Reads a safetensors file written by `dpsgd-train --save-model` with numpy
alone (8-byte little-endian header length, JSON header, float32 data),
loads it into the PyTorch module of scripts/bench_torch.py with
load_state_dict(strict=True), and prints the test accuracy on
Fashion-MNIST (gzipped IDX in DATA_DIR), normalized as dpsgd-train does:
(p/255 - mean) / std with the training set's population mean and std.
The first --limit test images (all by default).

usage: torch_eval_model.py MODEL.safetensors [--model lenet|cnn]
                           [--data DIR] [--limit N]
prints: "torch_eval ACCURACY LOSS N"
"""
import argparse
import gzip
import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_torch import make  # noqa: E402


def load_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        assert t["dtype"] == "F32", name
        b, e = t["data_offsets"]
        out[name] = torch.from_numpy(
            np.frombuffer(data[b:e], dtype="<f4").reshape(t["shape"]).copy())
    return out


def idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    return np.frombuffer(raw, dtype=np.uint8,
                         offset=4 + 4 * dims).reshape(shape)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--model", dest="arch", default="lenet")
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(1)
    net = make(a.arch)
    net.load_state_dict(load_safetensors(a.model), strict=True)
    net.eval()
    train = idx(os.path.join(a.data, "train-images-idx3-ubyte.gz"))
    p = train.astype(np.float64) / 255.0
    mean, std = p.mean(), p.std()
    x = idx(os.path.join(a.data, "t10k-images-idx3-ubyte.gz"))
    y = idx(os.path.join(a.data, "t10k-labels-idx1-ubyte.gz"))
    if a.limit:
        x, y = x[:a.limit], y[:a.limit]
    xt = torch.from_numpy(((x.astype(np.float64) / 255.0 - mean) / std)
                          .astype(np.float32)[:, None, :, :])
    yt = torch.from_numpy(y.astype(np.int64))
    with torch.no_grad():
        z = net(xt)
        loss = torch.nn.functional.cross_entropy(z, yt).item()
        acc = (z.argmax(1) == yt).double().mean().item()
    print("torch_eval %.4f %.4f %d" % (acc, loss, len(y)))


if __name__ == "__main__":
    main()

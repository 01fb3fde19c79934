#!/usr/bin/python3
"""torch-eval-model.py: evaluates a dpsgd-train model file in PyTorch.

Reads a safetensors file written by `dpsgd-train --save-model` with numpy
alone (8-byte little-endian header length, JSON header, float32 data),
builds the PyTorch module of scripts/benches/bench_torch.py for the input shape
the file's __metadata__ names (LeNet or the CNN; 1x28x28 Fashion-MNIST /
MNIST, 3x32x32 CIFAR-10), loads it with load_state_dict(strict=True), and
prints the test accuracy, normalized as dpsgd-train does:
(p/255 - mean_c) / std_c with the per-channel mean and std the metadata
carries (recomputed from the training set for a file without them). The
first --limit test images (all by default).

usage: torch-eval-model.py MODEL.safetensors [--model lenet|cnn]
                           [--dataset fashion-mnist|mnist|cifar10]
                           [--data DIR] [--limit N]
(--model and --dataset default to the file's metadata; a flag that
contradicts it is refused, exit 1 as in dpsgd-train --eval-model)
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


DEFAULT_DIRS = {"fashion-mnist": "/usr/share/datasets/fashion-mnist",
                "mnist": "/usr/share/datasets/mnist",
                "cifar10": "/usr/share/datasets/cifar10"}


def die(msg, code=1):
    print("torch-eval-model: " + msg, file=sys.stderr)
    sys.exit(code)


def load_safetensors(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
        (n,) = struct.unpack("<Q", raw[:8])
        header = json.loads(raw[8:8 + n])
    except (OSError, struct.error, ValueError) as e:
        die("%s: not a safetensors model file: %s" % (path, e))
    data = raw[8 + n:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        assert t["dtype"] == "F32", name
        b, e = t["data_offsets"]
        out[name] = torch.from_numpy(
            np.frombuffer(data[b:e], dtype="<f4").reshape(t["shape"]).copy())
    return out, header.get("__metadata__", {})


def build(arch, shape):
    """bench_torch's module for input shape [C, H, W]: the first conv and
    the first fc adapted to C and to the flattened size."""
    import torch.nn as nn
    net = make(arch)
    c = shape[0]
    conv = net[0]
    net[0] = nn.Conv2d(c, conv.out_channels, conv.kernel_size,
                       padding=conv.padding)
    fc = [i for i, m in enumerate(net) if isinstance(m, nn.Linear)][0]
    with torch.no_grad():
        flat = net[:fc](torch.zeros(1, *shape)).shape[1]
    net[fc] = nn.Linear(flat, net[fc].out_features)
    return net


def cifar(path_dir, files):
    xs, ys = [], []
    for f in files:
        p = os.path.join(path_dir, f)
        if not os.path.exists(p):
            p = os.path.join(path_dir, "cifar-10-batches-bin", f)
        raw = np.fromfile(p, dtype=np.uint8).reshape(-1, 3073)
        ys.append(raw[:, 0])
        xs.append(raw[:, 1:].reshape(-1, 3, 32, 32))
    return np.concatenate(xs), np.concatenate(ys)


def load_data(dataset, d):
    """(train images, test images, test labels) as uint8 N x C x H x W."""
    try:
        if dataset == "cifar10":
            tr, _ = cifar(d, ["data_batch_%d.bin" % i for i in range(1, 6)])
            te, y = cifar(d, ["test_batch.bin"])
            return tr, te, y

        def idx_any(name):
            p = os.path.join(d, name)
            return idx(p + ".gz") if os.path.exists(p + ".gz") else idx(p, False)
        tr = idx_any("train-images-idx3-ubyte")[:, None]
        te = idx_any("t10k-images-idx3-ubyte")[:, None]
        return tr, te, idx_any("t10k-labels-idx1-ubyte")
    except (OSError, ValueError) as e:
        die("%s: cannot read the %s data: %s" % (d, dataset, e))


def idx(path, gz=True):
    with (gzip.open(path, "rb") if gz else open(path, "rb")) as f:
        raw = f.read()
    dims = raw[3]
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    return np.frombuffer(raw, dtype=np.uint8,
                         offset=4 + 4 * dims).reshape(shape)


def main():
    ap = argparse.ArgumentParser(
        description="Test accuracy of a dpsgd-train model file in PyTorch.")
    ap.add_argument("model")
    ap.add_argument("--model", dest="arch", choices=["lenet", "cnn"])
    ap.add_argument("--dataset", choices=sorted(DEFAULT_DIRS))
    ap.add_argument("--data")
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(1)
    state, meta = load_safetensors(a.model)
    for flag, key, given in (("--model", "model", a.arch),
                             ("--dataset", "dataset", a.dataset)):
        if given and meta.get(key) and meta[key] != given:
            die("%s %s: %s holds a %s %s (its __metadata__)" % (
                flag, given, a.model, meta[key], key))
    arch = a.arch or meta.get("model", "lenet")
    dataset = a.dataset or meta.get("dataset", "fashion-mnist")
    if dataset not in DEFAULT_DIRS:
        die("%s: trained on '%s', which this script cannot read (give "
            "--dataset)" % (a.model, dataset))
    shape = json.loads(meta["input_shape"]) if "input_shape" in meta else \
        ([3, 32, 32] if dataset == "cifar10" else [1, 28, 28])
    net = build(arch, shape)
    try:
        net.load_state_dict(state, strict=True)
    except RuntimeError as e:
        die("%s: does not fit a %s on %s inputs: %s" % (
            a.model, arch, shape, str(e).splitlines()[0]))
    net.eval()
    train, x, y = load_data(dataset, a.data or DEFAULT_DIRS[dataset])
    if "mean" in meta and "std" in meta:
        mean = np.array(json.loads(meta["mean"]))
        std = np.array(json.loads(meta["std"]))
    else:  # an older file: the training set's per-channel figures
        p = train.astype(np.float64) / 255.0
        mean, std = p.mean(axis=(0, 2, 3)), p.std(axis=(0, 2, 3))
    if a.limit:
        x, y = x[:a.limit], y[:a.limit]
    xn = (x.astype(np.float64) / 255.0 - mean[None, :, None, None]) / \
        std[None, :, None, None]
    xt = torch.from_numpy(xn.astype(np.float32))
    yt = torch.from_numpy(y.astype(np.int64))
    with torch.no_grad():
        z = net(xt)
        loss = torch.nn.functional.cross_entropy(z, yt).item()
        acc = (z.argmax(1) == yt).double().mean().item()
    print("torch_eval %.4f %.4f %d" % (acc, loss, len(y)))


if __name__ == "__main__":
    main()

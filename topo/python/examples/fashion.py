#!/usr/bin/python3
"""fashion.py: Fashion-MNIST on W workers (gloo processes on this machine)
with torch's local SGD, and the same with gossip: the two runs differ in
one line, the averager given to torch's PostLocalSGDOptimizer.

    --averager periodic   averagers.PeriodicModelAverager(period=H)
    --averager gossip     topogen.torch.GossipAverager(TOPOLOGY, period=H)

and, on label-skewed shards (--skew: worker i holds the classes c with
c mod W = i), the algorithms that correct for skew:

    --algorithm d2        topogen.torch.D2(SGD, Gossip(TOPOLOGY))
    --algorithm gt        topogen.torch.GradientTracking(SGD, Gossip(...))
    --algorithm dpsgd     gossip then SGD's step (D-PSGD), for comparison

Model: an MLP 784-128-10 (small, so a run takes a minute on a CPU);
batch 32, SGD lr 0.05 momentum 0.9 (0.5 with d2/gt), --epochs passes over
each worker's shard; every worker starts from the same x_0. Prints the
test accuracy of the average model (mean of the workers' parameters) and
the workers' mean disagreement |x_i - mean|. The topology file defaults
to a ring of W written here (weights 1/3); give a topogen file with
--topology (e.g. `topogen -n 16 -d 4 -o t.txt`; its n must be W).
No libtopogen needed.

usage: fashion.py [--workers 8] [--epochs 1] [--period 4]
                  [--averager periodic|gossip] [--algorithm dpsgd|d2|gt]
                  [--skew] [--topology FILE] [--seed 1] [--data DIR]
"""
import argparse
import gzip
import os
import socket
import struct
import tempfile

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.distributed.algorithms.model_averaging import averagers
from torch.distributed.optim import PostLocalSGDOptimizer

import topogen.torch

DATA = "/usr/share/datasets/fashion-mnist"


def idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(
        shape)


def load(data, split):
    x = idx(os.path.join(data, "%s-images-idx3-ubyte.gz" % split))
    y = idx(os.path.join(data, "%s-labels-idx1-ubyte.gz" % split))
    x = torch.from_numpy((x.reshape(len(x), -1) / 255.0 - 0.286) / 0.353)
    return x.float(), torch.from_numpy(y.astype(np.int64))


def shard(y, rank, workers, skew, seed):
    """This worker's image indices: iid (a block of one shuffle) or
    skewed (the classes c with c mod workers == rank)."""
    perm = np.random.default_rng(seed).permutation(len(y))
    if skew:
        yy = y.numpy()[perm]
        return torch.from_numpy(perm[yy % workers == rank])
    return torch.from_numpy(np.array_split(perm, workers)[rank])


def train(rank, a, topo, port, out):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=a.workers)
    x, y = load(a.data, "train")
    mine = shard(y, rank, a.workers, a.skew, a.seed)
    torch.manual_seed(a.seed)  # the same x_0 on every worker
    model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    lr, mom = 0.05, (0.5 if a.algorithm in ("d2", "gt") else 0.9)
    sgd = torch.optim.SGD(model.parameters(), lr=lr, momentum=mom)
    gossip = None
    if a.algorithm:
        gossip = topogen.torch.Gossip(topo)
        opt = {"d2": lambda: topogen.torch.D2(sgd, gossip),
               "gt": lambda: topogen.torch.GradientTracking(sgd, gossip),
               "dpsgd": lambda: sgd}[a.algorithm]()
    else:
        if a.averager == "periodic":
            avg = averagers.PeriodicModelAverager(period=a.period)
        else:
            avg = topogen.torch.GossipAverager(topo, period=a.period)
        opt = PostLocalSGDOptimizer(optim=sgd, averager=avg)
    gen = torch.Generator().manual_seed(1000 * a.seed + rank)
    per_worker = min(len(shard(y, r, a.workers, a.skew, a.seed))
                     for r in range(a.workers))
    steps = a.epochs * (per_worker // 32)  # the same on every worker
    loss_fn = nn.CrossEntropyLoss()
    for t in range(steps):
        b = mine[torch.randint(0, len(mine), (32,), generator=gen)]
        opt.zero_grad()
        loss_fn(model(x[b]), y[b]).backward()
        if a.algorithm == "dpsgd":
            gossip.mix_(model.parameters())
        opt.step()
    # the average model, and the disagreement
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    mean = flat.clone()
    dist.all_reduce(mean)
    mean /= a.workers
    dis = torch.tensor([(flat - mean).norm().item()])
    dist.all_reduce(dis)
    if rank == 0:
        off = 0
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(mean[off:off + p.numel()].view_as(p))
                off += p.numel()
        xt, yt = load(a.data, "t10k")
        with torch.no_grad():
            acc = (model(xt).argmax(1) == yt).float().mean().item()
        with open(out, "w") as f:
            f.write("%.4f %.3g %d\n" % (acc, dis.item() / a.workers, steps))
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--period", type=int, default=4)
    ap.add_argument("--averager", choices=["periodic", "gossip"],
                    default="gossip")
    ap.add_argument("--algorithm", choices=["dpsgd", "d2", "gt"])
    ap.add_argument("--skew", action="store_true")
    ap.add_argument("--topology")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", default=DATA)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        topo = a.topology
        if topo is None:
            topo = os.path.join(d, "ring.txt")
            with open(topo, "w") as f:
                f.write("# n=%d\n" % a.workers)
                for i in range(a.workers):
                    j = (i + 1) % a.workers
                    f.write("%d %d 0.33333333333333331\n" % (min(i, j),
                                                              max(i, j)))
        out = os.path.join(d, "acc.txt")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        mp.spawn(train, args=(a, topo, port, out), nprocs=a.workers,
                 join=True)
        acc, dis, steps = open(out).read().split()
    what = (a.algorithm or "local SGD, %s averager, period %d" % (
        a.averager, a.period))
    print("%s, %d workers, %s shards, %s steps: test accuracy %s of the "
          "average model, disagreement %s" % (
              what, a.workers, "skewed" if a.skew else "iid", steps, acc,
              dis))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""dpsgd.py: train your own nn.Module with D-PSGD on a learned topology.

One process per worker over torch.distributed; each trains on its own
data and gossips its parameters with its neighbours every step. Here 8
workers on one machine (gloo, spawned below) fit a small MLP to a
synthetic regression task; replace `Model` and `data` with yours. On a
cluster, drop spawn() and start one process per worker with torchrun
(`torchrun --nproc_per_node ... dpsgd.py`, rank and world size from the
environment; backend nccl on GPUs).

usage: dpsgd.py [--workers 8] [--steps 200] [--topology FILE]
"""
import argparse
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn

import topogen
import topogen.torch


class Model(nn.Module):  # yours here
    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.f(x)


def data(rank, n):  # this worker's shard (yours here)
    g = torch.Generator().manual_seed(100 + rank)
    x = torch.randn(n, 10, generator=g)
    return x, x.sum(1, keepdim=True).sin()


def train(rank, a, topo, port):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=a.workers)
    torch.manual_seed(0)                       # the same x_0 everywhere
    model = Model()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    gossip = topogen.torch.Gossip(topo)        # world size = topology's n
    x, y = data(rank, 512)
    with torch.no_grad():
        first = torch.tensor([nn.functional.mse_loss(model(x), y).item()])
    dist.all_reduce(first)
    for step in range(a.steps):
        b = torch.randint(0, len(x), (32,))
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x[b]), y[b])
        loss.backward()
        gossip.mix_(model.parameters())        # x_i <- sum_j W_ij x_j
        opt.step()                             #        - lr * step_i
    with torch.no_grad():                      # how far apart the models are
        flat = torch.cat([p.reshape(-1) for p in model.parameters()])
        mean = flat.clone()
        dist.all_reduce(mean)
        mean /= a.workers
        spread = torch.tensor([(flat - mean).pow(2).sum().item()])
        full = torch.tensor([nn.functional.mse_loss(model(x), y).item()])
        dist.all_reduce(spread)
        dist.all_reduce(full)
    if rank == 0:
        print("after %d steps: mean loss %.4f (start %.4f), consensus %.2e"
              % (a.steps, full.item() / a.workers, first.item() / a.workers,
                 spread.item() / a.workers))
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--topology", help="a topology file (default: learn "
                    "one with libtopogen, or without it draw a random "
                    "regular graph in pure Python)")
    a = ap.parse_args()
    d = 3 if a.workers > 4 else 2
    d += a.workers * d % 2                 # n d even
    topo = a.topology
    if topo is None and topogen.library_available():
        topo, what = topogen.learn(a.workers, d), "learned"
    elif topo is None:                     # a pip-only install
        topo = topogen.random_regular(a.workers, d, seed=1)
        what = "random regular (no libtopogen: pure Python)"
    if isinstance(topo, topogen.Topology):
        print("%s n=%d, SLEM %.4f" % (what, topo.n, topo.eval()["slem"]))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(train, args=(a, topo, port), nprocs=a.workers, join=True)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""bench_torch.py: PyTorch reference for scripts/benches/bench-train.sh.

Trains the same models as dpsgd-train (lenet: conv5x5x6 pad 2, pool,
conv5x5x16, pool, fc120, fc84, fc10; cnn: conv3x3x32 x2, pool, conv3x3x64
x2, pool, fc256, fc10; ReLU, 2x2 max pooling) with SGD (momentum 0.9,
weight decay 5e-4) on one thread with denormals flushed, on random 1x28x28
inputs held in memory, and prints one line per (model, batch):
"torch MODEL BATCH IMAGES_PER_S CPU_IMAGES_PER_S" (the second by process
CPU time: on a shared machine, the cost without the waits for a core).
The best of --repeat timed runs of --steps steps (after a warm-up) is kept.

usage: bench_torch.py [--models lenet,cnn] [--batches 32,128]
                      [--steps N] [--repeat R]
"""
import argparse
import time

import torch
from torch import nn


def make(model):
    if model == "lenet":
        return nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
            nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
            nn.Linear(84, 10))
    return nn.Sequential(
        nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 32, 3), nn.ReLU(),
        nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(),
        nn.Conv2d(64, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(1024, 256), nn.ReLU(), nn.Linear(256, 10))


def bench(model, batch, steps, repeat):
    torch.manual_seed(0)
    net = make(model)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9,
                          weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(batch * 8, 1, 28, 28)
    y = torch.randint(0, 10, (batch * 8,))

    def step(i):
        j = (i % 8) * batch
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x[j:j + batch]), y[j:j + batch])
        loss.backward()
        opt.step()

    for i in range(max(5, steps // 10)):
        step(i)
    best = best_cpu = 0.0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(steps):
            step(i)
        best = max(best, steps * batch / (time.perf_counter() - t0))
        best_cpu = max(best_cpu, steps * batch / (time.process_time() - c0))
    return best, best_cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="lenet,cnn")
    ap.add_argument("--batches", default="32,128")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    torch.set_num_threads(1)
    # denormals slow PyTorch's kernels several-fold on random-label training
    # (measured here); flushing them gives the reference its best case
    torch.set_flush_denormal(True)
    for m in a.models.split(","):
        for b in (int(s) for s in a.batches.split(",")):
            steps = a.steps if m == "lenet" else max(10, a.steps // 5)
            ips, cpu = bench(m, b, steps, a.repeat)
            print("torch %s %d %.1f %.1f" % (m, b, ips, cpu), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""bench-torch-overlap.py: how much of a gossip round topogen.torch hides
behind backward, on gloo processes of this machine (127.0.0.1).

usage: scripts/benches/bench-torch-overlap.py [--workers 4] [--reps 9]
                                              [--batch 32] [--bucket 262144]

Model: a CNN for 28x28 images (conv 1->32 5x5, conv 32->64 5x5, each with
2x2 max-pooling, conv 64->64 3x3 stride 2, linear 576->1700, linear
1700->10: 1.09 M float32 parameters, 10 tensors), a synthetic batch per
worker. Topology: the ring
of the workers (topogen.ring, built in pure Python). Per iteration, the
slowest worker's time, median (min) over --reps after one warm-up, the
variants interleaved so that load swings hit them alike:

  compute    forward + backward alone
  exchange   Gossip.mix_(model.parameters()) alone (blocking)
  bare       a bare batch_isend_irecv of the same bytes (one flat
             tensor to both neighbours, preallocated buffers)
  overlap    h = mix_(params, async_op=True); forward + backward;
             h.wait()  (the D-PSGD order: the gradient at x_t while x_t
             is sent)
  step       forward + backward + an SGD step (no gossip)
  hooks      BackwardGossip (--bucket elements per bucket): forward +
             backward, each bucket's SGD step and round started from its
             gradient hooks, then step() waits (adapt then combine)
  hooks_noexch  the same with W = I (hooks and per-bucket steps, no
             exchange): what the hooks cost by themselves

wait_overlap and wait_hooks: the time spent in h.wait() / step() (the
exchange left exposed after backward) by the worker whose backward ended
last (an earlier one also waits for the late one's data: load skew
between the processes, not exchange). Prints the times and
hidden = (compute + exchange - overlap) / exchange,
the fraction of the exchange hidden behind the computation (1: all of
it; for hooks: (step + exchange - hooks) / exchange), which counts the
slowdown of backward by the exchange's copies on shared cores, and
1 - wait / exchange, which does not (the part of the exchange done by
the time backward ends); and exchange/bare. Same-run figures only: the machine may be loaded
(gloo's threads and the workers share its cores).
"""
import argparse
import os
import socket
import statistics
import tempfile
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def cnn():
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(32, 64, 5, padding=2),
                         nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(64, 64, 3,
                                                               stride=2),
                         nn.Flatten(), nn.Linear(64 * 3 * 3, 1700),
                         nn.ReLU(), nn.Linear(1700, 10))


def worker(rank, n, port, reps, batch, bucket, out):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=n)
    import topogen
    import topogen.torch as tt
    torch.manual_seed(0)
    model = cnn()
    params = list(model.parameters())
    nparams = sum(p.numel() for p in params)
    g = tt.Gossip(topogen.ring(n))
    x = torch.randn(batch, 1, 28, 28)
    y = torch.randint(0, 10, (batch,))
    nb = [(rank - 1) % n, (rank + 1) % n]
    flat = torch.randn(nparams)
    bufs = [torch.empty(nparams) for _ in nb]

    def compute():
        model.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()

    def exchange():
        g.mix_(params)

    def bare():
        ops = [dist.P2POp(dist.irecv, b, j) for j, b in zip(nb, bufs)]
        ops += [dist.P2POp(dist.isend, flat, j) for j in nb]
        for r in dist.batch_isend_irecv(ops):
            r.wait()

    exposed = {"overlap": (0.0, 0.0), "hooks": (0.0, 0.0)}

    def overlap():
        h = g.mix_(params, async_op=True)
        compute()
        t0 = time.perf_counter()
        h.wait()
        exposed["overlap"] = (time.time(), time.perf_counter() - t0)

    sgd = torch.optim.SGD(params, lr=1e-5)

    def step():
        compute()
        sgd.step()

    model2 = cnn()  # its own copy: the hooks fire on every backward
    model2.load_state_dict(model.state_dict())
    bg = tt.BackwardGossip(model2, lambda ps: torch.optim.SGD(ps, lr=1e-5),
                           tt.Gossip(topogen.ring(n)), bucket_size=bucket)

    class Identity:  # W = I: BackwardGossip's hooks and steps, no exchange
        pass
    Identity.n, Identity.Ws = n, np.eye(n)[None]
    model3 = cnn()
    model3.load_state_dict(model.state_dict())
    bgi = tt.BackwardGossip(model3, lambda ps: torch.optim.SGD(ps, lr=1e-5),
                            tt.Gossip(Identity, check=False),
                            bucket_size=bucket)

    def hooks_noexch():
        bgi.zero_grad()
        torch.nn.functional.cross_entropy(model3(x), y).backward()
        bgi.step()

    def hooks():
        bg.zero_grad()
        torch.nn.functional.cross_entropy(model2(x), y).backward()
        t0 = time.perf_counter()
        bg.step()
        exposed["hooks"] = (time.time(), time.perf_counter() - t0)

    variants = {"compute": compute, "exchange": exchange, "bare": bare,
                "overlap": overlap, "step": step, "hooks": hooks,
                "hooks_noexch": hooks_noexch}
    ts = {k: [] for k in variants}
    ts.update({"wait_" + k: [] for k in exposed})
    for k in range(reps + 1):
        for name, fn in variants.items():
            dist.barrier()
            t0 = time.perf_counter()
            fn()
            t = torch.tensor([time.perf_counter() - t0])
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            # the wait of the worker whose backward ended last (the
            # others' waits include waiting for it: skew, not exchange)
            e = torch.tensor(exposed.get(name, (0.0, 0.0)),
                             dtype=torch.float64)
            es = [torch.empty_like(e) for _ in range(n)]
            dist.all_gather(es, e)
            if k:
                ts[name].append(float(t))
                if name in exposed:
                    last = max(es, key=lambda v: float(v[0]) - float(v[1]))
                    ts["wait_" + name].append(float(last[1]))
    if rank == 0:
        torch.save((nparams, {k: (statistics.median(v), min(v))
                              for k, v in ts.items()}), out)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--bucket", type=int, default=2 ** 18)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.pt")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        mp.spawn(worker, args=(a.workers, port, a.reps, a.batch, a.bucket, out),
                 nprocs=a.workers, join=True)
        nparams, r = torch.load(out)
    print("# %d gloo processes, ring, CNN of %d float32 parameters, batch "
          "%d; the slowest worker's time per iteration, ms: median (min) "
          "of %d" % (a.workers, nparams, a.batch, a.reps))
    for k in ("compute", "exchange", "bare", "overlap", "step", "hooks",
              "hooks_noexch", "wait_overlap", "wait_hooks"):
        print("%-12s %8.2f (%.2f)" % (k, 1e3 * r[k][0], 1e3 * r[k][1]))
    for i, what in ((0, "median"), (1, "min")):
        c, e, o, b, st, hk = (r[k][i] for k in (
            "compute", "exchange", "overlap", "bare", "step", "hooks"))
        print("%-6s hidden: async mix_ before forward %.2f, BackwardGossip "
              "hooks %.2f; exchange/bare = %.2f" % (
                  what, (c + e - o) / e, (st + e - hk) / e, e / b))
        print("%-6s hidden by the wait: 1 - wait/exchange: async mix_ %.2f, "
              "hooks %.2f" % (what, 1 - r["wait_overlap"][i] / e,
                              1 - r["wait_hooks"][i] / e))


if __name__ == "__main__":
    main()

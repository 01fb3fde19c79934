#!/usr/bin/env python3
"""bench-torch-gossip.py: one round of topogen.torch.Gossip.mix_ against a
bare batch_isend_irecv of the same bytes and against dist.all_reduce, on 4
gloo processes on this machine (127.0.0.1), float32.

usage: scripts/benches/bench-torch-gossip.py [--sizes 30000,1000000,11000000]
                                     [--reps 7] [--workers 4]

Topology: the ring of 4 (each worker sends its whole vector to 2
neighbours and receives 2), weights 1/3, written here (no libtopogen
needed).
The variants are interleaved round by round (so load swings hit them
alike); per variant the median and the minimum over --reps rounds (after
one warm-up) of the slowest worker's time. Variants, all on the same
preallocated tensors:

  mix_ (one tensor)     Gossip.mix_([x]): sent as is, the sum formed in x
  mix_ (params)         Gossip.mix_ of 62 separately allocated tensors
                        of the same total size: packed into the plan's
                        buffer (one torch.cat), copied out after
  params_flat           the same 62 tensors after
                        topogen.torch.flatten_parameters_ (views of one
                        buffer): sent as is, no pack, no copy
  mix_ async+wait       mix_(..., async_op=True).wait() on one tensor
  mix_noint, params_noint  the same two with Gossip(interruptible=False):
                        the caller's thread waits gloo's works itself (no
                        wait thread; Ctrl-C is then seen only when they end)
  bare exchange         batch_isend_irecv of x to both neighbours into two
                        preallocated buffers, nothing else
  all_reduce            dist.all_reduce(x) (the exact average's traffic)

Prints one line per size with the times, then the ratios to bare (of
the medians, of the minima, and the median over rounds of each round's
ratio: variants of one round run within a few ms of each other, so
that one is the least sensitive to load swings); the
goal (issue 43) is mix_ within 1.2x of the bare exchange from 30 k to
11 M floats.
Same-run ratios only: the machine may be loaded.
"""
import argparse
import os
import socket
import statistics
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, n, port, sizes, reps, ring, out):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=n)
    import topogen.torch as tt
    g = tt.Gossip(ring)
    gi = tt.Gossip(ring, interruptible=False)
    nb = [(rank - 1) % n, (rank + 1) % n]
    rows = []
    for size in sizes:
        x = torch.randn(size)
        # 62 separately allocated tensors (a model's parameters) and the
        # same after flatten_parameters_ (views of one buffer)
        parts = [torch.randn(k) for k in
                 map(len, torch.empty(size).split(max(1, size // 62)))]
        flatp = [torch.nn.Parameter(torch.randn(len(q))) for q in parts]
        tt.flatten_parameters_(flatp)
        bufs = [torch.empty(size) for _ in nb]

        def bare():
            ops = [dist.P2POp(dist.irecv, b, j) for j, b in zip(nb, bufs)]
            ops += [dist.P2POp(dist.isend, x, j) for j in nb]
            for r in dist.batch_isend_irecv(ops):
                r.wait()

        variants = {
            "mix_": lambda: g.mix_([x]),
            "mix_params": lambda: g.mix_(parts),
            "params_flat": lambda: g.mix_(flatp),
            "mix_async": lambda: g.mix_([x], async_op=True).wait(),
            "mix_noint": lambda: gi.mix_([x]),
            "params_noint": lambda: gi.mix_(parts),
            "bare": bare,
            "all_reduce": lambda: dist.all_reduce(x),
        }
        ts = {name: [] for name in variants}
        for k in range(reps + 1):  # interleaved: load swings hit all alike
            for name, fn in variants.items():
                dist.barrier()
                t0 = time.perf_counter()
                fn()
                t = torch.tensor([time.perf_counter() - t0])
                dist.all_reduce(t, op=dist.ReduceOp.MAX)
                if k:
                    ts[name].append(float(t))
        res = {name: (statistics.median(v), min(v)) for name, v in
               ts.items()}
        # paired: each round's variant over the same round's bare
        res["paired"] = {name: statistics.median(
            a / b for a, b in zip(v, ts["bare"])) for name, v in
            ts.items()}
        rows.append((size, res))
    if rank == 0:
        torch.save(rows, out)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="30000,1000000,11000000")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--workers", type=int, default=4)
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    n = a.workers
    with tempfile.TemporaryDirectory() as d:
        ring = os.path.join(d, "ring.txt")
        with open(ring, "w") as f:
            f.write("# n=%d\n" % n)
            for i in range(n):
                j = (i + 1) % n
                f.write("%d %d 0.33333333333333331\n" % (min(i, j),
                                                          max(i, j)))
        out = os.path.join(d, "rows.pt")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        mp.spawn(worker, args=(n, port, sizes, a.reps, ring, out), nprocs=n,
                 join=True)
        rows = torch.load(out)
    print("# %d gloo processes, ring (2 neighbours), float32, %d rounds "
          "per variant, interleaved; the slowest worker's time per round; "
          "ms: median (min)" % (n, a.reps))
    names = ["mix_", "mix_params", "params_flat", "mix_async",
             "mix_noint", "params_noint", "bare", "all_reduce"]
    print("%-9s" % "floats" + "".join("%18s" % x for x in names))
    for size, r in rows:
        print("%-9d" % size + "".join(
            "%18s" % ("%.2f (%.2f)" % (1e3 * r[x][0], 1e3 * r[x][1]))
            for x in names))
    print("ratios to bare: median / median (min / min) [median of the "
          "rounds' paired ratios]:")
    ratios = names[:6]
    print("%-9s" % "floats" + "".join("%24s" % x for x in ratios))
    for size, r in rows:
        print("%-9d" % size + "".join(
            "%24s" % ("%.2f (%.2f) [%.2f]" % (
                r[x][0] / r["bare"][0], r[x][1] / r["bare"][1],
                r["paired"][x]))
            for x in ratios))

if __name__ == "__main__":
    main()

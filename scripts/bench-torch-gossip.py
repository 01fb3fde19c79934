#!/usr/bin/env python3
"""bench-torch-gossip.py: one round of topogen.torch.Gossip.mix_ against a
bare batch_isend_irecv of the same bytes and against dist.all_reduce, on 4
gloo processes on this machine (127.0.0.1), float32.

usage: scripts/bench-torch-gossip.py [--sizes 61706,1000000,11000000]
                                     [--reps 7] [--workers 4]

Topology: the ring of 4 (each worker sends its whole vector to 2
neighbours and receives 2), weights 1/3, written here (no libtopogen
needed). Per size and variant: the median over --reps rounds (after one
warm-up) of the slowest worker's time (a max over workers per round).
Variants, all on the same preallocated tensors:

  mix_ (one tensor)     Gossip.mix_([x]): sent as is, the sum formed in x
  mix_ (params)         Gossip.mix_(x split into 62 tensors): packed into
                        the preallocated buffer, unpacked after
  mix_ async+wait       mix_(..., async_op=True).wait() on one tensor
  bare exchange         batch_isend_irecv of x to both neighbours into two
                        preallocated buffers, nothing else
  all_reduce            dist.all_reduce(x) (the exact average's traffic)

Prints one line per size with the times and the ratios mix_/bare; the
goal (issue 33) is mix_ within 1.5x of the bare exchange at 11 M floats.
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
    nb = [(rank - 1) % n, (rank + 1) % n]
    rows = []
    for size in sizes:
        x = torch.randn(size)
        parts = list(torch.randn(size).split(max(1, size // 62)))
        bufs = [torch.empty(size) for _ in nb]

        def bare():
            ops = [dist.P2POp(dist.irecv, b, j) for j, b in zip(nb, bufs)]
            ops += [dist.P2POp(dist.isend, x, j) for j in nb]
            for r in dist.batch_isend_irecv(ops):
                r.wait()

        variants = {
            "mix_": lambda: g.mix_([x]),
            "mix_params": lambda: g.mix_(parts),
            "mix_async": lambda: g.mix_([x], async_op=True).wait(),
            "bare": bare,
            "all_reduce": lambda: dist.all_reduce(x),
        }
        res = {}
        for name, fn in variants.items():
            ts = []
            for k in range(reps + 1):
                dist.barrier()
                t0 = time.perf_counter()
                fn()
                t = torch.tensor([time.perf_counter() - t0])
                dist.all_reduce(t, op=dist.ReduceOp.MAX)
                if k:
                    ts.append(float(t))
            res[name] = statistics.median(ts)
        rows.append((size, res))
    if rank == 0:
        torch.save(rows, out)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="61706,1000000,11000000")
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
    print("# %d gloo processes, ring (2 neighbours), float32, median of %d "
          "rounds (slowest worker), ms" % (n, a.reps))
    print("%-10s %9s %11s %10s %9s %11s %8s %10s" % (
        "floats", "mix_", "mix_params", "mix_async", "bare", "all_reduce",
        "mix/bare", "params/bare"))
    for size, r in rows:
        print("%-10d %9.2f %11.2f %10.2f %9.2f %11.2f %8.2f %10.2f" % (
            size, 1e3 * r["mix_"], 1e3 * r["mix_params"],
            1e3 * r["mix_async"], 1e3 * r["bare"], 1e3 * r["all_reduce"],
            r["mix_"] / r["bare"], r["mix_params"] / r["bare"]))


if __name__ == "__main__":
    main()

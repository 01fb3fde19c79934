"""check_gossip.py: one round of topogen.torch.Gossip equals W X.

4 gloo processes on 127.0.0.1, one worker each. Worker i holds row i of
a float64 matrix X (drawn from one seed, the same on every process),
split into tensors of several shapes plus a float32 one (packed in a
bucket of its own). After mix_, worker i's rows must equal (W X)_i to
1e-12 (float32: 1e-6), for: a learned static topology (one mix_), a
time-varying one (one-peer-exp, n = 4: two rounds, then W_1 W_0 X, and a
third mix_ wraps to round 0), and directed W: topogen's exp-directed
file (n = 4) and a directed ring with self weight 1/2 given as an array
(W X differs from W^T X, so sends and receives are told apart). Then
the reuse of plans (plans()): parameters after flatten_parameters_ sent
as is and mixed in place, separate ones packed, the same buffers across
calls, a new plan when p.data is replaced, an async round's tensors
untouched until wait(), interruptible=False. Then, in the same 4
processes, check_overlap.py's checks (BackwardGossip, the DDP recipe).
Exits 1 when a worker's check fails.

usage: check_gossip.py BIN TMPDIR [PORT] (default: a free port)
"""
import os
import subprocess
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import topogen
import topogen.torch

import check_overlap

N = 4
K = 7  # columns of X


class Directed:
    """A directed ring as a duck-typed topology (.n and .Ws)."""
    n = N
    Ws = np.array([0.5 * np.eye(N) + 0.5 * np.roll(np.eye(N), -1, axis=1)])


def worker(rank, files, port, out):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=N)
    errs = []
    X = np.random.default_rng(5).standard_normal((N, K))
    for name, topo, mixes in files:
        t = topo if not isinstance(topo, str) else topogen.load(topo)
        g = topogen.torch.Gossip(topo)
        x = torch.from_numpy(X[rank].copy())
        parts = [x[:3].clone(), x[3:].clone().reshape(2, 2)]
        f32 = torch.from_numpy(X[rank].astype(np.float32))
        for _ in range(mixes):
            g.mix_(parts + [f32])
        want = X.copy()
        for r in range(mixes):
            want = t.Ws[r % len(t.Ws)] @ want
        got = torch.cat([p.reshape(-1) for p in parts]).numpy()
        e64 = np.abs(got - want[rank]).max()
        e32 = np.abs(f32.numpy() - want[rank]).max()
        if not (e64 <= 1e-12 and e32 <= 1e-6):
            errs.append("%s: worker %d: |x - (W X)_i| = %.3g (float32 %.3g)"
                        % (name, rank, e64, e32))
        if rank == 0:
            print("%s: %d mix_, worker 0 max error %.2g (float64), %.2g "
                  "(float32)" % (name, mixes, e64, e32), flush=True)
    errs += plans(rank, files[0][1], X)
    dist.barrier()
    check_overlap.work(rank, os.path.join(out, "overlap"))
    dist.barrier()
    dist.destroy_process_group()
    with open(os.path.join(out, "w%d" % rank), "w") as f:
        f.write("\n".join(errs))


def plans(rank, path, X):
    """mix_'s reuse: flatten_parameters_ (the parameters sent as is and
    mixed in place), interruptible=False, one plan and the same buffers
    across calls, a new plan when p.data is replaced, async tensors
    untouched until wait()."""
    errs = []
    W = topogen.load(path).W

    def check(what, cond):
        if not cond:
            errs.append("plans: worker %d: %s" % (rank, what))
        elif rank == 0:
            print("plans: %s: ok" % what, flush=True)

    def params():
        x = torch.from_numpy(X[rank].copy())
        return [torch.nn.Parameter(x[:2].clone()),
                torch.nn.Parameter(x[2:6].clone().reshape(2, 2)),
                torch.nn.Parameter(x[6:].clone())]

    def err(ps, want):
        got = torch.cat([p.detach().reshape(-1) for p in ps]).numpy()
        return float(np.abs(got - want[rank]).max())

    g = topogen.torch.Gossip(path)
    ps = params()
    (flat,) = topogen.torch.flatten_parameters_(ps)
    for _ in range(3):
        g.mix_(ps)
    b = g._cache[next(iter(g._cache))].buckets[0]
    check("flatten_parameters_: 3 rounds == W^3 X (%.2g), sent as is" %
          err(ps, W @ W @ W @ X), err(ps, W @ W @ W @ X) < 1e-12 and
          b.inplace and b.flat.data_ptr() == flat.data_ptr() and
          ps[1].data_ptr() == flat.data_ptr() + 2 * 8)
    ps = params()  # separate tensors: packed
    g.mix_(ps)
    plan = g._cache[next(reversed(g._cache))]
    bufs = [plan.buckets[0].flat.data_ptr()] + [
        q.data_ptr() for q in plan.buckets[0].inbox]
    g.mix_(ps)
    check("packed: 2 rounds == W^2 X (%.2g), one plan, the same buffers" %
          err(ps, W @ W @ X), err(ps, W @ W @ X) < 1e-12 and
          len(g._cache) == 2 and not plan.buckets[0].inplace and
          bufs == [plan.buckets[0].flat.data_ptr()] + [
              q.data_ptr() for q in plan.buckets[0].inbox])
    fresh = params()
    for p, q in zip(ps, fresh):
        p.data = q.data.clone()  # the same objects, new memory
    g.mix_(ps)
    check("p.data replaced: a new plan, == W X (%.2g)" % err(ps, W @ X),
          err(ps, W @ X) < 1e-12 and len(g._cache) == 3)
    ps = params()
    before = [p.detach().clone() for p in ps]
    h = g.mix_(ps, async_op=True)
    same = all(torch.equal(p, q) for p, q in zip(ps, before))
    h.wait()
    check("async: untouched until wait(), then == W X (%.2g)" %
          err(ps, W @ X), same and err(ps, W @ X) < 1e-12)
    gi = topogen.torch.Gossip(path, interruptible=False)
    ps = params()
    gi.mix_(ps)
    gi.mix_(ps, async_op=True).wait()
    check("interruptible=False: 2 rounds == W^2 X (%.2g)" %
          err(ps, W @ W @ X), err(ps, W @ W @ X) < 1e-12)
    return errs


def free_port():
    import socket
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def main():
    torch.set_num_threads(1)  # no thread pool in the parent: it forks
    bin_, tmp = sys.argv[1], sys.argv[2]
    port = int(sys.argv[3]) if len(sys.argv) > 3 else free_port()
    top = lambda *a: subprocess.run(
        [os.path.join(bin_, "topogen"), "-q"] + list(a), check=True)
    top("-n", str(N), "-d", "2", "--kind", "random", "--seed", "3", "-o",
        os.path.join(tmp, "s.txt"))
    top("-n", str(N), "--kind", "one-peer-exp", "-o",
        os.path.join(tmp, "q.txt"))
    s, q = os.path.join(tmp, "s.txt"), os.path.join(tmp, "q.txt")
    assert topogen.load(q).rounds == 2
    top("-n", str(N), "--kind", "exp-directed", "-o",
        os.path.join(tmp, "d.txt"))
    dfile = os.path.join(tmp, "d.txt")
    w = topogen.load(dfile).W
    assert not np.allclose(w, w.T)
    files = [("static " + os.path.basename(s), s, 1),
             ("time-varying one-peer-exp", q, 2),
             ("time-varying, wrapped", q, 3),
             ("directed file (exp-directed)", dfile, 1),
             ("directed ring (duck-typed W)", Directed(), 1)]
    os.makedirs(os.path.join(tmp, "overlap"), exist_ok=True)
    # forked, not spawned: the workers inherit torch, imported once (a
    # spawned worker imports it again: 2 CPU-s each)
    mp.start_processes(worker, args=(files, port, tmp), nprocs=N, join=True,
                       start_method="fork")
    errs = [l for r in range(N) for l in
            open(os.path.join(tmp, "w%d" % r)).read().splitlines() if l]
    errs += ["check_overlap: " + f for f in
             check_overlap.verdict(os.path.join(tmp, "overlap"))]
    for e in errs:
        print("FAIL:", e)
    if errs:
        sys.exit(1)
    print("check_gossip: all passed")


if __name__ == "__main__":
    main()

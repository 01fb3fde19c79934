"""check_overlap.py TMPDIR: gossip overlapped with backward, and the DDP
recipe of topo/python/README.md, on 4 gloo processes (one thread each),
float64, topologies built in pure Python (topogen.ring).

  - BackwardGossip(model, SGD(momentum 0.5), ring, 4 buckets) with a
    StepLR: every bucket has stepped and started its round from the
    gradient hooks when backward returns (before step()); after 6 steps
    the parameters equal a reference that steps one SGD over the whole
    model and then mixes all parameters (x <- W (x - lr v)) to 1e-12;
    its param_groups are the buckets' (the scheduler set their lr);
    state_dict holds the round; a second backward before step() is
    refused with a one-line RuntimeError; after remove_hooks() a
    backward starts nothing;
  - the DDP recipe: DistributedDataParallel with post_localSGD_hook
    (start_localSGD_iter = 3, post_local_gradient_allreduce=False: no
    intra-node subgroup, which torch makes only with CUDA) and PostLocalSGDOptimizer with a
    GossipAverager(ring, warmup_steps = 3): during the warm-up the
    workers stay equal (gradients all-reduced), afterwards they differ
    and the run equals one without DDP (gradients averaged by hand for
    3 steps, then local, the same averager) to 1e-12.

usage: check_overlap.py TMPDIR (check_gossip.py runs the same checks in
its 4 processes, through work() and verdict(): make check-python starts
4 torch processes once for both)
"""
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

N = 4


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(),
                               torch.nn.Linear(16, 8), torch.nn.Tanh(),
                               torch.nn.Linear(8, 1)).double()


def data(rank, steps=6, b=8):
    g = torch.Generator().manual_seed(50 + rank)
    xs = torch.randn(steps, b, 6, generator=g, dtype=torch.float64)
    ys = xs.sum(-1, keepdim=True) * (1 + 0.2 * rank)
    return xs, ys


def flat(m):
    return torch.cat([p.detach().reshape(-1) for p in m.parameters()])


def worker(rank, port, out):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=N)
    work(rank, out)
    dist.barrier()
    dist.destroy_process_group()


def work(rank, out):
    """The checks of one worker in an initialized group of N processes;
    the results go to out/rN.pt."""
    import topogen
    import topogen.torch as tt
    res = {}
    ring = topogen.ring(N)
    xs, ys = data(rank)
    loss_fn = torch.nn.functional.mse_loss
    make = lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.5)

    # BackwardGossip against one SGD step, then one mix_ of everything
    m = model()
    opt = tt.BackwardGossip(m, make, tt.Gossip(ring), bucket_size=10)
    sch = torch.optim.lr_scheduler.StepLR(opt, 2, 0.5)
    hooked = True
    for t in range(6):
        opt.zero_grad()
        loss_fn(m(xs[t]), ys[t]).backward()
        hooked &= all(h is not None for h in opt._handles)
        opt.step()
        sch.step()
    res["buckets"] = len(opt.buckets)
    res["hooked"] = hooked
    res["lrs"] = sorted({g["lr"] for g in opt.param_groups})
    res["round"] = opt.state_dict()["topogen"]["gossip"]["round"]
    r = model()
    ropt = torch.optim.SGD(r.parameters(), lr=0.05, momentum=0.5)
    rsch = torch.optim.lr_scheduler.StepLR(ropt, 2, 0.5)
    g = tt.Gossip(ring)
    for t in range(6):
        ropt.zero_grad()
        loss_fn(r(xs[t]), ys[t]).backward()
        ropt.step()
        g.mix_(list(r.parameters()))
        rsch.step()
    res["bg"] = float((flat(m) - flat(r)).abs().max())
    opt.zero_grad()
    loss_fn(m(xs[0]), ys[0]).backward()
    try:
        loss_fn(m(xs[1]), ys[1]).backward()
        res["twice"] = "NOT REFUSED"
    except RuntimeError as e:
        res["twice"] = str(e).splitlines()[0]
    opt.step()
    opt.remove_hooks()
    loss_fn(m(xs[0]), ys[0]).backward()
    res["removed"] = opt._ready == [0] * 4 and not any(opt._launched)

    # the DDP recipe against the same run without DDP
    from torch.distributed.algorithms.ddp_comm_hooks import \
        post_localSGD_hook as pl
    from torch.distributed.optim import PostLocalSGDOptimizer
    W = 3
    m = model()
    ddp = torch.nn.parallel.DistributedDataParallel(m)
    state = pl.PostLocalSGDState(process_group=None, subgroup=None,
                                 start_localSGD_iter=W,
                                 post_local_gradient_allreduce=False)
    ddp.register_comm_hook(state, pl.post_localSGD_hook)
    opt = PostLocalSGDOptimizer(
        optim=torch.optim.SGD(ddp.parameters(), lr=0.05),
        averager=tt.GossipAverager(ring, period=1, warmup_steps=W))
    spread = []
    for t in range(6):
        opt.zero_grad()
        loss_fn(ddp(xs[t]), ys[t]).backward()
        opt.step()
        v = flat(m)
        all_v = [torch.empty_like(v) for _ in range(N)]
        dist.all_gather(all_v, v)
        spread.append(float(max((a - v).abs().max() for a in all_v)))
    r = model()
    opt2 = PostLocalSGDOptimizer(
        optim=torch.optim.SGD(r.parameters(), lr=0.05),
        averager=tt.GossipAverager(ring, period=1, warmup_steps=W))
    for t in range(6):
        opt2.zero_grad()
        loss_fn(r(xs[t]), ys[t]).backward()
        if t < W:
            for p in r.parameters():
                dist.all_reduce(p.grad)
                p.grad /= N
        opt2.step()
    res["ddp_spread"] = spread
    res["ddp"] = float((flat(m) - flat(r)).abs().max())
    torch.save(res, os.path.join(out, "r%d.pt" % rank))


def verdict(tmp):
    """Prints the checks of the workers' results in tmp; returns the
    failed ones."""
    failed = []

    def check(cond, what):
        print("%s: %s" % ("ok" if cond else "FAIL", what))
        if not cond:
            failed.append(what)

    rs = [torch.load(os.path.join(tmp, "r%d.pt" % k)) for k in range(N)]
    r0 = rs[0]
    check(r0["buckets"] == 4 and all(r["hooked"] for r in rs),
          "BackwardGossip: %d buckets, every one started from the gradient "
          "hooks during backward" % r0["buckets"])
    e = max(r["bg"] for r in rs)
    check(e < 1e-12, "BackwardGossip == SGD step then mix_ of all "
          "parameters, 6 steps (%.2g)" % e)
    check(r0["lrs"] == [0.00625] and r0["round"] == 6,
          "BackwardGossip: StepLR set every bucket's lr (%s), round %d"
          % (r0["lrs"], r0["round"]))
    check("second backward" in r0["twice"], "BackwardGossip: a second "
          "backward before step() refused: " + r0["twice"])
    check(all(r["removed"] for r in rs), "BackwardGossip.remove_hooks: a "
          "backward then starts nothing")
    sp = r0["ddp_spread"]
    check(max(sp[:3]) == 0.0 and min(sp[3:]) > 1e-6,
          "DDP + post_localSGD_hook + GossipAverager: equal workers in the "
          "warm-up, apart after (%s)" % ", ".join("%.2g" % x for x in sp))
    e = max(r["ddp"] for r in rs)
    check(e < 1e-12, "DDP recipe == the run without DDP (%.2g)" % e)
    return failed


def main():
    tmp = sys.argv[1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(port, tmp), nprocs=N, join=True)
    failed = verdict(tmp)
    if failed:
        print("check_overlap: %d FAILED" % len(failed))
        sys.exit(1)
    print("check_overlap: all passed")


if __name__ == "__main__":
    main()

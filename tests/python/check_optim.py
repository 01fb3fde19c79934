"""check_optim.py TMPDIR: 8 gloo processes (one thread each) switch as a
torch user would, with topologies built in pure Python (topogen.ring,
topogen.complete: no file, no libtopogen):

  - PeriodicModelAverager -> GossipAverager in PostLocalSGDOptimizer
    (the averager line only): with the complete graph's W it is torch's
    averager (to 1e-6); with the ring it trains (the loss goes down);
  - SGD -> D2(SGD) and GradientTracking(SGD) with a StepLR: they are
    torch.optim.Optimizer instances; the scheduler sets the inner lr (the
    run equals one with the lr set by hand, bit for bit); state_dict saved
    at step 5 and loaded into new objects == 9 steps uninterrupted (bit
    for bit); add_param_group; zero_grad; GradScaler (torch's, disabled
    on CPU, and one that finds an inf on worker 3 only: every worker
    skips the step and backs off alike, no hang);
  - D2.step(async_op=True), GradientTracking.step(async_op=True) and
    GossipAverager.average_parameters(
    async_op=True) (gossip and exact-average levels) == the blocking
    calls, bit for bit;
  - Gossip.mix_ of tensors whose sizes, dtypes or count differ on one
    worker: the same one-line ValueError on every worker, naming the
    worker and the tensor, before gloo sees them; the job goes on.
"""
import os
import socket
import sys
from collections import defaultdict

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

N = 8
TMP = sys.argv[1]


def data(rank, steps=12, b=16):
    g = torch.Generator().manual_seed(100 + rank)
    xs = torch.randn(steps, b, 6, generator=g, dtype=torch.float64)
    w = torch.linspace(-1, 1, 6, dtype=torch.float64)
    ys = (xs @ w).unsqueeze(-1) + 0.3 * rank / N  # skewed offsets
    return xs, ys


def model():
    torch.manual_seed(0)  # the same start on every worker
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(),
                               torch.nn.Linear(8, 1)).double()


def flat(m):
    return torch.cat([p.detach().reshape(-1) for p in m.parameters()])


def run_averager(rank, make_avg, steps=12):
    from torch.distributed.optim import PostLocalSGDOptimizer
    m = model()
    opt = PostLocalSGDOptimizer(optim=torch.optim.SGD(m.parameters(),
                                                      lr=0.05),
                                averager=make_avg())
    xs, ys = data(rank, steps)
    losses = []
    for t in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(xs[t]), ys[t])
        loss.backward()
        opt.step()
        losses.append(float(loss))
    return m, losses


def run_opt(rank, make, steps, sched=True, by_hand=False, save_at=None,
            path=None):
    """A D2/GT run with StepLR(step_size=3, gamma=0.5) or the same lr set
    by hand; save_at: state_dicts saved after that step."""
    m = model()
    opt = make(m)
    sch = torch.optim.lr_scheduler.StepLR(opt, 3, 0.5) if sched else None
    xs, ys = data(rank)
    for t in range(steps):
        opt.zero_grad()
        torch.nn.functional.mse_loss(m(xs[t]), ys[t]).backward()
        opt.step()
        if sch:
            sch.step()
        if by_hand and (t + 1) % 3 == 0:
            for g in opt.optimizer.param_groups:
                g["lr"] *= 0.5
        if save_at is not None and t + 1 == save_at:
            torch.save({"m": m.state_dict(), "o": opt.state_dict(),
                        "s": sch.state_dict()}, path)
    return m, opt, sch


def resume(rank, make, path, start, steps):
    m = model()
    opt = make(m)
    sch = torch.optim.lr_scheduler.StepLR(opt, 3, 0.5)
    ck = torch.load(path)
    m.load_state_dict(ck["m"])
    opt.load_state_dict(ck["o"])
    sch.load_state_dict(ck["s"])
    xs, ys = data(rank)
    for t in range(start, steps):
        opt.zero_grad()
        torch.nn.functional.mse_loss(m(xs[t]), ys[t]).backward()
        opt.step()
        sch.step()
    return m, opt


class InfScaler:
    """A GradScaler's contract as D2/GT see it (torch's is disabled on
    CPU): unscale_ divides by the scale and records found-inf; worker 3
    finds an inf at the first step."""

    def __init__(self, scale=4.0):
        from torch.cuda.amp.grad_scaler import OptState
        self.scale = scale
        self._per_optimizer_states = defaultdict(
            lambda: {"stage": OptState.READY, "found_inf_per_device": {}})

    def unscale_(self, opt):
        from torch.cuda.amp.grad_scaler import OptState
        found = torch.zeros(1)
        for g in opt.param_groups:
            for p in g["params"]:
                if p.grad is not None:
                    p.grad.div_(self.scale)
                    if not torch.isfinite(p.grad).all():
                        found.fill_(1.0)
        st = self._per_optimizer_states[id(opt)]
        st["found_inf_per_device"] = {torch.device("cpu"): found}
        st["stage"] = OptState.UNSCALED


def worker(rank, port, out):
    torch.set_num_threads(1)
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=N)
    import topogen
    import topogen.torch as tt
    from torch.distributed.algorithms.model_averaging import averagers
    res = {}
    # 1. PeriodicModelAverager -> GossipAverager (one line)
    m0, l0 = run_averager(rank, lambda: averagers.PeriodicModelAverager(
        period=2, warmup_steps=2))
    m1, l1 = run_averager(rank, lambda: tt.GossipAverager(
        topogen.complete(N), period=2, warmup_steps=2))
    m2, l2 = run_averager(rank, lambda: tt.GossipAverager(
        topogen.ring(N), period=2, warmup_steps=2))
    res["avg_diff"] = float((flat(m0) - flat(m1)).abs().max())
    res["ring_loss"] = (sum(l2[:3]) / 3, sum(l2[-3:]) / 3)

    ring = topogen.ring(N)

    def make_d2(m):
        return tt.D2(torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.5),
                     tt.Gossip(ring))

    def make_gt(m):
        return tt.GradientTracking(torch.optim.SGD(m.parameters(), lr=0.1),
                                   tt.Gossip(ring))

    for name, make in (("d2", make_d2), ("gt", make_gt)):
        m, opt, sch = run_opt(rank, make, 9)
        mh, _, _ = run_opt(rank, make, 9, sched=False, by_hand=True)
        res[name + "_isopt"] = isinstance(opt, torch.optim.Optimizer)
        res[name + "_lr"] = (opt.param_groups[0]["lr"],
                             opt.optimizer.param_groups[0]["lr"])
        res[name + "_byhand"] = float((flat(m) - flat(mh)).abs().max())
        ck = os.path.join(TMP, "%s-%d.pt" % (name, rank))
        run_opt(rank, make, 5, save_at=5, path=ck)
        mr, _ = resume(rank, make, ck, 5, 9)
        res[name + "_resume"] = float((flat(m) - flat(mr)).abs().max())
        # add_param_group, zero_grad
        extra = torch.nn.Parameter(torch.ones(3, dtype=torch.float64))
        opt.add_param_group({"params": [extra], "lr": 0.05})
        opt.zero_grad()
        (extra * (rank + 1.0)).sum().backward()
        opt.step()
        res[name + "_added"] = (len(opt.param_groups),
                                float(extra.detach()[0]))
        opt.zero_grad(set_to_none=True)
        res[name + "_zeroed"] = all(p.grad is None for p in m.parameters())
        # torch's GradScaler (disabled on CPU: step() calls opt.step())
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scaler = torch.cuda.amp.GradScaler()
        xs, ys = data(rank)
        scaler.scale(torch.nn.functional.mse_loss(m(xs[0]), ys[0])
                     ).backward()
        before = flat(m).clone()
        scaler.step(opt)
        scaler.update()
        res[name + "_scaler"] = float((flat(m) - before).abs().max()) > 0
        # an inf on worker 3 only: everyone skips
        opt.zero_grad()
        torch.nn.functional.mse_loss(m(xs[1]), ys[1]).backward()
        if rank == 3:
            next(m.parameters()).grad[0, 0] = float("inf")
        fake = InfScaler()
        before = flat(m).clone()
        opt.step(grad_scaler=fake)
        st = fake._per_optimizer_states[id(opt)]
        res[name + "_inf"] = (float((flat(m) - before).abs().max()),
                              float(st["found_inf_per_device"][
                                  torch.device("cpu")]))
        opt.zero_grad()
        torch.nn.functional.mse_loss(m(xs[2]), ys[2]).backward()
        fake = InfScaler()
        opt.step(grad_scaler=fake)
        res[name + "_after_inf"] = float((flat(m) - before).abs().max()) > 0
    # async forms == blocking ones, bit for bit
    def d2_run(async_op, make=make_d2):
        m = model()
        opt = make(m)
        xs, ys = data(rank)
        h = None
        for t in range(6):
            x, y = xs[t], ys[t]          # the next batch, then zero_grad,
            opt.zero_grad()              # while the round is in flight
            if h is not None:
                h.wait()
            torch.nn.functional.mse_loss(m(x), y).backward()
            if async_op:
                h = opt.step(async_op=True)
            else:
                opt.step()
        if h is not None:
            h.wait()
        return flat(m)

    res["d2_async"] = float((d2_run(True) - d2_run(False)).abs().max())
    res["gt_async"] = float((d2_run(True, make_gt) -
                             d2_run(False, make_gt)).abs().max())

    def avg_run(async_op):
        m = model()
        sgd = torch.optim.SGD(m.parameters(), lr=0.05)
        avg = tt.GossipAverager({1: ring, 3: None}, warmup_steps=1)
        xs, ys = data(rank)
        for t in range(7):
            sgd.zero_grad()
            torch.nn.functional.mse_loss(m(xs[t]), ys[t]).backward()
            sgd.step()
            h = avg.average_parameters(m.parameters(), async_op=async_op)
            if async_op:
                h.wait()
        return flat(m)

    res["avg_async"] = float((avg_run(True) - avg_run(False)).abs().max())

    # mismatched tensors: one clear error on every worker, before gloo
    g = tt.Gossip(ring)
    errs = []
    for bad in ("size", "dtype", "count"):
        ts = [torch.zeros(4), torch.zeros(16)]
        if bad == "size" and rank == 5:
            ts[1] = torch.zeros(12)
        if bad == "dtype" and rank == 2:
            ts[1] = torch.zeros(16, dtype=torch.float64)
        if bad == "count" and rank == 7:
            ts.append(torch.zeros(1))
        try:
            g.mix_(ts)
            errs.append(None)
        except ValueError as e:
            errs.append(str(e))
    ok = [torch.full((4,), float(rank)), torch.full((16,), float(rank))]
    g.mix_(ok)  # and the job goes on
    res["mismatch"] = errs
    res["after_mismatch"] = (float(ok[0][0]), float(
        (ring.W @ torch.arange(N, dtype=torch.float64).numpy())[rank]))
    torch.save(res, os.path.join(out, "r%d.pt" % rank))
    dist.destroy_process_group()


def main():
    torch.set_num_threads(1)  # no thread pool in the parent: it forks
    out = os.path.join(TMP, "res")
    os.makedirs(out, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # forked, not spawned: the workers inherit torch, imported once (a
    # spawned worker imports it again: 2 CPU-s each)
    mp.start_processes(worker, args=(port, out), nprocs=N, join=True,
                       start_method="fork")
    rs = [torch.load(os.path.join(out, "r%d.pt" % r)) for r in range(N)]
    fails = passes = 0

    def check(ok, what):
        nonlocal fails, passes
        print(("ok: " if ok else "FAIL: ") + what)
        passes += bool(ok)
        fails += not ok

    d = max(r["avg_diff"] for r in rs)
    check(d < 1e-6, "GossipAverager(topogen.complete(8)) == "
          "PeriodicModelAverager (%.2g)" % d)
    a = sum(r["ring_loss"][0] for r in rs) / N
    b = sum(r["ring_loss"][1] for r in rs) / N
    check(b < a, "GossipAverager(topogen.ring(8)) trains: loss %.4f -> %.4f"
          % (a, b))
    for name in ("d2", "gt"):
        check(all(r[name + "_isopt"] for r in rs),
              "%s is a torch.optim.Optimizer" % name)
        check(all(r[name + "_lr"] == (0.1 * 0.125, 0.1 * 0.125) for r in rs),
              "%s: StepLR(3, 0.5) after 9 steps: lr %r == 0.0125 (inner)"
              % (name, rs[0][name + "_lr"]))
        x = max(r[name + "_byhand"] for r in rs)
        check(x == 0.0, "%s with StepLR == the lr set by hand (%.2g)" % (
            name, x))
        x = max(r[name + "_resume"] for r in rs)
        check(x == 0.0, "%s: state_dicts (model, optimizer, scheduler) at "
              "step 5 loaded into new objects == 9 steps (%.2g)" % (name, x))
        check(all(r[name + "_added"][0] == 2 and r[name + "_added"][1] != 1.0
                  for r in rs), "%s.add_param_group: the new group steps"
              % name)
        check(all(r[name + "_zeroed"] for r in rs), "%s.zero_grad" % name)
        check(all(r[name + "_scaler"] for r in rs),
              "%s: GradScaler.step/update (torch's, CPU)" % name)
        check(all(r[name + "_inf"] == (0.0, 1.0) for r in rs),
              "%s: an inf on worker 3: every worker skips and records it %r"
              % (name, [r[name + "_inf"] for r in rs]))
        check(all(r[name + "_after_inf"] for r in rs),
              "%s: the next finite step runs everywhere" % name)
    x = max(r["d2_async"] for r in rs)
    check(x == 0.0, "D2.step(async_op=True), waited before the next "
          "forward, == the blocking step (%.2g)" % x)
    x = max(r["gt_async"] for r in rs)
    check(x == 0.0, "GradientTracking.step(async_op=True), waited before "
          "the next forward, == the blocking step (%.2g)" % x)
    x = max(r["avg_async"] for r in rs)
    check(x == 0.0, "GossipAverager.average_parameters(async_op=True) "
          "(gossip and exact levels) == blocking (%.2g)" % x)
    want = ["tensor 1 is torch.float32 of shape [12] on worker 5 but "
            "torch.float32 of shape [16] on worker 0",
            "tensor 1 is torch.float64 of shape [16] on worker 2 but "
            "torch.float32 of shape [16] on worker 0",
            "worker 7 passes 3 tensors, worker 0 passes 2"]
    for k, w in enumerate(want):
        msgs = [r["mismatch"][k] for r in rs]
        check(all(m is not None and w in m and "\n" not in m for m in msgs),
              "mix_ of mismatched tensors: every worker raises %r" % msgs[0])
    check(all(abs(a - b) < 1e-5 for a, b in (r["after_mismatch"]
                                              for r in rs)),
          "the next mix_ after the refusals works (== W x)")
    print("check_optim: %d passed, %d failed" % (passes, fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()

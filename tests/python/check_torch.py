"""check_torch.py: topogen.torch on 4 gloo processes, without libtopogen
(tests/python/module.sh runs it from a pip-installed venv with the library off
the path; the topology files are written here by hand).

  - an async round (mix_(async_op=True), then wait()) equals a blocking
    one and W X (float64, 1e-12), buffers reused across calls;
  - GossipAverager with W = J (the complete graph, weights 1/4) and
    period H = 3, warmup 2, inside PostLocalSGDOptimizer, gives the
    parameters of PeriodicModelAverager(period=3, warmup_steps=2) to
    1e-6 after 9 steps of SGD with momentum on a linear model; its
    state_dict holds the step;
  - buffers=module mixes BatchNorm's running statistics with W;
  - a restart (model, PostLocalSGDOptimizer state_dicts saved at step 5,
    loaded into new objects) continues as if uninterrupted;
  - the hierarchical form {1: ring, 4: None} equals a NumPy replay
    (gossip with W at every step, the exact mean every 4th);
  - D2 and GradientTracking wrapping torch.optim.SGD(momentum=0.5)
    equal a direct NumPy implementation of the recursions (dpsgd-train's,
    train/core/dt_algo.c: GT is K-GT, adapt then combine, also with
    weight decay 0.1 and a communication every 2 steps) on least squares f_i(x) = |A_i x - b_i|^2 / 2,
    float64, 20 steps, to 1e-6; D2 on a W with lambda_min < -1/4 uses
    the trainer's c = 1.25 / (1 - lambda_min);
  - an epidemic file: every process draws the same round, an EL-Oracle
    round keeps the mean;
  - refusals: an integer tensor (TypeError), a W with eigenvalue -2
    (`0 1 1.5` on 2 nodes, on 4 here as two such pairs plus a bridge
    would be disconnected: so the file `0 1 1.5 / 2 3 1.5 / 1 2 0`) and
    a disconnected graph (the trainer's messages), D2 on a time-varying
    file.

usage: check_torch.py TMPDIR
"""
import os
import socket
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

N = 4
TMP = sys.argv[1]


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def files():
    """ring (weights 1/3), complete (1/4), a two-round sequence, a
    W with lambda_min < -1/4, an epidemic header, bad files."""
    f = {}
    f["ring"] = write("ring.txt", "# n=4\n0 1 0.33333333333333331\n"
                      "0 3 0.33333333333333331\n1 2 0.33333333333333331\n"
                      "2 3 0.33333333333333331\n")
    f["complete"] = write("complete.txt", "".join(
        "%d %d 0.25\n" % (i, j) for i in range(N) for j in range(i + 1, N)))
    f["seq"] = write("seq.txt", "# period=2\n# round 0 n=4\n0 1 0.5\n"
                     "2 3 0.5\n# round 1 n=4\n0 2 0.5\n1 3 0.5\n")
    # ring with weight 0.45: lambda_min = 1 - 4 * 0.45 = -0.8
    f["neg"] = write("neg.txt", "# n=4\n0 1 0.45\n0 3 0.45\n1 2 0.45\n"
                     "2 3 0.45\n")
    f["epi"] = write("epi.txt", "# topogen 2 n=4 d=2 kind=epidemic "
                     "directed=1 s=2 local=0 seed=1\n")
    f["eig2"] = write("eig2.txt", "# n=4\n0 1 1.5\n1 2 1e-300\n2 3 1.5\n")
    f["disc"] = write("disc.txt", "# n=4\n0 1 0.5\n2 3 0.5\n")
    f["dir"] = write("dir.txt", "# directed=1 n=4\n0 1 0.5\n1 2 0.5\n"
                     "2 3 0.5\n3 0 0.5\n")
    return f


def dense(path):
    import topogen
    return topogen.load(path).W


def worker(rank, port, f, out):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=N)
    import topogen
    import topogen.torch as tt
    from torch.distributed.algorithms.model_averaging.averagers import \
        PeriodicModelAverager
    from torch.distributed.optim import PostLocalSGDOptimizer
    res = {}

    # async == blocking == W X, twice (buffers reused)
    W = dense(f["ring"])
    X = np.random.default_rng(5).standard_normal((N, 1000))
    g1, g2 = tt.Gossip(f["ring"]), tt.Gossip(f["ring"])
    a = [torch.from_numpy(X[rank].copy())]
    b = [torch.from_numpy(X[rank].copy())]
    err = 0.0
    want = X
    for _ in range(2):
        h = g1.mix_(a, async_op=True)
        h.wait()
        g2.mix_(b)
        want = W @ want
        err = max(err, float(np.abs(a[0].numpy() - want[rank]).max()),
                  float(np.abs(b[0].numpy() - want[rank]).max()))
    res["async"] = err

    # GossipAverager(W = J) == PeriodicModelAverager
    def run(avg):
        torch.manual_seed(3)  # the same x_0 everywhere
        model = torch.nn.Linear(5, 3)
        opt = PostLocalSGDOptimizer(
            optim=torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
            averager=avg)
        gen = torch.Generator().manual_seed(100 + rank)
        for _ in range(9):
            x = torch.randn(8, 5, generator=gen)
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
        return torch.cat([p.detach().reshape(-1) for p in
                          model.parameters()]), opt
    mine, opt = run(tt.GossipAverager(f["complete"], period=3,
                                      warmup_steps=2))

    # a restart: 5 steps, state_dicts saved, a new model/optimizer/
    # averager loaded, 4 more steps == 9 uninterrupted (the ring: gossip
    # rounds and the step counter must both resume)
    def run_split(stop):
        torch.manual_seed(3)
        model = torch.nn.Linear(5, 3)
        mk = lambda m: PostLocalSGDOptimizer(  # noqa: E731
            optim=torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9),
            averager=tt.GossipAverager(f["ring"], period=2, warmup_steps=3))
        opt = mk(model)
        gen = torch.Generator().manual_seed(200 + rank)
        for t in range(9):
            if t == stop:
                ms, os_ = model.state_dict(), opt.state_dict()
                model = torch.nn.Linear(5, 3)
                model.load_state_dict(ms)
                opt = mk(model)
                opt.load_state_dict(os_)
            x = torch.randn(8, 5, generator=gen)
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
        return torch.cat([p.detach().reshape(-1) for p in
                          model.parameters()])
    res["restart"] = float((run_split(5) - run_split(-1)).abs().max())
    res["restart_moved"] = float((run_split(-1) - mine).abs().max())
    ref, _ = run(PeriodicModelAverager(period=3, warmup_steps=2))
    res["averager"] = float((mine - ref).abs().max())
    res["averager_step"] = opt.state_dict()["step"]

    # buffers=module: BatchNorm's running statistics mixed with W too
    bn = torch.nn.BatchNorm1d(1000).double()
    with torch.no_grad():
        bn.running_mean.copy_(torch.from_numpy(X[rank]))
    v0 = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    v0.grad = torch.zeros_like(v0)
    tt.GossipAverager(f["ring"], buffers=bn).average_parameters([v0])
    res["buffers"] = float(np.abs(bn.running_mean.numpy() -
                                  (W @ X)[rank]).max())

    # hierarchical {1: ring, 4: None}: NumPy replay of the mixing alone
    v = torch.from_numpy(X[rank].copy())
    v.grad = torch.zeros_like(v)
    avg = tt.GossipAverager({1: f["ring"], 4: None})
    rep = X.copy()
    for s in range(6):
        avg.average_parameters([v])
        rep = (np.tile(rep.mean(0), (N, 1)) if s % 4 == 0 else W @ rep)
    res["hier"] = float(np.abs(v.numpy() - rep[rank]).max())

    # D2 and GT against NumPy
    rng = np.random.default_rng(7)
    A = rng.standard_normal((N, 6, 3))
    B = rng.standard_normal((N, 6))
    x0 = rng.standard_normal(3)
    lr, mu, T = 0.05, 0.5, 20

    def grad(x, i):
        return A[i].T @ (A[i] @ x - B[i])

    def torch_run(kind, topo, wd=0.0, period=1):
        x = torch.nn.Parameter(torch.from_numpy(x0.copy()))
        opt = torch.optim.SGD([x], lr=lr, momentum=mu, weight_decay=wd)
        g = tt.Gossip(topo)
        alg = (tt.D2(opt, g) if kind == "d2" else
               tt.GradientTracking(opt, g, period=period))
        At, Bt = torch.from_numpy(A[rank]), torch.from_numpy(B[rank])
        for _ in range(T):
            alg.zero_grad()
            (0.5 * (At @ x - Bt).pow(2).sum()).backward()
            alg.step()
        return x.detach().numpy(), getattr(alg, "c", None)

    def numpy_d2(Wm, c):
        M = (1 - c) * np.eye(N) + c * Wm
        x = np.tile(x0, (N, 1))
        v = np.zeros_like(x)
        pp = x.copy()
        for _ in range(T):
            gr = np.stack([grad(x[i], i) for i in range(N)])
            v = mu * v + gr
            psi = x - lr * v
            phi = psi + x - pp
            pp = psi
            x = M @ phi
        return x

    def numpy_gt(Wm, wd=0.0, L=1):
        """K-GT as train/core/dt_algo.c does it (dt_algo_grad's gt case,
        then gt_comm every L-th step): h = g + wd x; v = mu v + h + c;
        x -= lr v; hs += h; at a communication hbar = hs / L,
        x <- W x, c <- W (c + hbar) - hbar, hs = 0."""
        x = np.tile(x0, (N, 1))
        c = np.zeros_like(x)
        hs = np.zeros_like(x)
        v = np.zeros_like(x)
        for t in range(T):
            h = np.stack([grad(x[i], i) for i in range(N)]) + wd * x
            hs += h
            v = mu * v + (h + c)
            x = x - lr * v
            if (t + 1) % L == 0:
                hbar = hs / L
                x, c = Wm @ x, Wm @ (c + hbar) - hbar
                hs = np.zeros_like(x)
        return x

    for name, topo in (("ring", f["ring"]), ("neg", f["neg"])):
        Wm = dense(topo)
        got, c = torch_run("d2", topo)
        lmin = np.linalg.eigvalsh(Wm)[0]
        c_want = 1.25 / (1 - lmin) if lmin < -0.25 else 1.0
        res["d2_" + name] = float(np.abs(got - numpy_d2(Wm, c_want)[rank])
                                  .max())
        res["d2_c_" + name] = abs(c - c_want)
        got, _ = torch_run("gt", topo)
        res["gt_" + name] = float(np.abs(got - numpy_gt(Wm)[rank]).max())
    # K-GT with weight decay and local steps (L = 2) on the ring
    Wm = dense(f["ring"])
    got, _ = torch_run("gt", f["ring"], wd=0.1, period=2)
    res["gt_wd_L2"] = float(np.abs(got - numpy_gt(Wm, 0.1, 2)[rank]).max())

    # epidemic: the same draw everywhere; an EL-Oracle round keeps the mean
    ge = tt.Gossip(f["epi"], seed=11)
    mine_row = tt.epidemic_round(N, 2, 0, 11, 3).dense()
    rows = [None] * N
    dist.all_gather_object(rows, mine_row.tolist())
    res["epi_same"] = all(r == rows[0] for r in rows)
    xe = torch.from_numpy(X[rank].copy())
    for _ in range(3):
        ge.mix_([xe])
    tot = xe.clone()
    dist.all_reduce(tot)
    res["epi_mean"] = float(np.abs(tot.numpy() - X.sum(0)).max())

    # refusals
    msgs = {}
    try:
        g1.mix_([torch.arange(4)])
    except TypeError as e:
        msgs["int"] = str(e)
    for k in ("eig2", "disc"):
        try:
            tt.Gossip(f[k])
        except topogen.TopogenError as e:
            msgs[k] = str(e)
    try:
        tt.D2(torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1),
              tt.Gossip(f["seq"]))
    except ValueError as e:
        msgs["d2seq"] = str(e)
    try:  # as dpsgd-train --algorithm d2 refuses a directed topology
        tt.D2(torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1),
              tt.Gossip(f["dir"]))
    except ValueError as e:
        msgs["d2dir"] = str(e)
    res["msgs"] = msgs
    res["lib"] = topogen.library_available()
    if rank == 0:
        torch.save(res, out)
    dist.barrier()
    dist.destroy_process_group()


def main():
    torch.set_num_threads(1)  # no thread pool in the parent: it forks
    f = files()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = os.path.join(TMP, "res.pt")
    # forked, not spawned: the workers inherit torch, imported once (a
    # spawned worker imports it again: 2 CPU-s each)
    mp.start_processes(worker, args=(port, f, out), nprocs=N, join=True,
                       start_method="fork")
    r = torch.load(out)
    failed = []

    def check(cond, what):
        print("%s: %s" % ("ok" if cond else "FAIL", what))
        if not cond:
            failed.append(what)

    check(not r["lib"], "libtopogen is not loadable here (%s)" % r["lib"])
    check(r["async"] < 1e-12, "async round == blocking == W X (%.2g)"
          % r["async"])
    check(r["averager"] < 1e-6, "GossipAverager(W=J, 3, warmup 2) == "
          "PeriodicModelAverager (max diff %.2g)" % r["averager"])
    check(r["averager_step"] == 9, "PostLocalSGDOptimizer.state_dict() "
          "step = 9 (%s)" % r["averager_step"])
    check(r["restart"] < 1e-12 and r["restart_moved"] > 1e-3,
          "GossipAverager in PostLocalSGDOptimizer: state_dicts saved at "
          "step 5 and loaded into new objects == 9 steps uninterrupted "
          "(%.2g)" % r["restart"])
    check(r["buffers"] < 1e-12, "GossipAverager(buffers=BatchNorm): "
          "running_mean mixed with W (%.2g)" % r["buffers"])
    check(r["hier"] < 1e-12, "hierarchical {1: ring, 4: None} == replay "
          "(%.2g)" % r["hier"])
    for k in ("d2_ring", "d2_neg", "gt_ring", "gt_neg", "gt_wd_L2"):
        check(r[k] < 1e-6, "%s == NumPy recursion (%.2g)" % (k, r[k]))
    check(r["d2_c_neg"] < 1e-12 and r["d2_c_ring"] < 1e-12,
          "D2's c is the trainer's (auto)")
    check(r["epi_same"], "epidemic: every process draws the same round")
    check(r["epi_mean"] < 1e-9, "epidemic EL-Oracle rounds keep the sum "
          "(%.2g)" % r["epi_mean"])
    m = r["msgs"]
    check("floating-point" in m.get("int", ""), "integer tensor refused: "
          + m.get("int", "NOT REFUSED"))
    check("does not mix" in m.get("eig2", ""), "eigenvalue -2 refused: "
          + m.get("eig2", "NOT REFUSED"))
    check("disconnected" in m.get("disc", ""), "disconnected refused: "
          + m.get("disc", "NOT REFUSED"))
    check("fixed W" in m.get("d2seq", ""), "D2 on a sequence refused: "
          + m.get("d2seq", "NOT REFUSED"))
    check("symmetric W" in m.get("d2dir", "") and "directed" in
          m.get("d2dir", ""), "D2 on a directed topology refused: "
          + m.get("d2dir", "NOT REFUSED"))
    if failed:
        print("check_torch: %d FAILED" % len(failed))
        sys.exit(1)
    print("check_torch: all passed")


if __name__ == "__main__":
    main()

"""topogen.torch: gossip on a topogen topology over torch.distributed (any
backend: gloo on CPUs; nccl on GPUs supports batch_isend_irecv too, but
the GPU path is untested here). Pure Python: needs torch and numpy, not
libtopogen.

One worker per process: the process group's size is the topology's n and
worker i is the process of rank i in the group. One round of gossip
replaces worker i's tensors x_i by

    x_i <- W_ii x_i + sum_j W_ij x_j      (j ascending, W_ij != 0)

each worker sending to every j with W_ji != 0 and receiving from every j
with W_ij != 0 in one batch_isend_irecv (tensors packed into one
preallocated buffer per (dtype, device): one message per neighbour).

    Gossip(topology)             one round per mix_(tensors), blocking or
                                 async_op=True (a handle; wait() ends it)
    GossipAverager(topology, period=H, warmup_steps=K)
                                 torch's ModelAverager: a drop-in for
                                 PeriodicModelAverager (PostLocalSGDOptimizer)
    D2(optimizer, gossip)        D^2 / exact diffusion around any optimizer
    GradientTracking(optimizer, gossip)
                                 gradient tracking around any optimizer

D-PSGD with a torch optimizer (x_i <- sum_j W_ij x_j - lr * step_i):

    gossip = topogen.torch.Gossip("topo.txt")     # or a Topology
    for x, y in loader:                           # this worker's shard
        opt.zero_grad()
        h = gossip.mix_(model.parameters(), async_op=True)  # sends x_i
        loss_fn(model(x), y).backward()           # overlaps the exchange
        h.wait()                                  # x_i <- sum_j W_ij x_j
        opt.step()                                #   - lr * step(x_i)

Start every worker from the same parameters (the same seed, or a
broadcast from rank 0), as dpsgd-train does.
"""
import os
import threading

import numpy as np
import torch
import torch.distributed as dist
from torch.distributed.algorithms.model_averaging.averagers import \
    ModelAverager

import topogen as _tg
from topogen import _files

__all__ = ["Gossip", "GossipAverager", "D2", "GradientTracking",
           "epidemic_round"]


# ---- topologies -----------------------------------------------------------

def _rounds_of(topology, check):
    """(n, [Round], epidemic or None) of a Topology, a path or an object
    with .n and .Ws (a (P, n, n) array); checked as dpsgd-train checks."""
    if isinstance(topology, (str, bytes, os.PathLike)):
        topology = _tg.load(topology, check=check)
        return topology.n, topology._p.rounds, topology._p.epidemic
    if isinstance(topology, _tg.Topology):
        p = topology._p
        if check:
            _tg._validate(topology, "topology")
        return p.n, p.rounds, p.epidemic
    Ws = np.asarray(topology.Ws, dtype=np.float64)
    if Ws.ndim != 3 or Ws.shape[1] != Ws.shape[2]:
        raise ValueError("topogen.torch: topology.Ws must be (P, n, n)")
    n = Ws.shape[1]
    directed = any(not np.array_equal(W, W.T) for W in Ws)
    rounds = []
    for k, W in enumerate(Ws):
        off = W.copy()
        np.fill_diagonal(off, 0.0)
        rows, cols = np.nonzero(off)
        r = _files.Round(n, rows, cols, W[rows, cols], np.diag(W).copy(),
                         directed)
        r.line = k
        rounds.append(r)
    p = _files.Parsed(rounds, n, [], directed, None)
    if check:
        try:
            _files.validate(p, "topology")
        except _files.FileError as e:
            raise _tg.TopogenError(e.status, str(e))
    return n, rounds, None


def epidemic_round(n, s, local, seed, t):
    """Round t's W of an epidemic topology (de Vos et al. 2023) as a
    Round: each node sends to s others, every receiver averaging what it
    gets with its own value uniformly (W_ij = 1 / (in-degree_i + 1)).
    local=0 (EL-Oracle): the union of s permutations without fixed points
    or repeats (s-regular); local=1 (EL-Local): each node draws s distinct
    receivers. A pure function of (seed, t), drawn with numpy's generator
    (the same on every process; not dpsgd-train's draw)."""
    rng = np.random.default_rng([int(seed) & (2 ** 63 - 1), int(t),
                                 0x65706964])
    src, dst = [], []
    if local:
        for i in range(n):
            others = rng.choice(n - 1, size=s, replace=False)
            for v in others:
                src.append(i)
                dst.append(int(v) + (v >= i))
    else:
        comp = s > (n - 1) // 2
        sl = n - 1 - s if comp else s
        layers = []
        for _ in range(sl):
            for _attempt in range(1000):
                p = rng.permutation(n)
                for i in range(n):  # repair by random swaps
                    tries = 0
                    while p[i] == i or any(q[i] == p[i] for q in layers):
                        j = int(rng.integers(n))
                        if (j != i and p[j] != i and
                                not any(q[i] == p[j] for q in layers) and
                                p[i] != j and
                                not any(q[j] == p[i] for q in layers)):
                            p[i], p[j] = p[j], p[i]
                        tries += 1
                        if tries > 64 * n:
                            break
                if all(p[i] != i and all(q[i] != p[i] for q in layers)
                       for i in range(n)):
                    break
            else:
                raise RuntimeError("epidemic: no %d-regular digraph on %d "
                                   "nodes found for round %d" % (s, n, t))
            layers.append(p)
        for i in range(n):
            mine = {int(q[i]) for q in layers}
            targets = ([v for v in range(n) if v != i and v not in mine]
                       if comp else sorted(mine))
            for v in targets:
                src.append(i)
                dst.append(v)
    src, dst = np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
    order = np.lexsort((src, dst))            # rows (receivers), then cols
    rows, cols = dst[order], src[order]
    indeg = np.bincount(rows, minlength=n).astype(np.float64)
    r = _files.Round(n, rows, cols, 1.0 / (indeg[rows] + 1.0),
                     1.0 / (indeg + 1.0), True)
    return r


# ---- gossip ------------------------------------------------------------------

class _Waiter:
    """The works of a round, waited in order by one daemon thread, so that
    the caller's waits are interruptible: a blocking work.wait() on a late
    (or dead) peer holds the thread in C++ where Ctrl-C is not seen (up to
    the process group's timeout, 30 minutes by default). The caller polls
    an event every 50 ms instead, so a KeyboardInterrupt leaves within a
    fraction of a second (the thread stays blocked until the peer comes or
    the group times out). One thread per round; errors of a work's wait
    are raised in the caller's thread."""

    def __init__(self, works):
        self._done = [threading.Event() for _ in works]
        self._err = [None] * len(works)
        threading.Thread(target=self._run, args=(works,),
                         name="topogen-gossip-wait", daemon=True).start()

    def _run(self, works):
        for k, w in enumerate(works):
            try:
                w.wait()
            except BaseException as e:  # re-raised by wait(k)
                self._err[k] = e
            self._done[k].set()

    def wait(self, k):
        while not self._done[k].wait(0.05):
            pass
        if self._err[k] is not None:
            raise self._err[k]


class _Handle:
    """A gossip round in flight: wait() finishes it (x_i <- sum_j W_ij
    x_j written into the tensors). The received buffers are summed as
    they arrive (receive k while k + 1, ... are still in flight), into
    the first one, scaled by W_ij / W_i,first; then x_i <- W_ii x_i +
    W_i,first acc once every send is done."""

    def __init__(self, gossip, work, nops, buckets, self_w, recv):
        self._g, self._work = gossip, work
        self._buckets, self._self_w, self._recv = buckets, self_w, recv
        # one work per op (gloo; the ops of bucket b: its receives, then
        # its sends), else one for the batch
        self._per_op = len(work) == nops
        self._done = False

    def is_completed(self):
        return self._done or all(w.is_completed() for w in self._work)

    @torch.no_grad()
    def wait(self):
        if self._done:
            return
        wt = _Waiter(self._work)
        if not self._per_op:
            for q in range(len(self._work)):
                wt.wait(q)
        k = 0
        for ts, flat, inbox, nsend in self._buckets:
            for q, buf in enumerate(inbox):
                if self._per_op:
                    wt.wait(k + q)
                if q:
                    inbox[0].add_(buf, alpha=self._recv[q][1] /
                                  self._recv[0][1])
            if self._per_op:
                for q in range(k + len(inbox), k + len(inbox) + nsend):
                    wt.wait(q)
            k += len(inbox) + nsend
            if self._self_w != 1.0:
                flat.mul_(self._self_w)
            if inbox:
                flat.add_(inbox[0], alpha=self._recv[0][1])
            off = 0
            for t in ts:
                n = t.numel()
                t.copy_(flat[off:off + n].view_as(t))
                off += n
        self._done = True
        self._g._pending = None


class _Done:
    loss = None

    def wait(self):
        pass

    def is_completed(self):
        return True


class Gossip:
    """Gossip averaging with a topology's weights.

    topology: a topogen.Topology, a path topogen.load reads (any file:
    static, time-varying, directed, epidemic), or an object with .n and
    .Ws (a (P, n, n) array of W). group: the process group (default the
    world); its size must be n; worker i is the process of rank i in it.
    check: refuse what dpsgd-train refuses (rows not summing to 1, a
    disconnected graph, a W that does not mix such as one with an
    eigenvalue -2), with its message. seed: an epidemic topology's seed
    (every process must give the same; default 1).

    Rounds: round t uses W_{t mod P}; self.round counts the rounds done
    (saved and restored by state_dict()/load_state_dict()).
    """

    def __init__(self, topology, group=None, check=True, seed=1):
        n, rounds, epi = _rounds_of(topology, check)
        if not dist.is_initialized():
            raise RuntimeError("topogen.torch.Gossip: call "
                               "torch.distributed.init_process_group first")
        self.group = group
        size = dist.get_world_size(group)
        if size != n:
            raise ValueError("topogen.torch.Gossip: the topology has %d "
                             "nodes but the process group %d processes "
                             "(one worker per process)" % (n, size))
        self.n = n
        self.worker = dist.get_rank(group)
        self.epidemic = epi
        self.seed = seed
        self.round = 0
        self._rounds = rounds
        self._plans = [self._plan_of(r) for r in rounds]
        self._bufs = {}
        self._pending = None
        self._agreed = set()  # tensor signatures checked across workers

    def _plan_of(self, r):
        """(self weight, [(j, W_ij)] received, [j] sent to) of this worker
        in round r."""
        i = self.worker
        cols, w = r.neighbours(i)
        recv = [(int(j), float(x)) for j, x in zip(cols, w) if x != 0.0]
        if r.directed:
            send = sorted(int(a) for a, b, x in zip(r.rows, r.cols, r.w)
                          if b == i and x != 0.0)
        else:
            send = [j for j, _ in recv]
        return float(r.self[i]), recv, send

    @property
    def rounds(self):
        """Rounds per period of the topology (1 when static, 0 when
        epidemic: drawn per round)."""
        return len(self._plans)

    def plan(self, t=None):
        """(W_ii, [(j, W_ij)], [j sent to]) of this worker in round t
        (default: the next)."""
        t = self.round if t is None else t
        if self.epidemic:
            s, local = self.epidemic
            return self._plan_of(epidemic_round(self.n, s, local, self.seed,
                                                t))
        return self._plans[t % len(self._plans)]

    def _peer(self, j):
        if self.group is None:
            return j
        return dist.get_global_rank(self.group, j)

    def state_dict(self):
        return {"round": self.round}

    def load_state_dict(self, state):
        self.round = int(state["round"])

    def _agree(self, tensors, what="topogen.torch.Gossip.mix_"):
        """Checks, the first time a list of tensors of this signature
        (count, shapes, dtypes) is mixed, that every worker of the group
        passes the same one (one all_gather_object); ValueError naming
        the first worker and tensor that differ otherwise, on every
        worker, before any byte is exchanged (gloo would abort the job on
        mismatched sizes). Later calls with a known signature cost
        nothing; a new signature is checked again (every worker must
        then change it at the same call)."""
        sig = tuple((tuple(t.shape), str(t.dtype)) for t in tensors)
        if sig in self._agreed:
            return
        sigs = [None] * self.n
        dist.all_gather_object(sigs, sig, group=self.group)
        ref = sigs[0]  # the same message on every worker
        for k, other in enumerate(sigs):
            if other == ref:
                continue
            if len(other) != len(ref):
                raise ValueError(
                    "%s: worker %d passes %d tensors, worker 0 passes %d: "
                    "every worker mixes the same tensors" % (
                        what, k, len(other), len(ref)))
            for q, (a, b) in enumerate(zip(other, ref)):
                if a != b:
                    raise ValueError(
                        "%s: tensor %d is %s of shape %s on worker %d but %s "
                        "of shape %s on worker 0: every worker mixes tensors "
                        "of the same shapes and dtypes" % (
                            what, q, a[1], list(a[0]), k, b[1], list(b[0])))
        self._agreed.add(sig)

    def _buffers(self, key, numel, k, like, single):
        """(packing buffer or None, k receive buffers) of a (dtype,
        device), allocated once (again only when the size changes)."""
        key = key + (single,)
        b = self._bufs.get(key)
        if b is None or b[0] != numel or len(b[2]) < k:
            pack = None if single else torch.empty(
                numel, dtype=like.dtype, device=like.device)
            inbox = [torch.empty(numel, dtype=like.dtype, device=like.device)
                     for _ in range(k)]
            b = (numel, pack, inbox)
            self._bufs[key] = b
        return b[1], b[2]

    @torch.no_grad()
    def mix_(self, tensors, async_op=False):
        """One gossip round in place on a list (or iterable, e.g.
        model.parameters()) of floating-point tensors, the same shapes and
        dtypes on every worker; then the next round. async_op=True
        returns a handle at once and handle.wait() writes
        x_i <- sum_j W_ij x_j into the tensors: leave them unchanged until
        then (reading them, e.g. a forward and backward pass, is fine);
        one round may be pending at a time. Buffers are allocated on the
        first call and reused: a packing buffer per (dtype, device) (none
        when that is one contiguous tensor: it is sent as is and the sum
        is formed in it) and one receive buffer per neighbour."""
        if self._pending is not None:
            raise RuntimeError("topogen.torch.Gossip.mix_: the previous "
                               "async round is still pending (call its "
                               "wait() first)")
        tensors = [t.data if isinstance(t, torch.nn.Parameter) else t
                   for t in tensors]
        for t in tensors:
            if not (t.is_floating_point() or t.is_complex()):
                raise TypeError("topogen.torch.Gossip.mix_: a %s tensor: "
                                "gossip mixes floating-point tensors (a "
                                "weighted average of integers would be "
                                "truncated)" % t.dtype)
        self._agree(tensors)
        self_w, recv, send = self.plan()
        self.round += 1
        if not tensors or (not recv and not send and self_w == 1.0):
            return _Done() if async_op else None
        groups = {}
        for t in tensors:
            groups.setdefault((t.dtype, t.device), []).append(t)
        ops, buckets = [], []
        for tag, (key, ts) in enumerate(groups.items()):
            numel = sum(t.numel() for t in ts)
            single = len(ts) == 1 and ts[0].is_contiguous()
            flat, inbox = self._buffers(key, numel, len(recv), ts[0], single)
            if single:  # sent as is, the sum formed in place
                flat, ts = ts[0].view(-1), []
            else:
                torch.cat([t.reshape(-1) for t in ts], out=flat)
            for (j, _), buf in zip(recv, inbox):
                ops.append(dist.P2POp(dist.irecv, buf, self._peer(j),
                                      self.group, tag))
            for j in send:
                ops.append(dist.P2POp(dist.isend, flat, self._peer(j),
                                      self.group, tag))
            buckets.append((ts, flat, inbox[:len(recv)], len(send)))
        work = dist.batch_isend_irecv(ops) if ops else []
        h = _Handle(self, work, len(ops), buckets, self_w, recv)
        if async_op:
            self._pending = h
            return h
        h.wait()
        return None


class _AverageHandle:
    """An exact average in flight: wait() writes the mean into the
    tensors."""

    def __init__(self, pending):
        self._pending = pending  # [(work, flat, tensors)]

    def is_completed(self):
        return all(w.is_completed() for w, _, _ in self._pending)

    @torch.no_grad()
    def wait(self):
        for work, flat, ts in self._pending:
            work.wait()
            off = 0
            for t in ts:
                t.copy_(flat[off:off + t.numel()].view_as(t))
                off += t.numel()
        self._pending = []


def _exact_average_(tensors, group, async_op=False):
    """x_i <- mean_j x_j over the group (one all_reduce per dtype);
    async_op: a handle whose wait() writes it."""
    size = dist.get_world_size(group)
    groups = {}
    for t in tensors:
        groups.setdefault((t.dtype, t.device), []).append(t)
    pending = []
    for ts in groups.values():
        flat = torch.cat([t.reshape(-1) for t in ts])
        flat /= size
        pending.append((dist.all_reduce(flat, group=group, async_op=True),
                        flat, ts))
    h = _AverageHandle(pending)
    if async_op:
        return h
    h.wait()
    return None


class GossipAverager(ModelAverager):
    """torch's ModelAverager with gossip: after the optimizer's local step
    (PostLocalSGDOptimizer calls average_parameters), every `period` steps
    from `warmup_steps` on, one gossip round with the topology's W
    instead of an all-reduce. With W = J (the complete graph's file) it
    is PeriodicModelAverager(period, warmup_steps). Swapping is one line:

        averager = topogen.torch.GossipAverager("ring.txt", period=4)
        # was: averagers.PeriodicModelAverager(period=4)
        opt = PostLocalSGDOptimizer(optim=torch.optim.SGD(...),
                                    averager=averager)

    topology: what Gossip takes, or a dict {period: topology or None}
    (the hierarchical form, like HierarchicalModelAverager: from
    warmup_steps on, at a step only the largest period dividing the step
    acts; None is an exact all-reduce average of the group), e.g.
    {1: "ring.txt", 16: None}. As in torch, a single period counts from
    the warm-up's end (PeriodicModelAverager), the hierarchical form from
    step 0 (HierarchicalModelAverager). Parameters are averaged as torch's averagers do: those with a
    .grad (from model.parameters() or optimizer.param_groups). buffers:
    False, or a module (its floating buffers: BatchNorm statistics) or an
    iterable of tensors, mixed at the same steps as the parameters.
    The step is in state_dict() (and PostLocalSGDOptimizer's), so a
    restart does not redo the warm-up; the round of a time-varying or
    epidemic topology is derived from it.
    """

    def __init__(self, topology, period=1, warmup_steps=0,
                 process_group=None, buffers=False, seed=1):
        super().__init__(process_group)
        if warmup_steps < 0:
            raise ValueError("warmup_steps must be non-negative")
        self.hierarchical = isinstance(topology, dict)
        if self.hierarchical:
            levels = dict(topology)
        else:
            levels = {period: topology}
        for p in levels:
            if not isinstance(p, int) or p < 1:
                raise ValueError("GossipAverager: period %r must be a "
                                 "positive integer" % (p,))
        self.warmup_steps = warmup_steps
        self.periods = sorted(levels)
        self.period = self.periods[0]
        self.levels = {p: (None if t is None else
                           Gossip(t, group=process_group, seed=seed))
                       for p, t in levels.items()}
        if buffers is True:
            raise ValueError("GossipAverager: buffers= takes a module or "
                             "tensors (e.g. buffers=model), not True")
        if isinstance(buffers, torch.nn.Module):
            buffers = list(buffers.buffers())
        self.buffers = [b for b in (buffers or [])
                        if b.is_floating_point()]

    @staticmethod
    def _params(params):
        out = []
        for p in params:
            if isinstance(p, dict):
                out.extend(q for q in p["params"] if q.grad is not None)
            elif isinstance(p, torch.Tensor):
                if p.grad is not None:
                    out.append(p)
            else:
                raise TypeError("GossipAverager: parameters or parameter "
                                "groups, not %s" % type(p).__name__)
        return out

    def level(self, step=None):
        """The period acting at `step` (default the current), or None."""
        step = self.step if step is None else step
        if step < self.warmup_steps:
            return None
        # as torch counts: PeriodicModelAverager from the warm-up's end,
        # HierarchicalModelAverager from step 0
        k = step if self.hierarchical else step - self.warmup_steps
        for p in reversed(self.periods):
            if k % p == 0:
                return p
        return None

    @torch.no_grad()
    def average_parameters(self, params, async_op=False):
        """Averages (a gossip round, or the exact average) when the step
        calls for it, then counts the step. async_op=True returns a
        handle at once (a no-op one on steps that do not average):
        handle.wait() writes the result into the parameters, which must
        not be changed before (a forward and backward pass may read
        them: `h = averager.average_parameters(params, async_op=True)`,
        the next batch's forward/backward, `h.wait()`, then the step; the
        gradient is then taken at the parameters before the average)."""
        p = self.level()
        h = None
        if p is not None:
            tensors = [q.data for q in self._params(params)] + self.buffers
            g = self.levels[p]
            if g is None:
                group = self.process_group
                h = _exact_average_(tensors, None if group is
                                    dist.group.WORLD else group, async_op)
            else:
                g.round = (self.step if self.hierarchical else
                           self.step - self.warmup_steps) // p
                h = g.mix_(tensors, async_op=async_op)
        self.step += 1
        if async_op:
            return h if h is not None else _Done()
        return None

    def state_dict(self):
        return {"step": self.step}

    def load_state_dict(self, state):
        self.step = int(state["step"])


# ---- optimizers ----------------------------------------------------------------

class _StepHandle:
    """An optimizer step whose gossip is in flight: wait() ends it; .loss
    is the closure's loss."""

    def __init__(self, finish, loss):
        self._finish, self.loss = finish, loss

    def wait(self):
        if self._finish is not None:
            f, self._finish = self._finish, None
            f()

    def is_completed(self):
        return self._finish is None


class _Wrapped(torch.optim.Optimizer):
    """An optimizer around an optimizer: a torch.optim.Optimizer whose
    param_groups, defaults and per-parameter state are the inner
    optimizer's own objects (an LR scheduler on the wrapper sets the
    inner optimizer's lr; add_param_group, zero_grad and state_dict reach
    it), so torch's LR schedulers, state_dict/load_state_dict,
    add_param_group, zero_grad and AMP's GradScaler work on it. The
    wrapper's own per-parameter tensors live in the inner optimizer's
    state under keys of its own (saved and restored with it); the gossip
    round goes in state_dict()["topogen"].

    GradScaler: scaler.step(opt) hands the scaler to step()
    (_step_supports_amp_scaling); the wrapper unscales the gradients once
    and agrees with every worker (one all_reduce of a float, MAX) on
    whether any of them found an inf or NaN: then every worker skips the
    step and its gossip (one worker skipping alone would leave the others
    waiting for its messages), and every scaler backs off alike."""

    _step_supports_amp_scaling = True

    def __init__(self, optimizer, gossip):
        name = type(self).__name__
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError("topogen.torch.%s: wraps a torch.optim.Optimizer "
                            "(e.g. torch.optim.SGD(model.parameters(), "
                            "lr=0.1)), not %s" % (name,
                                                  type(optimizer).__name__))
        if isinstance(optimizer, _Wrapped):
            raise TypeError("topogen.torch.%s: the optimizer is already a "
                            "%s (one gossip per step)" % (
                                name, type(optimizer).__name__))
        if not isinstance(gossip, Gossip):
            gossip = Gossip(gossip)  # a Topology or a path
        self.optimizer = optimizer
        self.gossip = gossip
        self.defaults = optimizer.defaults
        # torch.optim.Optimizer.__init__ is not called (it would make
        # param_groups of its own); what its step wrapper reads is set
        # here (torch 1.13: _hook_for_profile; 2.x: the hook tables and
        # _patch_step_function)
        from collections import OrderedDict
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        hook = getattr(self, "_patch_step_function", None) or getattr(
            self, "_hook_for_profile", None)
        if hook is not None:
            hook()

    @property
    def param_groups(self):
        return self.optimizer.param_groups

    @param_groups.setter
    def param_groups(self, groups):
        self.optimizer.param_groups = groups

    @property
    def state(self):
        return self.optimizer.state

    @state.setter
    def state(self, state):
        self.optimizer.state = state

    def add_param_group(self, param_group):
        """Adds a group to the inner optimizer (the wrapper's state for
        its parameters starts at their next step)."""
        self.optimizer.add_param_group(param_group)

    def zero_grad(self, set_to_none=None):
        if set_to_none is None:
            self.optimizer.zero_grad()
        else:
            self.optimizer.zero_grad(set_to_none=set_to_none)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        return "%s(%r, n=%d)" % (type(self).__name__, self.optimizer,
                                 self.gossip.n)

    def _params(self):
        return [p for g in self.optimizer.param_groups for p in g["params"]]

    def _extra(self):
        return {"gossip": self.gossip.state_dict()}

    def state_dict(self):
        """The inner optimizer's state_dict (with the wrapper's
        per-parameter tensors in its state) and {"topogen": {"gossip":
        round, ...}}."""
        sd = self.optimizer.state_dict()
        sd["topogen"] = self._extra()
        return sd

    def load_state_dict(self, state_dict):
        sd = dict(state_dict)
        extra = sd.pop("topogen", None)
        if extra is None:
            raise ValueError("topogen.torch.%s.load_state_dict: no "
                             "'topogen' entry (a state_dict of the %s, not "
                             "of the inner optimizer alone)" % (
                                 type(self).__name__, type(self).__name__))
        self.optimizer.load_state_dict(sd)
        self.gossip.load_state_dict(extra["gossip"])

    def _go(self, grad_scaler):
        """True when this step runs: without a scaler always; with one,
        unscale once, then the group's verdict on infs/NaNs (the same on
        every worker, written back into each scaler)."""
        if grad_scaler is None:
            return True
        st = grad_scaler._per_optimizer_states[id(self)]
        if st["stage"].name == "READY":
            grad_scaler.unscale_(self)
        found = st["found_inf_per_device"]
        flag = torch.zeros(1, dtype=torch.float64)
        for v in found.values():
            flag += float(v.sum())
        flag = (flag > 0).to(torch.float64)
        group = self.gossip.group
        dist.all_reduce(flag, op=dist.ReduceOp.MAX,
                        group=group if group is not None else None)
        for v in found.values():
            v.fill_(float(flag))
        return float(flag) == 0.0


class D2(_Wrapped):
    """D^2 / exact diffusion (Tang et al. 2018; Yuan et al. 2019) around
    any torch optimizer, as dpsgd-train's --algorithm d2 wraps SGD:

        psi_t     = opt.step() from x_t (the optimizer's local update)
        phi_t     = psi_t + x_t - psi_{t-1}        (psi_{-1} = x_0)
        x_{t+1}   = M phi_t,  M = (1 - c) I + c W

    with c chosen as the trainer chooses it (--d2-mixing auto: the
    largest c <= 1 with lambda_min(M) >= -1/4). Use in place of the
    optimizer: loss.backward(); d2.step(). Time-varying and epidemic
    topologies are refused (D^2 needs one fixed W). The gossip must be a
    Gossip of a static topology (its W is read for lambda_min)."""

    def __init__(self, optimizer, gossip, mixing=None):
        super().__init__(optimizer, gossip)
        if gossip.epidemic or gossip.rounds != 1:
            raise ValueError("D2: D^2 is defined for one fixed W; a "
                             "time-varying or epidemic topology is refused "
                             "(its recursion amplifies disagreement, "
                             "train/core/dt_d2_mix.h): use GradientTracking")
        W = self._full_w()
        if gossip._rounds[0].directed or not np.array_equal(W, W.T):
            raise ValueError("D2: D^2 needs a symmetric W (its mixing "
                             "matrix (1 - c) I + c W must have eigenvalues "
                             "above -1/3), but the topology is directed, as "
                             "dpsgd-train --algorithm d2 refuses it: use "
                             "GradientTracking or plain gossip")
        lmin = float(np.linalg.eigvalsh((W + W.T) / 2)[0])
        if mixing is None:
            c = 1.25 / (1.0 - lmin) if lmin < -0.25 else 1.0
        else:
            c = float(mixing)
            if not 0.0 < c <= 1.0 or 1.0 - c * (1.0 - lmin) <= -1.0 / 3:
                raise ValueError("D2: mixing=%g gives lambda_min(M) = %g "
                                 "(must be in (0, 1] with lambda_min(M) > "
                                 "-1/3)" % (c, 1.0 - c * (1.0 - lmin)))
        self.c = c
        self.lambda_min = lmin

    def _full_w(self):
        """W of the gossip's (static) topology, dense (n is the world
        size: small)."""
        return self.gossip._rounds[0].dense()

    @torch.no_grad()
    def step(self, closure=None, grad_scaler=None, async_op=False):
        """One D^2 step (the inner optimizer's step, then one gossip
        round); returns the closure's loss. grad_scaler: given by
        GradScaler.step. async_op=True: the round is left in flight and
        a handle is returned (its .loss the closure's): handle.wait()
        writes x_{t+1}; call it before the parameters are read again
        (the next forward), e.g. after loading the next batch and
        zero_grad."""
        if not self._go(grad_scaler):
            return _Done() if async_op else None
        params = self._params()
        x = [p.detach().clone() for p in params]
        prev = []
        for p, xt in zip(params, x):  # psi_{-1} = x_0, per parameter
            st = self.optimizer.state[p]
            if "d2_psi_prev" not in st:
                st["d2_psi_prev"] = xt.clone()
            prev.append(st["d2_psi_prev"])
        if closure is not None:
            with torch.enable_grad():
                loss = self.optimizer.step(closure)
        else:
            loss = self.optimizer.step()
        for p, xt, pp in zip(params, x, prev):
            psi = p.detach().clone()
            p.add_(xt).sub_(pp)          # phi = psi + x - psi_prev
            pp.copy_(psi)
        phi = [p.detach().clone() for p in params] if self.c != 1.0 else None
        h = self.gossip.mix_(params, async_op=True)  # W phi
        c = self.c

        def finish():
            h.wait()
            if phi is not None:
                with torch.no_grad():
                    for p, f in zip(params, phi):
                        p.mul_(c).add_(f, alpha=1.0 - c)
        if async_op:
            return _StepHandle(finish, loss)
        finish()
        return loss

    def __repr__(self):
        return "D2(%r, n=%d, c=%g)" % (self.optimizer, self.gossip.n, self.c)


class GradientTracking(_Wrapped):
    """Gradient tracking (Pu and Nedic 2021), combine-then-adapt as
    dpsgd-train's --algorithm gt, around any torch optimizer:

        (x', y') = W (x_t, y_t)              one gossip round, one message
        y_{t+1}  = y' + g_t - g_{t-1}        (y_0 = 0, g_{-1} = 0)
        x_{t+1}  = opt.step() from x' with gradient y_{t+1}

    g_t is the gradient at x_t (p.grad after backward: put weight decay
    in the loss, or in the optimizer, which then applies it untracked).
    Use in place of the optimizer: loss.backward(); gt.step(). Works on
    any topology (time-varying, directed, epidemic)."""

    @torch.no_grad()
    def step(self, closure=None, grad_scaler=None):
        """One gradient-tracking step (one gossip round of (x, y), then
        the inner optimizer's step with y as the gradient); a closure is
        evaluated first (its backward gives g_t)."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        if not self._go(grad_scaler):
            return loss
        params = [p for p in self._params() if p.grad is not None]
        ys, gs = [], []
        for p in params:
            st = self.optimizer.state[p]
            if "gt_y" not in st:   # y_0 = 0, g_{-1} = 0
                st["gt_y"] = torch.zeros_like(p)
                st["gt_g_prev"] = torch.zeros_like(p)
            ys.append(st["gt_y"])
            gs.append(st["gt_g_prev"])
        self.gossip.mix_([p.data for p in params] + ys)
        for p, y, gp in zip(params, ys, gs):
            y.add_(p.grad).sub_(gp)
            gp.copy_(p.grad)
            p.grad.copy_(y)
        self.optimizer.step()
        return loss

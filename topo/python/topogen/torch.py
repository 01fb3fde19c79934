"""topogen.torch: gossip on a topogen topology over torch.distributed (any
backend: gloo on CPUs; nccl on GPUs supports batch_isend_irecv too, but
the GPU path is untested here). Pure Python: needs torch and numpy, not
libtopogen.

One worker per process: the process group's size is the topology's n and
worker i is the process of rank i in the group. One round of gossip
replaces worker i's tensors x_i by

    x_i <- W_ii x_i + sum_j W_ij x_j      (j ascending, W_ij != 0)

each worker sending to every j with W_ji != 0 and receiving from every j
with W_ij != 0 (gloo: posted on the group directly; other backends: one
batch_isend_irecv), one message per neighbour and (dtype, device): the
tensors packed into a buffer made on the first call, or sent as is when
they lie one after the other in memory (flatten_parameters_).

    Gossip(topology)             one round per mix_(tensors), blocking or
                                 async_op=True (a handle; wait() ends it)
    GossipAverager(topology, period=H, warmup_steps=K)
                                 torch's ModelAverager: a drop-in for
                                 PeriodicModelAverager (PostLocalSGDOptimizer)
    D2(optimizer, gossip)        D^2 / exact diffusion around any optimizer
    GradientTracking(optimizer, gossip, period=1)
                                 gradient tracking (K-GT, adapt then
                                 combine) around any optimizer
    flatten_parameters_(model)   parameters as views of one buffer

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
import functools
import operator
import os
import queue
import threading
from collections import OrderedDict

try:
    import numpy as np
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.model_averaging.averagers import \
        ModelAverager
except ImportError as _e:  # a pip-only install has neither
    raise ImportError("topogen.torch needs PyTorch and NumPy (pip install "
                      "torch numpy; Debian: python3-torch); the rest of "
                      "topogen works without them (%s)" % _e) from _e

import topogen as _tg
from topogen import _files

__all__ = ["Gossip", "GossipAverager", "D2", "GradientTracking",
           "epidemic_round", "flatten_parameters_", "BackwardGossip"]


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

@torch.no_grad()
def flatten_parameters_(params):
    """Moves the data of parameters (a module's, or an iterable of
    tensors) into one flat buffer per (dtype, device), one after the
    other in the given order (p.data becomes a view of the buffer: the
    Parameter objects, and so an optimizer's references to them, stay
    the same); returns the buffers. Gossip.mix_ of the same tensors in
    the same order then sends each buffer as is and forms the result in
    it: no packing, no copying out (as DDP's gradient buckets do). Views
    taken of the old data before the call no longer alias it."""
    if isinstance(params, torch.nn.Module):
        params = params.parameters()
    groups = {}
    for p in params:
        groups.setdefault((p.dtype, p.device), []).append(p)
    flats = []
    for (dtype, device), ps in groups.items():
        flat = torch.empty(sum(p.numel() for p in ps), dtype=dtype,
                           device=device)
        off = 0
        for p in ps:
            n = p.numel()
            flat[off:off + n].copy_(p.reshape(-1))
            p.data = flat[off:off + n].view_as(p)
            off += n
        flats.append(flat)
    return flats



def _init_step_hooks(opt):
    """What torch.optim.Optimizer's step wrapper reads, for a wrapper
    optimizer whose Optimizer.__init__ is not called (it would make
    param_groups of its own): torch 1.13's _hook_for_profile, 2.x's hook
    tables and _patch_step_function."""
    from collections import OrderedDict
    opt._optimizer_step_pre_hooks = OrderedDict()
    opt._optimizer_step_post_hooks = OrderedDict()
    hook = getattr(opt, "_patch_step_function", None) or getattr(
        opt, "_hook_for_profile", None)
    if hook is not None:
        hook()

class _WaitThread:
    """One daemon thread per Gossip that finishes the rounds in order:
    it waits each work (gloo's send/recv works report completion only
    through wait(), so they cannot be polled), forms a packed bucket's
    result in its buffer, then sets the round's event. The caller waits on that event (polled every 50 ms, so
    Ctrl-C is seen: a work.wait() on a late or dead peer holds its
    thread in C++, up to the process group's timeout), and wakes once
    per round. The thread is started once (a thread per round cost
    0.1-0.5 ms to start on the loaded 2-core machine) and abandoned when
    a wait is interrupted: that round's works may never finish, so the
    Gossip then starts a fresh one."""

    def __init__(self):
        self._q = queue.SimpleQueue()
        threading.Thread(target=self._run, name="topogen-gossip-wait",
                         daemon=True).start()

    def _run(self):
        while True:
            self._q.get().run()

    def submit(self, works, sums):
        job = _Job(works, sums)
        self._q.put(job)
        return job


class _Job:
    """A round handed to the wait thread: works (waited in order), sums
    (functions) called after them; done set at the end."""

    __slots__ = ("works", "sums", "err", "done", "inline")

    def __init__(self, works, sums, inline=False):
        self.works, self.sums = works, sums
        self.err = None
        self.done = threading.Event()
        self.inline = inline  # waited by the caller's thread

    def run(self):
        try:
            for w in self.works:
                w.wait()
            with torch.no_grad():
                for f in self.sums:
                    f()
        except BaseException as e:  # re-raised by wait()
            self.err = e
        self.done.set()

    def wait(self):
        if self.inline:
            if not self.done.is_set():
                self.run()
        else:
            while not self.done.wait(0.05):
                pass
        if self.err is not None:
            raise self.err


def _span(ts):
    """One flat view over tensors that lie one after the other in one
    storage (contiguous, in list order, no gaps), or None: such a list
    (parameters after flatten_parameters_, or pieces split from one
    tensor) is sent as is, with nothing packed or unpacked."""
    t0 = ts[0]
    if not all(t.is_contiguous() for t in ts):
        return None
    sp = (lambda t: t.untyped_storage().data_ptr()) if hasattr(
        t0, "untyped_storage") else (lambda t: t.storage().data_ptr())
    base, es = sp(t0), t0.element_size()
    end = t0.data_ptr()
    for t in ts:
        if t.data_ptr() != end or sp(t) != base:
            return None
        end += t.numel() * es
    numel = sum(t.numel() for t in ts)
    return t0.detach().as_strided((numel,), (1,), t0.storage_offset())


class _Bucket:
    """The tensors of one (dtype, device) of a plan and their buffers.
    flat is what is sent: a view of the tensors themselves when they lie
    one after the other in one storage (in place: the result is formed
    in it), else a packing buffer (one torch.cat packs the tensors'
    cached flat views into it; the result is formed in it by the wait
    thread and copied out by wait()). inbox: one receive buffer per
    neighbour, the rows of one matrix (mat), grown as needed."""

    __slots__ = ("ts", "inplace", "flat", "src", "out", "inbox", "tag",
                 "mat", "wvec", "blas")

    def __init__(self, ts, tag):
        self.ts, self.tag = ts, tag
        t0 = ts[0]
        numel = sum(t.numel() for t in ts)
        span = _span(ts)
        self.inplace = span is not None
        self.src = self.out = None
        if self.inplace:
            self.flat = span
        else:
            self.flat = torch.empty(numel, dtype=t0.dtype, device=t0.device)
            if all(t.is_contiguous() for t in ts):
                self.src = [t.detach().view(-1) for t in ts]
            self.out, off = [], 0
            for t in ts:
                self.out.append(self.flat[off:off + t.numel()].view(t.shape))
                off += t.numel()
        self.inbox, self.mat, self.wvec = [], None, {}
        self.blas = t0.dtype in _BLAS

    def grow(self, k):
        """k receive buffers: the rows of one (k, numel) matrix, so that
        the round's sum is one addmv over them."""
        if len(self.inbox) < k:
            f = self.flat
            self.mat = torch.empty((k, f.numel()), dtype=f.dtype,
                                   device=f.device)
            self.inbox = list(self.mat.unbind(0))
            self.wvec = {}

    def pack(self):
        if self.src is not None:
            torch.cat(self.src, out=self.flat)
        elif not self.inplace:  # non-contiguous tensors: reshaped anew
            torch.cat([t.reshape(-1) for t in self.ts], out=self.flat)

    def unpack(self):
        for t, v in zip(self.ts, self.out):
            t.copy_(v)


_ptr = torch.Tensor.data_ptr
_shape = operator.attrgetter("shape")


class _Plan:
    """What a list of tensors needs for its rounds, built on the first
    call with it and reused while the same tensors (the same memory,
    shapes, strides and dtypes) come back: the buckets and buffers."""

    __slots__ = ("key", "buckets", "ts", "ts_ids", "ptrs", "shapes")

    def __init__(self, key, ts):
        self.key, self.ts = key, ts
        self.ts_ids = tuple(map(id, ts))
        self.ptrs = list(map(_ptr, ts))
        self.shapes = list(map(_shape, ts))
        groups = {}
        for t in ts:
            groups.setdefault((t.dtype, t.device), []).append(t)
        self.buckets = [_Bucket(g, tag) for tag, g in
                        enumerate(groups.values())]


_BLAS = (torch.float32, torch.float64, torch.complex64, torch.complex128)


def _mix(b, sw, ws):
    """flat <- W_ii flat + sum_q W_iq inbox_q in one pass: addmv with the
    receive buffers as the columns of a (numel, k) matrix (BLAS gemv;
    three passes of add/mul before, which at 11 M floats on the loaded
    machine cost as much as a third of the exchange); one pass per term
    for dtypes BLAS does not have."""
    k = len(ws)
    if k and b.blas:
        v = b.wvec.get(ws)
        if v is None:
            v = b.wvec[ws] = torch.tensor(ws, dtype=b.flat.dtype,
                                          device=b.flat.device)
        b.flat.addmv_(b.mat[:k].t(), v, beta=sw)
        return
    if sw != 1.0:
        b.flat.mul_(sw)
    for buf, w in zip(b.inbox, ws):
        b.flat.add_(buf, alpha=w)


class _Handle:
    """A gossip round in flight. The wait thread waits the works and, for
    a packed bucket, forms W_ii x_i + sum_j W_ij inbox_j in its buffer
    (one addmv) once the sends are done; wait()
    then writes the tensors (the in-place bucket's result directly, a
    packed one's copied out). The tensors are written only by wait(), so
    a forward and backward pass may read them while the round is in
    flight."""

    def __init__(self, gossip, plan, job, self_w, ws):
        self._g, self._plan, self._job = gossip, plan, job
        self._self_w, self._ws = self_w, ws
        self._done = False

    def is_completed(self):
        return self._done or self._job.done.is_set()

    @torch.no_grad()
    def wait(self):
        if self._done:
            return
        try:
            self._job.wait()
        except BaseException:
            # the round's works may still be pending on the wait thread
            # and the peers: forget its buffers and thread
            self._g._abandon(self._plan)
            raise
        finally:
            self._done = True
            if self._g._pending is self:
                self._g._pending = None
        for b in self._plan.buckets:
            if b.inplace:
                _mix(b, self._self_w, self._ws)
            else:
                b.unpack()


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

    def __init__(self, topology, group=None, check=True, seed=1,
                 interruptible=True):
        n, rounds, epi = _rounds_of(topology, check)
        self.interruptible = bool(interruptible)
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
        self._cache = OrderedDict()  # tensor lists' plans, LRU
        self._by_id = {}  # the same plans by the tensors' ids
        self.cache_size = 16
        self._waiter = None
        self._pending = None
        # gloo: sends and receives posted on the group directly (one C
        # call each, group ranks); other backends through
        # batch_isend_irecv (NCCL needs its coalescing)
        self._pg = None
        if dist.get_backend(group) == "gloo":
            self._pg = (group if group is not None else
                        dist.distributed_c10d._get_default_group())
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

    def _abandon(self, plan):
        """A round was interrupted: its works may still write its plan's
        buffers and hold the wait thread, so neither is used again."""
        if self._cache.get(plan.key) is plan:
            del self._cache[plan.key]
        self._by_id = {k: p for k, p in self._by_id.items() if p is not plan}
        self._waiter = None

    def _plan_for(self, ts, what):
        """The plan of this list of tensors: cached by memory, shape,
        stride and dtype (a hit costs one pass over the list and no
        check: the plan keeps the tensors alive, so the same address is
        the same memory); built and checked on a miss."""
        ids = tuple(map(id, ts))
        plan = self._by_id.get(ids)
        if (plan is not None and list(map(_ptr, ts)) == plan.ptrs and
                list(map(_shape, ts)) == plan.shapes):
            return plan  # the same objects, memory and shapes
        key = tuple([(t.data_ptr(), t.shape, t.stride(), t.dtype)
                     for t in ts])
        plan = self._cache.get(key)
        if plan is not None:
            self._cache.move_to_end(key)
            self._remember(ids, plan)
            return plan
        for t in ts:
            if not isinstance(t, torch.Tensor):
                raise TypeError("%s: tensors, not %s" % (
                    what, type(t).__name__))
            if not (t.is_floating_point() or t.is_complex()):
                raise TypeError("%s: a %s tensor: gossip mixes "
                                "floating-point tensors (a weighted average "
                                "of integers would be truncated)" % (
                                    what, t.dtype))
        self._agree(ts, what)
        plan = _Plan(key, ts)
        self._cache[key] = plan
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        self._remember(ids, plan)
        return plan

    def _remember(self, ids, plan):
        """Ids are only compared while the plan holds the tensors (an id
        is not reused while its object lives)."""
        if len(self._by_id) >= self.cache_size:
            live = set(map(id, self._cache.values()))
            self._by_id = {k: p for k, p in self._by_id.items()
                           if id(p) in live and p.ts_ids == k}
            if len(self._by_id) >= self.cache_size:
                self._by_id.clear()
        if ids == plan.ts_ids:
            self._by_id[ids] = plan

    def _start(self, tensors, t, tag0=0, what="topogen.torch.Gossip.mix_"):
        """Starts round t on the tensors (tags tag0 + bucket): a handle,
        or None when the round leaves them unchanged."""
        ts = tensors if isinstance(tensors, list) else list(tensors)
        plan = self._plan_for(ts, what)
        self_w, recv, send = self.plan(t)
        if not ts or (not recv and not send and self_w == 1.0):
            return None
        works, ops, sums = [], [], []
        ws = tuple(w for _, w in recv)
        for b in plan.buckets:
            b.grow(len(recv))
            b.pack()
            tag = tag0 + b.tag
            if self._pg is not None:
                pg = self._pg
                for (j, _), buf in zip(recv, b.inbox):
                    works.append(pg.recv([buf], j, tag))
                for j in send:
                    works.append(pg.send([b.flat], j, tag))
            else:
                for (j, _), buf in zip(recv, b.inbox):
                    ops.append(dist.P2POp(dist.irecv, buf, self._peer(j),
                                          self.group, tag))
                for j in send:
                    ops.append(dist.P2POp(dist.isend, b.flat, self._peer(j),
                                          self.group, tag))
            if not b.inplace:
                sums.append(functools.partial(_mix, b, self_w, ws))
        if ops:
            works = dist.batch_isend_irecv(ops)
        if not self.interruptible:
            job = _Job(works, sums, inline=True)
        else:
            if self._waiter is None:
                self._waiter = _WaitThread()
            job = self._waiter.submit(works, sums)
        return _Handle(self, plan, job, self_w, ws)

    @torch.no_grad()
    def mix_(self, tensors, async_op=False):
        """One gossip round in place on a list (or iterable, e.g.
        model.parameters()) of floating-point tensors, the same shapes and
        dtypes on every worker; then the next round. async_op=True
        returns a handle at once and handle.wait() writes
        x_i <- sum_j W_ij x_j into the tensors: leave them unchanged until
        then (reading them, e.g. a forward and backward pass, is fine);
        one round may be pending at a time.

        The first call with a list of tensors checks them (dtypes; the
        same shapes on every worker) and builds its plan: one flat
        buffer per (dtype, device) (none when that is one contiguous
        tensor: it is sent as is), one receive buffer per neighbour.
        Later calls with the same tensors (the same memory, shapes and
        strides) reuse it: no check, no allocation; the tensors are
        packed with one torch.cat, sent as one message per neighbour
        and summed in place with foreach ops. Up to cache_size (16)
        lists are remembered (their buffers with them)."""
        if self._pending is not None:
            raise RuntimeError("topogen.torch.Gossip.mix_: the previous "
                               "async round is still pending (call its "
                               "wait() first)")
        h = self._start(tensors, self.round)
        self.round += 1
        if h is None:
            return _Done() if async_op else None
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
            tensors = self._params(params) + self.buffers
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
        _init_step_hooks(self)

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
    """Gradient tracking (Pu and Nedic 2021) in the adapt-then-combine
    form of K-GT (Liu, Lin, Koloskova, Stich 2023), as dpsgd-train's
    --algorithm gt (train/core/dt_algo.h), around any torch optimizer.
    Each worker keeps a correction c_i (gradient units, starting at 0)
    and the sum hs_i of its directions since the last communication:

        h_i  = g_i + wd x_i          (wd: an SGD group's weight_decay, as
                                      SGD adds it; 0 for other optimizers)
        p.grad <- g_i + c_i;  opt.step()       (SGD: v <- mu v + h + c;
                                                x <- x - lr v)
        hs_i += h_i

    and every `period` (L) steps, after the local step, x and c + hbar
    (hbar = hs / L) gossiped together in one round:

        x_i <- sum_j W_ij x_j;  c_i <- sum_j W_ij (c_j + hbar_j) - hbar_i

    sum_i c_i stays 0, so at a fixed point sum_i h_i = 0 (the optimum of
    the mean loss, no heterogeneity bias). At L = 1 the tracker
    y = h + c obeys DSGT's y <- W y_prev + h - h_prev. Works on any
    topology with a doubly stochastic W_t (time-varying, directed files,
    EL-Oracle); bytes per round are twice D-PSGD's. Use in place of the
    optimizer: loss.backward(); gt.step(). The gradient handed to the
    inner optimizer is g + c (p.grad is overwritten)."""

    def __init__(self, optimizer, gossip, period=1):
        super().__init__(optimizer, gossip)
        if not isinstance(period, int) or period < 1:
            raise ValueError("GradientTracking: period must be a positive "
                             "integer (local steps per communication), not "
                             "%r" % (period,))
        self.period = period
        self.steps = 0  # local steps taken (the communication schedule)

    def _extra(self):
        return {"gossip": self.gossip.state_dict(), "steps": self.steps}

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self.steps = int(state_dict["topogen"].get("steps", 0))

    def _wd(self, group):
        if type(self.optimizer) is torch.optim.SGD:
            return float(group.get("weight_decay", 0.0))
        return 0.0

    @torch.no_grad()
    def step(self, closure=None, grad_scaler=None, async_op=False):
        """One K-GT step: the inner optimizer's step with g + c as the
        gradient, then (every period-th step) one gossip round of (x,
        c + hbar). A closure is evaluated first (its backward gives g).
        async_op=True leaves the round in flight and returns a handle
        (its .loss the closure's): handle.wait() writes x and c; call it
        before the parameters are read again (the next forward)."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        if not self._go(grad_scaler):
            return _StepHandle(None, loss) if async_op else loss
        params, cs, hss = [], [], []
        for group in self.optimizer.param_groups:
            wd = self._wd(group)
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.optimizer.state[p]
                if "gt_c" not in st:   # c_0 = 0, hs = 0
                    st["gt_c"] = torch.zeros_like(p)
                    st["gt_hs"] = torch.zeros_like(p)
                c, hs = st["gt_c"], st["gt_hs"]
                hs.add_(p.grad)
                if wd:
                    hs.add_(p, alpha=wd)
                p.grad.add_(c)
                params.append(p)
                cs.append(c)
                hss.append(hs)
        self.optimizer.step()
        self.steps += 1
        if self.steps % self.period:
            return _StepHandle(None, loss) if async_op else loss
        inv = 1.0 / self.period
        for c, hs in zip(cs, hss):
            if inv != 1.0:
                hs.mul_(inv)               # now hbar
            c.add_(hs)
        h = self.gossip.mix_(params + cs, async_op=True)

        def finish():
            h.wait()
            for c, hs in zip(cs, hss):
                c.sub_(hs)
                hs.zero_()
        if async_op:
            return _StepHandle(finish, loss)
        finish()
        return loss

    def __repr__(self):
        return "GradientTracking(%r, n=%d, period=%d)" % (
            self.optimizer, self.gossip.n, self.period)


class BackwardGossip(torch.optim.Optimizer):
    """D-PSGD in adapt-then-combine form with the step and the gossip
    started per bucket from gradient hooks while backward runs (as DDP
    starts its all-reduce per bucket):

        x_i <- sum_j W_ij (x_j - lr step_j)     (step: the optimizer's)

    params: a module or parameters; they are cut into buckets of about
    bucket_size elements in reverse order (the order backward produces
    their gradients). make_optimizer(params) makes one optimizer per
    bucket (e.g. lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9));
    when every gradient of a bucket has been accumulated (a hook on each
    parameter's AccumulateGrad node, as DDP's), its optimizer steps and
    its gossip round starts (tags of its own), so the exchange of the
    last layers runs while backward computes the first. step() waits
    the rounds (stepping and starting first any bucket whose hooks did
    not all fire: parameters without a gradient are left to the
    optimizer, which skips them) and writes the results:

        opt = topogen.torch.BackwardGossip(model, lambda ps:
                  torch.optim.SGD(ps, lr=0.05), topogen.torch.Gossip(t))
        for x, y in loader:
            opt.zero_grad()
            loss_fn(model(x), y).backward()   # steps + gossip per bucket
            opt.step()                        # waits: x <- W (x - lr g)

    A torch.optim.Optimizer: param_groups are the per-bucket
    optimizers' own group dicts (an LR scheduler sets them all),
    zero_grad, state_dict/load_state_dict (per bucket, and the gossip
    round). One backward per step (gradient accumulation over several
    backward passes is refused: the first would already have stepped);
    the hooks fire on every backward through the parameters until
    remove_hooks(). add_param_group and GradScaler are not
    supported."""

    def __init__(self, params, make_optimizer, gossip, bucket_size=2 ** 18):
        if isinstance(params, torch.nn.Module):
            params = params.parameters()
        params = [p for p in params if p.requires_grad]
        if not params:
            raise ValueError("BackwardGossip: no parameter requires grad")
        if not isinstance(gossip, Gossip):
            gossip = Gossip(gossip)
        if not isinstance(bucket_size, int) or bucket_size < 1:
            raise ValueError("BackwardGossip: bucket_size must be a positive "
                             "integer (elements), not %r" % (bucket_size,))
        self.gossip = gossip
        self.buckets = []
        cur, size = [], 0
        for p in reversed(params):
            cur.append(p)
            size += p.numel()
            if size >= bucket_size:
                self.buckets.append(cur)
                cur, size = [], 0
        if cur:
            self.buckets.append(cur)
        self.optimizers = []
        for b in self.buckets:
            o = make_optimizer(b)
            if not isinstance(o, torch.optim.Optimizer):
                raise TypeError("BackwardGossip: make_optimizer must return "
                                "a torch.optim.Optimizer, not %s" %
                                type(o).__name__)
            self.optimizers.append(o)
        self.defaults = self.optimizers[0].defaults
        self._ready = [0] * len(self.buckets)
        self._handles = [None] * len(self.buckets)
        self._launched = [False] * len(self.buckets)
        self._round = None
        # the buckets' plans made (and their shapes agreed across the
        # workers: a collective) here, in bucket order, not from hooks
        gossip.cache_size = max(gossip.cache_size, len(self.buckets) + 4)
        with torch.no_grad():
            for b in self.buckets:
                gossip._plan_for(b, "topogen.torch.BackwardGossip")
        self._nodes = []  # the AccumulateGrad nodes (kept alive)
        self._hooks = []
        with torch.enable_grad():
            for k, b in enumerate(self.buckets):
                for p in b:
                    node = p.expand_as(p).grad_fn.next_functions[0][0]
                    self._hooks.append(node.register_hook(
                        functools.partial(self._hook, k)))
                    self._nodes.append(node)
        _init_step_hooks(self)

    @property
    def param_groups(self):
        return [g for o in self.optimizers for g in o.param_groups]

    @property
    def state(self):
        st = {}
        for o in self.optimizers:
            st.update(o.state)
        return st

    def remove_hooks(self):
        """Removes the gradient hooks (they fire on every backward through
        the parameters, e.g. an evaluation's): the BackwardGossip is then
        unusable."""
        for h in self._hooks:
            h.remove()
        self._hooks, self._nodes = [], []

    def add_param_group(self, param_group):
        raise NotImplementedError("BackwardGossip: add_param_group is not "
                                  "supported (its buckets and hooks are "
                                  "made once): make a new BackwardGossip")

    def zero_grad(self, set_to_none=None):
        for o in self.optimizers:
            if set_to_none is None:
                o.zero_grad()
            else:
                o.zero_grad(set_to_none=set_to_none)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        return "BackwardGossip(%d buckets, %r, n=%d)" % (
            len(self.buckets), self.optimizers[0], self.gossip.n)

    def state_dict(self):
        return {"buckets": [o.state_dict() for o in self.optimizers],
                "topogen": {"gossip": self.gossip.state_dict()}}

    def load_state_dict(self, state_dict):
        sds = state_dict.get("buckets")
        if sds is None or len(sds) != len(self.optimizers):
            raise ValueError("BackwardGossip.load_state_dict: a state_dict "
                             "of a BackwardGossip with %d buckets is needed"
                             % len(self.optimizers))
        for o, sd in zip(self.optimizers, sds):
            o.load_state_dict(sd)
        self.gossip.load_state_dict(state_dict["topogen"]["gossip"])

    def _hook(self, k, *_):
        if self._launched[k]:
            raise RuntimeError(
                "topogen.torch.BackwardGossip: a second backward before "
                "step(): bucket %d has already stepped and started its "
                "gossip (gradient accumulation over several backward "
                "passes is not supported)" % k)
        self._ready[k] += 1
        if self._ready[k] == len(self.buckets[k]):
            self._launch(k)

    @torch.no_grad()
    def _launch(self, k):
        if self._round is None:
            self._round = self.gossip.round
        self._launched[k] = True
        self.optimizers[k].step()
        self._handles[k] = self.gossip._start(
            self.buckets[k], self._round, tag0=16 * k,
            what="topogen.torch.BackwardGossip")

    @torch.no_grad()
    def step(self, closure=None):
        """Runs the closure (its backward starts the buckets), starts any
        bucket not started, waits every round; returns the closure's
        loss."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        try:
            for k in range(len(self.buckets)):
                if not self._launched[k]:
                    self._launch(k)
            for k, h in enumerate(self._handles):
                if h is not None:
                    h.wait()
        finally:
            self._handles = [None] * len(self.buckets)
            self._ready = [0] * len(self.buckets)
            self._launched = [False] * len(self.buckets)
            if self._round is not None:
                self.gossip.round = self._round + 1
            self._round = None
        return loss

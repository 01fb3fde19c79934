"""topogen.torch: gossip averaging on a topogen topology over
torch.distributed (any backend: gloo on CPUs, nccl on GPUs).

One worker per process: the process group's world size is the
topology's n and worker i is the process of rank i in the group. One
round of gossip replaces worker i's tensors x_i by

    x_i <- W_ii x_i + sum_j W_ij x_j      (j ascending, W_ij != 0)

with the topology's weights: each worker sends its tensors to every j
with W_ji != 0 and receives from every j with W_ij != 0, in one
batch_isend_irecv. Tensors are packed into one buffer per (dtype,
device), so a model's parameters cost one message per neighbour and
round. A time-varying topology advances to its next round after each
mix_; a directed one works the same way (W need not be symmetric).

D-PSGD (Lian et al. 2017) with a torch optimizer, x_i <- sum_j W_ij x_j
- lr * step_i (the step computed at the unmixed x_i):

    gossip = topogen.torch.Gossip("topo.txt")     # or a Topology
    for x, y in loader:                           # this worker's shard
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        gossip.mix_(model.parameters())
        opt.step()

Start every worker from the same parameters (e.g. the same seed, or a
broadcast from rank 0), as dpsgd-train does.
"""
import os

import numpy as np
import torch
import torch.distributed as dist

import topogen as _tg

__all__ = ["Gossip"]


class Gossip:
    """Gossip averaging with a topology's weights.

    topology: a topogen.Topology, a path that topogen.load reads, or
    any object with .n and .Ws (a (P, n, n) array of row-stochastic W).
    group: the process group (default: the whole world); its size must
    be the topology's n. Worker i is the process of rank i in the group.
    """

    def __init__(self, topology, group=None):
        if isinstance(topology, (str, bytes, os.PathLike)):
            topology = _tg.load(os.fspath(topology))
        if not dist.is_initialized():
            raise RuntimeError("topogen.torch.Gossip: call "
                               "torch.distributed.init_process_group first")
        self.group = group
        size = dist.get_world_size(group)
        if size != topology.n:
            raise ValueError("topogen.torch.Gossip: the topology has %d "
                             "nodes but the process group %d processes "
                             "(one worker per process)" % (topology.n, size))
        self.worker = dist.get_rank(group)
        self.topology = topology
        self.round = 0
        i = self.worker
        self._plan = []  # per round: (self weight, [(j, W_ij)], [send to])
        for w in topology.Ws:
            recv = [(int(j), float(w[i, j])) for j in np.nonzero(w[i])[0]
                    if j != i]
            send = [int(j) for j in np.nonzero(w[:, i])[0] if j != i]
            self._plan.append((float(w[i, i]), recv, send))

    @property
    def rounds(self):
        """Rounds per period of the topology (1 when static)."""
        return len(self._plan)

    def _peer(self, j):
        if self.group is None:
            return j
        return dist.get_global_rank(self.group, j)

    @torch.no_grad()
    def mix_(self, tensors):
        """One gossip round in place on a list (or iterable, e.g.
        model.parameters()) of tensors, the same shapes and dtypes on
        every worker; then the next round of a time-varying topology."""
        tensors = [t.data if isinstance(t, torch.nn.Parameter) else t
                   for t in tensors]
        self_w, recv, send = self._plan[self.round % len(self._plan)]
        self.round += 1
        if not tensors or (not recv and not send and self_w == 1.0):
            return
        buckets = {}
        for t in tensors:
            buckets.setdefault((t.dtype, t.device), []).append(t)
        packed = []
        for (dtype, device), ts in buckets.items():
            flat = torch.cat([t.reshape(-1) for t in ts])
            packed.append((ts, flat))
        ops, inbox = [], []
        for tag, (ts, flat) in enumerate(packed):
            got = []
            for j, _ in recv:
                buf = torch.empty_like(flat)
                got.append(buf)
                ops.append(dist.P2POp(dist.irecv, buf, self._peer(j),
                                      self.group, tag))
            for j in send:
                ops.append(dist.P2POp(dist.isend, flat, self._peer(j),
                                      self.group, tag))
            inbox.append(got)
        if ops:
            for req in dist.batch_isend_irecv(ops):
                req.wait()
        for (ts, flat), got in zip(packed, inbox):
            acc = flat * self_w
            for (j, w), buf in zip(recv, got):
                acc.add_(buf, alpha=w)
            off = 0
            for t in ts:
                k = t.numel()
                t.copy_(acc[off:off + k].view_as(t))
                off += k

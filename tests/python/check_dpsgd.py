"""check_dpsgd.py: D-PSGD in PyTorch with topogen.torch.Gossip lands within
1.5 points of dpsgd-train's test accuracy for the same settings.

Both train LeNet-5 on Fashion-MNIST for one epoch with 16 workers on the
same learned topology (topogen -n 16 -d 4), batch 32, lr 0.02 (the
trainer's default) with its per-step cosine schedule
lr_t = lr (1 + cos(pi t/T))/2, momentum 0.9, weight decay 5e-4, all
workers from one initialization x_0: He-uniform weights (U(-a, a),
a = sqrt(6 / fan_in)) and zero biases drawn by torch from the seed and
written as a safetensors file that dpsgd-train starts from
(--init-model). One shared x_0 matters: some draws start slowly (torch
seed 2 at lr 0.05: 0.61 in dpsgd-train, 0.68 in torch, against ~0.80 for
others), and from such a start one epoch is too short for any two runs
to agree. dpsgd-train runs as `mpirun -np 4` (16 workers on 4 ranks).
The PyTorch run is an independent implementation of the same algorithm:
16 gloo processes on 127.0.0.1 (Gossip is one worker per process), each
with:

  - data as dpsgd-train prepares it (train/data/dt_partition.c,
    dt_workers.c): pixels (p/255 - mean)/std with the training set's
    population mean and std; iid shards: one shuffled permutation of the
    60,000 images dealt in near-equal consecutive blocks, each shard
    sorted; each worker walks its shard in a fresh shuffle per pass and
    a minibatch never wraps a pass; T = floor(60000 / (16 x 32)) = 117
    steps (the trainer's epoch);
  - x_0 from the same file;
  - a step: the gradient at x_i, gossip.mix_(parameters), then
    torch.optim.SGD's momentum step, i.e. x_i <- sum_j W_ij x_j - lr v_i
    with v_i <- mu v_i + g_i + wd x (wd on the mixed x: the trainer
    takes the unmixed one, a 5e-4-sized difference);
  - the test accuracy of the average model mean_i x_i (an all_reduce in
    float64), on the 10,000 test images.

The shards and minibatch orders come from numpy's generator, not the
trainer's cm_rng, so the runs agree in distribution, not in bits: the
accuracy is compared, within 1.5 points. Threads: one per process.

usage: check_dpsgd.py BIN TMPDIR [DATA_DIR] [SEED]  (seed of both runs: 1)
prints: "dpsgd-train ACC", "torch ACC", "difference D points"
"""
import gzip
import math
import os
import re
import socket
import struct
import subprocess
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn

import topogen
import topogen.torch

N, BATCH, LR, MOM, WD, SEED = 16, 32, 0.02, 0.9, 5e-4, 1
TOL = 1.5  # points


def idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    return np.frombuffer(raw, dtype=np.uint8,
                         offset=4 + 4 * dims).reshape(shape)


def lenet():
    net = nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
        nn.Linear(84, 10))
    with torch.no_grad():
        for m in net:
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                a = math.sqrt(6.0 / (m.weight[0].numel()))
                m.weight.uniform_(-a, a)
                m.bias.zero_()
    return net


def save_safetensors(net, path):
    """net's state_dict as a safetensors file (F32, little-endian)."""
    import json
    head, blobs, off = {}, [], 0
    for name, t in net.state_dict().items():
        b = t.detach().numpy().astype("<f4").tobytes()
        head[name] = {"dtype": "F32", "shape": list(t.shape),
                      "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(head).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def initial(seed):
    torch.manual_seed(seed)
    return lenet()


def pixel_stats(images):
    """Population mean and std of p/255 over every training pixel."""
    cnt = np.bincount(images.reshape(-1), minlength=256).astype(np.float64)
    v = np.arange(256) / 255.0
    mean = (cnt * v).sum() / cnt.sum()
    return mean, math.sqrt((cnt * (v - mean) ** 2).sum() / cnt.sum())


def shard(n_images, w):
    """Worker w's iid shard: block w of one shuffled permutation, sorted."""
    perm = np.random.default_rng(SEED).permutation(n_images)
    q, r = divmod(n_images, N)
    first = w * q + min(w, r)
    return np.sort(perm[first:first + q + (w < r)])


# The training set, read once by the parent before it forks the workers
# (each worker reading and normalising it again cost 16 x 3 CPU-s)
TRAIN = None


def worker(rank, topo, data, port, out):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port,
                            rank=rank, world_size=N)
    gossip = topogen.torch.Gossip(topo)
    images, labels, mean, std = TRAIN
    mine = shard(len(images), rank)
    x = torch.from_numpy(((images[mine] / 255.0 - mean) / std)
                         .astype(np.float32)[:, None])
    y = torch.from_numpy(labels[mine].astype(np.int64))
    net = initial(SEED)  # the same x_0 on every worker (and dpsgd-train)
    opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=MOM,
                          weight_decay=WD)
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng([SEED, 2 + rank])
    steps = len(labels) // (N * BATCH)
    order, pos = None, len(y)
    for t in range(steps):
        if pos + BATCH > len(y):  # a minibatch never wraps: a new pass
            order, pos = torch.from_numpy(rng.permutation(len(y))), 0
        b = order[pos:pos + BATCH]
        pos += BATCH
        for g in opt.param_groups:
            g["lr"] = LR * 0.5 * (1.0 + math.cos(math.pi * t / steps))
        opt.zero_grad()
        loss_fn(net(x[b]), y[b]).backward()
        gossip.mix_(net.parameters())
        opt.step()
    with torch.no_grad():  # the average model, in float64
        flat = torch.cat([p.reshape(-1).double() for p in net.parameters()])
        dist.all_reduce(flat)
        flat /= N
        off = 0
        for p in net.parameters():
            p.copy_(flat[off:off + p.numel()].view_as(p))
            off += p.numel()
    if rank == 0:
        tx = idx(os.path.join(data, "t10k-images-idx3-ubyte.gz"))
        ty = torch.from_numpy(idx(os.path.join(
            data, "t10k-labels-idx1-ubyte.gz")).astype(np.int64))
        xt = torch.from_numpy(((tx / 255.0 - mean) / std)
                              .astype(np.float32)[:, None])
        with torch.no_grad():
            acc = (net(xt).argmax(1) == ty).double().mean().item()
        with open(out, "w") as f:
            f.write("%.4f %d\n" % (acc, steps))
    dist.barrier()
    dist.destroy_process_group()


def main():
    torch.set_num_threads(1)  # no thread pool in the parent: it forks
    bin_, tmp = sys.argv[1], sys.argv[2]
    global SEED
    data = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else \
        "/usr/share/datasets/fashion-mnist"
    if len(sys.argv) > 4:
        SEED = int(sys.argv[4])
    topo = os.path.join(tmp, "t16.txt")
    subprocess.run([os.path.join(bin_, "topogen"), "-n", str(N), "-d", "4",
                    "-q", "-o", topo], check=True)
    x0 = os.path.join(tmp, "x0.safetensors")
    save_safetensors(initial(SEED), x0)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    run = subprocess.run(
        ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to",
         "none", "-np", "4", os.path.join(bin_, "dpsgd-train"),
         "--topology", topo, "--data", data, "--epochs", "1", "--batch",
         str(BATCH), "--lr", str(LR), "--momentum", str(MOM),
         "--weight-decay", str(WD), "--schedule", "cosine", "--seed",
         str(SEED), "--init-model", x0, "--quiet"], env=env, check=True,
        capture_output=True, text=True)
    m = re.search(r"^final:.*test_acc ([0-9.]+)", run.stdout, re.M)
    if not m:
        sys.exit("check_dpsgd: no final line from dpsgd-train:\n" +
                 run.stdout + run.stderr)
    ours = float(m.group(1))
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        port = so.getsockname()[1]
    out = os.path.join(tmp, "torch_acc")
    # forked, not spawned: the workers inherit torch, imported once, and
    # the training set (copy-on-write); the parent has run no threads
    global TRAIN
    images = idx(os.path.join(data, "train-images-idx3-ubyte.gz"))
    TRAIN = (images, idx(os.path.join(data, "train-labels-idx1-ubyte.gz")),
             *pixel_stats(images))
    mp.start_processes(worker, args=(topo, data, port, out), nprocs=N,
                       join=True, start_method="fork")
    theirs, steps = open(out).read().split()
    theirs = float(theirs)
    diff = 100.0 * abs(theirs - ours)
    print("dpsgd-train %.4f (mpirun -np 4, 16 workers, seed %d)" %
          (ours, SEED))
    print("torch %.4f (16 gloo processes, %s steps)" % (theirs, steps))
    print("difference %.2f points (at most %.1f)" % (diff, TOL))
    if not diff <= TOL:
        print("check_dpsgd: FAILED")
        sys.exit(1)
    print("check_dpsgd: passed")


if __name__ == "__main__":
    main()

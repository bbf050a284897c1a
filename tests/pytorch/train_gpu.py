"""A small CNN trained on the GPU for 12 steps, in bf16 autocast so that
its convolutions and matrix products can run on tensor cores.

  train_gpu.py profiler DIR   under torch.profiler (CPU and CUDA
                              activities): tensorboard_trace_handler's
                              traces land in DIR
  train_gpu.py nvtx           under emit_nvtx (an NVTX range per op, with
                              shapes) and an NVTX range "iteration" per
                              step: what `dlprof python train_gpu.py nvtx`
                              collects through CUPTI and NVTX
  train_gpu.py check          exits 0 when CUDA is usable, else 1
"""
import sys

import torch
import torch.nn as nn

STEPS = 12

if len(sys.argv) < 2 or sys.argv[1] not in ("profiler", "nvtx", "check"):
    print(__doc__)
    sys.exit(2)
if sys.argv[1] == "check":
    sys.exit(0 if torch.cuda.is_available() else 1)

torch.manual_seed(0)
dev = torch.device("cuda")
model = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.Flatten(),
                      nn.Linear(64 * 16 * 16, 256), nn.ReLU(), nn.Linear(256, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 3, 32, 32, device=dev)
y = torch.randint(0, 10, (64,), device=dev)


def train_step():
    opt.zero_grad()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()


train_step()  # cuDNN and cuBLAS pick their algorithms outside the profile
torch.cuda.synchronize()

if sys.argv[1] == "profiler":
    from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=6), record_shapes=True,
                 on_trace_ready=tensorboard_trace_handler(sys.argv[2])) as prof:
        for _ in range(STEPS):
            train_step()
            prof.step()
else:
    with torch.autograd.profiler.emit_nvtx(record_shapes=True):
        for _ in range(STEPS):
            torch.cuda.nvtx.range_push("iteration")
            train_step()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()

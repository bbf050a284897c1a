"""A small CNN trained for 12 steps under torch.profiler, exactly as a new
user would profile it: the traces tensorboard_trace_handler writes land in
argv[1]; with argv[2], the autograd profiler's legacy trace of one more step
(export_chrome_trace) is written there too."""
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

torch.manual_seed(0)
torch.set_num_threads(1)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Linear(8 * 8 * 8, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(4, 3, 16, 16)
y = torch.randint(0, 10, (4,))


def train_step():
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()


with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=6),
             record_shapes=True, with_stack=True,
             on_trace_ready=tensorboard_trace_handler(sys.argv[1])) as prof:
    for _ in range(12):
        train_step()
        prof.step()

if len(sys.argv) > 2:
    with torch.autograd.profiler.profile() as legacy:
        train_step()
    legacy.export_chrome_trace(sys.argv[2])

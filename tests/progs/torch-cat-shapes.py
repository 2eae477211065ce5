"""torch-cat-shapes.py TRACE OUT_JSON - ops that take a tensor list (torch.cat, torch.stack of
growing lists, as a decode loop's KV cache does) and others, profiled with record_shapes=True;
writes the chrome trace to TRACE and torch's own key_averages(group_by_input_shape=True) rows
(name, str(input_shapes), count) to OUT_JSON, for t704."""
import json, sys, warnings
warnings.filterwarnings("ignore")
import torch
from torch.profiler import profile, ProfilerActivity
torch.set_num_threads(1)
k = [torch.randn(1, 4, 8) for _ in range(2)]
with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as p:
    for step in range(1, 17):
        k = [torch.cat([k[0], torch.randn(1, 4, 8)], dim=1), k[1]]
        s = torch.stack([torch.randn(3, step), torch.randn(3, step)])
        torch.mm(torch.randn(step, 8), torch.randn(8, 4))
p.export_chrome_trace(sys.argv[1])
rows = [{"name": e.key, "input_shapes": str(e.input_shapes), "count": e.count}
        for e in p.key_averages(group_by_input_shape=True)]
json.dump(rows, open(sys.argv[2], "w"))

"""torch-prof.py - a small torch CPU model profiled with torch.profiler (export_chrome_trace to
argv[1]), for t309: its ops and latscope trace --cpu samples of the same run are merged."""
import sys, torch
torch.set_num_threads(1)
from torch.profiler import profile, ProfilerActivity
m = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3), torch.nn.ReLU(), torch.nn.Conv2d(16, 32, 3), torch.nn.Flatten(), torch.nn.Linear(32 * 60 * 60, 10)).eval()
x = torch.randn(4, 3, 64, 64)
with torch.no_grad():
    m(x)
    with profile(activities=[ProfilerActivity.CPU]) as p:
        for _ in range(30):
            m(x)
p.export_chrome_trace(sys.argv[1])

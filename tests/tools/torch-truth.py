"""torch-truth.py OUTDIR - profile a small real torch model on CPU and save what latscope must
reproduce (tests/e2e/t158-analyze-torch-live.sh):

  OUTDIR/live.pt.trace.json          the Kineto trace (torch.profiler, schedule wait 1 warmup 1
                                     active 3; record_shapes, with_stack, profile_memory)
  OUTDIR/live.key_averages.json      prof.key_averages(): per row name, count, CPU total, self
                                     CPU, CPU Mem, Self CPU Mem; and the ProfilerStep durations
  OUTDIR/live.shapes.json            prof.key_averages(group_by_input_shape=True) rows

The program has what the corpus traces lack: record_function regions (model_forward,
postprocess, a region nested in one of its own name), a DataLoader (num_workers=0: its
`enumerate(DataLoader)#...__next__` region), Python work between ops, an op nested in itself
(adaptive_avg_pool2d -> mean -> div_ -> div_) and a second Python thread running ops.
Test-only (Python is never needed by latscope itself).
"""
import json, os, sys, threading
import torch
import torch.nn as nn
from torch.profiler import profile, ProfilerActivity, schedule, record_function

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
torch.set_num_threads(1)

model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                      nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(8, 10)).eval()


class DS(torch.utils.data.Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, i):
        rows = [[float((r * c + i) % 7) for c in range(16)] for r in range(16)]  # Python work
        return torch.tensor(rows).unsqueeze(0).expand(3, -1, -1).contiguous()


it = iter(torch.utils.data.DataLoader(DS(), batch_size=2, num_workers=0))
stop = threading.Event()


def side_thread():
    x = torch.randn(64, 64)
    with torch.inference_mode():
        while not stop.is_set():
            (x @ x).relu_().sum()


@torch.inference_mode()
def step():
    x = next(it)
    with record_function("model_forward"):
        y = model(x)
    with record_function("postprocess"):
        with record_function("postprocess"):  # nested in itself: one row, as torch counts it
            s = sum(hash(str(k)) % 7 for k in range(2000))
            y.softmax(-1).topk(3)
    return s


step()
th = threading.Thread(target=side_thread, daemon=True)
th.start()
done = {}


def handler(p):
    p.export_chrome_trace(os.path.join(out, "live.pt.trace.json"))
    ka = p.key_averages()
    rows = [dict(name=e.key, count=e.count, cpu_time_total_us=e.cpu_time_total,
                 self_cpu_time_total_us=e.self_cpu_time_total,
                 cpu_memory_usage=e.cpu_memory_usage,
                 self_cpu_memory_usage=e.self_cpu_memory_usage) for e in ka]
    steps = [dict(name=ev.name, start_us=ev.time_range.start, dur_us=ev.time_range.elapsed_us())
             for ev in p.events() if ev.name.startswith("ProfilerStep")]
    with open(os.path.join(out, "live.key_averages.json"), "w") as f:
        json.dump(dict(ops=rows, steps=steps, torch=torch.__version__), f, indent=1)
    shp = [dict(name=e.key, input_dims=json.dumps(e.input_shapes, separators=(",", ":")),
                count=e.count, cpu_time_total_us=e.cpu_time_total,
                self_cpu_time_total_us=e.self_cpu_time_total)
           for e in p.key_averages(group_by_input_shape=True)]
    with open(os.path.join(out, "live.shapes.json"), "w") as f:
        json.dump(shp, f, indent=1)
    done["ok"] = True


with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=True,
             profile_memory=True, schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
             on_trace_ready=handler) as prof:
    for i in range(5):
        step()
        prof.step()
stop.set()
th.join()
print(f"torch {torch.__version__}: trace ok={done.get('ok')}", flush=True)
sys.exit(0 if done.get("ok") else 1)

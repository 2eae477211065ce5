"""torch-doctor-traces.py OUTDIR [compiled|decode|all] - small real torch CPU traces for the
doctor's regression tests (tests/e2e/t73x-*.sh):

  OUTDIR/compiled.pt.trace.json   a torch.compile'd MLP (Inductor's C++ on CPU: needs a C
                                  compiler), torch.profiler with a schedule (wait 1, warmup 1,
                                  active 3), record_shapes, with_stack
  OUTDIR/decode.pt.trace.json     a with_stack decode loop: per ProfilerStep a Python `step`
                                  function calls short Python helpers around record_function
                                  ranges that start inside them and end after they return
                                  (the shape that broke doctor's Python self time)
  OUTDIR/truth.json               per trace: the Python functions' self time per step computed
                                  here from the "Python id"/"Python parent id" args (duration
                                  minus the Python children, minus the op/region time inside
                                  it that its Python children do not hold)

Test-only (Python is never needed by latscope itself).
"""
import json, os, sys
import torch
import torch.nn as nn
from torch.profiler import profile, ProfilerActivity, schedule, record_function

out = sys.argv[1]
what = sys.argv[2] if len(sys.argv) > 2 else "all"
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
torch.set_num_threads(1)


def prof(path, fn, steps=5):
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=True,
                 schedule=schedule(wait=1, warmup=1, active=3)) as p:
        for _ in range(steps):
            fn()
            p.step()
    p.export_chrome_trace(path)


def compiled():
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10)).eval()
    cm = torch.compile(model)
    x = torch.randn(32, 256)
    with torch.inference_mode():
        for _ in range(3):
            cm(x)  # compile outside the profile

        def step():
            with torch.inference_mode():
                cm(x)
        prof(os.path.join(out, "compiled.pt.trace.json"), step)


def decode():
    emb = torch.randn(64, 32)
    w = torch.randn(32, 32)

    def sample(h):
        # a short Python call: the range it opens outlives it
        r = record_function("sample_token")
        r.__enter__()
        return r, h.sum(-1)

    def step():
        tok = [1]
        for _ in range(8):
            h = emb[tok[-1] % 64] @ w
            r, s = sample(h)
            t = int(s.abs().item() * 1000) % 64
            h.relu()
            r.__exit__(None, None, None)
            tok.append(t)
        return tok
    prof(os.path.join(out, "decode.pt.trace.json"), step)


def truth(path):
    d = json.load(open(path))
    evs = [e for e in d["traceEvents"] if e.get("ph") == "X"]
    steps = [e for e in evs if e["name"].startswith("ProfilerStep#")]
    py = [e for e in evs if e.get("cat") == "python_function"]
    other = [e for e in evs if e.get("cat") in ("cpu_op", "user_annotation")
             and not e["name"].startswith("ProfilerStep#")]
    byid = {e["args"]["Python id"]: e for e in py}
    kids = {}
    for e in py:
        kids.setdefault(e["args"].get("Python parent id"), []).append(e)

    def cover(tid, a, b):
        iv = sorted((max(a, o["ts"]), min(b, o["ts"] + o["dur"])) for o in other
                    if o["tid"] == tid and o["ts"] < b and o["ts"] + o["dur"] > a)
        tot, cur_a, cur_b = 0, None, None
        for x, y in iv:
            if cur_b is None or x > cur_b:
                if cur_b is not None:
                    tot += cur_b - cur_a
                cur_a, cur_b = x, y
            else:
                cur_b = max(cur_b, y)
        if cur_b is not None:
            tot += cur_b - cur_a
        return tot

    res = {}
    for st in steps:
        a, b = st["ts"], st["ts"] + st["dur"]
        for e in py:
            if e["tid"] != st["tid"] or not (a <= e["ts"] < b):
                continue
            ea, eb = e["ts"], min(e["ts"] + e["dur"], b)
            s = (eb - ea) - cover(e["tid"], ea, eb)
            for k in kids.get(e["args"]["Python id"], []):
                ka, kb = max(ea, k["ts"]), min(eb, k["ts"] + k["dur"])
                if kb > ka:
                    s -= (kb - ka) - cover(e["tid"], ka, kb)
            res[e["name"]] = res.get(e["name"], 0) + s
    n = len(steps) or 1
    return {k: v / n for k, v in res.items()}, len(steps)


T = {}
if what in ("compiled", "all"):
    compiled()
if what in ("decode", "all"):
    decode()
for name in ("compiled", "decode"):
    p = os.path.join(out, name + ".pt.trace.json")
    if os.path.exists(p):
        per, n = truth(p)
        T[name] = {"steps": n, "python_self_us_per_step": per}
json.dump({"torch": torch.__version__, "traces": T}, open(os.path.join(out, "truth.json"), "w"),
          indent=1)

"""cpu-pyshare.py TRACE.json[.gz] - of a `latscope trace --cpu` trace, the main-thread (tid == pid)
on-CPU samples and how many hold a Python frame ("py:" in args.stack): the share issue 35's
>= 95 % target is about, counted from the events independently of the sampler's own counters
(docs/truth-cpu.md, "The CPU sampler's Python frames")."""
import gzip
import json
import sys

path = sys.argv[1]
with (gzip.open(path) if path.endswith(".gz") else open(path)) as f:
    doc = json.load(f)
n = py = 0
for e in doc["traceEvents"]:
    if e.get("cat") != "cpu_sample" or e.get("ph") != "i" or e.get("pid") != e.get("tid"):
        continue
    n += 1
    py += "py:" in e.get("args", {}).get("stack", "")
print("main-thread on-CPU samples %d, with Python frames %d (%.1f %%)" % (n, py, 100.0 * py / max(n, 1)))

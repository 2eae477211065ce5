#!/usr/bin/env python3
"""torch-shape-groups.py TRACE LATSCOPE_JSON - checks latscope's ops_by_shape rows of the ops
that take a tensor list against torch's own grouping rule, computed here from the trace alone:
key_averages(group_by_input_shape=True) keys an event by (name, str(input_shapes)), and
input_shapes keeps a tensor's sizes only: a tensor list (and a scalar) is [] (torch/csrc/
autograd/profiler_kineto.cpp, parseArgData: shapesForKinetoEvent), while the trace's "Input Dims"
lists a tensor list's shapes when concrete inputs are recorded. For every op name with such a
nested list in some call: latscope's rows of that name (count per key) must equal the calls per
torch key counted here. Python standard library only; exit 1 on any difference.
"""
import collections
import gzip
import json
import sys

trace, out = sys.argv[1], sys.argv[2]
d = json.load(gzip.open(trace) if trace.endswith(".gz") else open(trace))
evs = d["traceEvents"] if isinstance(d, dict) else d


def torch_key(dims):
    return [[] if isinstance(x, list) and x and isinstance(x[0], list) else x for x in dims]


want = collections.defaultdict(collections.Counter)
names = set()
for e in evs:
    if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") != "cpu_op":
        continue
    dims = (e.get("args") or {}).get("Input Dims")
    if not isinstance(dims, list):
        continue
    if any(isinstance(x, list) and x and isinstance(x[0], list) for x in dims):
        names.add(e["name"])
    want[e["name"]][json.dumps(torch_key(dims), separators=(",", ":"))] += 1
if not names:
    sys.exit(f"{trace}: no op with a tensor-list input: nothing to check")
rows = json.load(open(out))["ranks"][0]["ops_by_shape"]
fails = []
for n in sorted(names):
    got = collections.Counter()
    for r in rows:
        if r["name"] == n:
            got[r["input_dims"]] += r["count"]
    if got != want[n]:
        fails.append(f"{n}: latscope {dict(got)}, torch's grouping {dict(want[n])}")
for f in fails:
    print(f"{trace}: {f}")
print(f"{trace}: {len(names)} op(s) with tensor-list inputs checked: {sorted(names)}", file=sys.stderr)
sys.exit(1 if fails else 0)

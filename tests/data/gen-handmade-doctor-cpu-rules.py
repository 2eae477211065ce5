#!/usr/bin/env python3
"""Writes the hand-made CPU-only traces of the doctor's CPU-inference rules
(tests/data/handmade-doctor-cpurule-*.json). Run from the repository root; the outputs are
committed, this script only documents how they were made. All times are µs; one thread
(pid 1, tid 1); every step is a ProfilerStep#N user_annotation."""
import json

COMMENT = "hand-made for latscope's doctor tests (gen-handmade-doctor-cpu-rules.py); not from a real program"


class T:
    def __init__(self):
        self.ev = []
        self.t = 0.0

    def x(self, cat, name, ts, dur, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur}
        if args:
            e["args"] = args
        self.ev.append(e)

    def op(self, name, ts, dur):
        self.x("cpu_op", name, ts, dur)

    def step(self, num, dur):
        self.x("user_annotation", f"ProfilerStep#{num}", self.t, dur)
        s = self.t
        self.t += dur
        return s

    def mem(self, ts, nbytes, total):
        self.ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                        "pid": 1, "tid": 1, "ts": ts,
                        "args": {"Total Reserved": 0, "Total Allocated": total, "Bytes": nbytes,
                                 "Device Id": -1, "Device Type": 0, "Addr": 4096 + int(ts)}})

    def write(self, name):
        with open(f"tests/data/handmade-doctor-cpurule-{name}.json", "w") as f:
            f.write('{"schemaVersion": 1, "deviceProperties": [],\n"comment": "%s",\n"traceEvents": [\n' % COMMENT)
            f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in self.ev))
            f.write("\n]}\n")


def ops_seq(t, s, seq):
    """seq: list of (name, calls, us per call); ops back to back from s + 10."""
    ts = s + 10
    for name, calls, d in seq:
        for _ in range(calls):
            t.op(name, ts, d)
            ts += d
    return ts


# python: 10 ops x 200 us in a 10 ms step: 80 % outside any op. neg: 10 x 950 us (5 %).
for name, d in (("python", 200), ("python-neg", 950)):
    t = T()
    for n in range(6):
        s = t.step(n, 10000)
        ops_seq(t, s, [("aten::linear", 10, d)])
    t.write(name)

# contention: 6 steps of conv 4 x 1000, relu 4 x 100, add 2 x 100 (4.6 of 5 ms). Step #0 (the
# first) runs relu at 800 us/call and add at 700 us/call (same calls): 8x and 7x slower, conv
# 2x. That is contention, not warm-up. warmup (the negative): step #0 does more work instead
# (conv 8 calls at the usual 1000 us), per-call times unchanged: warm-up.
for name in ("contention", "warmup"):
    t = T()
    for n in range(6):
        slow = n == 0
        if name == "contention" and slow:
            seq = [("aten::conv2d", 4, 2000), ("aten::relu", 4, 800), ("aten::add", 2, 700)]
        elif slow:
            seq = [("aten::conv2d", 8, 1000), ("aten::relu", 4, 100), ("aten::add", 2, 100)]
        else:
            seq = [("aten::conv2d", 4, 1000), ("aten::relu", 4, 100), ("aten::add", 2, 100)]
        dur = sum(c * d for _, c, d in seq) + 400
        s = t.step(n, dur)
        ops_seq(t, s, seq)
    t.write(name)

# preprocessing: a "preprocess" region of 3 ms (an op of 1 ms in it) and a "model_forward" region
# with 6 ms of ops, in a 10 ms step: 30 %. neg: preprocess 0.5 ms (5 %), model 9 ms.
for name, pre in (("preprocessing", 3000), ("preprocessing-neg", 500)):
    t = T()
    for n in range(6):
        s = t.step(n, 10000)
        t.x("user_annotation", "preprocess", s + 10, pre)
        t.op("aten::to", s + 20, pre // 3)
        t.x("user_annotation", "model_forward", s + 20 + pre, 9500 - pre)
        ops_seq(t, s + 20 + pre, [("aten::linear", 10, (9400 - pre) // 10)])
    t.write(name)

# small ops: 200 ops x 10 us in a 2.5 ms step (80 %). neg: 20 ops x 100 us (none small).
# eager-compiled: the small-op trace inside a "Torch-Compiled Region" (no cpu-eager advice).
for name, calls, d, compiled in (("small-ops", 200, 10, False), ("small-ops-neg", 20, 100, False),
                                 ("eager-compiled", 200, 10, True)):
    t = T()
    for n in range(6):
        s = t.step(n, 2500)
        if compiled:
            t.x("user_annotation", "Torch-Compiled Region", s + 5, 2490)
        ops_seq(t, s, [("aten::add", calls, d)])
    t.write(name)

# allocation churn (profile_memory): per 5 ms step, 10 aten::empty of 20 us (4 % of the step),
# each with a [memory] allocation of 1 MB and its free, and conv 4 x 1000 us. neg: the same ops
# without [memory] events (no allocation evidence: the rule says nothing).
for name, mem in (("alloc", True), ("alloc-neg", False)):
    t = T()
    total = 0
    for n in range(6):
        s = t.step(n, 5000)
        ts = s + 10
        for k in range(10):
            t.op("aten::empty", ts, 20)
            if mem:
                total += 1 << 20
                t.mem(ts + 5, 1 << 20, total)
            ts += 20
        ts = ops_seq(t, ts, [("aten::conv2d", 4, 1000)])
        if mem:
            for k in range(10):
                total -= 1 << 20
                t.mem(ts + 1 + k, -(1 << 20), total)
    t.write(name)

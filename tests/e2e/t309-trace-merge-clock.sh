#!/usr/bin/env bash
# t309-trace-merge-clock (issue 13 item 9): `trace --merge A --merge B` puts a torch.profiler
# trace and a `trace --cpu` trace of the same run on one clock (their baseTimeNanoseconds), so
# each CPU sample lands inside the operator that was running. Hand-made pair: the CPU trace's
# ts 0 is 50 us after the torch trace's, so its samples at 70.5 and 120 us fall at 120.5 us
# (inside aten::conv2d, 100-150) and 170 us (inside aten::relu, 160-180). Also: a trace
# without a base time, a directory among the files. With LATSCOPE_TORCH_PY (a python with
# torch, e.g. /work/venv-torch/bin/python) a real profiled run is merged too.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
cd "$TMPDIR"
command -v python3 >/dev/null || skip "no python3 to read the JSON"
D=$LATSCOPE_SRCDIR/tests/data
expect_rc 0 "$LATSCOPE" trace --merge "$D/handmade-merge-torch.json" --merge "$D/handmade-merge-cpu.json" -o m.json
contains "$TMPDIR/err" "shifted by +0.000050 s"
python3 - m.json <<'PY' || fail "merged trace"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["baseTimeNanoseconds"] == 1000000000000, d.get("baseTimeNanoseconds")
ev = [e for e in d["traceEvents"] if e.get("ph") != "M"]
ops = {e["name"]: e for e in ev if e.get("cat") == "cpu_op"}
smp = {e["name"]: e for e in ev if e.get("cat") == "cpu_sample"}
assert set(ops) == {"aten::conv2d", "aten::relu"} and set(smp) == {"conv_kernel", "relu_kernel"}, ev
assert abs(smp["conv_kernel"]["ts"] - 120.5) < 1e-6, smp["conv_kernel"]
assert abs(smp["relu_kernel"]["ts"] - 170.0) < 1e-6, smp["relu_kernel"]
for s, o in (("conv_kernel", "aten::conv2d"), ("relu_kernel", "aten::relu")):
    e, op = smp[s], ops[o]
    assert e["tid"] == op["tid"] and op["ts"] <= e["ts"] <= op["ts"] + op["dur"], (e, op)
    assert e["args"]["stack"].endswith(s), e
print("samples inside their ops")
PY
# Without a base time the clocks cannot be related: an error that says so.
python3 -c 'import json; json.dump({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]}, open("nobase.json", "w"))'
expect_rc 1 "$LATSCOPE" trace --merge "$D/handmade-merge-torch.json" --merge nobase.json -o m2.json
contains "$TMPDIR/err" "no baseTimeNanoseconds"
[[ ! -e m2.json ]] || fail "a merged trace was written although the clocks are unknown"
mkdir adir
expect_rc 2 "$LATSCOPE" trace --merge "$D/handmade-merge-torch.json" --merge adir -o m3.json
contains "$TMPDIR/err" "a directory"

# A real run: torch.profiler inside a traced process, merged with the CPU samples.
py=${LATSCOPE_TORCH_PY:-}
[[ -n $py && -x $py ]] && "$py" -c 'import torch' 2>/dev/null || { echo "no LATSCOPE_TORCH_PY with torch: real merge not run"; exit 0; }
"$LATSCOPE" trace --cpu --freq 499 -o cpu.json -- "$py" "$LATSCOPE_SRCDIR/tests/progs/torch-prof.py" torch.json 2>cpu.err ||
    { cat cpu.err; grep -q perf_event_open cpu.err && exit 0; fail "trace --cpu of the torch program failed"; }
expect_rc 0 "$LATSCOPE" trace --merge torch.json --merge cpu.json -o real.json
python3 - real.json <<'PY' || fail "real merged trace: conv samples outside conv ops"
import json, sys, collections
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
ops = collections.defaultdict(list)
for e in ev:
    if e.get("cat") == "cpu_op" and e.get("ph") == "X" and "conv" in e["name"]:
        ops[e["tid"]].append((e["ts"], e["ts"] + e["dur"]))
lo = min(a for v in ops.values() for a, _ in v)
hi = max(b for v in ops.values() for _, b in v)
conv = [e for e in ev if e.get("cat") == "cpu_sample" and lo <= e["ts"] <= hi and
        "convolution" in e.get("args", {}).get("stack", "")]
inside = [e for e in conv if any(a <= e["ts"] <= b for a, b in ops.get(e["tid"], []))]
print("conv samples in the profiled window: %d, inside a conv op of their thread: %d" % (len(conv), len(inside)))
assert len(conv) >= 5, len(conv)
assert len(inside) >= 0.7 * len(conv), (len(inside), len(conv))
PY
exit 0

#!/usr/bin/env bash
# t612-diff-trace: `latscope diff` on traces.
#  - A synthetic pair (written here) with a known slowdown injected into one op: that op ranks
#    first among the increases, its delta is exact, and the step time is a significant
#    regression (Welch over steps) while an untouched op is unchanged.
#  - doctor findings before/after (handmade traces): resolved and new findings.
#  - HTA TraceDiff's test data (trace_compare/base vs test, rank 1, iteration 1010): the counts,
#    durations and change categories HTA's test_trace_diff asserts (../shared/docs/analyses.md).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (needed to write and check JSON)"
T=$TMPDIR
# gen FILE SLOW_US [cpu]: 10 ProfilerSteps of aten::mm (varying), aten::relu and slow_op (SLOW_US)
gen() {
    python3 - "$1" "$2" "${3:-}" <<'PY'
import json, sys
cpu_only = sys.argv[3] == "cpu"
ev, ts = [], 1000
for i in range(10):
    mm, relu, slow = 1000 + 37 * (i % 5), 200, int(sys.argv[2])
    dur = mm + relu + slow + 30
    ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1, "tid": 1, "ts": ts, "dur": dur})
    t = ts + 10
    for name, d in (("aten::mm", mm), ("aten::relu", relu), ("slow_op", slow)):
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": t, "dur": d})
        if not cpu_only:  # launched from the op, as in a real trace (else analyze drops it)
            c = 100 * i + len(ev)
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 1, "dur": 1,
                       "args": {"correlation": c}})
            ev.append({"ph": "X", "cat": "kernel", "name": "k_" + name, "pid": 0, "tid": 7, "ts": t + 2, "dur": d - 4,
                       "args": {"stream": 7, "correlation": c, "device": 0}})
        t += d + 5
    ts += dur + 50
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
}
gen "$T/before.json" 300
gen "$T/after.json" 450
expect_rc 0 "$LATSCOPE" diff --format json "$T/before.json" "$T/after.json"
python3 - "$T/out" <<'PY' || { cat "$T/out" >&2; fail "synthetic slowdown not found first"; }
import json, sys
d = json.load(open(sys.argv[1]))
ops = d["ops"]
top = ops[0]
assert top["name"] == "slow_op" and top["device"] == "cpu", top
assert top["control_counts"] == 10 and top["test_counts"] == 10
assert abs(top["diff_duration_us"] - 1500.0) < 1e-9, top         # 10 x 150 µs
assert ops[1]["name"] == "k_slow_op" and abs(ops[1]["diff_duration_us"] - 1500.0) < 1e-9, ops[1]
mm = [o for o in ops if o["name"] == "aten::mm"][0]
assert mm["diff_duration_us"] == 0 and mm["status"] == "unchanged", mm
r = {x["metric"]: x for x in d["rows"]}
w = r["step.dur_us"]
assert w["method"] == "welch-steps" and w["verdict"] == "REGRESSION", w
assert abs(w["delta"] - 150.0) < 1e-6 and w["ci"][0] > 0, w
assert r["step.kernels"]["verdict"] == "no significant change" and r["step.kernels"]["before"] == 3, r["step.kernels"]
PY
# --fail-if on the step time (Welch over steps)
expect_rc 1 "$LATSCOPE" diff --fail-if 'step.dur_us > +5%' "$T/before.json" "$T/after.json"
contains "$T/out" "fail-if 'step.dur_us > +5%': FAILED"
expect_rc 0 "$LATSCOPE" diff --fail-if 'step.dur_us > +50%' "$T/before.json" "$T/after.json"
expect_rc 0 "$LATSCOPE" diff --fail-if 'step.dur_us > +5%' "$T/after.json" "$T/before.json"
# text: the top increase is slow_op
expect_rc 0 "$LATSCOPE" diff "$T/before.json" "$T/after.json"
grep -A2 'largest increases' "$T/out" | tail -1 | grep -q '^  slow_op ' || { cat "$T/out" >&2; fail "text: slow_op not first"; }
expect_rc 0 "$LATSCOPE" diff --format md "$T/before.json" "$T/after.json"
contains "$T/out" '| `slow_op` | CPU |'

# doctor findings before/after: the DataLoader finding of the handmade trace is resolved in the
# clean one, the sync finding is new in the sync one.
expect_rc 0 "$LATSCOPE" diff --format json "$LATSCOPE_SRCDIR/tests/data/handmade-doctor-dataloader.json" \
    "$LATSCOPE_SRCDIR/tests/data/handmade-doctor-clean.json"
python3 - "$T/out" <<'PY' || { cat "$T/out" >&2; fail "doctor findings comparison"; }
import json, sys
f = {x["id"]: x for x in json.load(open(sys.argv[1]))["findings"]}
assert f["dataloader"]["status"] == "resolved" and f["dataloader"]["after"] is None, f
assert f["dataloader"]["before"]["saving_pct"] > 0
PY
expect_rc 0 "$LATSCOPE" diff "$LATSCOPE_SRCDIR/tests/data/handmade-doctor-clean.json" \
    "$LATSCOPE_SRCDIR/tests/data/handmade-doctor-sync.json"
grep -q '^  new       sync-points: ' "$T/out" || { cat "$T/out" >&2; fail "new sync finding not listed"; }

# HTA's trace_compare pair
base=$(need_trace hta/tests/data/trace_compare/base)
test=$(need_trace hta/tests/data/trace_compare/test)
expect_rc 0 "$LATSCOPE" diff --format json --rank 1 --iteration 1010 "$base" "$test"
python3 - "$T/out" <<'PY' || { cat "$T/out" >&2; fail "HTA trace_compare values differ"; }
import json, sys
d = json.load(open(sys.argv[1]))
cpu = {o["name"]: o for o in d["ops"] if o["device"] == "cpu"}
gpu = [o for o in d["ops"] if o["device"] == "gpu"]
base = {n: (o["control_counts"], o["control_total_duration_us"]) for n, o in cpu.items() if o["control_counts"]}
assert base == {"ProfilerStep#1010": (1, 122149.0), "aten::as_strided": (1, 0.0), "aten::empty": (1, 0.0),
                "cudaEventQuery": (1, 4.0), "cudaLaunchKernel": (1, 4.0), "nccl:all_reduce": (1, 67.0)}, base
cats = {}
for o in cpu.values():
    cats[o["counts_change_categories"]] = cats.get(o["counts_change_categories"], 0) + 1
assert cats == {"=": 5, "+": 3, "-": 1}, cats
assert [o["counts_change_categories"] for o in gpu] == ["-"] and gpu[0]["control_counts"] == 1, gpu
st = {}
for o in cpu.values():
    st.setdefault(o["status"], []).append(o["name"])
assert sorted(st["added"]) == ["AddmmBackward0", "All2All_Pooled_Req", "CatBackward0"], st
assert st["deleted"] == ["nccl:all_reduce"], st
assert sorted(st["unchanged"]) == ["ProfilerStep#1010", "aten::as_strided", "aten::empty", "cudaEventQuery", "cudaLaunchKernel"], st
assert "increased" not in st and "decreased" not in st
PY
expect_rc 0 "$LATSCOPE" diff --device cpu --rank 1 --iteration 1010 --format csv "$base" "$test"
contains "$T/out" "nccl:all_reduce,cpu,1,0,-1,67.000,0.000,-67.000,-,deleted"
# --normalize: the steps match as ProfilerStep#N, the kernels without their template arguments
expect_rc 0 "$LATSCOPE" diff --normalize --format csv "$base" "$test"
contains "$T/out" "ProfilerStep#N,cpu,2,2,0,222447.000,222447.000,0.000,=,unchanged"
contains "$T/out" "void at::native::vectorized_elementwise_kernel<...>(...),gpu,"
expect_rc 2 "$LATSCOPE" diff --rank 5 "$base" "$test"
contains "$T/err" "neither trace has an event for the selection"

# two CPU-only traces: no GPU step rows (compute, idle, kernels... would be zeros and "idle" the
# whole step), the CPU rows are there; the same pair with kernels has the GPU rows
gen "$T/cb.json" 300 cpu
gen "$T/ca.json" 450 cpu
expect_rc 0 "$LATSCOPE" diff --format json "$T/cb.json" "$T/ca.json"
cp "$T/out" "$T/cpu.json"
expect_rc 0 "$LATSCOPE" diff --format json "$T/before.json" "$T/after.json"
python3 - "$T/cpu.json" "$T/out" <<'PY' || fail "CPU-only diff rows (above)"
import json, sys
def keys(p):
    d = json.load(open(p))
    return {r["metric"] for r in d["rows"]} if "rows" in d else {r["metric"] for s in d.get("sections", []) for r in s["rows"]}
cpu, gpu = keys(sys.argv[1]), keys(sys.argv[2])
bad = [k for k in ("step.gpu_compute_us", "step.idle_us", "step.kernels", "step.cpu_only_us") if k in cpu]
bad += ["no %s in the CPU-only diff" % k for k in ("step.dur_us", "step.cpu_ops_us") if k not in cpu]
bad += ["no %s in the GPU diff" % k for k in ("step.gpu_compute_us", "step.idle_us") if k not in gpu]
print(bad); sys.exit(1 if bad else 0)
PY
expect_rc 0 "$LATSCOPE" diff "$T/cb.json" "$T/ca.json"
contains "$T/out" "neither trace has GPU kernels"
echo "ok"

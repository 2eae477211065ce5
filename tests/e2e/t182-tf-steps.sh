#!/usr/bin/env bash
# t182-tf-steps: TensorFlow step markers (tf.profiler.experimental.Trace(name, step_num=N): args
# step_num / step_name / group_id) are the steps of analyze's step table, of doctor's step rules
# and of diff's step rows. The shared TF 2.21 sample's steps are checked against an independent
# reading of its trace_viewer JSON twin (python3): the Trace regions in time order, their
# durations, and the host time they hold (ops + other = the step); the .xplane.pb and the JSON
# give the same steps; doctor names the slow step by its marker, not a ProfilerStep.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
dir=$(need_trace tf/tiny_cnn_tf2.21.0)
T() { timeout 60 "$LATSCOPE" "$@"; }
pb=$dir/vm.xplane.pb
js=$dir/tf2.21.0_tiny_cnn.trace_viewer_at.json

for f in "$pb" "$js"; do
    expect_rc 0 T analyze --format json "$f"
    python3 - "$TMPDIR/out" "$js" <<'PY' || fail "steps of $f (above)"
import json, sys
a = json.load(open(sys.argv[1])); raw = json.load(open(sys.argv[2]))
r = a["ranks"][0]; bad = []
# the step markers of the file: X events with args.step_num, in time order
m = sorted((e["ts"], e["dur"], e["args"]["step_name"], e["args"]["group_id"]) for e in raw["traceEvents"]
           if e.get("ph") == "X" and "step_num" in e.get("args", {}))
if len(m) != 7: bad.append("the sample has %d markers, the catalogue says 7" % len(m))
if len({g for *_, g in m}) != len(m): bad.append("group_id not one per marker")
st = r["steps"]
if len(st) != len(m): bad.append("%d steps, the file has %d markers" % (len(st), len(m)))
t0 = min(e["ts"] for e in raw["traceEvents"] if e.get("ph") == "X")
for k, (s, (ts, dur, name, _)) in enumerate(zip(st, m)):
    if s["step"] != k: bad.append("step %d numbered %s" % (k, s["step"]))
    if abs(s["dur_us"] - dur) > 0.0015: bad.append("%s: dur %s, file %s" % (name, s["dur_us"], dur))
    if abs(s["ts_us"] - (ts - t0)) > 0.0015: bad.append("%s: ts %s, file %s" % (name, s["ts_us"], ts - t0))
    if abs(s["cpu_ops_us"] + s["cpu_other_us"] + s["cpu_python_us"] + s["cpu_dataloader_us"] - s["dur_us"]) > 0.002:
        bad.append("%s: parts do not add up: %s" % (name, s))
    if not 0 < s["cpu_ops_us"] <= s["dur_us"]: bad.append("%s: ops %s" % (name, s["cpu_ops_us"]))
if abs(r["steps_total_us"] - sum(d for _, d, _, _ in m)) > 0.01: bad.append("steps_total_us %s" % r["steps_total_us"])
# the host time with an op running, summed over the steps, is the TF section's host_busy
tf = r["tensorflow"]
if abs(sum(s["cpu_ops_us"] for s in st) - tf["host_busy_us"]) > 0.01:
    bad.append("Σ cpu_ops_us %s vs tensorflow.host_busy_us %s" % (sum(s["cpu_ops_us"] for s in st), tf["host_busy_us"]))
if a["preprocessing"]["last_step_dropped"]: bad.append("a TF step was dropped")
bad and print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
done
expect_rc 0 T analyze "$pb"
contains "$TMPDIR/out" "(CPU-only trace)"
contains "$TMPDIR/out" "the Nth tf.profiler Trace(name, step_num=...) region"

# doctor: the same 7 steps, its median and p90 those of the file; the slow step named by marker
set +e; T doctor --format json "$pb" >"$TMPDIR/doc.json" 2>"$TMPDIR/err"; rc=$?; set -e
[[ $rc -le 1 ]] || fail "doctor exited $rc"
python3 - "$TMPDIR/doc.json" "$js" <<'PY' || fail "doctor steps (above)"
import json, sys
d = json.load(open(sys.argv[1])); raw = json.load(open(sys.argv[2]))
tr = d["traces"][0]; bad = []
m = sorted((e["ts"], e["dur"], e["args"]["step_name"]) for e in raw["traceEvents"] if "step_num" in e.get("args", {}))
durs = sorted(x[1] for x in m)
if tr["steps"] != len(m): bad.append("doctor steps %s, file %d" % (tr["steps"], len(m)))
if abs(tr["step_median_us"] - durs[len(durs) // 2]) > 0.0015: bad.append("median %s" % tr["step_median_us"])
fam = {f["family"]: f["ran"] for f in tr["rule_families"]}
if not fam.get("steps"): bad.append("step rules did not run: %s" % fam)
for f in d["findings"]:
    for e in f["evidence"].get("examples", []):
        if e["name"].startswith("ProfilerStep"): bad.append("%s names %s" % (f["id"], e["name"]))
    if f["id"] == "tail-steps":
        slow = max(m, key=lambda x: x[1])[2]
        ex = f["evidence"]["examples"][0]["name"]
        if ex != slow: bad.append("tail example %s, slowest marker %s" % (ex, slow))
        if f["evidence"]["steps"] != len(m): bad.append("tail-steps over %s steps" % f["evidence"]["steps"])
bad and print("\n".join(bad)); sys.exit(1 if bad else 0)
PY

# diff: the two files of one run compare 7 steps with 7, the step time unchanged
expect_rc 0 T diff --format json "$pb" "$js"
python3 - "$TMPDIR/out" "$js" <<'PY' || fail "diff steps (above)"
import json, sys
d = json.load(open(sys.argv[1])); raw = json.load(open(sys.argv[2])); bad = []
m = [e["dur"] for e in raw["traceEvents"] if "step_num" in e.get("args", {})]
if (d["steps_before"], d["steps_after"]) != (7, 7): bad.append("steps %s %s" % (d["steps_before"], d["steps_after"]))
dur = [r for r in d["rows"] if r["metric"] == "step.dur_us"]
if len(dur) != 1 or dur[0]["delta"] != 0 or abs(dur[0]["before"] - sum(m) / len(m)) > 1e-3:
    bad.append("step.dur_us row: %s" % dur)
bad and print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
echo ok

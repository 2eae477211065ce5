#!/usr/bin/env bash
# t165-tensorflow: TensorFlow profiles (src/ingest/xplane.c, src/analyze/tf.c). On the shared
# TF 2.21 sample, the graph ops latscope reads from the .xplane.pb are checked against TF's own
# framework_op_stats.json (an independent number: computed by TF from the same XSpace): the
# same (op, type) rows, the same #occurrences, self time equal within 1 ns per row (TF prints µs
# with 3 decimals). Step times are checked against an independent computation over the
# trace_viewer JSON (python3). The xplane and the trace_viewer JSON of the same run must give
# the same TensorFlow section. Then: 0-byte, truncated and garbage .pb files are errors naming
# the format and what to do; doctor on a TF profile runs its TF rules and names them.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
dir=$(need_trace tf/tiny_cnn_tf2.21.0)
T() { timeout 60 "$LATSCOPE" "$@"; }
pb=$dir/vm.xplane.pb
js=$dir/tf2.21.0_tiny_cnn.trace_viewer_at.json
stats=$dir/tf2.21.0_tiny_cnn.framework_op_stats.json

expect_rc 0 T analyze --format json --top 1000 "$pb"
cp "$TMPDIR/out" "$TMPDIR/pb.json"
expect_rc 0 T analyze --format json --top 1000 "$js"
cp "$TMPDIR/out" "$TMPDIR/js.json"

python3 - "$TMPDIR/pb.json" "$TMPDIR/js.json" "$stats" "$js" <<'PY' || fail "TensorFlow numbers differ (above)"
import json, math, sys
pb, js, stats, raw = (json.load(open(p)) for p in sys.argv[1:5])
bad = []
tf = pb["ranks"][0]["tensorflow"]
assert pb["ranks"][0]["format"] == "xplane", pb["ranks"][0]["format"]
assert js["ranks"][0]["format"] == "tf-trace-viewer", js["ranks"][0]["format"]
# 1. graph ops vs TF's framework_op_stats (host rows; IDLE is not an op)
want = {}
for r in stats[0]["rows"]:
    c = [x["v"] if x else None for x in r["c"]]
    if c[1] != "Host" or c[2] == "IDLE":
        continue
    want[(c[3], c[2])] = (int(c[4]), float(c[7]))
got = {(r["name"], r["op_type"]): (r["calls"], r["self_us"]) for r in tf["op_rows"] if r["mode"] == "graph"}
if set(want) != set(got):
    bad.append("graph op rows: only in TF %s, only in latscope %s" % (set(want) - set(got), set(got) - set(want)))
for k in set(want) & set(got):
    if want[k][0] != got[k][0] or abs(want[k][1] - got[k][1]) > 0.0015:
        bad.append("%s: TF %s, latscope %s" % (k, want[k], got[k]))
tot = sum(v[1] for v in want.values())
if abs(tot - tf["graph_self_us"]) > 0.0015 * len(want):
    bad.append("graph self: TF %.3f, latscope %.3f" % (tot, tf["graph_self_us"]))
# 2. steps from the raw trace_viewer JSON: Trace(step_num=N) regions
d = sorted(e["dur"] for e in raw["traceEvents"] if e.get("ph") == "X" and "step_num" in e.get("args", {}))
def nr(q):
    return d[max(math.ceil(q * len(d)), 1) - 1]
exp = {"steps": len(d), "step_p50_us": nr(0.5), "step_p90_us": nr(0.9), "step_max_us": d[-1]}
for k, v in exp.items():
    if abs(tf[k] - v) > 0.0005:
        bad.append("%s: raw JSON %s, latscope %s" % (k, v, tf[k]))
# 3. eager ops: EagerLocalExecute: <op> (not a tf.function call) in the raw JSON
eg = [e["dur"] for e in raw["traceEvents"] if e.get("name", "").startswith("EagerLocalExecute: ")
      and not e["name"][19:].startswith("__inference_")]
if len(eg) != sum(r["calls"] for r in tf["op_types"] if r["mode"] == "eager"):
    bad.append("eager op count: raw %d" % len(eg))
if abs(sum(eg) - tf["eager_self_us"]) > 0.001 * len(eg):
    bad.append("eager time: raw %.3f, latscope %.3f" % (sum(eg), tf["eager_self_us"]))
# 4. shares are shares, idle within the steps
for r in tf["op_types"] + tf["op_rows"]:
    if not 0 <= r["self_pct"] <= 100 or r["self_us"] > r["total_us"] + 1e-9:
        bad.append("row %s" % r)
if not (0 <= tf["host_idle_pct"] <= 100 and tf["host_idle_us"] <= tf["step_wall_us"]):
    bad.append("host idle %s" % tf["host_idle_pct"])
# 5. the xplane and the trace_viewer JSON of the run give the same section
tj = js["ranks"][0]["tensorflow"]
if tf != tj:
    for k in tf:
        if tf[k] != tj.get(k):
            bad.append("xplane vs trace_viewer JSON: %s: %s vs %s" % (k, str(tf[k])[:200], str(tj.get(k))[:200]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# the text report has the section
expect_rc 0 T analyze "$pb"
contains "$TMPDIR/out" "TensorFlow  "
contains "$TMPDIR/out" "tiny_cnn_1/conv1_1/Relu"

# bad files: named, with what to do
: >"$TMPDIR/empty.xplane.pb"
expect_rc 2 T analyze "$TMPDIR/empty.xplane.pb"
contains "$TMPDIR/err" "empty .xplane.pb (0 bytes)"
head -c 20000 "$pb" >"$TMPDIR/cut.xplane.pb"
expect_rc 2 T analyze "$TMPDIR/cut.xplane.pb"
contains "$TMPDIR/err" "not a valid TensorFlow .xplane.pb"
contains "$TMPDIR/err" "truncated"
printf '\377\377\377\377garbage garbage' >"$TMPDIR/junk.pb"
expect_rc 2 T analyze "$TMPDIR/junk.pb"
contains "$TMPDIR/err" "TensorFlow .xplane.pb"
# doctor: the TF rules run (CPU family), with evidence; PyTorch's CPU advice does not
set +e; T doctor --format json "$pb" >"$TMPDIR/doc.json" 2>"$TMPDIR/err"; rc=$?; set -e
[[ $rc -le 2 ]] || fail "doctor exited $rc"
python3 - "$TMPDIR/doc.json" "$TMPDIR/pb.json" <<'PY' || fail "doctor on a TF profile (above)"
import json, sys
d = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2]))["ranks"][0]["tensorflow"]
ids = [f["id"] for f in d["findings"]]
bad = []
for want in ("tf-eager-ops", "tf-host-idle", "tf-dominant-op"):
    if want not in ids: bad.append("no %s in %s" % (want, ids))
for no in ("cpu-python-overhead", "cpu-eager", "cpu-small-ops"):
    if no in ids: bad.append("PyTorch rule %s fired on a TF profile" % no)
for f in d["findings"]:
    if "torch" in f.get("recommendation", "").lower(): bad.append("PyTorch advice in %s on a TF profile" % f["id"])
    if f["id"] == "tf-host-idle":
        ev = f["evidence"]
        if abs(ev["idle_pct"] - a["host_idle_pct"]) > 0.01: bad.append("idle %s vs analyze %s" % (ev["idle_pct"], a["host_idle_pct"]))
    if f["id"] == "tf-dominant-op" and f["evidence"]["op_type"] != a["op_types"][0]["name"]:
        bad.append("dominant op %s vs analyze %s" % (f["evidence"]["op_type"], a["op_types"][0]["name"]))
print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
T doctor "$pb" >"$TMPDIR/out" 2>&1 || true
contains "$TMPDIR/out" "rules that ran: CPU inference"
echo ok

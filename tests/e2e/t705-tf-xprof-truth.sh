#!/usr/bin/env bash
# san: skip (TF truth generation in Python)
# truth: downloads tensorflow-cpu + xprof from PyPI, ~1.8 GB installed, once into ~/.cache/latscope/venv-tf
# timeout: 1200
# t705-tf-xprof-truth: TensorFlow's trace_viewer JSON as xprof 2.24 writes it (issue 29 item 2).
# tests/tools/tf-truth.py profiles an LSTM + MLP with TF 2.21 on CPU (5 tf.function steps, 3
# eager steps, each a Trace("step", step_num=N) region) and converts the XSpace with xprof's own
# converter: the streaming "trace_viewer@" JSON (graph ops named by type, no "sf", the nodes
# only in stackFrames, regions without step_num), the "trace_viewer" JSON (args as strings:
# long_name, is_eager, step_num; a last {}) and framework_op_stats, TF's own op accounting.
# Checked, per input (the .xplane.pb and both JSONs): latscope's graph ops equal
# framework_op_stats' host rows: the count and the self time per op type (within 1.5 ns a
# row: TF prints µs with 3 decimals) and in total; per node where the file names the node
# (the xplane and the "trace_viewer" JSON: every node; trace_viewer@: the types of one node
# only, the others "(any of N TYPE nodes)" with the count Python finds in stackFrames). Steps:
# 8 from the xplane and the "trace_viewer" JSON, the raw regions' durations; none from
# trace_viewer@, saying why, exit 0. The "trace_viewer" JSON gives the xplane's section key for
# key; no drop warning for its last {}. Needs tensorflow-cpu + xprof in a venv
# (tests/tools/tf-venv.sh installs them once); skips without them.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
set +e
py=$("$LATSCOPE_SRCDIR/tests/tools/tf-venv.sh")
rc=$?
set -e
[[ $rc -eq 0 ]] || skip "no tensorflow + xprof: $py"
out=$TMPDIR/tf
vers=$("$py" -c 'import importlib.metadata as m; print(m.version("tensorflow-cpu"), m.version("xprof"))')
truth_cached tf-xprof "$out" "$LATSCOPE_SRCDIR/tests/tools/tf-truth.py" "$vers" -- \
    "$py" "$LATSCOPE_SRCDIR/tests/tools/tf-truth.py" "$out" >"$TMPDIR/py.log" 2>&1 ||
    { tail -20 "$TMPDIR/py.log" >&2; fail "tf-truth.py failed"; }
pb=$(ls "$out"/logs/plugins/profile/*/*.xplane.pb)
at=$out/lstm.trace_viewer_at.json
tv=$out/lstm.trace_viewer.json
for f in pb at tv; do
    expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "${!f}"
    cp "$TMPDIR/out" "$TMPDIR/$f.json"
    ! grep -q "dropped" "$TMPDIR/err" || fail "$f: a drop warning: $(cat "$TMPDIR/err")"
done
python3 - "$TMPDIR/pb.json" "$TMPDIR/at.json" "$TMPDIR/tv.json" "$out/truth.json" "$at" "$tv" <<'PY' ||
import json, sys
pb, at, tv, truth, raw_at, raw_tv = (json.load(open(p)) for p in sys.argv[1:7])
bad = []
ntf = truth["graph_ops"]
assert ntf > 500 and truth["steps"] == 8, truth  # the run profiled what it should
# nodes per type in stackFrames, and the raw step regions (step_num) of the "trace_viewer" JSON
per_type = {}
for fr in raw_at["stackFrames"].values():
    t = fr["name"].rsplit(":", 1)[1]
    per_type[t] = per_type.get(t, 0) + 1
steps = sorted(e["dur"] for e in raw_tv["traceEvents"] if "step_num" in e.get("args", {}))
for name, doc in (("xplane", pb), ("trace_viewer@", at), ("trace_viewer", tv)):
    tf = doc["ranks"][0]["tensorflow"]
    types = {r["name"]: (r["calls"], r["self_us"]) for r in tf["op_types"] if r["mode"] == "graph"}
    want = {k: tuple(v) for k, v in truth["types"].items()}
    if set(types) != set(want):
        bad.append("%s: op types only in TF %s, only in latscope %s" % (name, set(want) - set(types), set(types) - set(want)))
    for k in set(types) & set(want):
        if types[k][0] != want[k][0] or abs(types[k][1] - want[k][1]) > 0.0015:
            bad.append("%s: type %s: TF %s, latscope %s" % (name, k, want[k], types[k]))
    n = sum(c for c, _ in types.values())
    if n != ntf or abs(tf["graph_self_us"] - truth["graph_us"]) > 0.0015 * len(want):
        bad.append("%s: graph ops %d / %.3f us, TF %d / %.3f us" % (name, n, tf["graph_self_us"], ntf, truth["graph_us"]))
    rows = {r["name"]: (r["op_type"], r["calls"], r["self_us"]) for r in tf["op_rows"] if r["mode"] == "graph"}
    for node, (t, c, us) in truth["nodes"].items():
        if name == "trace_viewer@" and per_type[t] > 1:
            continue  # the file does not say which node: checked by type below
        g = rows.get(node)
        if not g or g[0] != t or g[1] != c or abs(g[2] - us) > 0.0015:
            bad.append("%s: node %s: TF %s, latscope %s" % (name, node, (t, c, us), g))
    if name == "trace_viewer@":
        unnamed = sum(c for t, (c, _) in want.items() if per_type[t] > 1)
        if tf["ops_unnamed"] != unnamed:
            bad.append("trace_viewer@: ops_unnamed %s, stackFrames says %d" % (tf["ops_unnamed"], unnamed))
        for t in per_type:
            if per_type[t] > 1:
                r = rows.get("(any of %d %s nodes)" % (per_type[t], t))
                if not r or r[1] != want[t][0]:
                    bad.append("trace_viewer@: row of the %d %s nodes: %s, TF %s" % (per_type[t], t, r, want[t]))
        if tf["steps"] != 0 or not tf["steps_note"] or "step_num" not in tf["steps_note"]:
            bad.append("trace_viewer@: steps %s, note %r" % (tf["steps"], tf["steps_note"]))
    else:
        got = [tf["steps"], tf["step_total_us"], tf["step_max_us"]]
        exp = [len(steps), sum(steps), steps[-1]]
        if got[0] != exp[0] or abs(got[1] - exp[1]) > 0.001 * len(steps) or abs(got[2] - exp[2]) > 0.0005:
            bad.append("%s: steps %s, raw regions %s" % (name, got, exp))
        if tf["ops_unnamed"] != 0 or tf["steps_note"] is not None:
            bad.append("%s: ops_unnamed %s, steps_note %r" % (name, tf["ops_unnamed"], tf["steps_note"]))
# the "trace_viewer" JSON is the xplane's twin
a, b = pb["ranks"][0]["tensorflow"], tv["ranks"][0]["tensorflow"]
for k in a:
    if a[k] != b.get(k):
        bad.append("xplane vs trace_viewer JSON: %s: %s vs %s" % (k, str(a[k])[:160], str(b.get(k))[:160]))
print("\n".join(bad))
print("TF %s, xprof %s: %d graph ops, %.3f us, 8 steps" % (truth["tf"], truth["xprof"], ntf, truth["graph_us"]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
    fail "TensorFlow numbers differ from framework_op_stats (above)"

# the text says what the streaming JSON cannot identify
expect_rc 0 "$LATSCOPE" analyze "$at"
contains "$TMPDIR/out" "steps  none identifiable: xprof's streaming trace_viewer@ JSON keeps no step_num"
contains "$TMPDIR/out" "graph op events are named by their type only"
contains "$TMPDIR/out" "not applicable: GPU timeline (no /device: plane in the profile: a CPU-only run); steps (xprof's streaming trace_viewer@ JSON keeps no step_num"
echo "t705: ok"

#!/usr/bin/env bash
# t615-diff-ort: `latscope diff` of two ONNX Runtime profiles (../shared/traces/ort/generated,
# the same tiny model at intra_op 1 and 2): per-node rows named after the nodes, the
# "onnxruntime" rows (model_run mean after the first run, Welch over runs; Σ time per op type)
# checked against values computed here from the raw JSON files.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 absent (used to check the JSON)"
A=$(need_trace ort/generated/ort1.30.0_cpu_tiny_block_intra1.json)
B=$(need_trace ort/generated/ort1.30.0_cpu_tiny_block_intra2.json)
expect_rc 0 "$LATSCOPE" diff --format json "$A" "$B"
python3 - "$TMPDIR/out" "$A" "$B" <<'PY' || fail "ORT diff values"
import json, sys, collections
d = json.load(open(sys.argv[1]))
def raw(p):
    ev = json.load(open(p))
    runs = sorted((e["ts"], e["dur"]) for e in ev if e.get("cat") == "Session" and e["name"] == "model_run")
    ops, nodes = collections.Counter(), collections.Counter()
    for e in ev:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            ops[e["args"]["op_name"]] += e["dur"]
            nodes[e["name"][:-len("_kernel_time")]] += e["dur"]
    steady = [dur for _, dur in runs[1:]]
    return sum(steady) / len(steady), ops, nodes
ma, oa, na = raw(sys.argv[2])
mb, ob, nb = raw(sys.argv[3])
rows = {r["metric"]: r for r in d["rows"]}
r = rows["ort.run_us"]
assert abs(r["before"] - ma) < 1e-6 and abs(r["after"] - mb) < 1e-6, (r, ma, mb)
assert r["method"] == "welch-runs" and r["ci"] is not None, r
for op in set(oa) | set(ob):
    x = rows["ort.op." + op]
    assert abs(x["before"] - oa[op]) < 1e-6 and abs(x["after"] - ob[op]) < 1e-6, (op, x, oa[op], ob[op])
opr = [x for x in d["rows"] if x["section"] == "onnxruntime op types"]
assert len(opr) == len(set(oa) | set(ob)), opr
assert all(opr[i]["delta"] >= opr[i + 1]["delta"] for i in range(len(opr) - 1)), opr
ops = {o["name"]: o for o in d["ops"]}
for n in na:
    assert n in ops, (n, sorted(ops))
    assert abs(ops[n]["control_total_duration_us"] - na[n]) < 1e-6, (n, ops[n], na[n])
    assert abs(ops[n]["test_total_duration_us"] - nb[n]) < 1e-6, (n, ops[n], nb[n])
print("ort diff ok:", len(opr), "op types,", len(na), "nodes")
PY
# A profile against itself: model_run shows no significant change.
expect_rc 0 "$LATSCOPE" diff --format json "$A" "$A"
python3 -c '
import json, sys
r = {x["metric"]: x for x in json.load(open(sys.argv[1]))["rows"]}["ort.run_us"]
assert r["verdict"] == "no significant change" and r["delta"] == 0, r' "$TMPDIR/out" || fail "self-diff of an ORT profile"
exit 0

#!/usr/bin/env bash
# t172-trt-doctor: the TensorRT rules on hand-made inputs (tests/data/trt). The "fire" engine
# (TREx files: enqueue median 0.9 vs compute 1.0 ms, H2D 1.1 ms, 2 streams, 23 % reformat
# layers, one FP32 convolution with 38 % of an FP32+FP16 engine, per-query compute CoV 10.9 %,
# layers 1.3 ms vs compute median 1.0 ms) raises every rule; the "clean" engine and log raise
# none and are judged (not "no rule applies"); each finding goes away when its threshold is
# raised past the input's value; the log variant reads its medians and its CoV warning from
# trtexec's printed summary; names from the input are quoted in the commands.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
T() { timeout 60 "$LATSCOPE" "$@"; }
data=$LATSCOPE_SRCDIR/tests/data/trt
ids() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(sorted(f["id"] for f in d["findings"])))' "$TMPDIR/out"; }
fire=$data/handmade-trt-fire.engine
all="trt-dominant-layer trt-enqueue-bound trt-fp32-layers trt-h2d-bound trt-multi-stream trt-profile-inflation trt-reformat-layers trt-unstable"
expect_rc 0 T doctor --fail-on never --format json "$fire"
[[ $(ids) == "$all" ]] || fail "fire engine: $(ids)"
# evidence, saving bound and next step of some, worked out by hand
python3 - "$TMPDIR/out" <<'PY' || fail "fire engine evidence"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
e = f["trt-enqueue-bound"]["evidence"]
assert e["enqueue_median_ms"] == 0.9 and e["gpu_compute_median_ms"] == 1.0, e
assert e["source"] == "trtexec's summary" and e["cuda_graph"] == "off", e
assert "--useCudaGraph" in f["trt-enqueue-bound"]["next_step"]
assert "--noDataTransfers" in f["trt-h2d-bound"]["next_step"]
r = f["trt-reformat-layers"]["evidence"]
assert r["reformat_layers"] == 2 and abs(r["reformat_pct"] - 300 / 13) < 1e-3, r
assert r["engine_input_reformatted"] is True, r
assert "--inputIOFormats=fp16:chw" in f["trt-reformat-layers"]["next_step"]
p = f["trt-fp32-layers"]["evidence"]
assert p["fp32_layers"] == 1 and p["layers"][0]["name"] == "conv1", p
assert "--layerPrecisions=conv1:fp16" in f["trt-fp32-layers"]["next_step"]
assert "--precisionConstraints=prefer" in f["trt-fp32-layers"]["next_step"]
dm = f["trt-dominant-layer"]["evidence"]
assert dm["layer"] == "conv1" and dm["tactic"].startswith("sm80_xmma_fprop"), dm
assert f["trt-dominant-layer"]["next_step"].startswith("ncu --kernel-name regex:sm80_xmma_fprop")
i = f["trt-profile-inflation"]["evidence"]
assert abs(i["inflation_pct"] - 30.0) < 1e-6 and i["separate_profile_run"] == "off", i
u = f["trt-unstable"]["evidence"]
assert u["source"] == "exported queries" and 10.8 < u["gpu_compute_cov_pct"] < 10.9, u
assert f["trt-multi-stream"]["evidence"]["streams"] == 2
# savings are per query, shares of the printed mean latency 2.2 ms
assert abs(f["trt-h2d-bound"]["saving_us_per_step"] - 1100) < 1e-6, f["trt-h2d-bound"]
assert 0 <= min(x["saving_pct"] for x in d["findings"]) and max(x["saving_pct"] for x in d["findings"]) <= 100
for x in d["findings"]:
    assert "'" not in x["next_step"] or "fire net" in x["next_step"], x["next_step"]
PY
# each threshold turns its finding off
off() { # KEY=VALUE ID
    expect_rc 0 T doctor --fail-on never --format json --threshold "$1" "$fire"
    [[ " $(ids) " != *" $2 "* ]] || fail "$1 did not turn $2 off"
    [[ $(ids | wc -w) -eq 7 ]] || fail "$1 changed other findings: $(ids)"
}
off trt_enqueue_ratio=0.95 trt-enqueue-bound
off trt_cov_pct=11 trt-unstable
off trt_reformat_pct=25 trt-reformat-layers
off trt_fp32_pct=40 trt-fp32-layers
off trt_dominant_pct=40 trt-dominant-layer
off trt_inflation_pct=31 trt-profile-inflation
# the clean engine and the clean log: judged, nothing found
for c in "$data/handmade-trt-clean.engine" "$data/handmade-trt-clean.log"; do
    expect_rc 0 T doctor --format json "$c"
    [[ -z $(ids) ]] || fail "$c: $(ids)"
    expect_rc 0 T doctor "$c"
    contains "$TMPDIR/out" "rules that ran: GPU"
done
# the log: medians from the printed summary, CoV from trtexec's warning, the model quoted
expect_rc 0 T doctor --fail-on never --format json "$data/handmade-trt-bound.log"
[[ $(ids) == "trt-d2h-bound trt-enqueue-bound trt-h2d-bound trt-multi-stream trt-unstable" ]] || fail "bound log: $(ids)"
python3 - "$TMPDIR/out" <<'PY' || fail "bound log evidence"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
u = f["trt-unstable"]["evidence"]
assert u["gpu_compute_cov_pct"] == 6.25 and u["source"] == "trtexec's log warning", u
assert abs(u["p99_minus_median_ms"] - 0.25) < 1e-9, u
assert f["trt-d2h-bound"]["evidence"]["copy_median_ms"] == 1.3
assert "--onnx='models/fire net.onnx'" in f["trt-enqueue-bound"]["next_step"], f["trt-enqueue-bound"]["next_step"]
PY
# a layer-info file alone has no times: no rule applies (exit 3), not a clean bill
expect_rc 3 T doctor "$data/handmade-trt-fire.engine.graph.json"
contains "$TMPDIR/out" "No rule applies to this input (a TensorRT input (trtexec/TREx)"
# the shared engines: doctor runs (every finding a TensorRT one)
if [[ -d $LATSCOPE_TRACES/trt/trex ]]; then
    expect_rc 0 T doctor --fail-on never --format json "$LATSCOPE_TRACES/trt/trex/tests/inputs"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); ids=[f["id"] for f in d["findings"]]; assert ids and all(i.startswith("trt-") or i == "profiler-overhead" for i in ids), ids' \
        "$TMPDIR/out" || fail "shared engines: $(ids)"
fi
exit 0

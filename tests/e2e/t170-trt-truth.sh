#!/usr/bin/env bash
# t170-trt-truth: TensorRT (src/ingest/trt.c, src/analyze/trt.c). On every shared TREx engine
# (the directory or the common prefix of its files), latscope's TensorRT section equals an
# independent computation from the same JSON (tests/tools/trt-truth.py, Python standard
# library): per layer mean/median/total/percentage, type, precision, tactic, origin; the sums
# per layer type and per precision; the reformat share; per-query enqueue/H2D/compute/D2H/
# latency/end-to-end statistics with trtexec's warm-up, median and percentile rules; and those
# per-query statistics equal the performance summary trtexec itself printed for the same run
# (profile.metadata.json). Both ways of naming an engine (directory, prefix) give one trace.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
dir=$(need_trace trt/trex)
T() { timeout 120 "$LATSCOPE" "$@"; }
n=0
while IFS= read -r f; do
    p=${f%.profile.json}
    n=$((n + 1))
    expect_rc 0 T analyze --format json --top 1000 "$p"
    cp "$TMPDIR/out" "$TMPDIR/prefix.json"
    python3 "$LATSCOPE_SRCDIR/tests/tools/trt-truth.py" "$p" "$TMPDIR/prefix.json" ||
        fail "$p: latscope differs from the independent computation"
    [[ $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["ranks"]), d["ranks"][0]["format"])' \
        "$TMPDIR/prefix.json") == "1 tensorrt" ]] || fail "$p: not one tensorrt trace"
done < <(find "$dir" -name '*.profile.json' | sort)
[[ $n -eq 7 ]] || fail "$n TREx engines checked, want 7"

# a directory of one engine = its prefix (the same section)
d=$dir/examples/pytorch/resnet/A100/fp32
expect_rc 0 T analyze --format json --top 1000 "$d"
python3 "$LATSCOPE_SRCDIR/tests/tools/trt-truth.py" "$d/resnet.onnx.engine" "$TMPDIR/out" ||
    fail "$d: the directory differs from the computation"
# a directory with two engines: two traces, one per engine, no rank complaints
expect_rc 0 T analyze --format json "$dir/tests/inputs"
python3 - "$TMPDIR/out" <<'PY' || fail "tests/inputs: not two engines"
import json, sys
d = json.load(open(sys.argv[1]))
paths = sorted(r["path"].rsplit("/", 1)[1] for r in d["ranks"])
assert paths == ["mobilenet.qat.onnx.engine", "mobilenet_v2_residuals.qat.onnx.engine"], paths
assert all(r["tensorrt"]["layers_profiled"] > 50 for r in d["ranks"])
assert not d["skipped"], d["skipped"]
PY
# the text report: tables and the clock caveat
expect_rc 0 T analyze "$dir/tests/inputs/mobilenet.qat.onnx.engine"
contains "$TMPDIR/out" "TensorRT  inputs:"
contains "$TMPDIR/out" "precision (by time)"
contains "$TMPDIR/out" "enqueue is on the host clock"
contains "$TMPDIR/out" "queries  8945 (8490 after the 200 ms warm-up); throughput 2829.15 qps"
grep -qE '^  INT8 +53 ' "$TMPDIR/out" || fail "no INT8 row with 53 layers"
exit 0

#!/usr/bin/env bash
# t171-trt-inputs: every TensorRT input kind loads, alone and joined: each TREx/trtexec file
# of an engine on its own (profile, layer info detailed and names-only, times, metadata), the
# hand-made engines as a prefix and as a directory, trtexec's text logs of TensorRT 7/8.0 and
# 8.6 (performance summary as printed); bad inputs (0-byte, truncated, garbage, JSON of the
# wrong shape, a prefix with no file) fail with a message that names the format and says what
# to do, never a crash.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
T() { timeout 60 "$LATSCOPE" "$@"; }
J() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['ranks'][0]; t=r['tensorrt']; print($1)" "$TMPDIR/out"; }
data=$LATSCOPE_SRCDIR/tests/data/trt

# the hand-made engine: prefix, the prefix with its trailing dot, the directory, one file
for p in "$data/handmade-trt-fire.engine" "$data/handmade-trt-fire.engine."; do
    expect_rc 0 T analyze --format json --top 100 "$p"
    [[ $(J 'r["format"], t["layers_profiled"], t["queries"]["count"], t["summary"]["throughput_qps"]') == "tensorrt 5 10 450" ]] ||
        fail "$p: $(J 't["inputs"]')"
done
[[ $(J 't["inputs"]') == "summary,build,profile,layers,times" ]] || fail "inputs $(J 't["inputs"]')"
# the engine file itself, next to its TREx files (as TREx lays them out): the same engine
mkdir -p "$TMPDIR/eng"
for f in "$data"/handmade-trt-fire.engine.*.json; do cp "$f" "$TMPDIR/eng/"; done
printf 'ftrt\0\1\2 serialized engine' >"$TMPDIR/eng/handmade-trt-fire.engine"
expect_rc 0 T analyze --format json "$TMPDIR/eng/handmade-trt-fire.engine"
[[ $(J 't["inputs"], t["layers_profiled"]') == "summary,build,profile,layers,times 5" ]] || fail "engine file: $(J 't["inputs"]')"
# the numbers of the hand-made engine, worked out by hand: layers 0.2+0.5+0.3+0.1+0.2 = 1.3 ms;
# the two reformat copies 0.3 ms = 23.077 %; precision = the first input's type: the input copy
# reads FP16 (0.2), conv1 FP32 (0.5), conv2 FP16 (0.3), the output copy FP16 (0.1), pool FP16
# (0.2): FP16 0.8 ms, FP32 0.5 ms
[[ $(J 't["layers_mean_sum_ms"], t["reformat"]["share_pct"], [(x["precision"], x["mean_ms"]) for x in t["by_precision"]]') == \
    "1.3 23.077 [('FP16', 0.8), ('FP32', 0.5)]" ]] || fail "fire engine sums: $(J 't["by_precision"]')"
# queries: compute 0.9 1.0 1.3 1.0 0.95 1.2 1.0 1.05 1.0 1.1: median 1.0; p90 = v[10-1-1] = 1.2
# (trtexec excludes (int)((1 - 0.9f) * 10) = 1 in float; in double it would be 0 and p90 the max)
[[ $(J 't["queries"]["gpu_compute_ms"]["median"], t["queries"]["gpu_compute_ms"]["p90"], t["queries"]["gpu_compute_ms"]["max"], t["queries"]["h2d_ms"]["median"]') == \
    "1 1.2 1.3 1.1" ]] || fail "fire engine queries: $(J 't["queries"]["gpu_compute_ms"]')"
# the directory: its two engines (the logs are not *.json, so not listed)
expect_rc 0 T analyze --format json "$data"
[[ $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted(r["path"].rsplit("/",1)[1] for r in d["ranks"]))' "$TMPDIR/out") == \
    "['handmade-trt-clean.engine', 'handmade-trt-fire.engine']" ]] ||
    fail "directory: $(cat "$TMPDIR/out" | head -c 300)"
# each file alone is its own (smaller) TensorRT trace
for s in profile graph timing profile.metadata build.metadata; do
    expect_rc 0 T analyze --format json "$data/handmade-trt-fire.engine.$s.json"
    [[ $(J 'r["format"]') == tensorrt ]] || fail "$s: not tensorrt"
done
[[ $(J 't["build_precision"]') == "FP32+FP16" ]] || fail "build metadata"

# the shared files one by one, and the names-only layer info
if [[ -d $LATSCOPE_TRACES/trt ]]; then
    while IFS= read -r f; do
        expect_rc 0 T analyze --format json "$f"
        [[ $(J 'r["format"]') == tensorrt ]] || fail "$f: not tensorrt"
    done < <(find "$LATSCOPE_TRACES/trt/trex" -name '*.json' | sort)
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump({"Layers": [l["Name"] for l in d["Layers"]], "Bindings": d["Bindings"]}, open(sys.argv[2], "w"))' \
        "$LATSCOPE_TRACES/trt/trex/tests/inputs/mobilenet.qat.onnx.engine.graph.json" "$TMPDIR/names.graph.json"
    expect_rc 0 T analyze --format json "$TMPDIR/names.graph.json"
    [[ $(J 't["layers"], t["layers_with_info"], t["layer_info_names_only"]') == "73 73 True" ]] || fail "names-only layer info"
    # trtexec logs: TRT 7/8.0 layout (Host Latency / GPU Compute blocks) and 8.6 (summary lines)
    expect_rc 0 T analyze --format json "$LATSCOPE_TRACES/trt/superbench/tensorrt_inference.1.log"
    [[ $(J 't["summary"]["latency_ms"]["median"], t["summary"]["latency_ms"]["p99"], t["summary"]["end_to_end_ms"]["median"], t["summary"]["gpu_compute_ms"]["mean"], t["summary"]["enqueue_ms"]["median"], t["summary"]["walltime_s"], t["summary"]["gpu_compute_total_s"], t["build_precision"]') == \
        "0.6 0.6 1 0.5 0.2 3.00142 2.96622 FP32+INT8" ]] || fail "TRT 7 log: $(J 't["summary"]')"
    expect_rc 0 T analyze --format json "$LATSCOPE_TRACES/trt/superbench/tensorrt_inference.2.log"
    [[ $(J 't["summary"]["throughput_qps"], t["summary"]["h2d_ms"]["median"], t["summary"]["d2h_ms"]["p99"], t["summary"]["gpu_compute_ms"]["max"], t["options"]["streams"], t["options"]["cuda_graph"]') == \
        "1000 0.3 0.03 1.6 1 False" ]] || fail "TRT 8.6 log: $(J 't["summary"]')"
fi
# the hand-made log: its [W] lines are kept
expect_rc 0 T analyze --format json "$data/handmade-trt-bound.log"
[[ $(J 'len(t["log_warnings"]), t["summary"]["d2h_ms"]["median"], t["options"]["streams"]') == "5 1.3 2" ]] || fail "bound log"

# bad inputs: each names the format and what to do
cp "$data/handmade-trt-fire.engine.profile.json" "$TMPDIR/ok.profile.json"
head -c 200 "$data/handmade-trt-fire.engine.profile.json" >"$TMPDIR/cut.profile.json"
head -c 300 "$data/handmade-trt-fire.engine.timing.json" >"$TMPDIR/cut.timing.json"
: >"$TMPDIR/empty.graph.json"
: >"$TMPDIR/empty.profile.json"
printf '\0\1\2garbage' >"$TMPDIR/junk.timing.json"
echo '[{"count": 1}, {"timeMs": 2}]' >"$TMPDIR/noname.profile.json"
echo '{"Layers": 3}' >"$TMPDIR/shape.graph.json"
check_err() { # FILE TEXT...
    local f=$1; shift
    expect_rc 2 T analyze "$f"
    for w in "$@"; do contains "$TMPDIR/err" "$w"; done
}
check_err "$TMPDIR/cut.profile.json" "truncated trtexec --exportProfile JSON" "export it again: trtexec"
check_err "$TMPDIR/cut.timing.json" "truncated trtexec --exportTimes JSON" "--exportTimes=FILE"
check_err "$TMPDIR/empty.graph.json" "empty file (0 bytes), expected trtexec --exportLayerInfo JSON" "--exportLayerInfo=FILE"
check_err "$TMPDIR/empty.profile.json" "expected trtexec --exportProfile JSON"
check_err "$TMPDIR/junk.timing.json" "not valid trtexec --exportTimes JSON"
check_err "$TMPDIR/noname.profile.json" 'row 1 has no "name" string'
check_err "$TMPDIR/shape.graph.json" "none of trtexec's exports"
check_err "$TMPDIR/no-such-engine" "cannot open"
# a prefix whose one file is cut: the error names that file
cp "$data/handmade-trt-fire.engine.graph.json" "$TMPDIR/cut.graph.json"
check_err "$TMPDIR/cut" "cut.profile.json: truncated"
# doctor reads the same inputs (and fails the same way)
expect_rc 2 T doctor "$TMPDIR/cut.profile.json"
contains "$TMPDIR/err" "truncated trtexec --exportProfile JSON"
exit 0

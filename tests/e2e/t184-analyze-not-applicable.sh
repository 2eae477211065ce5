#!/usr/bin/env bash
# t184-analyze-not-applicable: the generic (HTA-style) sections of analyze that do not apply to
# an input are left out of the text and named once, with why, in text ("not applicable: ...")
# and JSON (the rank's "not_applicable"), consistently, on every input kind: ONNX Runtime,
# TensorFlow (.xplane.pb and trace_viewer JSON), CPU stacks (perf script, py-spy raw and
# speedscope, hand-made folded), ncu, TensorRT (TREx profile, trtexec log), nsys, Kineto with
# and without GPU. PyTorch-family inputs keep every section and the "ProfilerStep not found"
# note; no other input gets that note.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
S=$LATSCOPE_TRACES
T() { timeout 120 "$LATSCOPE" "$@"; }
printf 'main;funcA 6\nmain;funcB 4\n' >"$TMPDIR/handmade.folded"

# NAME|INPUT|EXPECTED not_applicable sections (sorted, comma-separated; "-" none)|step note
cases=(
    "ort|$S/ort/generated/ort1.30.0_cpu_tiny_cnn_intra1.json|gpu_timeline,steps|no"
    "tf-xplane|$S/tf/tiny_cnn_tf2.21.0/vm.xplane.pb|gpu_timeline|no"
    "tf-json|$S/tf/tiny_cnn_tf2.21.0/tf2.21.0_tiny_cnn.trace_viewer_at.json|gpu_timeline|no"
    "perf-script|$S/cpu-stacks/perf6.1_ort_transformer.perf-script.txt|timeline|no"
    "pyspy-raw|$S/cpu-stacks/pyspy0.4.3_ort_transformer.raw.txt|timeline|no"
    "speedscope|$S/cpu-stacks/pyspy0.4.3_ort_transformer.speedscope.json|timeline|no"
    "folded|$TMPDIR/handmade.folded|timeline|no"
    "ncu|$S/ncu/cublaslt_ncu.log|gpu_timeline,steps|no"
    "trex|$S/trt/trex/examples/pytorch/resnet/A100/fp32/resnet.onnx.engine.profile.json|gpu_timeline,steps|no"
    "trt-log|$S/trt/superbench/tensorrt_inference.2.log|gpu_timeline,steps|no"
    "nsys|$S/nsys/perlmutter-cloverleaf-cuda.sqlite|-|yes"
    "kineto-gpu|$S/hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz|-|yes"
    "kineto-cpu|$S/hta/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz|-|no"
    "kineto-steps|$S/hta/tests/data/trace_filter/sampled_rank-0.json.gz|-|no"
)
ran=0
for c in "${cases[@]}"; do
    IFS='|' read -r name in want note <<<"$c"
    [[ -e $in ]] || { echo "t184: $name: $in absent, skipped"; continue; }
    ran=$((ran + 1))
    expect_rc 0 T analyze "$in"
    cp "$TMPDIR/out" "$TMPDIR/$name.txt"
    expect_rc 0 T analyze --format json "$in"
    cp "$TMPDIR/out" "$TMPDIR/$name.json"
    python3 - "$name" "$TMPDIR/$name.txt" "$TMPDIR/$name.json" "$want" "$note" <<'PY' || fail "$name (above)"
import json, sys
name, txt, js, want, note = sys.argv[1], open(sys.argv[2]).read(), json.load(open(sys.argv[3])), sys.argv[4], sys.argv[5]
bad = []
r = js["ranks"][0]
na = r.get("not_applicable")
got = ",".join(sorted(x["section"] for x in na)) if na else "-"
if got != want: bad.append("not_applicable %s, want %s" % (got, want))
if na is not None and not na: bad.append("an empty not_applicable list (the key is left out then)")
lines = [l for l in txt.splitlines() if l.startswith("not applicable:")]
if (len(lines) != 1) if na else lines: bad.append("text 'not applicable' lines: %s" % lines)
label = {"gpu_timeline": "GPU timeline", "timeline": "timeline", "steps": "steps"}
for x in na or []:
    if "%s (%s)" % (label[x["section"]], x["why"]) not in lines[0]:
        bad.append("text lacks %s (%s)" % (x["section"], x["why"]))
    if not x["why"]: bad.append("no reason for %s" % x["section"])
secs = {x["section"] for x in na or []}
# what does not apply is not printed
if secs & {"gpu_timeline", "timeline"}:
    for head in ("temporal ", "idle per stream", "launches ", "queue ", "  GPU rows "):
        if any(l.startswith(head) for l in txt.splitlines()): bad.append("text prints %r" % head)
if "timeline" in secs:
    for head in ("top CPU ops", "step ", "threads "):
        if any(l.startswith(head) for l in txt.splitlines()): bad.append("text prints %r" % head)
    if "CPU samples:" not in txt: bad.append("no CPU samples section")
if "steps" in secs and r["steps"]: bad.append("steps not applicable, but %d step rows" % len(r["steps"]))
# the step note: PyTorch-family inputs without ProfilerStep only, text and JSON alike
w = js["preprocessing"]["warning"] or ""
has = "ProfilerStep not found" in txt
if has != (note == "yes"): bad.append("ProfilerStep note in text: %s, want %s" % (has, note))
if ("ProfilerStep not found" in w) != has: bad.append("JSON warning %r vs text %s" % (w, has))
bad and print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
done
((ran > 0)) || skip "no input present"
# a Kineto trace with GPU keeps its GPU sections
if [[ -e $TMPDIR/kineto-gpu.txt ]]; then
    contains "$TMPDIR/kineto-gpu.txt" "temporal   kernel time"
fi
echo "t184: $ran input kinds"

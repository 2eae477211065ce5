#!/usr/bin/env bash
# t733-doctor-ort-fallback: the ort-cpu-fallback rule on a real onnxruntime-openvino 1.24.1
# profile ($LATSCOPE_TRACES/ort/py/openvino-1.24.1: TopK, Unique and ReduceSum run on
# CPUExecutionProvider under the OpenVINO EP, 3.6 % of the run time there). It names the ops,
# the provider and the share, which equals analyze's per-provider split; it stays silent at the
# default 5 % and on every CPU-EP-only profile of the corpus. Skips without the corpus.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
tr=${LATSCOPE_TRACES:-}
ov=$(ls "$tr"/ort/py/openvino-1.24.1/*.json 2>/dev/null | head -1)
[[ -n $ov ]] || skip "no \$LATSCOPE_TRACES/ort/py/openvino-1.24.1 profile"
run_doc() { # FILE ARGS...: doctor JSON into $TMPDIR/d.json, exit 0 or 1
    set +e
    "$LATSCOPE" doctor --format json "${@:2}" "$1" >"$TMPDIR/d.json" 2>"$TMPDIR/err"
    local rc=$?
    set -e
    [[ $rc -le 1 ]] || { cat "$TMPDIR/err" >&2; fail "$1: doctor exited $rc"; }
}
run_doc "$ov" --threshold ort_fallback_pct=1
expect_rc 0 "$LATSCOPE" analyze --format json "$ov"
cp "$TMPDIR/out" "$TMPDIR/a.json"
python3 - "$TMPDIR/d.json" "$TMPDIR/a.json" <<'PY' || fail "ort-cpu-fallback on the OpenVINO profile"
import json, sys
d, a = (json.load(open(p)) for p in sys.argv[1:3])
f = [x for x in d["findings"] if x["id"] == "ort-cpu-fallback"]
if not f:
    sys.exit("no ort-cpu-fallback finding")
f = f[0]
ev = f["evidence"]
prov = {p["name"]: p for p in a["ranks"][0]["ort"]["providers"]}
bad = []
if ev["provider"] != "OpenVINOExecutionProvider":
    bad.append(f"provider {ev['provider']}")
if abs(ev["fallback_pct"] - prov["CPUExecutionProvider"]["pct"]) > 0.01:
    bad.append(f"share {ev['fallback_pct']} vs analyze {prov['CPUExecutionProvider']['pct']}")
ops = sorted(r["op"] for r in ev["fallback_ops"])
if ops != ["ReduceSum", "TopK", "Unique"]:
    bad.append(f"ops {ops}")
for w in ("TopK", "Unique", "ReduceSum", "CPUExecutionProvider", "OpenVINOExecutionProvider"):
    if w not in f["title"]:
        bad.append(f"title lacks {w}")
if f["saving_bound"] != "estimate":
    bad.append("saving_bound")
if "Keep the graph on OpenVINOExecutionProvider" not in f["recommendation"]:
    bad.append("recommendation")
if bad: print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
run_doc "$ov"
! jq -e '.findings[] | select(.id == "ort-cpu-fallback")' "$TMPDIR/d.json" >/dev/null ||
    fail "fired under the default 5 % on a 3.6 % fallback"
for f in "$tr"/ort/py/1.32.0/*.json "$tr"/cpu/ort/*.json; do
    run_doc "$f" --threshold ort_fallback_pct=0
    ! jq -e '.findings[] | select(.id == "ort-cpu-fallback")' "$TMPDIR/d.json" >/dev/null ||
        fail "$f: a CPU-EP session has no fallback"
done
echo "ort-cpu-fallback: TopK, Unique, ReduceSum on the CPU EP"
exit 0

#!/usr/bin/env bash
# t808-report-format-sections: the format sections analyze embeds (ONNX Runtime, TensorRT,
# TensorFlow, Nsight Compute) are drawn on the report page, not only embedded (issue 30 item 7),
# checked in headless Chromium on real files of the shared corpus (SKIP without it or without
# Chromium): each section's card is there with a table per array of rows, as many rows as
# analyze --format json has. An ONNX Runtime page shows its model runs and their mean (analyze's
# ort.runs / run_mean_us) instead of "0 steps", names the not-applicable analyses as analyze
# does, has no GPU column and no "Top kernels: none" card.
# Ground truth: analyze --format json of the same files.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
ort=$(need_trace cpu/ort/resnet18_ort_profile_2026-11-29_19-53-46_878.json)
trt=$(need_trace trt/trex/examples/pytorch/resnet/A100/fp32/resnet.onnx.engine.profile.json)
tf=$(need_trace tf/tiny_cnn_tf2.21.0/vm.xplane.pb)
ncu=$(need_trace ncu/cublaslt_ncu.log)
command -v chromium >/dev/null || skip "chromium not installed (LATSCOPE_DEPS_BROWSER=1 scripts/deps.sh)"
command -v python3 >/dev/null || skip "python3 not installed (it reads the DOM)"
T=$TMPDIR
check() { # FILE KEY TITLE: the section KEY of FILE's analysis drawn as the card TITLE
    "$LATSCOPE" analyze --format json "$1" >"$T/an.json" 2>/dev/null
    "$LATSCOPE" report "$1" -o "$T/r.html" 2>/dev/null || fail "report of $1 failed"
    report_dom_ok "$T/r.html" 0
    python3 - "$T/body" "$T/an.json" "$2" "$3" <<'EOF_PY' || fail "$1: section $2 is not drawn as analyze has it"
import json, re, sys
body = open(sys.argv[1], encoding="utf-8").read()
sec = json.load(open(sys.argv[2]))["ranks"][0][sys.argv[3]]
i = body.index("<h2>%s</h2>" % sys.argv[4])
nxt = body.find("<h2>", i + 4)
card = body[i:nxt if nxt > 0 else len(body)]
tables = 0
for k, v in sec.items():
    if isinstance(v, list) and v and isinstance(v[0], dict):
        h = "<h3>%s</h3>" % k.replace("_", " ")
        assert h in card, (h, "missing")
        j = card.index(h)
        tb = card[j:card.index("</tbody>", j)]
        assert tb.count("<tr>") - 1 == len(v), (k, tb.count("<tr>") - 1, len(v))
        tables += 1
assert tables, "no row table in the section"
print(sys.argv[3], tables, "tables")
EOF_PY
}
check "$trt" tensorrt TensorRT
check "$tf" tensorflow TensorFlow
check "$ncu" ncu "Nsight Compute"
check "$ort" ort "ONNX Runtime"
python3 - "$T/body" "$T/an.json" <<'EOF_PY' || fail "the ONNX Runtime page's headline is not analyze's"
import json, re, sys
body = open(sys.argv[1], encoding="utf-8").read()
r = json.load(open(sys.argv[2]))["ranks"][0]
assert not r["steps"] and r["ort"]["runs"] > 0, r["ort"]["runs"]
runs = re.search(r'data-key="ort.runs"><b>([^<]*)', body).group(1)
assert runs.replace(",", "") == str(r["ort"]["runs"]), (runs, r["ort"]["runs"])
assert 'data-key="steps"' not in body, "a '0 steps' KPI"
na = re.search(r'data-key="not_applicable">not applicable: ([^<]*)', body).group(1)
for n in r["not_applicable"]:
    assert n["why"] in na, (n, na)
assert "<h2>Top kernels</h2>" not in body and '<p class="mut">none</p>' not in body
for h in re.findall(r"<th[^>]*>([^<]*)</th>", body):
    assert not h.startswith("GPU"), h
EOF_PY
exit 0

#!/usr/bin/env bash
# t813-report-first-screen: a trace page opens on what is slow and what to do (issue 30 item 7):
# its first card, before the doctor findings and then the timeline, is "What is slow": doctor's
# first finding and its recommendation, the top GPU kernel, the top ONNX Runtime op type and the
# top CPU op by self time, each equal to `doctor`/`analyze --format json`. Checked in headless
# Chromium (SKIP without it) on a hand-made GPU trace (tests/data) and, from the shared corpus
# when present, a real CPU-only PyTorch trace and an ONNX Runtime profile.
# Ground truth: analyze and doctor --format json of the same files.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
command -v chromium >/dev/null || skip "chromium not installed (LATSCOPE_DEPS_BROWSER=1 scripts/deps.sh)"
command -v python3 >/dev/null || skip "python3 not installed (it reads the DOM)"
T=$TMPDIR
files=("$LATSCOPE_SRCDIR/tests/data/handmade-doctor-launch.json")
for rel in torch-cpu/resnet18_b1/resnet18_b1.pt.trace.json \
    cpu/ort/resnet18_ort_profile_2026-11-29_19-53-46_878.json; do
    [[ -e $LATSCOPE_TRACES/$rel ]] && files+=("$LATSCOPE_TRACES/$rel")
done
for f in "${files[@]}"; do
    "$LATSCOPE" analyze --format json "$f" >"$T/an.json" 2>/dev/null
    "$LATSCOPE" doctor --format json "$f" >"$T/doc.json" 2>/dev/null || true
    "$LATSCOPE" report "$f" -o "$T/r.html" 2>/dev/null || fail "report of $f failed"
    report_dom_ok "$T/r.html" 0
    python3 - "$T/body" "$T/an.json" "$T/doc.json" <<'EOF_PY' || fail "$f: the first screen is not what is slow"
import html, json, re, sys
body = open(sys.argv[1], encoding="utf-8").read()
r = json.load(open(sys.argv[2]))["ranks"][0]
finds = json.load(open(sys.argv[3]))["findings"]
h2 = re.findall(r"<h2>([^<]*)</h2>", body)
assert h2[:3] == ["What is slow", "Doctor findings", "Timeline (rank 0)"], h2[:3]
t = body[body.index('<table class="headline kv">'):]
t = t[:t.index("</table>")]
rows = dict((k, html.unescape(v)) for k, v in re.findall(r"<tr><th>([^<]*)</th><td>([^<]*)</td></tr>", t))
want = {}
if finds:
    want["top finding"] = finds[0]["severity"] + ": " + finds[0]["title"]
    if finds[0].get("recommendation"):
        want["do"] = finds[0]["recommendation"]
if r.get("top_kernels"):
    want["top GPU kernel"] = r["top_kernels"][0]["name"] + " — "
if r.get("ort") and r["ort"].get("op_types"):
    want["top ONNX Runtime op type"] = r["ort"]["op_types"][0]["name"] + " — "
if r.get("top_ops_self"):
    want["top CPU op by self time"] = r["top_ops_self"][0]["name"][:256] + " — "
assert set(rows) == set(want), (sorted(rows), sorted(want))
for k, v in want.items():
    assert rows[k] == v if k in ("top finding", "do") else rows[k].startswith(v), (k, rows[k], v)
print(len(rows), "headline rows:", ", ".join(sorted(rows)))
EOF_PY
done
exit 0

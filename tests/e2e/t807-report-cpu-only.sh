#!/usr/bin/env bash
# t807-report-cpu-only: the report of a real CPU-only PyTorch trace (shared corpus
# torch-cpu/resnet18_b1; SKIP without it or without headless Chromium) labels its steps as
# analyze's text does (issue 30 item 7): the per-step chart's legend is dataloader/ops/python/
# other, never GPU compute/idle, and each step's ops and python segments carry analyze JSON's
# cpu_ops_us / cpu_python_us; the operator tables have no GPU columns; the empty GPU tables
# (top kernels, operator -> kernel mapping) are not drawn as "none" cards but named in one
# "Not in this trace" line after the content.
# Ground truth: analyze --format json of the same trace.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
tr=$(need_trace torch-cpu/resnet18_b1/resnet18_b1.pt.trace.json)
command -v chromium >/dev/null || skip "chromium not installed (LATSCOPE_DEPS_BROWSER=1 scripts/deps.sh)"
command -v python3 >/dev/null || skip "python3 not installed (it reads the DOM)"
T=$TMPDIR
"$LATSCOPE" analyze --format json "$tr" >"$T/an.json"
check_py "$T/an.json" 'assert d["ranks"][0]["cpu_only"] is True and len(d["ranks"][0]["steps"]) >= 2'
"$LATSCOPE" report "$tr" -o "$T/r.html" 2>/dev/null || fail "report failed"
report_data "$T/r.html" >"$T/data.json"
report_dom_ok "$T/r.html" 0
python3 - "$T/body" "$T/an.json" "$T/data.json" <<'EOF_PY' || fail "the CPU-only page is not labelled as analyze's text"
import json, re, sys
body = open(sys.argv[1], encoding="utf-8").read()
an = json.load(open(sys.argv[2]))
data = json.load(open(sys.argv[3]))
def us(v):  # report.js fmtUs for the ranges a step part takes
    a = abs(v)
    if a >= 1e6: return "%s s" % format(v / 1e6, ",.3f")
    if a >= 1e3: return "%s ms" % format(v / 1e3, ",.3f")
    return "%s µs" % format(v, ",.1f" if a >= 100 else ",.3f")
i = body.index("<h2>Per-step breakdown (CPU-only trace)</h2>")
card = body[i:body.index("<h2>", i + 4)]
legend = re.findall(r"<span><i[^>]*></i>([^<]*)</span>", card)
assert legend == ["dataloader", "ops", "python", "other"], legend
titles = re.findall(r"<title>(step [0-9]+ · [^<]*)</title>", card)
assert titles and not [t for t in titles if re.search(r"· (idle|compute|cpu-only|comm|copies|gpu-other):", t)], titles
for s in an["ranks"][0]["steps"]:
    for key, label in (("cpu_ops_us", "ops"), ("cpu_python_us", "python")):
        if s[key] > 0:
            want = "step %d · %s: %s" % (s["step"], label, us(s[key]))
            assert want in titles, (want, titles)
# no GPU column in the operator tables
gpu_labels = [f["label"] for f in data["pages"][0]["fields"]["top_ops"] if f["key"] in ("gpu_us", "kernels")]
for h in ("Top operators by total time", "Top operators by self time"):
    j = body.index("<h2>%s</h2>" % h)
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", body[j:body.index("</thead>", j)])
    assert heads and not set(heads) & set(gpu_labels), (h, heads, gpu_labels)
assert "<h2>Top kernels</h2>" not in body and '<p class="mut">none</p>' not in body
m = re.search(r'data-key="absent">Not in this trace: ([^<]*)\.</p>', body)
assert m and "top kernels" in m.group(1) and "operator → kernel mapping" in m.group(1), m
assert body.index("Top operators by total time") < m.start(), "the absent line precedes the content"
print(len(titles), "step segments checked")
EOF_PY
exit 0

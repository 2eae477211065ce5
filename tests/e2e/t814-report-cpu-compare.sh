#!/usr/bin/env bash
# t814-report-cpu-compare: the compare page of two CPU-only PyTorch traces (shared corpus
# torch-cpu; SKIP without it or without headless Chromium) has no GPU rows of dashes and no
# empty kernel table (issue 30 item 7): its summary is mean step and findings, and the ranked
# table compares the top CPU operators by self time, each side's value equal to analyze's
# top_ops_self (absent = 0).
# Ground truth: analyze --format json of both traces.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
a=$(need_trace torch-cpu/resnet18_b1/resnet18_b1.pt.trace.json)
b=$(need_trace torch-cpu/threads/mnv3_2threads.pt.trace.json)
command -v chromium >/dev/null || skip "chromium not installed (LATSCOPE_DEPS_BROWSER=1 scripts/deps.sh)"
command -v python3 >/dev/null || skip "python3 not installed (it reads the DOM)"
T=$TMPDIR
"$LATSCOPE" analyze --format json "$a" >"$T/a.json"
"$LATSCOPE" analyze --format json "$b" >"$T/b.json"
"$LATSCOPE" report "$a" "$b" -o "$T/r.html" 2>/dev/null || fail "report failed"
report_dom_ok "$T/r.html" 2
python3 - "$T/body" "$T/a.json" "$T/b.json" <<'EOF_PY' || fail "the CPU compare page"
import html, json, re, sys
body = open(sys.argv[1], encoding="utf-8").read()
ra, rb = (json.load(open(f))["ranks"][0] for f in sys.argv[2:4])
assert ra["cpu_only"] and rb["cpu_only"]
i = body.index("<h2>resnet18_b1.pt.trace.json → mnv3_2threads.pt.trace.json</h2>")
page = body[i:body.index("<h2>diff: ", i)]
assert "GPU kernel time" not in page and "GPU idle" not in page, "GPU rows on a CPU-only compare page"
assert "Kernels ranked" not in page, "an empty kernel table"
j = page.index("<h2>Operators ranked by change of self time")
rows = re.findall(r'<tr><td class="name"[^>]*>([^<]*)</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td>', page[j:])
def us(v):  # report.js fmtUs
    a = abs(v)
    if a >= 1e6: return format(v / 1e6, ",.3f") + " s"
    if a >= 1e3: return format(v / 1e3, ",.3f") + " ms"
    return format(v, ",.1f" if a >= 100 else ",.3f") + " µs"
sa = dict((o["name"], o["self_us"]) for o in ra["top_ops_self"])
sb = dict((o["name"], o["self_us"]) for o in rb["top_ops_self"])
assert len(rows) == len(set(sa) | set(sb)), (len(rows), len(set(sa) | set(sb)))
for n, va, vb in rows:
    n = html.unescape(n)
    assert va == us(sa.get(n, 0)) and vb == us(sb.get(n, 0)), (n, va, vb)
print(len(rows), "operators compared")
EOF_PY
exit 0

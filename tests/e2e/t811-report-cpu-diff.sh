#!/usr/bin/env bash
# t811-report-cpu-diff: the diff page of two CPU-sample profiles (shared corpus cpu-stacks: the
# same py-spy run as raw collapsed stacks and as speedscope; SKIP without it or without headless
# Chromium) shows the comparison latscope diff makes of them, not "0 metrics compared" (issue 30
# item 7): KPIs of the CPU functions compared, those with a changed share and the samples before
# / after equal `latscope diff --format json`'s cpu_functions / cpu_samples_*; the ranked card
# lists the functions of the largest share change with diff's numbers; no "metrics compared"
# KPI, no empty "Every compared metric" table and no GPU temporal card on a pair without rows
# or kernels.
# Ground truth: latscope diff --format json of the same pair.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
a=$(need_trace cpu-stacks/pyspy0.4.3_ort_transformer.raw.txt)
b=$(need_trace cpu-stacks/pyspy0.4.3_ort_transformer.speedscope.json)
command -v chromium >/dev/null || skip "chromium not installed (LATSCOPE_DEPS_BROWSER=1 scripts/deps.sh)"
command -v python3 >/dev/null || skip "python3 not installed (it reads the DOM)"
T=$TMPDIR
"$LATSCOPE" diff --format json "$a" "$b" >"$T/d.json" 2>/dev/null || true
check_py "$T/d.json" 'assert d["cpu_functions"] and not d["rows"], (len(d["rows"]), len(d["cpu_functions"]))'
"$LATSCOPE" report "$a" "$b" -o "$T/r.html" 2>/dev/null || fail "report failed"
report_dom_ok "$T/r.html" 3
python3 - "$T/body" "$T/d.json" <<'EOF_PY' || fail "the CPU-sample diff page does not show diff's comparison"
import json, re, sys, html
body = open(sys.argv[1], encoding="utf-8").read()
d = json.load(open(sys.argv[2]))
i = body.index("<h2>diff: ")
page = body[i:]
kp = dict(re.findall(r'data-key="(diff-[^"]*)"><b>([^<]*)', page))
cf = d["cpu_functions"]
changed = [f for f in cf if f["verdict"] in ("larger share", "smaller share")]
assert kp["diff-cpu-functions"] == format(len(cf), ","), kp
assert kp["diff-cpu-changed"] == format(len(changed), ","), kp
assert kp["diff-cpu-samples"] == "%s / %s" % (format(d["cpu_samples_before"], ","), format(d["cpu_samples_after"], ",")), kp
assert "diff-rows" not in kp, "a '0 metrics compared' KPI"
assert "Every compared metric" not in page and "Temporal breakdown (GPU" not in page
j = page.index('<table class="diff-cpu">')
cells = re.findall(r"<tr><td class=\"name\"(?: title=\"[^\"]*\")?>([^<]*)</td>", page[j:page.index("</table>", j)])
top = sorted(changed, key=lambda f: -abs(f["total_pct_after"] - f["total_pct_before"]))[:25]
assert len(cells) == len(top), (len(cells), len(top))
want = [f["total_pct_after"] - f["total_pct_before"] for f in top]
gotd = [next(abs(f["total_pct_after"] - f["total_pct_before"]) for f in changed if f["function"][:256] == html.unescape(c)[:256]) for c in cells]
assert gotd == [abs(w) for w in want], (gotd[:3], want[:3])
print(len(cf), "functions,", len(changed), "changed,", len(cells), "rows")
EOF_PY
exit 0

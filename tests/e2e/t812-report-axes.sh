#!/usr/bin/env bash
# t812-report-axes: the line charts' axes have round ticks in one unit (issue 30 item 7: they
# mixed ms and µs, used ticks such as 293.061 ms and clipped "99.99%" at the edge). A bench
# sweep against the serve-test fixture is reported; in headless Chromium (SKIP without it) every
# chart's y ticks (class ytick) are 0, s, 2s, ... with s = 1, 2 or 5 x 10^k, written in a single
# unit, the largest at or above every plotted value; every x tick label (class xtick) lies
# inside the chart's width (text anchored at the edge where a centred one would be cut).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
command -v chromium >/dev/null || skip "chromium not installed (LATSCOPE_DEPS_BROWSER=1 scripts/deps.sh)"
command -v python3 >/dev/null || skip "python3 not installed (it reads the DOM)"
T=$TMPDIR
start_fixture --service fixed:1ms
set +e
"$LATSCOPE" bench -r 50,100,150 --duration 1s -t 1 --format json "$FIXTURE_URL/" >"$T/run.json" 2>"$T/err"
rc=$?
set -e
[[ $rc -eq 0 || $rc -eq 1 ]] || fail "bench exited $rc: $(cat "$T/err")"
stop_fixtures
"$LATSCOPE" report "$T/run.json" -o "$T/r.html" 2>/dev/null || fail "report failed"
report_dom_ok "$T/r.html" 0
python3 - "$T/body" <<'EOF_PY' || fail "chart axes"
import math, re, sys
body = open(sys.argv[1], encoding="utf-8").read()
charts = 0
for svg in re.findall(r'<svg width="100%" viewBox="0 0 (\d+) (\d+)" role="img">(.*?)</svg>', body, re.S):
    W, H, inner = int(svg[0]), int(svg[1]), svg[2]
    yt = re.findall(r'<text x="[^"]*" y="[^"]*" text-anchor="end" class="ytick">([^<]*)</text>', inner)
    if not yt:
        continue
    charts += 1
    units = set(re.sub(r"^[0-9.,\-]+\s*", "", t) for t in yt)
    assert len(units) == 1, ("mixed units", yt)
    v = [float(re.match(r"[0-9.,\-]+", t).group(0).replace(",", "")) for t in yt]
    assert v[0] == 0 and len(v) >= 3, yt
    step = v[1] - v[0]
    for a, b in zip(v, v[1:]):
        assert abs((b - a) - step) <= 1e-9 * max(1, abs(b)), ("uneven ticks", yt)
    m = step / 10 ** math.floor(math.log10(step))
    assert min(abs(m - r) for r in (1, 2, 5, 10)) < 1e-6, ("not a round step", yt)
    for x, anchor, t in re.findall(r'<text x="([^"]*)" y="[^"]*" text-anchor="([^"]*)" class="xtick">([^<]*)</text>', inner):
        x, w = float(x), len(t) * 6.2
        lo, hi = {"middle": (x - w / 2, x + w / 2), "end": (x - w, x), "start": (x, x + w)}[anchor]
        assert lo >= 0 and hi <= W, ("x tick label cut", t, x, anchor, W)
assert charts >= 2, charts
print(charts, "charts checked")
EOF_PY
exit 0

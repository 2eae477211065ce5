#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t264-bench-slices: --slice D cuts each point into windows of D by response end. The slices'
# counts add up to the point's (successes and errors), and each slice's p50/p90/p99/max are
# the nearest-rank percentiles of the --records of the same window, computed here from the
# records alone; closed and open loop, with failing requests, in JSON, text and CSV.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
# 10 % of the requests fail with a 500: errors are counted in their slice too
start_fixture --service exp:3ms --fault 5xx:0.1 --seed 7
u=$FIXTURE_URL
check_slices() { # JSON RECORDS
    check_py "$1" "
import math
recs = [json.loads(l) for l in open('$2')]
for pi, p in enumerate(d['points']):
    sl = p['slices']
    assert p['slices_complete'] is True
    assert sum(x['requests'] for x in sl) == p['requests'], (sum(x['requests'] for x in sl), p['requests'])
    assert sum(x['errors'] for x in sl) == p['errors']['total']
    assert p['errors']['total'] > 0 and len(sl) >= 3
    off = p['slices_offset_ns']
    w = round(p['slice_s'] * 1e9)
    mine = [r for r in recs if r['point'] == pi and r['error'] != 'interrupted']
    assert len(mine) == p['requests'] + p['errors']['total']
    by = [[] for _ in sl]
    err = [0] * len(sl)
    for r in mine:
        k = max(0, min(len(sl) - 1, (r['t_end_ns'] - off) // w))
        if r['error'] is None:
            by[k].append(r['latency_ns'])
        else:
            err[k] += 1
    for k, x in enumerate(sl):
        v = sorted(by[k])
        assert x['requests'] == len(v) and x['errors'] == err[k], (k, x, len(v), err[k])
        assert abs(x['start_s'] - k * p['slice_s']) < 1e-6
        def nr(q):
            return v[max(1, math.ceil(q / 100 * len(v))) - 1] / 1e6
        for q, key in ((50, 'p50'), (90, 'p90'), (99, 'p99')):
            assert abs(x['latency_ms'][key] - nr(q)) < 1e-6, (k, key, x['latency_ms'][key], nr(q))
        assert abs(x['latency_ms']['max'] - v[-1] / 1e6) < 1e-6
        ln = x['end_s'] - x['start_s']
        assert abs(x['achieved_rps'] - len(v) / ln) < 0.01 * max(1, len(v) / ln), (x, ln)
    # the last slice runs at least to the end of the measured window
    assert sl[-1]['end_s'] >= p['duration_s'] - 1e-6 or len(sl) * p['slice_s'] <= p['duration_s'] + 1e-6
"
}
expect_rc 0 "$LATSCOPE" bench "$u/x" -c 2,4 --duration 1500ms -t 1 --slice 300ms --max-error-rate 0.9 \
    --format json --records "$TMPDIR/closed.jsonl"
cp "$TMPDIR/out" "$TMPDIR/closed.json"
check_slices "$TMPDIR/closed.json" "$TMPDIR/closed.jsonl"
# open loop; a window that is not a multiple of the slice (the last slice is shorter)
set +e
"$LATSCOPE" bench "$u/x" -r 300 --duration 1100ms -t 1 --slice 250ms --max-error-rate 0.9 \
    --format json --records "$TMPDIR/open.jsonl" >"$TMPDIR/open.json" 2>"$TMPDIR/open.err"
rc=$?
set -e
[[ $rc == 0 || $rc == 1 ]] || { cat "$TMPDIR/open.err"; fail "open loop rc $rc"; }
check_slices "$TMPDIR/open.json" "$TMPDIR/open.jsonl"
check_py "$TMPDIR/open.json" "
sl = d['points'][0]['slices']
assert len(sl) == 5, len(sl)
assert abs(sl[-1]['end_s'] - sl[-1]['start_s'] - 0.1) < 0.05 or sl[-1]['end_s'] > 1.1, sl[-1]
"
# text: the compact table, one row per slice; CSV: the second table
expect_rc 0 "$LATSCOPE" bench "$u/x" -c 2 --duration 600ms -t 1 --slice 200ms --max-error-rate 0.9
contains "$TMPDIR/out" "slices of 0.2 s (by response end):"
rows=$(grep -cE '^ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ ' "$TMPDIR/out")
[[ $rows == 3 ]] || fail "text: $rows slice rows, want 3: $(cat "$TMPDIR/out")"
expect_rc 0 "$LATSCOPE" bench "$u/x" -c 2 --duration 600ms -t 1 --slice 200ms --max-error-rate 0.9 \
    --format csv
python3 - "$TMPDIR/out" <<'PY' || fail "csv: $(cat "$TMPDIR/out")"
import csv, sys
text = open(sys.argv[1]).read()
head, tail = text.split("\n\n")
pt = list(csv.DictReader(head.splitlines()))
sl = list(csv.DictReader(tail.splitlines()))
assert len(pt) == 1 and len(sl) == 3, (pt, sl)
assert sum(int(r["Errors"]) for r in sl) == int(pt[0]["Errors"]), (sl, pt)
assert all(r["Point"] == "1" for r in sl) and [r["Slice"] for r in sl] == ["0", "1", "2"]
PY
# option errors
expect_rc 2 "$LATSCOPE" bench "$u/x" -n 1 --slice 0
contains "$TMPDIR/err" "--slice"
expect_rc 2 "$LATSCOPE" bench "$u/x" -n 1 --slice
contains "$TMPDIR/err" "needs a value"
exit 0

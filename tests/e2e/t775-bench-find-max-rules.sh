#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# timeout: 300
# t775-bench-find-max-rules: the rules of a --find-max search (issue 31 item 2), asserted on
# structure, not on timings: every probe's percentile had lat_pctl_min_n samples (p99: 100,
# docs/metrics.md "Enough samples"), a missed probe is measured again, the answer is a range
# with a confidence in JSON, the text never prints a range whose two ends read the same, and a
# probe that misses the SLO is INVALID in find-max exactly as in a plain sweep.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:1ms --workers 2

# 1. A search on the fixture (capacity 2000 req/s). Whatever the machine's load makes of it
#    (an answer, or "inconclusive"), the rules hold. (p99 <= 500 ms: a loaded machine misses
#    a tight SLO at every rate, and the search would halve down to 1 req/s, where a p99 probe
#    lasts 125 s.)
set +e
"$LATSCOPE" bench --find-max --slo 'p99<=500ms' -r 100 --max-rate 3200 --precision 0.5 \
    --duration 200ms -t 1 --max-send-lag 50 --format json "$FIXTURE_URL/" >"$TMPDIR/fm.json" \
    2>"$TMPDIR/fm.err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/fm.err"; fail "find-max exit $rc"; }
check_py "$TMPDIR/fm.json" "
import math
f = d['find_max']; r = f['range']
need = math.ceil(100 / (100 - 99))               # the documented rule: p99 needs 100
assert r['min_samples'] == need, r
assert 0 < r['confidence'] < 1, r
assert isinstance(r['inconclusive'], bool) and isinstance(r['noisy'], list), r
assert (r['inconclusive_reason'] is None) == (not r['inconclusive']), r
if r['low'] is not None and r['high'] is not None: assert r['low'] < r['high'], r
if not r['inconclusive']: assert r['low'] is not None, r
assert (rc := $rc) == (1 if r['inconclusive'] or f['max_rate'] is None else 0), (rc, r)
for p in d['points']:
    # every probe given a verdict ran long enough for its p99 (client-INVALID ones: no verdict)
    if not p['invalid_client']: assert p['requests'] >= need, p['requests']
    # a probe that misses the SLO is INVALID, as in a sweep
    if p['slo']['pass'] is False: assert p['valid'] is False, p
    if p['slo']['pass'] is False and not p['invalid_client']: assert 'SLO' in p['invalid_reason'], p
    if p['valid']: assert p['slo']['pass'] is True, p
# every rate that missed once was measured again (unless the search stopped there: the
# client could not drive it any more)
rates = [p['rate'] for p in d['points'] if not p['invalid_client']]
stop = f['client_limit'] if f['client_limited'] else None
for p in d['points']:
    if not p['invalid_client'] and p['slo']['pass'] is False and p['rate'] != stop:
        assert rates.count(p['rate']) >= 2, (p['rate'], rates)
"

# 2. An SLO no rate can meet: every probe misses, each is measured twice, and each is INVALID
#    with the same reason as in a sweep at that rate.
set +e
"$LATSCOPE" bench --find-max --slo 'p50<=1us' -r 8 --duration 200ms -t 1 --max-send-lag 50 \
    --format json "$FIXTURE_URL/" >"$TMPDIR/none.json" 2>"$TMPDIR/none.err"
rc=$?
"$LATSCOPE" bench --slo 'p50<=1us' -r 8 --duration 200ms -t 1 --max-send-lag 50 \
    --format json "$FIXTURE_URL/" >"$TMPDIR/sweep.json" 2>>"$TMPDIR/none.err"
rc2=$?
set -e
[[ $rc -eq 1 && $rc2 -eq 1 ]] || { cat "$TMPDIR/none.err"; fail "exit $rc / $rc2, want 1 / 1"; }
check_py "$TMPDIR/none.json" "
import json
s = json.load(open('$TMPDIR/sweep.json'))['points'][0]
f = d['find_max']
assert f['max_rate'] is None and f['range']['low'] is None, f
# (a probe the loaded client could not drive, send lag > 50 ms, is no verdict: measured again)
pts = [p for p in d['points'] if not p['invalid_client']]
rates = [p['rate'] for p in pts]
assert rates[0] == 8 and len(rates) >= 2, rates
assert all(rates.count(x) == 2 for x in rates), rates      # each miss measured twice
assert sorted(set(rates), reverse=True) == list(dict.fromkeys(rates)), rates   # halving
for p in pts + ([s] if not s['invalid_client'] else []):
    assert p['valid'] is False and p['invalid_reason'] == 'SLO p50<=1us not met', p['invalid_reason']
    assert p['requests'] >= 2, p['requests']                  # p50 needs 2 samples
"
"$LATSCOPE" bench --find-max --slo 'p50<=1us' -r 8 --duration 200ms -t 1 --max-send-lag 50 \
    "$FIXTURE_URL/" >"$TMPDIR/none.txt" 2>/dev/null || true
contains "$TMPDIR/none.txt" "find-max: no probed rate met p50<=1us"
grep -q "INVALID: SLO p50<=1us not met" "$TMPDIR/none.txt" || fail "no INVALID label: $(cat "$TMPDIR/none.txt")"
! grep -q "^  VALID" "$TMPDIR/none.txt" || fail "a missed probe labelled VALID"

# 3. A client that cannot keep the schedule (--max-send-lag 1ns) and an SLO every probe misses
#    (so the lag is no conservative pass): "INCONCLUSIVE", never a number; the range says why.
set +e
"$LATSCOPE" bench --find-max --slo 'p99<=1us' -r 400 --duration 200ms --max-send-lag 0.000001 \
    --format json "$FIXTURE_URL/" >"$TMPDIR/c.json" 2>/dev/null
rc=$?
"$LATSCOPE" bench --find-max --slo 'p99<=1us' -r 400 --duration 200ms --max-send-lag 0.000001 \
    "$FIXTURE_URL/" >"$TMPDIR/c.txt" 2>/dev/null
set -e
[[ $rc -eq 1 ]] || fail "client-limited search: exit $rc, want 1"
check_py "$TMPDIR/c.json" "
r = d['find_max']['range']
assert r['inconclusive'] is True and 'client could not drive' in r['inconclusive_reason'], r
assert r['low'] is None and d['find_max']['max_rate'] is None, r
"
contains "$TMPDIR/c.txt" "find-max: INCONCLUSIVE: the client could not drive"

# No output of the three says "between X (met) and X (missed)" with X equal.
for o in "$TMPDIR/none.txt" "$TMPDIR/c.txt"; do
    ! grep -Eq 'between ([0-9.]+)( req/s)? \(met[^)]*\) and \1( req/s)? \(missed' "$o" ||
        fail "equal ends: $(grep between "$o")"
done
"$LATSCOPE" bench --find-max --slo 'p99<=500ms' -r 100 --max-rate 3200 --precision 0.5 \
    --duration 200ms -t 1 --max-send-lag 50 "$FIXTURE_URL/" >"$TMPDIR/fm.txt" 2>/dev/null || true
! grep -Eq 'between ([0-9.]+)( req/s)? \(met[^)]*\) and \1( req/s)? \(missed' "$TMPDIR/fm.txt" ||
    fail "equal ends: $(grep between "$TMPDIR/fm.txt")"
grep -Eq "find-max: (the knee lies between|INCONCLUSIVE|the SLO holds up to|no probed rate)" \
    "$TMPDIR/fm.txt" || fail "no answer line: $(tail -5 "$TMPDIR/fm.txt")"
exit 0

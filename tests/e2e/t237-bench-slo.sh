#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t237-bench-slo: --slo with --confidence (LoadGen early stopping ends the point once the claim
# holds), an SLO that cannot be met (INVALID), and --find-max against a fixture whose capacity
# is known (1 worker x 5 ms = 200 req/s).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:5ms --workers 1

expect_rc 0 "$LATSCOPE" bench -c 1 --duration 20s --window 200ms --slo 'p90<=50ms' \
    --confidence 0.9 --format json "$FIXTURE_URL/"
check_py "$TMPDIR/out" "
p = d['points'][0]
# ended by the rule, before the 20 s asked for, with at least the samples a p90 needs (10)
assert p['stopped_by_rule'] is True and p['duration_s'] < 20, p['duration_s']
assert p['requests'] >= 10, p['requests']
s = p['slo']
assert s['pass'] is True and s['confidence'] == 0.9
assert s['terms'][0]['term'].endswith('p90<=50ms') and s['terms'][0]['verdict'] == 'pass', s
"
cap=$(jq_py "$TMPDIR/out" "d['points'][0]['achieved_rps']")
expect_rc 1 "$LATSCOPE" bench -c 1 -n 50 --slo 'p50<=1ms' --format json "$FIXTURE_URL/"
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['valid'] is False and 'SLO' in p['invalid_reason'] and p['slo']['pass'] is False
assert p['slo']['terms'][0]['verdict'] == 'fail'
"
set +e
# The machine running the tests may be loaded: judge the probes on the SLO, not on send lag.
# Constant arrivals: no queueing below the capacity, a growing queue above it.
"$LATSCOPE" bench --find-max --slo 'p99<=60ms' --rate 50 --max-rate 800 --precision 0.2 \
    --arrival constant --duration 1s -t 1 --max-send-lag 50 --format json "$FIXTURE_URL/" >"$TMPDIR/fm.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -eq 0 ]] || { cat "$TMPDIR/fm.json" "$TMPDIR/err"; fail "find-max exit $rc"; }
check_py "$TMPDIR/fm.json" "
f = d['find_max']
assert d['mode'] == 'find-max' and f['slo'] == 'p99<=60ms'
rates = list(dict.fromkeys(p['rate'] for p in d['points']))
assert rates[:2] == [50, 100], rates          # bracket by doubling
# capacity 200/s at most (a loaded machine only slows the fixture): above it the queue of
# constant arrivals grows; at least half the capacity this machine measured above (c=1)
assert f['max_rate'] <= 250, (f, rates)
assert f['max_rate'] >= 0.5 * min($cap, 200), (f, rates, $cap)
best = d['points'][f['point']]
assert best['rate'] == f['max_rate'] and best['slo']['pass'] is True
"
exit 0

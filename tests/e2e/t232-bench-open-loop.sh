#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t232-bench-open-loop: open loop against the fixture: count = rate x duration (exact for a
# constant schedule, within 4 sigma for Poisson), the same seed gives the same count, latency
# from the intended send >= from the actual send, exponential service times show in the tail.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service exp:2ms --seed 3

# Constant arrivals: exactly 300 scheduled in 1.5 s at 200/s; none may be lost.
set +e
"$LATSCOPE" bench -r 200 --arrival constant --duration 1500ms --format json "$FIXTURE_URL/" \
    >"$TMPDIR/c.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "exit $rc"; }
check_py "$TMPDIR/c.json" "
p = d['points'][0]
assert d['mode'] == 'open' and d['arrival'] == 'constant'
assert p['rate'] == 200 and p['concurrency'] is None
assert p['requests'] + p['errors']['total'] == 300, p
assert p['errors']['total'] == 0, p['errors']
assert abs(p['achieved_rps'] - 200) < 200 * 0.1 * $SAN_MULT, p['achieved_rps']
L, A = p['latency_ms'], p['latency_actual_ms']
for k in L: assert L[k] >= A[k], (k, L[k], A[k])
# exponential service, mean 2 ms: the mean is at least the service's (load only adds; 1.0 leaves
# room for the seeded draw) and p99 far above p50
assert 1.0 <= A['mean'], A['mean']
assert L['p99'] > 2 * L['p50'], (L['p50'], L['p99'])
assert p['send_lag_ms']['p50'] >= 0
"
# Poisson: the count varies, but the same seed gives the same schedule, hence the same count.
for s in 1 2; do
    set +e
    "$LATSCOPE" bench -r 300 --arrival poisson --seed 7 --duration 1s --format json \
        "$FIXTURE_URL/" >"$TMPDIR/p$s.json" 2>/dev/null
    set -e
done
n1=$(jq_py "$TMPDIR/p1.json" "d['points'][0]['requests'] + d['points'][0]['errors']['total']")
n2=$(jq_py "$TMPDIR/p2.json" "d['points'][0]['requests'] + d['points'][0]['errors']['total']")
[[ $n1 -eq $n2 ]] || fail "same seed, different counts: $n1 vs $n2"
# 300 expected, sigma = sqrt(300) ~ 17: within 4 sigma.
[[ $n1 -ge 230 && $n1 -le 370 ]] || fail "poisson count $n1 not near 300"
# Gamma with the shape given; a rate sweep gives one point per rate.
set +e
"$LATSCOPE" bench -r 50:150:50 --arrival gamma:0.5 --duration 500ms --format json \
    "$FIXTURE_URL/" >"$TMPDIR/g.json" 2>/dev/null
set -e
check_py "$TMPDIR/g.json" "
assert [p['rate'] for p in d['points']] == [50, 100, 150], [p['rate'] for p in d['points']]
assert d['arrival'] == 'gamma:0.5'
for p in d['points']: assert p['requests'] > 0
"
exit 0

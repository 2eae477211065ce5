#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t233-bench-queueing: queueing appears when concurrency exceeds the fixture's worker pool, and
# an open loop capped by --max-inflight shows it in the CO-correct latency (from the intended
# send) but not in the actual-send latency, and is marked INVALID (send lag).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:10ms --workers 2

expect_rc 0 "$LATSCOPE" bench -c 2,8 --duration 1500ms --format json "$FIXTURE_URL/"
check_py "$TMPDIR/out" "
p2, p8 = d['points']
# 2 workers x 10 ms: at most ~200 req/s whatever the concurrency
assert p8['achieved_rps'] < 260, p8['achieved_rps']
# 8 clients on 2 workers wait ~3 services in the server queue: p50 ~ 40 ms vs ~ 10 ms. Only
# ratios between points of the same run (and the fixture's 10 ms minimum): a loaded machine
# slows both points alike, it does not make 8 clients on 2 workers queue less.
assert p2['latency_ms']['p50'] >= 10 - 0.5, p2['latency_ms']
assert p8['latency_ms']['p50'] > 2.5 * p2['latency_ms']['p50'], (p2['latency_ms'], p8['latency_ms'])
"
echo "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["points"][0]["latency_ms"]["p50"])' "$TMPDIR/out")" >"$TMPDIR/base_p50"

# Open loop at 150/s against 100/s of capacity through one connection: the client queue grows.
set +e
"$LATSCOPE" bench -r 150 --arrival constant --max-inflight 1 --connections 1 -t 1 \
    --duration 1500ms --format json "$FIXTURE_URL/" >"$TMPDIR/o.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$TMPDIR/o.json" "$TMPDIR/err"; fail "exit $rc, want 1 (INVALID)"; }
check_py "$TMPDIR/o.json" "
p = d['points'][0]
L, A = p['latency_ms'], p['latency_actual_ms']
# each request itself is served like one of the closed loop's unqueued c=2 requests (the
# baseline measured above, on the same fixture under the same load): ~10 ms, never the client
# queue's wait, which the CO-correct latency shows
base = float(open('$TMPDIR/base_p50').read())
assert A['p50'] < 2 * base, (A, base)
assert L['p99'] > 3 * A['p99'], (L, A)   # the schedule says they waited much longer
assert p['send_lag_ms']['p99'] > 1.0
assert p['valid'] is False and 'send-lag' in p['invalid_reason'], p['invalid_reason']
assert p['inflight_cap_hits'] > 0
"
exit 0

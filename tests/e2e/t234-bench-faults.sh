#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t234-bench-faults: every fault class of the fixture is counted in its error class and the run
# completes with the good requests measured.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:1ms --seed 5 \
    --fault reset:0.05,close:0.05,5xx:0.05,garbage:0.05,slow_headers:0.05,stall:0.03 \
    --slow-headers 50ms --stall 5s

set +e
"$LATSCOPE" bench -c 8 --duration 3s --timeout 400ms --format json "$FIXTURE_URL/" \
    >"$TMPDIR/f.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "exit $rc"; }
check_py "$TMPDIR/f.json" "
p = d['points'][0]
e = p['errors']
assert p['requests'] > 100, p['requests']
assert e['reset'] > 0, e          # reset and close mid-body
assert e['http_5xx'] > 0, e
assert e['malformed'] > 0, e      # garbage
assert e['timeout'] > 0, e        # stalls beyond --timeout
assert e['total'] == sum(v for k, v in e.items() if k != 'total'), e
# slow headers (50 ms) are not errors, they are latency
assert p['latency_ms']['max'] >= 50, p['latency_ms']
"
# Without faults: a 4xx path is counted as http_4xx, an impossible body check as mismatch.
start_fixture --service fixed:1ms
set +e
"$LATSCOPE" bench -c 2 -n 20 --format json "$FIXTURE_URL/status/404" >"$TMPDIR/s.json" 2>/dev/null
set -e
check_py "$TMPDIR/s.json" "assert d['points'][0]['errors']['http_4xx'] == 20, d['points'][0]['errors']"
# A body check that cannot match: every response is a mismatch.
set +e
"$LATSCOPE" bench -c 2 -n 20 --expect-body 'no such text' --format json "$FIXTURE_URL/" \
    >"$TMPDIR/m.json" 2>/dev/null
set -e
check_py "$TMPDIR/m.json" "assert d['points'][0]['errors']['mismatch'] == 20, d['points'][0]['errors']"
exit 0

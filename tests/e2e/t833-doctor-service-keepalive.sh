#!/usr/bin/env bash
# timeout: 60
# t833-doctor-service-keepalive: keepalive-churn. A server that advertises keep-alive and closes
# every connection after 10 responses (service-server.py churn 10) makes bench re-send requests
# on fresh connections (stale_retries): doctor reports keepalive-churn with the re-sent count
# from the run and about 10 requests per closed connection. The same server closing after 5000
# responses (< 1 % re-sent) gets no such finding. Counters only, no timing.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/service-server.sh"
need_python
start_service churn churn 10
expect_rc 0 "$LATSCOPE" bench -c 2 -n 2000 --warmup 50ms --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/churn.json"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/churn.json"
check_py "$TMPDIR/out" "
f = [x for x in d['findings'] if x['id'] == 'keepalive-churn']
assert f, [x['id'] for x in d['findings']]
f = f[0]
p = json.load(open('$TMPDIR/churn.json'))['points'][0]
ev = f['evidence']
assert p['stale_retries'] >= 50, p['stale_retries']
assert ev['stale_retries'] == p['stale_retries'] and ev['requests'] == p['requests'], (ev, p)
assert ev['server_closes'] == p['server_closes'] == 0, (ev, p)
assert 8 <= ev['requests_per_connection'] <= 12, ev
assert f['severity'] in ('low', 'medium'), f['severity']
assert 'keep' in f['recommendation'] and 'Connection: close' in f['recommendation']
assert f['next_step']
"
# the same churn announced: "Connection: close" on every 4th response (bench's server_closes)
start_service said close 4
expect_rc 0 "$LATSCOPE" bench -c 2 -n 2000 --warmup 50ms --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/said.json"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/said.json"
check_py "$TMPDIR/out" "
f = [x for x in d['findings'] if x['id'] == 'keepalive-churn']
assert f, [x['id'] for x in d['findings']]
ev = f[0]['evidence']
p = json.load(open('$TMPDIR/said.json'))['points'][0]
assert p['server_closes'] >= 0.2 * p['requests'] and ev['server_closes'] == p['server_closes'], (ev, p)
assert 3 <= ev['requests_per_connection'] <= 5, ev
assert 'Connection: close' in f[0]['title'], f[0]['title']
"
start_service rare churn 5000
expect_rc 0 "$LATSCOPE" bench -c 2 -n 2000 --warmup 50ms --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/rare.json"
ids=$(doctor_ids "$TMPDIR/rare.json")
[[ " $ids " != *" keepalive-churn "* ]] || fail "keepalive-churn with < 1 % re-sent: $ids"
exit 0

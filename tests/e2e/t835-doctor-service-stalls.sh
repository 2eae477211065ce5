#!/usr/bin/env bash
# exclusive: compares latency across --slice windows of a local Python server
# timeout: 60
# t835-doctor-service-stalls: periodic-stalls. A server that blocks for 150 ms every second (a
# GC-like pause of its event loop; service-server.py stall) gets periodic-stalls from bench
# --slice windows: at least 4 stalls, a period within one window of the server's 1 s, the fix
# naming GC and timers. The same server without pauses gets none. Asserts the classification and
# that the evidence repeats the bench JSON, not absolute times.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/service-server.sh"
need_python
start_service stall stall 1000 150
expect_rc 0 "$LATSCOPE" bench -c 2 --duration 5s --warmup 100ms --slice 250ms --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/stall.json"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/stall.json"
check_py "$TMPDIR/out" "
f = [x for x in d['findings'] if x['id'] == 'periodic-stalls']
assert f, [x['id'] for x in d['findings']]
f = f[0]
s = json.load(open('$TMPDIR/stall.json'))['points'][0]['slices']
ev = f['evidence']
assert ev['stalls'] >= 4, ev
assert 0.75 <= ev['period_s'] <= 1.25, ev
assert abs(ev['stall_max_ms'] - max(x['latency_ms']['max'] for x in s if x['latency_ms'])) < 0.01
assert ev['windows'] == len(s), ev
assert 'garbage collector' in f['recommendation'] and '--records' in f['next_step']
"
start_service calm stall 1000000 0
expect_rc 0 "$LATSCOPE" bench -c 2 --duration 5s --warmup 100ms --slice 250ms --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/calm.json"
ids=$(doctor_ids "$TMPDIR/calm.json")
[[ " $ids " != *" periodic-stalls "* ]] || fail "periodic-stalls on a server without pauses: $ids"
exit 0

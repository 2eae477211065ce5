#!/usr/bin/env bash
# exclusive: compares latency across --slice windows of a local Python server
# timeout: 60
# t834-doctor-service-warmup: warm-up. A server whose responses take 20 ms for its first 1.2 s
# and 1 ms after (service-server.py warmup) gets a warm-up finding from bench --slice windows,
# whose evidence is the run's own window medians, with the fix and a --warmup next step. The
# same server at 1 ms from the start gets none. Asserts the classification and that the evidence
# repeats the bench JSON, never absolute times.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/service-server.sh"
need_python
start_service warm warmup 1.2 20 1
expect_rc 0 "$LATSCOPE" bench -c 2 --duration 4s --warmup 100ms --slice 250ms --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/warm.json"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/warm.json"
check_py "$TMPDIR/out" "
f = [x for x in d['findings'] if x['id'] == 'warm-up']
assert f, [x['id'] for x in d['findings']]
f = f[0]
s = json.load(open('$TMPDIR/warm.json'))['points'][0]['slices']
ev = f['evidence']
assert abs(ev['first_window_p50_ms'] - s[0]['latency_ms']['p50']) < 0.01, (ev, s[0])
assert ev['first_window_p50_ms'] >= 2 * ev['later_windows_median_p50_ms'], ev
assert 0 < ev['warm_up_s'] < 2, ev
assert 0 < f['saving_pct'] <= 100, f['saving_pct']
assert '--warmup' in f['recommendation'] and '--warmup' in f['next_step']
"
start_service cold warmup 0 20 1
expect_rc 0 "$LATSCOPE" bench -c 2 --duration 4s --warmup 100ms --slice 250ms --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/steady.json"
ids=$(doctor_ids "$TMPDIR/steady.json")
[[ " $ids " != *" warm-up "* ]] || fail "warm-up on a server at 1 ms from its start: $ids"
exit 0

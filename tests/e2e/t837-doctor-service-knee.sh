#!/usr/bin/env bash
# exclusive: latency against a local worker-pool server over a load sweep
# san: skip (a 33 s load sweep and find-max search timed against the fixture; the queueing-knee rule runs under the sanitizers in the unit tests, the sweep's engine paths in t231-t239)
# timeout: 120
# t837-doctor-service-knee: queueing-knee. A server with a fixed pool of 2 workers taking 10 ms
# each (service-server.py pool 2 10), swept -c 1,2,4,8: doctor finds where the median leaves
# the service time (between 2 and 4 connections) and, by Little's law, about 2 workers
# (capacity x service time, from the run's own throughput and latency). Under --find-max the
# finding carries the SLO's answer. A 16-worker pool swept -c 1,2,4 has no knee: no finding.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/service-server.sh"
need_python
start_service pool pool 2 10
# (--max-client-gap/--max-send-lag: this machine's load must not make a point client-INVALID)
expect_rc 0 "$LATSCOPE" bench -c 1,2,4,8 --duration 1s --warmup 100ms --max-client-gap 1000 \
    --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/sweep.json"
expect_rc 0 "$LATSCOPE" doctor --format json "$TMPDIR/sweep.json" # a note (info), not a defect
check_py "$TMPDIR/out" "
f = [x for x in d['findings'] if x['id'] == 'queueing-knee']
assert f, [x['id'] for x in d['findings']]
f = f[0]
ev = f['evidence']
pts = json.load(open('$TMPDIR/sweep.json'))['points']
assert f['severity'] == 'info', f['severity']
assert ev['sweep'] == 'concurrency' and ev['service_time_at'] == 1, ev
assert abs(ev['service_time_ms'] - pts[0]['latency_ms']['p50']) < 0.01, ev
assert ev['last_load_near_service_time'] == 2 and ev['knee_load'] == 4, ev
assert 1.4 <= ev['implied_workers'] <= 2.8, ev
assert abs(ev['capacity_rps'] - max(p['achieved_rps'] for p in pts[2:])) < 0.01, ev
assert 'workers' in f['recommendation'] and f['next_step']
"
set +e
"$LATSCOPE" bench --find-max --slo 'p99<=400ms' -r 40 --precision 0.2 --duration 1s \
    --warmup 100ms --max-send-lag 50 --format json "$SVC_URL" >"$TMPDIR/fm.json" 2>"$TMPDIR/fm.err"
set -e
check_py "$TMPDIR/fm.json" "assert d['find_max']['max_rate'], d['find_max']"
# (a probe the loaded client could not drive may add client-limited: exit 1 then)
set +e
"$LATSCOPE" doctor --format json "$TMPDIR/fm.json" >"$TMPDIR/out" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "doctor on the find-max result exited $rc"; }
check_py "$TMPDIR/out" "
f = [x for x in d['findings'] if x['id'] == 'queueing-knee']
assert f, [x['id'] for x in d['findings']]
ev = f[0]['evidence']
fm = json.load(open('$TMPDIR/fm.json'))['find_max']
assert ev['sweep'] == 'rate' and ev['slo'] == fm['slo'] and ev['slo_max_rate'] == fm['max_rate'], (ev, fm)
if 'slo_max_utilisation_pct' in ev:
    assert 0 < ev['slo_max_utilisation_pct'] <= 100, ev
assert '--find-max' in f[0]['next_step']
"
start_service wide pool 16 10
expect_rc 0 "$LATSCOPE" bench -c 1,2,4 --duration 1s --warmup 100ms --max-client-gap 1000 \
    --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/wide.json"
ids=$(doctor_ids "$TMPDIR/wide.json")
[[ " $ids " != *" queueing-knee "* ]] || fail "queueing-knee on a 16-worker pool at c <= 4: $ids"
exit 0

#!/usr/bin/env bash
# exclusive: latency against the fixture's KServe v2 endpoint and its Triton statistics
# timeout: 90
# t843-doctor-service-server-split: server-split. The fixture with one 2 ms worker
# (serve-test --service fixed:2ms --workers 1) under the kserve target at -c 8: the server's own
# statistics put most of the client's latency in its queue, so doctor names server-split, side
# queue, with the run's numbers and the instance/batching fix. At -c 1 the same server is
# compute-dominated: no server-split finding. A fixture that holds half of its responses 20 ms
# after the status line (--fault slow_headers:0.5, a delay its statistics do not see) gets
# server-split, side outside-the-server.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/service-server.sh"
need_python
start_fixture --service fixed:2ms --workers 1
# (--max-client-gap: this machine's load must not make a point client-INVALID)
expect_rc 0 "$LATSCOPE" bench --target kserve --model simple -c 8 --duration 1s --warmup 100ms \
    --max-client-gap 1000 --format json "$FIXTURE_URL"
cp "$TMPDIR/out" "$TMPDIR/c8.json"
check_py "$TMPDIR/c8.json" "assert d['points'][0]['server']['count'] > 0, d['points'][0]['server']"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/c8.json"
check_py "$TMPDIR/out" "
f = [x for x in d['findings'] if x['id'] == 'server-split']
assert len(f) == 1, [x['id'] for x in d['findings']]
f = f[0]
ev = f['evidence']
p = json.load(open('$TMPDIR/c8.json'))['points'][0]
s = p['server']
assert ev['side'] == 'queue', ev
assert f['severity'] == 'high', f['severity']
assert abs(ev['server_queue_ms'] - s['queue_ms']) < 1e-3, (ev, s)
assert abs(ev['server_compute_infer_ms'] - s['compute_infer_ms']) < 1e-3, (ev, s)
assert ev['server_count'] == s['count'], (ev, s)
assert abs(ev['client_latency_mean_ms'] - p['latency_actual_ms']['mean']) < 1e-3, ev
# the queue is most of it: more than the compute, within the client's latency
assert ev['server_queue_ms'] > ev['server_compute_infer_ms'], ev
assert 30 <= ev['queue_pct'] <= 100 and 0 <= ev['outside_pct'] <= 100, ev
assert ev['outside_server_ms'] >= 0, ev
assert abs(ev['queue_pct'] + ev['compute_pct'] + ev['outside_pct'] - 100) < 0.1, ev
assert 0 < f['saving_pct'] <= 100, f['saving_pct']
assert abs(f['saving_us_per_step'] - 1e3 * s['queue_ms']) < 1.0, (f['saving_us_per_step'], s)
assert 'instance_group' in f['recommendation'] and 'dynamic' in f['recommendation']
assert 'queue_ms' in f['next_step']
assert 'concurrency 8' in f['title'], f['title']
"
expect_rc 1 "$LATSCOPE" doctor "$TMPDIR/c8.json"
contains "$TMPDIR/out" "server-split"
contains "$TMPDIR/out" "in the server's queue"
# negative: one request at a time, the worker never busy when one arrives
expect_rc 0 "$LATSCOPE" bench --target kserve --model simple -c 1 --duration 1s --warmup 100ms \
    --max-client-gap 1000 --format json "$FIXTURE_URL"
cp "$TMPDIR/out" "$TMPDIR/c1.json"
check_py "$TMPDIR/c1.json" "
s1 = d['points'][0]['server']
s8 = json.load(open('$TMPDIR/c8.json'))['points'][0]['server']
assert s1['count'] > 0, s1                 # judged: the statistics are there
assert s1['queue_ms'] < s8['queue_ms'], (s1, s8)
"
ids=$(doctor_ids "$TMPDIR/c1.json")
[[ " $ids " != *" server-split "* ]] || fail "server-split on a compute-dominated point (-c 1): $ids"
# outside the server: half of the responses wait 20 ms after their status line, which the
# statistics (request received to response ready) do not hold; the fixture counts those
# requests as failed inferences, so server.count is about half of the requests
start_fixture --service fixed:2ms --workers 1 --fault slow_headers:0.5 --slow-headers 20ms
expect_rc 0 "$LATSCOPE" bench --target kserve --model simple -c 1 --duration 1s --warmup 100ms \
    --max-client-gap 1000 --format json "$FIXTURE_URL"
cp "$TMPDIR/out" "$TMPDIR/out.json"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/out.json"
check_py "$TMPDIR/out" "
f = [x for x in d['findings'] if x['id'] == 'server-split']
assert len(f) == 1, [x['id'] for x in d['findings']]
f = f[0]
ev = f['evidence']
p = json.load(open('$TMPDIR/out.json'))['points'][0]
s = p['server']
assert ev['side'] == 'outside-the-server', ev
assert f['severity'] == 'medium', f['severity']
total = s['queue_ms'] + s['compute_input_ms'] + s['compute_infer_ms'] + s['compute_output_ms']
assert abs(ev['server_total_ms'] - total) < 2e-3, (ev, s)
assert abs(ev['outside_server_ms'] - (p['latency_actual_ms']['mean'] - total)) < 2e-3, (ev, p)
assert 50 <= ev['outside_pct'] <= 100, ev
assert ev['outside_server_ms'] > ev['server_total_ms'], ev
assert 0 < f['saving_pct'] <= 100, f['saving_pct']
assert 'binary tensor' in f['recommendation'] and 'ttfb' in f['next_step']
"
exit 0

#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t231-bench-closed: closed loop against the fixture with a fixed 2 ms service time: every key
# of the JSON contract, p50 close to 2 ms, CO-correct >= actual-send latency, records, hlog.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:2ms

expect_rc 0 "$LATSCOPE" bench -c 1,4 --duration 1500ms --warmup 100ms -t 2 --format json \
    --records "$TMPDIR/rec.jsonl" --hdr-log "$TMPDIR/lat.hlog" "$FIXTURE_URL/"
cp "$TMPDIR/out" "$TMPDIR/r.json"
expect_rc 0 "$LATSCOPE" selftest lint-json "$TMPDIR/r.json"
check_py "$TMPDIR/r.json" "
assert d['target'] == 'http' and d['url'].endswith('/') and d['mode'] == 'closed'
assert [p['concurrency'] for p in d['points']] == [1, 4]
keys = ['concurrency','rate','requests','errors','duration_s','achieved_rps','latency_ms',
        'latency_actual_ms','send_lag_ms','client_cpu_pct','valid','invalid_reason']
lat = ['mean','p50','p90','p95','p99','p99.9','max']
for p in d['points']:
    for k in keys: assert k in p, k
    assert p['rate'] is None and p['valid'] is True and p['invalid_reason'] is None
    assert p['errors']['total'] == 0, p['errors']
    for k in ['connect','timeout','reset','http_4xx','http_5xx','malformed']: assert k in p['errors']
    assert sorted(p['latency_ms']) == sorted(lat) and sorted(p['latency_actual_ms']) == sorted(lat)
    assert sorted(p['send_lag_ms']) == ['max','p50','p99']
    L, A = p['latency_ms'], p['latency_actual_ms']
    for k in lat: assert L[k] >= A[k], (k, L[k], A[k])
    assert L['p50'] <= L['p90'] <= L['p99'] <= L['p99.9'] <= L['max']
    # fixed 2 ms service time: the fixture's minimum (load only adds to it, so no upper bound)
    assert 2.0 <= L['p50'], L['p50']
    assert abs(p['achieved_rps'] - p['requests'] / p['duration_s']) < 0.01 * p['achieved_rps'] + 1
    assert 1.2 <= p['duration_s'], p['duration_s']
p1, p4 = d['points']
# four connections against an unlimited worker pool: about four times the throughput
assert p4['achieved_rps'] > 2.0 * p1['achieved_rps'], (p1['achieved_rps'], p4['achieved_rps'])
"
# One record per measured request, in the JSONL form.
n=$(jq_py "$TMPDIR/r.json" "sum(p['requests'] + p['errors']['total'] for p in d['points'])")
[[ $(wc -l <"$TMPDIR/rec.jsonl") -eq $n ]] || fail "records: $(wc -l <"$TMPDIR/rec.jsonl") lines, want $n"
python3 - "$TMPDIR/rec.jsonl" <<'PY' || fail "records malformed"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    assert r["t_sched_ns"] <= r["t_send_ns"] < r["t_first_ns"] <= r["t_end_ns"], r
    assert r["latency_ns"] >= r["latency_actual_ns"] >= 2000000, r
    assert r["status"] == 200 and r["error"] is None
PY
# The interval log: version header, legend, tagged V2 entries for the three metrics.
contains "$TMPDIR/lat.hlog" "#[Histogram log format version"
for tag in lat.sched lat.send send_lag; do
    grep -q "^Tag=$tag,[0-9.]*,[0-9.]*,[0-9.]*,HISTF" "$TMPDIR/lat.hlog" || fail "no $tag entries"
done

# Text and CSV renderings of the same kind of run.
expect_rc 0 "$LATSCOPE" bench -c 2 -n 50 "$FIXTURE_URL/"
contains "$TMPDIR/out" "from intended send"
contains "$TMPDIR/out" "requests 50 "
contains "$TMPDIR/out" "VALID"
expect_rc 0 "$LATSCOPE" bench -c 2 -n 50 --format csv "$FIXTURE_URL/"
head -1 "$TMPDIR/out" | grep -q '^Concurrency,Inferences/Second,' || fail "csv header: $(head -1 "$TMPDIR/out")"
[[ $(wc -l <"$TMPDIR/out") -eq 2 ]] || fail "csv rows"
# --requests is exact; --stable ends once 3 windows agree, or gives up after 10 (a loaded
# machine may not settle: any final verdict, never "measuring"), capped at 11 windows of 200 ms.
# (The JSON names are stable_verdict_name()'s; docs/latscope-bench.md's throughput_only and
# gave_up are accepted too.)
expect_rc 0 "$LATSCOPE" bench -c 2 -n 77 --warmup 10 --format json "$FIXTURE_URL/"
[[ $(jq_py "$TMPDIR/out" "d['points'][0]['requests']") -eq 77 ]] || fail "--requests 77"
expect_rc 0 "$LATSCOPE" bench -c 2 --stable --window 200ms --format json "$FIXTURE_URL/"
check_py "$TMPDIR/out" "p = d['points'][0]; assert p['stability'] in ('stable', 'throughput stable, latency not stabilizing', 'not stable', 'throughput_only', 'gave_up'), p['stability']; assert p['stopped_by_rule'] is True; assert p['duration_s'] < 3.5"
exit 0

#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t251-bench-mpi: `mpirun -n 4 latscope bench --mpi` against the fixture equals the same
# seeded schedule run by one process: the same number of requests and the same achieved rate
# (exact: the ranks' schedules union to the single one, the window is the schedule's), the
# reduced histograms hold every request, rank 0 alone prints, with one line per rank; the
# closed loop splits the connections. Skips when mpirun or the MPI build is absent.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
command -v mpirun >/dev/null || skip "mpirun not installed (scripts/deps.sh installs openmpi-bin)"
set +e
"$LATSCOPE" bench --mpi -c 1 -n 1 http://127.0.0.1:9/ >/dev/null 2>"$TMPDIR/probe"
set -e
if grep -q "built without MPI" "$TMPDIR/probe"; then
    skip "this latscope was built without MPI (libopenmpi-dev missing at build time)"
fi
start_fixture --service exp:1ms --seed 3
MPIRUN=(mpirun --oversubscribe -n 4)
[[ $(id -u) -eq 0 ]] && MPIRUN+=(--allow-run-as-root)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
LAG=(--max-send-lag $((20 * SAN_MULT)))
args=(-r 400 --arrival poisson --seed 23 --duration 1500ms -t 1 "${LAG[@]}" --format json)

set +e
"$LATSCOPE" bench "${args[@]}" "$FIXTURE_URL/" >"$TMPDIR/single.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "single run: exit $rc"; }
set +e
"${MPIRUN[@]}" "$LATSCOPE" bench --mpi "${args[@]}" "$FIXTURE_URL/" >"$TMPDIR/mpi.json" \
    2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "mpirun: exit $rc"; }
check_py "$TMPDIR/mpi.json" "
import json
s = json.load(open('$TMPDIR/single.json'))['points'][0]
assert d['distributed']['method'] == 'mpi' and d['distributed']['shards'] == 4, d.get('distributed')
assert len(d['points']) == 1  # rank 0 alone printed one document
p = d['points'][0]
n = lambda q: q['requests'] + q['errors']['total']
assert n(p) == n(s), (n(p), n(s))
if p['errors']['total'] == 0 and s['errors']['total'] == 0:
    assert p['achieved_rps'] == s['achieved_rps'], (p['achieved_rps'], s['achieved_rps'])
assert p['duration_s'] == s['duration_s'], (p['duration_s'], s['duration_s'])
assert [l['index'] for l in p['shards']] == [0, 1, 2, 3]
assert sum(l['requests'] for l in p['shards']) == p['requests']
for l in p['shards']: assert 0.15 * n(p) < l['requests'] + l['errors'] < 0.35 * n(p), p['shards']
assert p['valid'] == all(l['valid'] for l in p['shards'])
assert d['distributed']['max_clock_offset_ms'] is not None and d['distributed']['reduce_ms'] >= 0
assert d['distributed']['max_start_skew_ms'] < 0.25 * 1500, d['distributed']  # a quarter of the point
"
# The reduced latency histogram holds every request of every rank.
python3 - "$TMPDIR/mpi.json" <<'PY' || fail "histogram count"
import base64, json, struct, sys, zlib
p = json.load(open(sys.argv[1]))['points'][0]
raw = base64.b64decode(p['histograms']['latency'])
body = zlib.decompress(raw[8:])
# V2 encoding: header of 40 bytes, then ZigZag LEB128 counts (negative = run of zeros)
pos, total = 40, 0
while pos < len(body):
    v = shift = 0
    while True:
        b = body[pos]; pos += 1
        v |= (b & 0x7f) << shift; shift += 7
        if not b & 0x80: break
    v = (v >> 1) ^ -(v & 1)
    if v > 0: total += v
assert total == p['requests'], (total, p['requests'])
PY

# Closed loop: 6 connections over 4 ranks, 200 requests in all.
set +e
"${MPIRUN[@]}" "$LATSCOPE" bench --mpi -c 6 -n 200 -t 1 --format json "$FIXTURE_URL/" \
    >"$TMPDIR/c.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "closed: exit $rc"; }
check_py "$TMPDIR/c.json" "
p = d['points'][0]
assert d['mode'] == 'closed' and p['concurrency'] == 6, p['concurrency']
assert p['requests'] + p['errors']['total'] == 200, p
"
# --find-max decides on the merged data: every rank takes the same next probe (a rank that
# did not would hang the next reduction: the timeout fails the test).
set +e
timeout $((60 * SAN_MULT)) "${MPIRUN[@]}" "$LATSCOPE" bench --mpi --find-max --slo 'p99<=5s' \
    -r 50 --max-rate 200 --duration 500ms -t 1 "${LAG[@]}" --format json "$FIXTURE_URL/" \
    >"$TMPDIR/fm.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "find-max: exit $rc"; }
check_py "$TMPDIR/fm.json" "
f = d['find_max']
rates = [p['rate'] for p in d['points']]
assert rates[0] == 50 and len(rates) >= 2, rates
# every probe was run and reduced by all 4 ranks (a client-INVALID probe is measured again)
for p in d['points']:
    assert len(p['shards']) == 4, p['shards']
    assert sum(l['requests'] for l in p['shards']) == p['requests'], p['shards']
    assert p['window_start_unix_ns'] is not None and p['window_start_unix_ns'] >= p['t0_unix_ns']
assert f['max_rate'] is None or f['max_rate'] in rates or f['client_limited'], f
"
# --stable and --confidence decide per window on the window reduced over all ranks: every
# rank stops at the same window (a rank that did not would hang a reduction: the timeout).
set +e
timeout $((60 * SAN_MULT)) "${MPIRUN[@]}" "$LATSCOPE" bench --mpi --slo 'p99<=5s' \
    --confidence 0.9 --window 300ms -r 200 --duration 20s -t 1 "${LAG[@]}" --format json \
    "$FIXTURE_URL/" >"$TMPDIR/cf.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "--confidence: exit $rc"; }
check_py "$TMPDIR/cf.json" "
p = d['points'][0]
assert p['stopped_by_rule'] and p['slo']['terms'][0]['verdict'] == 'pass', p['slo']
# ended early on every rank, at the same window: the ranks' schedules ended within one window
assert p['duration_s'] < 20, p['duration_s']   # before the --duration asked for
ds = [l['duration_s'] for l in p['shards']]
assert len(ds) == 4 and max(ds) - min(ds) < 1.5 * 0.3, ds   # less than 2 windows apart
"
set +e
timeout $((60 * SAN_MULT)) "${MPIRUN[@]}" "$LATSCOPE" bench --mpi --stable --window 200ms -r 200 \
    -t 1 "${LAG[@]}" --format json "$FIXTURE_URL/" >"$TMPDIR/st.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "--stable: exit $rc"; }
check_py "$TMPDIR/st.json" "
p = d['points'][0]
assert p['stability'] is not None, p['stability']
ds = [l['duration_s'] for l in p['shards']]
assert max(ds) - min(ds) < 0.2 + 0.05, ds
"
# Options MPI does not take yet are refused by every rank, clearly (--hdr-log and --records
# work under --mpi for http/kserve since t261; not yet with --target openai).
set +e
timeout 60 "${MPIRUN[@]}" "$LATSCOPE" bench --mpi --target openai --hdr-log "$TMPDIR/h.hlog" -r 10 "$FIXTURE_URL/v1/completions" \
    >/dev/null 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -ne 0 && $rc -ne 124 ]] && grep -q "not yet with" "$TMPDIR/err" || { cat "$TMPDIR/err"; fail "--hdr-log: exit $rc"; }
exit 0

#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t517-bench-find-max-inconclusive: --find-max never reports a client-side INVALID probe, or an
# interrupted one, as the server's limit (issue 14 item 6). A probe the client cannot drive is
# measured again (3 times), then the search stops and says the client could not drive that
# load; exit 1 (inconclusive). After SIGINT the interrupted probe is not lowest_failing.
# A probe INVALID only for send lag that meets the SLO anyway is a pass (lag_pass: its latency
# runs from the intended sends, so the lag is inside it).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:0

# --max-send-lag 1ns: every open-loop probe is INVALID for send lag (a client reason), whatever
# the machine's load; the SLO (p99 <= 1 us) is always missed: no verdict on the server. The
# rates are high enough that 500 ms holds the 100 requests a p99 probe needs (at 20 req/s each
# probe ran 6.25 s: the test took 72 s).
set +e
"$LATSCOPE" bench --find-max --slo 'p99<=1us' -r 200 --duration 500ms --max-send-lag 0.000001 \
    --format json "$FIXTURE_URL/" >"$TMPDIR/c.json" 2>"$TMPDIR/c.err"
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$TMPDIR/c.err"; fail "client-limited search: exit $rc, want 1"; }
check_py "$TMPDIR/c.json" "
f = d['find_max']
assert f['client_limited'] is True, f
assert f['client_limit'] == 200, f
assert 'send-lag' in f['client_limit_reason'], f
assert f['lowest_failing_rate'] is None, f      # not the server's limit
assert f['max_rate'] is None, f
pts = d['points']
assert len(pts) == 3 and all(p['rate'] == 200 and p['invalid_client'] for p in pts), pts
"
grep -q "measuring it again" "$TMPDIR/c.err" || { cat "$TMPDIR/c.err"; fail "no re-measure notice"; }
"$LATSCOPE" bench --find-max --slo 'p99<=1us' -r 200 --duration 500ms --max-send-lag 0.000001 \
    "$FIXTURE_URL/" >"$TMPDIR/c.txt" 2>/dev/null || true
grep -q "the client could not drive that load" "$TMPDIR/c.txt" || { cat "$TMPDIR/c.txt"; fail "text"; }

# The same lagging client under an SLO it meets (p99 <= 10 s): every probe is INVALID for send
# lag and yet a pass (lag_pass), so the search climbs to --max-rate instead of stopping.
set +e
"$LATSCOPE" bench --find-max --slo 'p99<=10s' -r 200 --max-rate 400 --duration 500ms \
    --max-send-lag 0.000001 --format json "$FIXTURE_URL/" >"$TMPDIR/l.json" 2>"$TMPDIR/l.err"
rc=$?
set -e
check_py "$TMPDIR/l.json" "
f = d['find_max']
assert not f.get('client_limited'), f
assert f['max_rate'] == 400, f
pts = d['points']
assert pts and all(p['lag_pass'] and not p['valid'] and p['invalid_client'] for p in pts), pts
"
grep -q "taken as a pass" "$TMPDIR/l.err" || { cat "$TMPDIR/l.err"; fail "no lag-pass notice"; }

# SIGINT in the middle of a search whose probes all pass: the interrupted probe is no verdict.
"$LATSCOPE" bench --find-max --slo 'p99<=10s' -r 100 --duration 2s --max-send-lag 1000 \
    --format json "$FIXTURE_URL/" >"$TMPDIR/i.json" 2>"$TMPDIR/i.err" &
pid=$!
for _ in $(seq 1 200); do
    grep -c "probing" "$TMPDIR/i.err" 2>/dev/null | grep -q '^[2-9]' && break
    sleep 0.05
done
sleep 0.5
kill -INT "$pid"
set +e
wait "$pid"
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$TMPDIR/i.err"; fail "interrupted search: exit $rc, want 1"; }
check_py "$TMPDIR/i.json" "
assert d['interrupted'] is True
f = d['find_max']
assert f['lowest_failing_rate'] is None, f
assert any(p['interrupted'] for p in d['points']), d['points']
"
exit 0

#!/usr/bin/env bash
# exclusive
# t765-bench-client-gap: the closed-loop client gap (a response's arrival to the next send on the
# same connection; issue 31 item 4) is reported like send lag and invalidates a point. The
# client is stopped (SIGSTOP) three times for 100 ms while a 20 ms request is in flight: the
# response arrives in the kernel meanwhile, so each stop leaves a gap of at least ~80 ms, 3 of
# ~150 gaps in 3 s (a point is judged from 100 gaps on), so p99 is one of them. A run left alone has a gap histogram and no such reason.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:20ms
"$LATSCOPE" bench -c 1 -t 1 -n 20 --format json "$FIXTURE_URL/" >"$TMPDIR/a.json" 2>/dev/null ||
    true
check_py "$TMPDIR/a.json" "
p = d['points'][0]
g = p['client_gap_ms']
assert g is not None and g['max'] >= 0, g
assert 'client gap' not in (p['invalid_reason'] or ''), p['invalid_reason']
"
# 3 s at 20 ms: ~150 gaps, enough to judge (under 100 a point is never judged by its gaps)
"$LATSCOPE" bench -c 1 -t 1 --duration 3s --format json "$FIXTURE_URL/" >"$TMPDIR/b.json" \
    2>"$TMPDIR/b.err" &
pid=$!
sleep 0.5
for _ in 1 2 3; do
    kill -STOP $pid; sleep 0.1; kill -CONT $pid; sleep 0.3
done
set +e
wait $pid
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$TMPDIR/b.err"; fail "stopped client: exit $rc, want 1 (INVALID)"; }
check_py "$TMPDIR/b.json" "
p = d['points'][0]
g = p['client_gap_ms']
assert g['max'] >= 50 and g['p99'] >= 50, g
assert p['valid'] is False and p['invalid_client'] is True, p
assert p['invalid_reason'].startswith('client gap p99'), p['invalid_reason']
"
# the same run with the limit raised above the stops: valid
"$LATSCOPE" bench -c 1 -t 1 -n 5 --max-client-gap 1000 "$FIXTURE_URL/" >"$TMPDIR/c.txt" 2>&1 ||
    { cat "$TMPDIR/c.txt"; fail "--max-client-gap 1000"; }
grep -q "client gap (response to next send, same connection) p50" "$TMPDIR/c.txt" ||
    { cat "$TMPDIR/c.txt"; fail "text line"; }
exit 0

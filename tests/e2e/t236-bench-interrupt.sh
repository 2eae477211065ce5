#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t236-bench-interrupt: SIGINT ends a long run cleanly: results for what completed are still
# printed (valid JSON, interrupted: true) and the exit status is 1.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:1ms

"$LATSCOPE" bench -c 2,4 --duration 60s --format json "$FIXTURE_URL/" >"$TMPDIR/i.json" \
    2>"$TMPDIR/err" &
pid=$!
sleep 1.5
kill -INT "$pid"
set +e
wait "$pid"
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$TMPDIR/err"; fail "exit $rc after SIGINT, want 1"; }
check_py "$TMPDIR/i.json" "
assert d['interrupted'] is True
assert len(d['points']) == 1, len(d['points'])   # the second point never started
p = d['points'][0]
assert p['interrupted'] is True and p['valid'] is False
assert p['requests'] > 100 and p['duration_s'] < 10, p
"
exit 0

#!/usr/bin/env bash
# t767-bench-http10-connect-errno: two rows of the fault matrix (issue 31 item 10). An HTTP/1.0
# close-delimited response (no Content-Length, the body ends at the close: RFC 9112 6.3) is a
# success, its body counted; and connect errors carry the errno text (text and JSON).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
python3 "$LATSCOPE_SRCDIR/tests/tools/hostile-http.py" http10 "$TMPDIR/port" "$TMPDIR/count" 60 &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/port ]] || fail "hostile server did not start"
"$LATSCOPE" bench -c 1 -t 1 -n 5 --format json "http://127.0.0.1:$(cat "$TMPDIR/port")/" \
    >"$TMPDIR/a.json" 2>"$TMPDIR/a.err" || { cat "$TMPDIR/a.err"; fail "HTTP/1.0 run"; }
check_py "$TMPDIR/a.json" "
p = d['points'][0]
assert p['requests'] == 5 and p['errors']['total'] == 0, (p['requests'], p['errors'])
assert p['bytes'] == 25, p['bytes']
assert p['connect_error'] is None, p['connect_error']
"
# a port nothing listens on (the hostile server's, once it is gone)
port=$(cat "$TMPDIR/port")
kill "${FIXTURE_PIDS[0]}"; wait "${FIXTURE_PIDS[0]}" 2>/dev/null || true
FIXTURE_PIDS=()
set +e
"$LATSCOPE" bench -c 1 -t 1 --duration 0.3s "http://127.0.0.1:$port/" >"$TMPDIR/c.txt" 2>/dev/null
"$LATSCOPE" bench -c 1 -t 1 --duration 0.3s --format json "http://127.0.0.1:$port/" \
    >"$TMPDIR/c.json" 2>/dev/null
set -e
grep -q "connect [0-9]* \[Connection refused\]" "$TMPDIR/c.txt" || { cat "$TMPDIR/c.txt"; fail "no errno text"; }
check_py "$TMPDIR/c.json" "
p = d['points'][0]
assert p['errors']['connect'] >= 1 and p['connect_error'] == 'Connection refused', (p['errors'], p['connect_error'])
"
exit 0

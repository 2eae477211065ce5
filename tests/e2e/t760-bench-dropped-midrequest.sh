#!/usr/bin/env bash
# t760-bench-dropped-midrequest: a keep-alive server that reads the second request of each
# connection, works 200 ms and closes without answering (issue 31 item 1). Those requests were
# received by the server: each is an error (reset), never sent again and never a success.
# Before: "requests 10, errors 0, VALID" with 9 silent re-sends. Counters only, loopback only.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
python3 "$LATSCOPE_SRCDIR/tests/tools/hostile-http.py" drop2 "$TMPDIR/port" "$TMPDIR/count" 60 &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/port ]] || fail "hostile server did not start"
URL=http://127.0.0.1:$(cat "$TMPDIR/port")/
set +e
timeout 60 "$LATSCOPE" bench -d '{"x":1}' -c 1 -t 1 -n 10 --format json "$URL" \
    >"$TMPDIR/a.json" 2>"$TMPDIR/a.err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/a.err"; fail "bench exit $rc"; }
kill "${FIXTURE_PIDS[0]}"; wait "${FIXTURE_PIDS[0]}" 2>/dev/null || true
FIXTURE_PIDS=()
read -r _ sreq _ sdrop <"$TMPDIR/count"
check_py "$TMPDIR/a.json" "
p = d['points'][0]
e = p['errors']
sreq, sdrop = $sreq, $sdrop
assert sdrop >= 1, (sreq, sdrop)
# every request the server dropped after reading it is an error, none is a success
assert e['reset'] == sdrop, (e, sdrop)
assert p['requests'] + e['total'] == 10, (p['requests'], e)
assert p['requests'] == sreq - sdrop, (p['requests'], sreq, sdrop)
# nothing was sent twice: the server read exactly the 10 requests
assert sreq == 10, sreq
assert p['stale_retries'] == 0, p['stale_retries']
"
exit 0

#!/usr/bin/env bash
# t205-serve-test-cli: help, usage errors that name the problem (exit 2), --max-seconds, and a
# port already in use (exit 1).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/fixture.sh"

expect_rc 0 "$LATSCOPE" serve-test --help
contains "$TMPDIR/out" "usage: latscope serve-test"
contains "$TMPDIR/out" "--workers N"

expect_rc 2 "$LATSCOPE" serve-test --service gauss:1ms
contains "$TMPDIR/err" "unknown service-time distribution"
[[ ! -s $TMPDIR/out ]] || fail "stdout not empty on usage error"
expect_rc 2 "$LATSCOPE" serve-test --service uniform:5ms:1ms
contains "$TMPDIR/err" "A <= B"
expect_rc 2 "$LATSCOPE" serve-test --fault boom:0.1
contains "$TMPDIR/err" "unknown fault kind"
expect_rc 2 "$LATSCOPE" serve-test --fault 5xx:0.7,reset:0.7
contains "$TMPDIR/err" "more than 1"
expect_rc 2 "$LATSCOPE" serve-test --model 'bad/name'
expect_rc 2 "$LATSCOPE" serve-test --workers -1
expect_rc 2 "$LATSCOPE" serve-test --port
contains "$TMPDIR/err" "needs a value"
expect_rc 2 "$LATSCOPE" serve-test --bogus
contains "$TMPDIR/err" "unknown option"
expect_rc 2 "$LATSCOPE" serve-test extra-arg

# --max-seconds: exits by itself with status 0 and its counters
start=$(date +%s%N)
expect_rc 0 "$LATSCOPE" serve-test --port 0 --max-seconds 1
ms=$((($(date +%s%N) - start) / 1000000))
[[ $ms -ge 900 && $ms -lt 10000 ]] || fail "--max-seconds 1 ran $ms ms"
head -1 "$TMPDIR/out" | grep -qE '^[0-9]+$' || fail "first line is not the port"
contains "$TMPDIR/out" '"requests":0'

# SIGINT stops it as cleanly as SIGTERM: exit 0 and the counters line
start_fixture
curl -s -o /dev/null "$FX_URL/" 2>/dev/null || true
kill -INT "$FX_PID"
set +e; wait "$FX_PID"; rc=$?; set -e
[[ $rc -eq 0 ]] || fail "serve-test exited $rc on SIGINT"
tail -1 "$FX_OUT" | grep -q '"requests":' || fail "no counters after SIGINT: $(cat "$FX_OUT")"

# a busy port: exit 1 and say so
start_fixture
expect_rc 1 "$LATSCOPE" serve-test --port "$FX_PORT" --max-seconds 1
contains "$TMPDIR/err" "cannot listen on 127.0.0.1:$FX_PORT"
expect_rc 1 "$LATSCOPE" serve-test --host not-an-ip --max-seconds 1
contains "$TMPDIR/err" "need an IPv4 address"
stop_fixture
exit 0

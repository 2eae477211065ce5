#!/usr/bin/env bash
# exclusive: real TCP timing (Nagle + delayed ACK) against a local Python server
# timeout: 60
# t838-bench-doctor: `bench --doctor` runs doctor's service rules on the run's own result (the
# path of `latscope doctor RESULT.json`). On the Nagle server (tests/tools/nagle-server.py) the
# text report is followed on stdout by nagle-delayed-ack with its fix; with --format json stdout
# stays one JSON document (the same finding as doctor on it) and the doctor report goes to
# stderr. The bench's exit status is its own. On the 1 ms fixture: "No significant finding".
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
python3 "$LATSCOPE_SRCDIR/tests/tools/nagle-server.py" "$TMPDIR/nagle.port" &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/nagle.port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/nagle.port ]] || fail "nagle-server.py did not write its port"
URL=http://127.0.0.1:$(tr -dc 0-9 <"$TMPDIR/nagle.port")/
expect_rc 0 "$LATSCOPE" bench -c 1 --duration 1500ms --warmup 200ms --doctor "$URL"
contains "$TMPDIR/out" "point 1: concurrency 1"
contains "$TMPDIR/out" "latscope doctor: RESULT.json (latscope bench result)"
contains "$TMPDIR/out" "nagle-delayed-ack"
contains "$TMPDIR/out" "TCP_NODELAY"
expect_rc 0 "$LATSCOPE" bench -c 1 --duration 1500ms --warmup 200ms --doctor --format json "$URL"
cp "$TMPDIR/out" "$TMPDIR/nagle.json"
check_py "$TMPDIR/nagle.json" "assert d['points'][0]['requests'] > 0"
contains "$TMPDIR/err" "nagle-delayed-ack"
expect_rc 1 "$LATSCOPE" doctor "$TMPDIR/nagle.json"
contains "$TMPDIR/out" "nagle-delayed-ack"
# negative: the fixture at 1 ms
start_fixture --service fixed:1ms
expect_rc 0 "$LATSCOPE" bench -c 1 --duration 1s --warmup 100ms --doctor "$FIXTURE_URL/"
contains "$TMPDIR/out" "No significant finding"
exit 0

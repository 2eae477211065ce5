#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t831-doctor-service-clean: doctor on a bench result of the fixture (fixed 1 ms service time)
# says "No significant finding" and exits 0; a file that is not a bench result still goes to the
# trace loader (its error), and a corrupt bench result gets diff's reader's error, exit 2.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:1ms
expect_rc 0 "$LATSCOPE" bench -c 1,4 --duration 1s --warmup 100ms --format json "$FIXTURE_URL/"
cp "$TMPDIR/out" "$TMPDIR/clean.json"
expect_rc 0 "$LATSCOPE" doctor "$TMPDIR/clean.json"
contains "$TMPDIR/out" "No significant finding"
contains "$TMPDIR/out" "latscope bench result"
expect_rc 0 "$LATSCOPE" doctor --format json "$TMPDIR/clean.json"
check_py "$TMPDIR/out" "assert d['findings'] == [], d['findings']; assert d['traces'][0]['service'] is True"
# a bench result cut short: the reader's error, never a clean bill
head -c 200 "$TMPDIR/clean.json" >"$TMPDIR/cut.json"
expect_rc 2 "$LATSCOPE" doctor "$TMPDIR/cut.json"
exit 0

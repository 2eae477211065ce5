#!/usr/bin/env bash
# t761-diff-fail-if-untested: diff as a CI gate never says "passed" of a rule it could not test
# (issue 31 item 9). 50 requests per side give p99 no interval (too few samples): before, the
# README's --fail-if 'p99 > +5%' printed "passed" and exit 0 on a p99 of +141.9 %. Now the
# rule is NOT TESTED and exits 1, unless --allow-untested. A maximum never gets an interval.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:1ms
"$LATSCOPE" bench -c 1 -t 1 -n 50 --format json "$FIXTURE_URL/" >"$TMPDIR/a.json" 2>/dev/null ||
    fail "bench a"
stop_fixtures
FIXTURE_PIDS=()
start_fixture --service fixed:3ms
"$LATSCOPE" bench -c 1 -t 1 -n 50 --format json "$FIXTURE_URL/" >"$TMPDIR/b.json" 2>/dev/null ||
    fail "bench b"
"$LATSCOPE" bench -c 1 -t 1 -n 50 --format json "$FIXTURE_URL/" >"$TMPDIR/b2.json" 2>/dev/null ||
    fail "bench b2"

set +e
"$LATSCOPE" diff "$TMPDIR/a.json" "$TMPDIR/b.json" --fail-if 'p99 > +5%' >"$TMPDIR/d.txt" 2>&1
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$TMPDIR/d.txt"; fail "untested rule: exit $rc, want 1"; }
grep -q "fail-if 'p99 > +5%': NOT TESTED: .* has no interval" "$TMPDIR/d.txt" ||
    { cat "$TMPDIR/d.txt"; fail "no NOT TESTED line"; }
grep -q "fail-if 'p99 > +5%': passed" "$TMPDIR/d.txt" && fail "an untested rule said passed"

"$LATSCOPE" diff "$TMPDIR/a.json" "$TMPDIR/b.json" --fail-if 'p99 > +5%' --allow-untested \
    >"$TMPDIR/d2.txt" 2>&1 || { cat "$TMPDIR/d2.txt"; fail "--allow-untested: exit $?"; }
grep -q "NOT TESTED (allowed by --allow-untested)" "$TMPDIR/d2.txt" || { cat "$TMPDIR/d2.txt"; fail "allowed line"; }

# The mean has an interval (Welch on the histograms): that rule is tested and fires.
set +e
"$LATSCOPE" diff "$TMPDIR/a.json" "$TMPDIR/b.json" --fail-if 'mean > +5%' --format json \
    >"$TMPDIR/d.json" 2>"$TMPDIR/d.err"
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$TMPDIR/d.err"; fail "mean rule: exit $rc, want 1"; }
check_py "$TMPDIR/d.json" "
r = d['fail_if'][0]
assert r['failed'] is True and r['tested'] is True, r
"

# Several runs on the after side: a maximum still has no interval (was a Welch interval over
# the runs' maxima, e.g. -352 %), so a rule on it is not tested.
set +e
"$LATSCOPE" diff --fail-if 'max > +5%' --format json "$TMPDIR/a.json" "$TMPDIR/a.json" -- \
    "$TMPDIR/b.json" "$TMPDIR/b2.json" >"$TMPDIR/m.json" 2>"$TMPDIR/m.err"
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$TMPDIR/m.err"; fail "max rule: exit $rc, want 1"; }
check_py "$TMPDIR/m.json" "
r = d['fail_if'][0]
assert r['failed'] is False and r['tested'] is False, r
"
exit 0

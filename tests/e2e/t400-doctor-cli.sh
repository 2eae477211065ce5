#!/usr/bin/env bash
# t400-doctor-cli: `latscope doctor` usage errors exit 2 with a message on stderr and nothing on
# stdout; --help documents the options and exit codes.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data

expect_rc 0 "$LATSCOPE" doctor --help
contains "$TMPDIR/out" "usage: latscope doctor"
contains "$TMPDIR/out" "--fail-on"

expect_rc 2 "$LATSCOPE" doctor
contains "$TMPDIR/err" "no trace given"
[[ ! -s $TMPDIR/out ]] || fail "stdout not empty on usage error"

expect_rc 2 "$LATSCOPE" doctor --format xml "$data/handmade-doctor-clean.json"
contains "$TMPDIR/err" "--format wants text, json or md, not 'xml'"
expect_rc 2 "$LATSCOPE" doctor --fail-on urgent "$data/handmade-doctor-clean.json"
contains "$TMPDIR/err" "unknown --fail-on 'urgent'"
expect_rc 2 "$LATSCOPE" doctor --bogus "$data/handmade-doctor-clean.json"
contains "$TMPDIR/err" "unknown option '--bogus'"

# A missing file and a file that is not a trace: exit 2, the path named, no partial report.
expect_rc 2 "$LATSCOPE" doctor "$TMPDIR/does-not-exist.json"
contains "$TMPDIR/err" "does-not-exist.json"
[[ ! -s $TMPDIR/out ]] || fail "stdout not empty for a missing file"
printf '{"traceEvents": [{"ph":"X","ts":1,' >"$TMPDIR/broken.json"
expect_rc 2 "$LATSCOPE" doctor "$data/handmade-doctor-clean.json" "$TMPDIR/broken.json"
contains "$TMPDIR/err" "broken.json"
[[ ! -s $TMPDIR/out ]] || fail "stdout not empty for a broken trace"
exit 0

#!/usr/bin/env bash
# t152-analyze-errors: bad inputs and bad options give clear errors and the right exit codes.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
tr=$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json

expect_rc 2 "$LATSCOPE" analyze
contains "$TMPDIR/err" "no trace given"
expect_rc 2 "$LATSCOPE" analyze --format xml "$tr"
contains "$TMPDIR/err" "--format wants text or json"
expect_rc 2 "$LATSCOPE" analyze --top 0 "$tr"
expect_rc 2 "$LATSCOPE" analyze --rank x "$tr"
expect_rc 2 "$LATSCOPE" analyze --bogus "$tr"
contains "$TMPDIR/err" "unknown option"

# a named input that cannot be loaded: exit 2 (as doctor), one path per message
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/missing.json"
contains "$TMPDIR/err" "missing.json"
[[ $(grep -o 'missing.json' "$TMPDIR/err" | wc -l) == 1 ]] || fail "path printed more than once: $(cat "$TMPDIR/err")"
[[ ! -s $TMPDIR/out ]] || fail "stdout not empty on error"

head -c 700 "$tr" > "$TMPDIR/trunc.json"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/trunc.json"
contains "$TMPDIR/err" "trunc.json"
printf '{"traceEvents": [ {"ph": "X", "ts": 1, ' > "$TMPDIR/bad.json"
expect_rc 2 "$LATSCOPE" analyze --format json "$TMPDIR/bad.json"
[[ ! -s $TMPDIR/out ]] || fail "partial JSON written"
printf 'not json at all' | gzip > "$TMPDIR/junk.json.gz"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/junk.json.gz"

expect_rc 1 "$LATSCOPE" analyze --rank 3 "$tr"
contains "$TMPDIR/err" "no trace has rank 3"
# the same file twice is loaded once
expect_rc 0 "$LATSCOPE" analyze --format json "$tr" "$tr"
contains "$TMPDIR/err" "the same file as"
[[ $(jq '.ranks | length' "$TMPDIR/out") == 1 ]] || fail "same file twice: not loaded once"
[[ $(jq -r '.skipped[0].status' "$TMPDIR/out") == same-file ]] || fail "same file not listed in skipped"
# two files with the same rank are not one job
cp "$tr" "$TMPDIR/copy.json"
expect_rc 2 "$LATSCOPE" analyze "$tr" "$TMPDIR/copy.json"
contains "$TMPDIR/err" "both have rank 0"
# an empty but valid trace: no GPU, nothing to report, still exit 0 and valid JSON
printf '{"traceEvents": []}' > "$TMPDIR/empty.json"
expect_rc 0 "$LATSCOPE" analyze --format json "$TMPDIR/empty.json"
jq -e '.ranks[0].temporal == null and .ranks[0].comm_comp_overlap_pct == null' "$TMPDIR/out" >/dev/null || fail "empty trace json"
expect_rc 0 "$LATSCOPE" analyze "$TMPDIR/empty.json"
contains "$TMPDIR/out" "no GPU activity"
exit 0

#!/usr/bin/env bash
# t164-analyze-hostile: hostile trace inputs through the CLI (issue 14): nothing vanishes
# silently. Dropped events are one warning on stderr and a `dropped` object in the JSON; a
# wrong time unit, mostly unusable events, empty/truncated files and bad gzip are errors that
# say what is wrong; doctor warns the same way.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data

# nested values: no phantom kernel, the skipped fields and dropped events are reported
expect_rc 0 "$LATSCOPE" analyze --format json "$data/handmade-nested-values.json"
jq -e '.ranks[0].dropped == {"total":5,"gpu":4,"steps":0,"queries":0,"bad_fields":10,"by_reason":{"no_phase":1,"bad_ts":2,"bad_dur":1,"flow_without_id":1},"cut_short":null}' \
    "$TMPDIR/out" >/dev/null || fail "dropped object: $(jq -c .ranks[0].dropped "$TMPDIR/out")"
jq -e '[.ranks[0].top_kernels[].name] | index("ghost") == null' "$TMPDIR/out" >/dev/null ||
    fail "phantom kernel from inside a nested value"
contains "$TMPDIR/err" "handmade-nested-values.json: 5 events dropped"
contains "$TMPDIR/err" "10 fields with a value of the wrong type ignored"

# unusable times: counted by reason, and no impossible percentage
expect_rc 0 "$LATSCOPE" analyze --format json "$data/handmade-bad-times.json"
jq -e '.ranks[0].dropped.by_reason.negative_dur == 2 and .ranks[0].dropped.steps == 1 and
       .ranks[0].temporal.idle_pct >= 0 and .ranks[0].temporal.idle_pct <= 100 and
       .ranks[0].temporal.compute_pct >= 0' "$TMPDIR/out" >/dev/null || fail "bad-times json"
contains "$TMPDIR/err" "among them 7 GPU events and 1 ProfilerStep: the results miss them"
expect_rc 0 "$LATSCOPE" doctor --fail-on never "$data/handmade-bad-times.json"
contains "$TMPDIR/err" "11 events dropped"

# epoch ns written where the format wants µs: an error naming the unit and the fix
{
    printf '{"traceEvents": ['
    for i in $(seq 0 29); do
        ((i)) && printf ','
        printf '{"ph":"X","cat":"kernel","name":"k","ts":170000000000%05d00,"dur":3000,"pid":0,"tid":7}' "$i"
    done
    printf ']}'
} > "$TMPDIR/ns.json"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/ns.json"
contains "$TMPDIR/err" "timestamps in ns, not µs: 30 of 30 events"
contains "$TMPDIR/err" "divide both by 1000"
[[ ! -s $TMPDIR/out ]] || fail "a report was printed for a trace in the wrong unit"
expect_rc 2 "$LATSCOPE" doctor "$TMPDIR/ns.json"
contains "$TMPDIR/err" "timestamps in ns, not µs"

# mostly unusable events
printf '{"traceEvents":[{"ph":"X","ts":1,"dur":"300us"},{"ph":"X","ts":null,"dur":2}]}' > "$TMPDIR/bad.json"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/bad.json"
contains "$TMPDIR/err" "2 of 2 events have no usable time"

# empty and truncated files, gzip with a bad length or something appended
: > "$TMPDIR/empty.json"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/empty.json"
contains "$TMPDIR/err" "empty file (0 bytes): not a trace"
head -c 500 "$data/handmade-kineto-current.json" > "$TMPDIR/cut.json"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/cut.json"
contains "$TMPDIR/err" "truncated JSON trace: JSON byte 500"
gzip -c "$data/handmade-analyze-basic.json" > "$TMPDIR/ok.json.gz"
{ cat "$TMPDIR/ok.json.gz"; printf 'garbage'; } > "$TMPDIR/garbage.json.gz"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/garbage.json.gz"
contains "$TMPDIR/err" "trailing data after the end of the gzip stream"
sz=$(stat -c %s "$TMPDIR/ok.json.gz")
{ head -c $((sz - 1)) "$TMPDIR/ok.json.gz"; printf '\377'; } > "$TMPDIR/badlen.json.gz"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/badlen.json.gz"
contains "$TMPDIR/err" "length mismatch"
if grep -q "CRC" "$TMPDIR/err"; then fail "a bad length reported as a CRC error"; fi

# a value over the size limit names the limit and how to raise it
{ printf '{"big": "'; head -c 3000 /dev/zero | tr '\0' x; printf '", "traceEvents": []}'; } > "$TMPDIR/big.json"
LATSCOPE_MAX_VALUE=1k expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/big.json"
contains "$TMPDIR/err" "LATSCOPE_MAX_VALUE"
LATSCOPE_MAX_VALUE=1M expect_rc 0 "$LATSCOPE" analyze "$TMPDIR/big.json"
exit 0

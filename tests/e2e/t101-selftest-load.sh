#!/usr/bin/env bash
# t101-selftest-load: `latscope selftest load` reads hand-made Kineto traces (plain, gzip,
# stdin, directories) and reports the model; broken inputs fail with a clear message.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data

expect_rc 0 "$LATSCOPE" selftest load "$data/handmade-kineto-current.json"
cp "$TMPDIR/out" "$TMPDIR/plain.out"
for line in "format: kineto" "input_events: 25" "events: 15" "dropped: 2" "kind.kernel: 1" \
    "kind.cpu_op: 2" "steps: 1" "step_range: 3-3" "flows: 2" "rank: 3" "world_size: 8" \
    "base_time_ns: 1712195495000000000" "frac_ts: yes" "device.0: Hand GPU sms=132 cc=9.0" \
    'meta.AWS_SECRET_ACCESS_KEY: "REDACTED"'; do
    contains "$TMPDIR/out" "$line"
done
if grep -q -e hf_secretvalue -e topsecret "$TMPDIR/out"; then fail "a secret was printed"; fi

# gzip, stdin, tiny chunks: the same model
gzip -c "$data/handmade-kineto-current.json" >"$TMPDIR/t.json.gz"
expect_rc 0 "$LATSCOPE" selftest load "$TMPDIR/t.json.gz"
contains "$TMPDIR/out" "gzip: yes"
diff <(grep -v -e '^path:' -e '^gzip:' "$TMPDIR/plain.out") \
    <(grep -v -e '^path:' -e '^gzip:' "$TMPDIR/out") || fail "gzip load differs"
expect_rc 0 "$LATSCOPE" selftest load --chunk 3 - <"$TMPDIR/t.json.gz"
diff <(grep -v -e '^path:' -e '^gzip:' "$TMPDIR/plain.out") \
    <(grep -v -e '^path:' -e '^gzip:' "$TMPDIR/out") || fail "stdin/chunked load differs"

expect_rc 0 "$LATSCOPE" selftest load "$data/handmade-kineto-2021.json"
contains "$TMPDIR/out" "format: kineto-2021"
contains "$TMPDIR/out" "kind.gpu_memset: 1"

# Broken inputs
head -c 700 "$data/handmade-kineto-current.json" >"$TMPDIR/cut.json"
expect_rc 1 "$LATSCOPE" selftest load "$TMPDIR/cut.json"
contains "$TMPDIR/err" "JSON byte 700: input ends early"
head -c 300 "$TMPDIR/t.json.gz" >"$TMPDIR/cut.json.gz"
expect_rc 1 "$LATSCOPE" selftest load "$TMPDIR/cut.json.gz"
contains "$TMPDIR/err" "truncated gzip data"
printf '{"traceEvents": [{"ph": "X",, }]}' >"$TMPDIR/bad.json"
expect_rc 1 "$LATSCOPE" selftest load "$TMPDIR/bad.json"
contains "$TMPDIR/err" "JSON byte 28: expected a string key, found ','"
expect_rc 1 "$LATSCOPE" selftest load "$TMPDIR/nope.json"
contains "$TMPDIR/err" "cannot open"

# A directory of per-rank traces: duplicate and missing ranks are reported.
mkdir "$TMPDIR/ranks"
cp "$data/handmade-kineto-current.json" "$TMPDIR/ranks/a.json"
cp "$data/handmade-kineto-current.json" "$TMPDIR/ranks/b.json"
cp "$data/handmade-legacy.json" "$TMPDIR/ranks/c.json"
expect_rc 0 "$LATSCOPE" selftest load "$TMPDIR/ranks"
contains "$TMPDIR/out" "status: duplicate-rank"
contains "$TMPDIR/out" "status: no-rank"
contains "$TMPDIR/err" "has the same rank (3)"

# A real trace from the shared corpus, when present.
t=$(need_trace hta/tests/data/df_index_resolver/df_index_resolver.json.gz)
expect_rc 0 "$LATSCOPE" selftest load "$t"
for line in "input_events: 216092" "kind.kernel: 19370" "steps: 5" "rank: 1" "dropped: 0"; do
    contains "$TMPDIR/out" "$line"
done

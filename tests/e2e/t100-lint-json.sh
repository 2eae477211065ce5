#!/usr/bin/env bash
# t100-lint-json: `latscope selftest lint-json` accepts valid JSON and names the byte offset and
# the expectation for invalid JSON (strict UTF-8 unless --lenient).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"

printf '{"a": [1, 2.5e3, "x\\u00e9"], "b": null}\n' >"$TMPDIR/ok.json"
expect_rc 0 "$LATSCOPE" selftest lint-json "$TMPDIR/ok.json"
contains "$TMPDIR/out" "ok"
expect_rc 0 "$LATSCOPE" selftest lint-json - <"$TMPDIR/ok.json"

printf '{"a": [1, 2,]}' >"$TMPDIR/bad.json"
expect_rc 1 "$LATSCOPE" selftest lint-json "$TMPDIR/bad.json"
[[ ! -s $TMPDIR/out ]] || fail "stdout not empty for invalid JSON"
contains "$TMPDIR/err" "byte 12"
contains "$TMPDIR/err" "expected a value, found ']'"

printf '{"a": "\xff"}' >"$TMPDIR/utf8.json"
expect_rc 1 "$LATSCOPE" selftest lint-json "$TMPDIR/utf8.json"
contains "$TMPDIR/err" "invalid UTF-8 byte 0xff"
expect_rc 0 "$LATSCOPE" selftest lint-json --lenient "$TMPDIR/utf8.json"

printf '{"a": 1' >"$TMPDIR/trunc.json"
expect_rc 1 "$LATSCOPE" selftest lint-json "$TMPDIR/trunc.json"
contains "$TMPDIR/err" "input ends early"

printf '{"a":1}\n{"b":2}\n' >"$TMPDIR/lines.jsonl"
expect_rc 1 "$LATSCOPE" selftest lint-json "$TMPDIR/lines.jsonl"
expect_rc 0 "$LATSCOPE" selftest lint-json --multi "$TMPDIR/lines.jsonl"

expect_rc 1 "$LATSCOPE" selftest lint-json "$TMPDIR/missing.json"
expect_rc 2 "$LATSCOPE" selftest lint-json
expect_rc 2 "$LATSCOPE" selftest no-such-helper

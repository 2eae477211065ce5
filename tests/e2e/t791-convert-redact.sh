#!/usr/bin/env bash
# t791-convert-redact: `latscope convert` re-exports a foreign trace without its secrets (issue 32
# item 3): a command line in the metadata (latscope_command: "--token VALUE", a URL's api_key=)
# and a string event arg under a secret-looking name come out REDACTED, through the one
# redaction of core/redact.h; the rest of the command, the numbers and a numeric arg whose name
# only looks secret (num_tokens) stay as they were. Input: hand-made (written below).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v jq >/dev/null || skip "jq not installed (scripts/deps.sh installs it)"
cat >"$TMPDIR/handmade-secrets.json" <<'JSON'
{"schemaVersion": 1,
 "latscope_command": ["python", "serve.py", "--token", "T0PSECRET", "http://h/x?api_key=S3CRET&a=1"],
 "deviceProperties": [],
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
   "args": {"api_key": "ARGSECRET", "num_tokens": 7, "External id": 1}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 5, "dur": 20}
 ]}
JSON
for out in out.json out.json.gz; do
    expect_rc 0 "$LATSCOPE" convert "$TMPDIR/handmade-secrets.json" -o "$TMPDIR/$out"
    [[ $out == *.gz ]] && zcat "$TMPDIR/$out" >"$TMPDIR/plain.json" || cp "$TMPDIR/$out" "$TMPDIR/plain.json"
    for s in T0PSECRET S3CRET ARGSECRET; do
        ! grep -q "$s" "$TMPDIR/plain.json" || fail "$out holds the secret $s"
    done
    jq -e '.latscope_command == ["python", "serve.py", "--token", "REDACTED", "http://h/x?api_key=REDACTED&a=1"]' \
        "$TMPDIR/plain.json" >/dev/null || fail "$out: latscope_command is $(jq -c .latscope_command "$TMPDIR/plain.json")"
    jq -e '[.traceEvents[] | select(.name == "aten::mm") | .args] | .[0] | .api_key == "REDACTED" and .num_tokens == 7 and .["External id"] == 1' \
        "$TMPDIR/plain.json" >/dev/null || fail "$out: args are $(jq -c '[.traceEvents[] | select(.name == "aten::mm") | .args]' "$TMPDIR/plain.json")"
done
# the converted trace still reads: analyze sees the op and the step
expect_rc 0 "$LATSCOPE" analyze --format json "$TMPDIR/out.json"
jq -e '.ranks[0].steps | length == 1' "$TMPDIR/out" >/dev/null || fail "the step is gone after convert"
echo ok

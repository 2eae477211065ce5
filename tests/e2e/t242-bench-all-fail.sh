#!/usr/bin/env bash
# t242-bench-all-fail: a point whose requests all (or mostly) fail is INVALID and the run exits
# 1, for every target (issue 17 item 3: a prompt over llama-cpp-python's 256-token context gave
# "ok 0 errors 5", VALID, exit 0). The LLM summary says why: the server's first error message.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python

# --target openai: every prompt is over the server's context (HTTP 400 context_length_exceeded).
"$LATSCOPE" serve-test openai --max-context 64 --port-file "$TMPDIR/o.port" >/dev/null \
    2>"$TMPDIR/o.err" &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/o.port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/o.port ]] || fail "serve-test openai did not start: $(cat "$TMPDIR/o.err")"
URL="http://127.0.0.1:$(cat "$TMPDIR/o.port")/v1/chat/completions"
expect_rc 1 "$LATSCOPE" bench --target openai "$URL" --input-tokens 100 --output-tokens 8 \
    -c 1 -t 1 -n 5 --format json
cp "$TMPDIR/out" "$TMPDIR/o.json"
check_py "$TMPDIR/o.json" "
p = d['points'][0]
assert p['valid'] is False and 'no request completed successfully' in p['invalid_reason'], p
assert p['errors']['http_4xx'] == 5 and p['llm_errors']['http'] == 5, (p['errors'], p['llm_errors'])
fe = p['first_error']
assert fe['class'] == 'http' and fe['http_status'] == 400, fe
assert 'maximum context length is 64 tokens' in fe['message'], fe
"
expect_rc 1 "$LATSCOPE" bench --target openai "$URL" --input-tokens 100 --output-tokens 8 \
    -c 1 -t 1 -n 5
cp "$TMPDIR/out" "$TMPDIR/o.txt"
grep -q "INVALID: no request completed successfully" "$TMPDIR/o.txt" || fail "text verdict"
grep -q "^first error: http (HTTP 400): This model's maximum context length is 64" "$TMPDIR/o.txt" ||
    fail "first error line: $(cat "$TMPDIR/o.txt")"
# Prompts that fit: VALID, exit 0, no first_error.
expect_rc 0 "$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 \
    -c 1 -t 1 -n 5 --format json
cp "$TMPDIR/out" "$TMPDIR/ok.json"
check_py "$TMPDIR/ok.json" "
p = d['points'][0]
assert p['valid'] is True and p['first_error'] is None, p['first_error']
"

# The plain HTTP target: every request answered 503 -> INVALID, exit 1; most of them -> the same.
start_fixture --fault 5xx:1
expect_rc 1 "$LATSCOPE" bench -c 2 -t 1 -n 40 --format json "$FIXTURE_URL/"
cp "$TMPDIR/out" "$TMPDIR/h.json"
check_py "$TMPDIR/h.json" "
p = d['points'][0]
assert p['valid'] is False and 'no request completed successfully' in p['invalid_reason'], p
assert p['errors']['http_5xx'] == 40, p['errors']
"
start_fixture --fault 5xx:0.8
expect_rc 1 "$LATSCOPE" bench -c 2 -t 1 -n 100 --format json "$FIXTURE_URL/"
cp "$TMPDIR/out" "$TMPDIR/m.json"
check_py "$TMPDIR/m.json" "
p = d['points'][0]
assert p['valid'] is False and 'most requests failed' in p['invalid_reason'], p['invalid_reason']
"
# KServe v2 against a server failing every request.
start_fixture --fault 5xx:1
expect_rc 1 "$LATSCOPE" bench --target kserve -c 1 -t 1 -n 10 --format json \
    "$FIXTURE_URL/v2/models/simple"
cp "$TMPDIR/out" "$TMPDIR/k.json"
check_py "$TMPDIR/k.json" "
p = d['points'][0]
assert p['valid'] is False and 'no request completed successfully' in p['invalid_reason'], p
"
exit 0

#!/usr/bin/env bash
# t285-llm-llama-native: llama.cpp's native stream, as llama-server (the llama.cpp vendored by
# llama-cpp-python 0.2.90) sends it even at /v1/completions: {"content", "stop": false} per
# token, then {"content": "", "stop": true, "tokens_predicted", "tokens_evaluated"} and no
# [DONE] (found by `make interop`: every request was a "stream_cut" error before latscope read
# this dialect). serve-test openai --llama-native answers this way. Checked: requests succeed,
# the counts of the stop event are the usage (exact ISL/OSL), without them the token events
# count, a stream cut before its stop event is an error, a non-streaming body is read too.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm

start_fixture --llama-native --prefill 5ms --token-interval 2ms
U=http://127.0.0.1:$FX_PORT/v1/completions
expect_rc 0 "$LATSCOPE" bench --target openai "$U" --input-tokens 8 --output-tokens 12 -c 2 \
    -n 10 -t 1 --format json
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['requests'] == 10 and p['errors']['total'] == 0, (p['requests'], p['errors'])
assert p['llm_errors']['total'] == 0, p['llm_errors']
assert p['tokens_source'] == 'usage', p['tokens_source']
assert p['output_tokens'] == 120, p['output_tokens']
assert p['input_tokens_source'] == 'usage' and p['input_tokens'] == 80, (p['input_tokens_source'], p['input_tokens'])
assert p['ttft_ms']['p50'] >= 5, p['ttft_ms']
assert abs(p['tpot_ms']['p50'] - 2.0) < $TOL_MS, p['tpot_ms']
"
# not streaming: one body of the same shape
expect_rc 0 "$LATSCOPE" bench --target openai "$U" --input-tokens 8 --output-tokens 12 -c 1 \
    -n 4 -t 1 --no-stream --format json
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['requests'] == 4 and p['errors']['total'] == 0, p['errors']
assert p['output_tokens'] == 48 and p['tokens_source'] == 'usage', (p['output_tokens'], p['tokens_source'])
"
stop_fixture

# without the counts: the token events are the server's tokens
start_fixture --llama-native --prefill 5ms --token-interval 2ms --no-usage --empty-every 3
U=http://127.0.0.1:$FX_PORT/v1/completions
expect_rc 0 "$LATSCOPE" bench --target openai "$U" --input-tokens 8 --output-tokens 12 -c 1 \
    -n 5 -t 1 --format json
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['requests'] == 5 and p['errors']['total'] == 0, p['errors']
assert p['tokens_source'] == 'events' and p['output_tokens'] == 60, (p['tokens_source'], p['output_tokens'])
"
stop_fixture

# a stream cut before its stop event is an error, not a success
start_fixture --llama-native --prefill 5ms --token-interval 2ms --faults cut:1
U=http://127.0.0.1:$FX_PORT/v1/completions
rc=0
"$LATSCOPE" bench --target openai "$U" --input-tokens 8 --output-tokens 12 -c 1 -n 4 -t 1 \
    --format json >"$TMPDIR/cut.json" 2>"$TMPDIR/cut.err" || rc=$?
[[ $rc == 1 ]] || { cat "$TMPDIR/cut.err"; fail "all streams cut: exit $rc, expected 1"; }
check_py "$TMPDIR/cut.json" "
p = d['points'][0]
assert p['requests'] == 0 and p['errors']['total'] == 4, (p['requests'], p['errors'])
assert p['valid'] is False, p['invalid_reason']
"
stop_fixture
exit 0

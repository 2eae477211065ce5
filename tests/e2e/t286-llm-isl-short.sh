#!/usr/bin/env bash
# t286-llm-isl-short: a server that cuts a prompt over its context and answers 200 (llama-server:
# `make interop` sent 300-token prompts to a 256-token context and got 5 successes with
# usage.prompt_tokens 172, VALID, not a word said) is named: with latscope's own count of each
# prompt (--tokenize-url), requests whose usage.prompt_tokens is below 90 % of it are
# "isl_short" (JSON, with both means) and the text says the load is not the one asked for.
# serve-test openai --truncate-prompt N cuts prompts to N tokens the same way.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 2ms --token-interval 1ms --tokenize llamacpp --truncate-prompt 20
U=http://127.0.0.1:$FX_PORT/v1/completions
expect_rc 0 "$LATSCOPE" bench --target openai "$U" --input-tokens 40 --output-tokens 4 -c 1 -n 6 \
    -t 1 --tokenize-url auto --format json
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['requests'] == 6 and p['errors']['total'] == 0, p['errors']
assert p['input_tokens_source'] == 'usage' and p['input_tokens_mean'] == 20, p['input_tokens_mean']
s = p['isl_short']
assert s == {'requests': 6, 'usage_mean': 20.0, 'sent_mean': 40.0}, s
"
expect_rc 0 "$LATSCOPE" bench --target openai "$U" --input-tokens 40 --output-tokens 4 -c 1 -n 3 \
    -t 1 --tokenize-url auto
contains "$TMPDIR/out" "ISL short: 3 requests: the server counted 20.0 prompt tokens (mean) where 40.0 were sent"
# prompts within the limit: nothing to say
expect_rc 0 "$LATSCOPE" bench --target openai "$U" --input-tokens 19 --output-tokens 4 -c 1 -n 3 \
    -t 1 --tokenize-url auto --format json
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['input_tokens_mean'] == 19 and p['isl_short'] is None, (p['input_tokens_mean'], p['isl_short'])
"
# without latscope's own count there is nothing to compare with: null, not a guess
expect_rc 0 "$LATSCOPE" bench --target openai "$U" --input-tokens 40 --output-tokens 4 -c 1 -n 3 \
    -t 1 --format json
check_py "$TMPDIR/out" "
assert d['points'][0]['isl_short'] is None, d['points'][0]['isl_short']
"
exit 0

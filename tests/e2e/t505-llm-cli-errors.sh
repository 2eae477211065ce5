#!/usr/bin/env bash
# t505-llm-cli-errors: bad openai options are usage errors (exit 2) that name the problem.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
u=http://127.0.0.1:1/v1/completions
check() {
    local want=$1; shift
    expect_rc 2 "$LATSCOPE" bench --target openai "$@"
    [[ ! -s $TMPDIR/out ]] || fail "stdout not empty for $*"
    contains "$TMPDIR/err" "$want"
}
check "duration" "$u" --slo 'ttft<=abc'
check "SLO" "$u" --slo 'foo<=1ms'  # not an LLM key: the bench's own SLO parser answers
check "N:stddev" "$u" --output-tokens 0
check "chat or completions" "$u" --api rpc
check "does not match" "$u" --api chat
check "latscope, vllm, genai-perf or aiperf" "$u" --metrics-compat perf_analyzer
check "JSON object" "$u" --extra-body '[1]'
check "LATSCOPE_NO_SUCH_KEY" "$u" --api-key-env LATSCOPE_NO_SUCH_KEY
check "nonexistent.jsonl" "$u" --prompts /nonexistent.jsonl
check "needs a value" "$u" --model
expect_rc 2 "$LATSCOPE" serve-test openai --faults cut:2
contains "$TMPDIR/err" "probability"
exit 0

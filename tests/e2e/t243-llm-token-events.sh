#!/usr/bin/env bash
# t243-llm-token-events: without usage, every content event the server emits is one of its
# tokens, empty ("") ones included (issue 17 item 4: llama-cpp-python sends ~45 % of its token
# events as "" or partial UTF-8; counting only non-empty chunks gave 18 of ~32 tokens and a
# TPOT 1.85x too high). serve-test openai --empty-every 2 sends every 2nd event (not the last)
# empty; the role chunk and an empty finish chunk are not tokens. The token source is named.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 5ms --token-interval 10ms --no-usage --empty-every 2
for api in chat completions; do
    expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/" --api $api \
        --input-tokens 8 --output-tokens 8 -c 2 -n 10 -t 1 --format json
    python3 - "$TMPDIR/out" "$TOL_MS" <<'PY' || fail "$api: $(cat "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
tol = float(sys.argv[2])
n = p["requests"]
assert n == 10 and p["errors"]["total"] == 0, (n, p["errors"])
assert p["tokens_source"] == "events", p["tokens_source"]
assert p["output_tokens"] == 8 * n, p["output_tokens"]   # 8 events, 3 of them empty
assert p["osl_mismatch"] == 0, p["osl_mismatch"]
# 7 token intervals over 7 gaps: TPOT is the interval (was 7 x 10 / 4 = 17.5 ms)
assert abs(p["tpot_ms"]["p50"] - 10.0) < tol, p["tpot_ms"]
PY
done
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/chat/completions" \
    --input-tokens 8 --output-tokens 8 -c 1 -n 4 -t 1
grep -q "output tokens 32 (source events)" "$TMPDIR/out" || fail "text: $(cat "$TMPDIR/out")"
grep -q "^note: without usage, output tokens are the server's token events" "$TMPDIR/out" ||
    fail "no note on the token source"
exit 0

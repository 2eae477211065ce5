#!/usr/bin/env bash
# t501-llm-token-fallback: without usage from the server, token counts come from content chunks,
# flagged as "chunks"; with 2 tokens per chunk that undercounts, and the OSL mismatch says so.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 5ms --token-interval 1ms --tokens-per-chunk 2 --no-usage
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/" --api completions \
    --input-tokens 8 --output-tokens 16 -c 2 -n 10 -t 1 --format json
python3 - "$TMPDIR/out" <<'PY' || fail "result: $(cat "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
n = p["requests"]
assert p["tokens_source"] == "events", p["tokens_source"]
assert p["tokens_source_counts"]["events"] == n
assert p["output_tokens"] == 8 * n, p["output_tokens"]      # 16 tokens in 8 chunks
assert p["osl_mismatch"] == n                                # asked 16, counted 8
PY
# With usage and continuous usage stats, the chunk sizes are exact (2 tokens each).
kill $FX_PID; wait $FX_PID 2>/dev/null || true
start_fixture --prefill 5ms --token-interval 1ms --tokens-per-chunk 2
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/completions" \
    --input-tokens 8 --output-tokens 16 --continuous-usage -c 2 -n 10 -t 1 --format json
python3 - "$TMPDIR/out" <<'PY' || fail "result: $(cat "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
assert p["tokens_source"] == "usage" and p["output_tokens"] == 16 * p["requests"]
assert p["tokens_per_chunk"]["p50"] == 2 and p["tokens_per_chunk"]["max"] == 2, p["tokens_per_chunk"]
PY
exit 0

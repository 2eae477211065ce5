#!/usr/bin/env bash
# t246-llm-aiperf-view: --metrics-compat aiperf (issue 17 item 6): AIPerf 0.13 takes TTFT at
# the first response with non-empty content, GenAI-Perf at the first event. With every token
# event but the last empty (--empty-every 1), the two TTFTs are prefill (5 ms) and prefill + 7
# token intervals (75 ms); ITL and E2E are the same in both.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 5ms --token-interval 10ms --empty-every 1
URL="http://127.0.0.1:$FX_PORT/v1/chat/completions"
for v in genai-perf aiperf; do
    expect_rc 0 "$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 \
        -c 1 -n 6 -t 1 --metrics-compat $v --format json
    cp "$TMPDIR/out" "$TMPDIR/$v.json"
done
python3 - "$TMPDIR/genai-perf.json" "$TMPDIR/aiperf.json" "$TOL_MS" <<'PY' || fail "views"
import json, sys
g = json.load(open(sys.argv[1]))["points"][0]
a = json.load(open(sys.argv[2]))["points"][0]
tol = float(sys.argv[3])
assert g["metrics_view"] == "genai-perf" and a["metrics_view"] == "aiperf", (g["metrics_view"], a["metrics_view"])
assert abs(g["ttft_ms"]["p50"] - 5) < tol, g["ttft_ms"]
assert abs(a["ttft_ms"]["p50"] - 75) < tol, a["ttft_ms"]
assert a["output_tokens"] == 8 * 6 and g["output_tokens"] == 8 * 6, (a["output_tokens"], g["output_tokens"])
# ITL = (E2E - TTFT) / (n - 1): the later TTFT leaves less time for the other 7 tokens
assert abs(g["itl_ms"]["p50"] - 70 / 7) < tol, g["itl_ms"]
assert abs(a["itl_ms"]["p50"] - 0) < tol, a["itl_ms"]
assert abs(a["e2e_ms"]["p50"] - g["e2e_ms"]["p50"]) < tol, (a["e2e_ms"], g["e2e_ms"])
PY
expect_rc 2 "$LATSCOPE" bench --target openai "$URL" --metrics-compat aiperf2 -n 1
contains "$TMPDIR/err" "aiperf"
exit 0

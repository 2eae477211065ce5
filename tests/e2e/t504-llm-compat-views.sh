#!/usr/bin/env bash
# t504-llm-compat-views: --metrics-compat vllm|genai-perf reports the same run with the peer's
# definitions: vLLM's ITL pools gaps between choices messages (the chat role chunk adds one per
# request), GenAI-Perf's ITL is the per-request TPOT.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 20ms --token-interval 3ms
url="http://127.0.0.1:$FX_PORT/v1/chat/completions"
for v in vllm genai-perf latscope; do
    expect_rc 0 "$LATSCOPE" bench --target openai "$url" --input-tokens 8 --output-tokens 12 \
        -c 1 -n 6 -t 1 --metrics-compat "$v" --format json
    python3 - "$TMPDIR/out" "$v" "$TOL_MS" <<'PY' || fail "$v: $(cat "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]; v = sys.argv[2]; tol = float(sys.argv[3])
n = p["requests"]
assert p["metrics_view"] == v
assert abs(p["ttft_ms"]["p50"] - 20) <= tol and abs(p["tpot_ms"]["p50"] - 3) <= tol / 3
if v == "vllm":
    assert p["estimator"].startswith("numpy")
    assert p["itl_ms"]["n"] == 12 * n, p["itl_ms"]        # 11 content gaps + role chunk gap
elif v == "genai-perf":
    assert p["itl_ms"]["n"] == n and p["itl_ms"]["p50"] == p["tpot_ms"]["p50"]
else:
    assert p["itl_ms"]["n"] == 11 * n and p["estimator"].startswith("nearest")
PY
done
exit 0

#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t500-llm-true-timing: bench --target openai against the fixture measures the fixture's true
# TTFT (prefill), TPOT and ITL (token interval) and E2E, with usage token counts.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 40ms --token-interval 5ms --tokens-per-chunk 1
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/chat/completions" \
    --model fixture --input-tokens 32 --output-tokens 16 -c 2 -n 20 -t 1 --format json
python3 - "$TMPDIR/out" "$TOL_MS" <<'PY' || fail "result: $(cat "$TMPDIR/out")"
import json, sys
d = json.load(open(sys.argv[1])); tol = float(sys.argv[2])
p = d["points"][0]
assert d["target"] == "openai", d["target"]
n = p["requests"]
assert n >= 20 and p["llm_errors"]["total"] == 0, p
def near(v, want, t): assert abs(v - want) <= t, (v, want, t)
for k in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "ttft_send_ms", "chunk_gap_ms"):
    assert set(["mean", "p50", "p90", "p95", "p99", "p99.9", "max"]) <= set(p[k]), k
near(p["ttft_ms"]["p50"], 40, tol)              # prefill, no queueing (no --max-seqs)
near(p["tpot_ms"]["p50"], 5, tol / 3)            # (t_last - t_first)/(n - 1)
near(p["itl_ms"]["p50"], 5, tol / 3)             # token-weighted tpot
near(p["chunk_gap_ms"]["p50"], 5, tol / 3)       # one token per chunk
near(p["e2e_ms"]["p50"], 40 + 15 * 5, tol)
assert p["ttft_ms"]["p50"] >= p["ttft_send_ms"]["p50"]   # .sched >= .send
assert p["itl_ms"]["n"] == 15 * n, p["itl_ms"]["n"]      # weight n - 1 per request
assert p["output_tokens"] == 16 * n and p["tokens_source"] == "usage"
assert p["osl_mismatch"] == 0
assert p["goodput_rps"] is None and p["goodput_fraction"] is None
assert abs(p["output_tokens_per_s"] - p["output_tokens"] / p["llm_duration_s"]) < 0.01 * p["output_tokens_per_s"]
assert p["metrics_view"] == "latscope"
PY
exit 0

#!/usr/bin/env bash
# t507-llm-records-detail: --records-detail writes one JSON line per measured request with every
# content chunk's arrival, consistent with the request's TTFT and E2E.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 10ms --token-interval 2ms --tokens-per-chunk 2
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/completions" \
    --input-tokens 8 --output-tokens 12 --continuous-usage -c 2 -n 10 --warmup 2 -t 1 \
    --records-detail "$TMPDIR/rec.jsonl" --format json
python3 - "$TMPDIR/out" "$TMPDIR/rec.jsonl" <<'PY' || fail "records: $(head -3 "$TMPDIR/rec.jsonl")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
recs = [json.loads(l) for l in open(sys.argv[2])]
assert len(recs) == p["requests"] + p["llm_errors"]["total"], (len(recs), p["requests"])
for r in recs:
    assert r["error"] is None and r["point"] == 0 and r["tokens_source"] == "usage"
    c = r["chunks_ms"]
    assert len(c) == 6 and r["chunk_tokens"] == [2] * 6, r      # 12 tokens, 2 per chunk
    assert all(a <= b for a, b in zip(c, c[1:]))
    assert abs(c[0] - r["ttft_ms"]) < 1e-6 and c[-1] <= r["e2e_ms"]
    assert abs(r["tpot_ms"] - (c[-1] - c[0]) / 11) < 1e-3
    assert r["t_send_ns"] >= r["t_sched_ns"] >= 0
PY
expect_rc 2 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/completions" \
    --input-tokens 8 -n 1 --records-detail /nonexistent/dir/r.jsonl
contains "$TMPDIR/err" "/nonexistent/dir/r.jsonl"
exit 0

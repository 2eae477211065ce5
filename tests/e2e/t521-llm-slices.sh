#!/usr/bin/env bash
# t521-llm-slices: --slice with --target openai: every slice also carries the LLM view of its
# requests (TTFT, ITL, ok/errors). The slices' LLM counts add up to the point's, and each
# slice's TTFT p50/p90/p99 are the nearest-rank percentiles of the --records-detail TTFTs of
# the requests that ended in that slice, recomputed here from the records alone.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 15ms --token-interval 3ms --max-seqs 2
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/completions" \
    --input-tokens 8 --output-tokens 10 -c 4 --duration 1500ms -t 1 --slice 300ms \
    --records-detail "$TMPDIR/rec.jsonl" --format json
cp "$TMPDIR/out" "$TMPDIR/run.json"
python3 - "$TMPDIR/run.json" "$TMPDIR/rec.jsonl" <<'PY' || fail "slices: $(cat "$TMPDIR/run.json")"
import json, math, sys
p = json.load(open(sys.argv[1]))["points"][0]
recs = [json.loads(l) for l in open(sys.argv[2])]
sl = p["slices"]
assert len(sl) == 5, len(sl)
assert sum(x["llm_requests"] for x in sl) == p["requests"], p["requests"]
assert sum(x["llm_errors"] for x in sl) == p["llm_errors"]["total"]
assert sum(x["requests"] for x in sl) == p["requests"]
w = round(p["slice_s"] * 1e9)
by = [[] for _ in sl]
for r in recs:
    assert r["error"] is None
    t_end = r["t0_mono_ns"] + r["t_sched_ns"] + round(r["e2e_ms"] * 1e6)
    k = max(0, min(len(sl) - 1, (t_end - p["slices_t0_mono_ns"]) // w))
    by[k].append(r)
for k, x in enumerate(sl):
    v = sorted(r["ttft_ms"] for r in by[k])
    assert x["llm_requests"] == len(v), (k, x["llm_requests"], len(v))
    if not v:
        assert x["ttft_ms"] is None
        continue
    def nr(q):
        return v[max(1, math.ceil(q / 100 * len(v))) - 1]
    for q in (50, 90, 99):
        assert abs(x["ttft_ms"]["p%d" % q] - nr(q)) < 2e-6, (k, q, x["ttft_ms"], nr(q))
    # ITL (latscope: each request's TPOT weighted by its n - 1 token gaps)
    gaps = sum(r["output_tokens"] - 1 for r in by[k] if r["tpot_ms"] is not None)
    assert x["itl_ms"]["samples"] == gaps, (x["itl_ms"], gaps)
    lo = min(r["tpot_ms"] for r in by[k]); hi = max(r["tpot_ms"] for r in by[k])
    assert lo - 1e-6 <= x["itl_ms"]["p50"] <= hi + 1e-6
PY
# text: the table gains TTFT/ITL columns; CSV: the slice table too
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/completions" \
    --input-tokens 8 --output-tokens 10 -c 2 --duration 600ms -t 1 --slice 300ms
contains "$TMPDIR/out" "ttft p50 ttft p99  itl p50  itl p99"
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/completions" \
    --input-tokens 8 --output-tokens 10 -c 2 --duration 600ms -t 1 --slice 300ms --format csv
contains "$TMPDIR/out" "p99 latency,TTFT p50,TTFT p99,ITL p50,ITL p99"
exit 0

#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# san: skip (a 50 s find-max search timed against the fixture; the openai target runs under the sanitizers in t500, t502, t516, the search (loop.c) in t515, t517 and t775)
# t510-llm-find-max-slo: `--find-max --slo 'ttft.p90<=200ms'` judges each load point on the LLM
# TTFT percentile and finds the knee of a fixture with a known capacity: 2 sequence slots, each
# held 40 ms prefill + 6 x 10 ms = 100 ms per request, so 20 req/s. With constant arrivals at
# rate r > 20 for 2 s the queue grows to (r - 20) x 2 / 20 s, so TTFT p90 = 40 ms + 90 ms x
# (r - 20): the SLO holds up to 21.7 req/s and fails at 22 and above. (p90, not p99: a p90 needs
# 10 samples, so a 2 s probe is long enough; a p99 made every probe 100 requests, 112 s in all.)
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 40ms --token-interval 10ms --max-seqs 2
URL="http://127.0.0.1:$FX_PORT/v1/chat/completions"
set +e
"$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 7 --arrival constant \
    --rate 8 --max-send-lag 50 --find-max --slo 'ttft.p90<=200ms' --precision 0.2 \
    --duration 2s -t 1 --format json >"$TMPDIR/out" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -eq 0 ]] || fail "find-max exited $rc: $(cat "$TMPDIR/err")"
python3 - "$TMPDIR/out" <<'PY' || fail "result: $(cat "$TMPDIR/out")"
import json, sys
d = json.load(open(sys.argv[1]))
fm, pts = d["find_max"], d["points"]
assert fm["slo"] == "ttft.p90<=200ms", fm
knee = fm["knee_rate"]
# The knee is 20 (the queue above 20 req/s grows through each 2 s probe); at
# most the capacity (load only slows the fixture), at least half of what this machine's fixture
# served at the first (lowest) probe: 2 slots / its mean request time
cap = 2 / (pts[0]["latency_ms"]["mean"] / 1e3)
assert knee is not None and 0.5 * min(cap, 20) <= knee < 22, (fm, cap)
assert fm["max_rate"] == knee, fm
assert fm["lowest_failing_rate"] is not None and knee < fm["lowest_failing_rate"] <= 2 * knee, fm
best = pts[fm["point"]]
# the verdict is the LLM TTFT p90 of the point, not the request latency
t = best["slo"]["terms"][0]
assert t["term"] == "ttft.p90<=200ms" and t["verdict"] == "pass", best["slo"]
assert abs(t["observed_ms"] - best["ttft_ms"]["p90"]) < 1e-3, (t, best["ttft_ms"])
# some probe above the knee missed on TTFT, with TTFT p90 over the limit
over = [p for p in pts if p["slo"]["terms"][0]["observed_ms"] > 200]
assert over and all(not p["slo"]["pass"] for p in over), [p["slo"] for p in pts]
# goodput at the knee: requests meeting ttft <= 200 ms, per second; close to the rate
assert fm["goodput_rps"] is not None and 0.5 * knee <= fm["goodput_rps"] <= 1.2 * knee, fm
assert 0 < fm["goodput_fraction"] <= 1, fm
assert best["good_requests"] > 0
PY

# A TPOT SLO the fixture can never meet (10 ms per token): no rate passes, exit 1. (p50: -n 6
# is enough samples for it; a p99 would raise each probe to 100 requests, docs/metrics.md.)
set +e
"$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 7 --rate 4 \
    --max-send-lag 50 --find-max --slo 'tpot.p50<=5ms' --max-rate 4 --precision 0.5 -n 6 \
    -t 1 >"$TMPDIR/out2" 2>"$TMPDIR/err2"
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "tpot find-max exited $rc: $(cat "$TMPDIR/err2")"
grep -q "find-max: no probed rate met tpot.p50<=5ms" "$TMPDIR/out2" || fail "$(cat "$TMPDIR/out2")"
grep -Eq "tpot.p50<=5ms observed (9|10)\.[0-9]+ ms FAIL" "$TMPDIR/out2" || fail "$(cat "$TMPDIR/out2")"

# Usage errors name the problem.
expect_usage() {
    set +e
    "$LATSCOPE" bench "$@" >"$TMPDIR/o3" 2>"$TMPDIR/e3"
    local r=$?
    set -e
    [[ $r -eq 2 ]] || fail "expected usage error (2), got $r for $*: $(cat "$TMPDIR/e3")"
}
expect_usage --target openai "$URL" --find-max --slo 'ttft.p97<=1s'
grep -q "p50, p90, p95, p99" "$TMPDIR/e3" || fail "$(cat "$TMPDIR/e3")"
expect_usage --target openai "$URL" --slo 'itl.p99<=1s' --confidence 0.9
grep -q "early stopping" "$TMPDIR/e3" || fail "$(cat "$TMPDIR/e3")"
expect_usage "$URL" --find-max --slo 'ttft.p99<=1s'
grep -q "need --target openai" "$TMPDIR/e3" || fail "$(cat "$TMPDIR/e3")"
exit 0

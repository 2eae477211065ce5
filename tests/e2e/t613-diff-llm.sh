#!/usr/bin/env bash
# t613-diff-llm: `latscope diff` on `bench --target openai` results: the JSON carries the LLM
# metrics' histograms (ttft, tpot, itl, e2e, ...), so a slower prefill (20 ms -> 40 ms on the
# OpenAI fixture) is a significant TTFT regression with its interval above 0, --fail-if on
# 'ttft.p50' exits 1, while the token interval (unchanged) gives no significant TPOT regression
# of that size. Verdicts only, no timing assertions: the lower end of the intervals is only
# asked to be above 0 (CI on a loaded machine saw the 30 % bound fail once).
# exclusive: TTFT of a 20 ms against a 40 ms prefill, measured while other tests load the CPUs
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
T=$TMPDIR
run() {
    start_fixture --prefill "$2" --token-interval 2ms
    set +e
    "$LATSCOPE" bench --target openai -c 2 -n 80 --output-tokens 8 --format json \
        "http://127.0.0.1:$FX_PORT/v1/completions" >"$T/$1.json" 2>"$T/$1.err"
    local rc=$?
    set -e
    kill "$FX_PID" 2>/dev/null; wait "$FX_PID" 2>/dev/null || true
    trap - EXIT
    [[ $rc -eq 0 || $rc -eq 1 ]] || fail "bench exited $rc: $(cat "$T/$1.err")"
}
run fast 20ms
run slow 40ms
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"][0]; h=p["histograms"]
assert all(h[k].startswith("HISTF") for k in ("ttft", "ttft_send", "e2e", "tpot", "itl")), list(h)' "$T/fast.json" ||
    fail "bench JSON lacks the LLM histograms"
expect_rc 0 "$LATSCOPE" diff --format json "$T/fast.json" "$T/slow.json"
python3 - "$T/out" <<'PY' || { cat "$T/out" >&2; fail "TTFT regression not detected"; }
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["metric"]: x for x in d["rows"]}
for m in ("ttft.p50", "ttft.mean", "e2e.p50"):
    assert r[m]["verdict"] == "REGRESSION" and r[m]["ci_pct"][0] > 0, (m, r[m])
assert r["ttft.p50"]["method"] == "bootstrap"
assert r["tpot.p50"]["verdict"] != "REGRESSION" or r["tpot.p50"]["ci_pct"][0] < 30, r["tpot.p50"]
PY
expect_rc 1 "$LATSCOPE" diff --fail-if 'ttft.p50 > +10%' "$T/fast.json" "$T/slow.json"
contains "$T/out" "fail-if 'ttft.p50 > +10%': FAILED"
expect_rc 0 "$LATSCOPE" diff --fail-if 'ttft.p50 > +10%' "$T/slow.json" "$T/fast.json"
echo "ok"

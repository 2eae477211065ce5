#!/usr/bin/env bash
# t281-interop-checks: the checks of `make interop` (tests/interop/summarize.py) can fail. A hand-made
# run directory in the layout run.sh writes: a clean run passes; each defect the interop run exists
# to catch (a truncated answer counted ok, a request missing from the counts, a stale-connection
# reset, INVALID with exit 0, inexact output tokens) fails, naming its check.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
SUM=$LATSCOPE_SRCDIR/tests/interop/summarize.py

# mkrun DIR ID OK ERRORS_JSON VALID RC TOKENS_SOURCE OUTPUT_TOKENS DETAIL_TOKENS...
mkrun() {
    local d=$1/runs/$2 ok=$3 errs=$4 valid=$5 rc=$6 src=$7 otok=$8
    shift 8
    mkdir -p "$d"
    echo "$rc" >"$d/rc"
    echo "latscope bench ..." >"$d/cmd"
    echo "0.10 0.02 1.50" >"$d/time"
    python3 - "$d" "$ok" "$errs" "$valid" "$src" "$otok" "$@" <<'PY'
import json, sys
d, ok, errs, valid, src, otok = sys.argv[1:7]
toks = [int(t) for t in sys.argv[7:]]
ok, otok, errs = int(ok), int(otok), json.loads(errs)
total = sum(errs.values())
llm = {"total": total, "truncated": errs.get("truncated", 0), "transport": errs.get("reset", 0)}
lat = {"mean": 10.0, "p50": 10.0, "p99": 12.0}
p = {"requests": ok, "errors": dict(errs, total=total), "llm_errors": llm, "valid": valid == "true",
     "invalid_reason": None if valid == "true" else "most requests failed", "stale_retries": 0,
     "latency_ms": lat, "latency_actual_ms": lat, "ttft_ms": lat, "itl_ms": lat, "e2e_ms": lat,
     "output_tokens": otok, "tokens_source": src, "input_tokens_mean": 16.0, "metrics_view": "latscope"}
json.dump({"points": [p]}, open(d + "/result.json", "w"))
with open(d + "/records.jsonl", "w") as f, open(d + "/detail.jsonl", "w") as g:
    for i, t in enumerate(toks):
        e = None if i < ok else "truncated"
        f.write(json.dumps({"error": e}) + "\n")
        g.write(json.dumps({"error": e, "output_tokens": t}) + "\n")
PY
}
ok32=$(printf '32 %.0s' $(seq 20))
run_sum() { # DIR WANT_RC [TEXT]
    set +e
    python3 "$SUM" "$1" 20 40 >"$1.out" 2>&1
    local rc=$?
    set -e
    [[ $rc -eq $2 ]] || { cat "$1.out" >&2; fail "summarize $1: exit $rc, want $2"; }
    [[ -z ${3:-} ]] || grep -qF -- "$3" "$1.out" || { cat "$1.out" >&2; fail "summarize $1 lacks '$3'"; }
}

# clean: 20 ok, 32 tokens each, exact source
mkrun "$TMPDIR/good" lcp-c1 20 '{}' true 0 tokenize-endpoint 640 $ok32
run_sum "$TMPDIR/good" 0 "ok   lcp-c1: no incomplete answer counted ok"
grep -q '| lcp | 1 | latscope (latscope) | 20 |' "$TMPDIR/good/summary.md" || fail "table row: $(cat "$TMPDIR/good/summary.md")"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["failed"] == 0 and j["checks"], j' \
    "$TMPDIR/good/summary.json" || fail "summary.json"

# a 1-token interrupted answer counted ok (issue 17 item 2)
mkrun "$TMPDIR/trunc" lcp-c1 20 '{}' true 0 events 609 $(printf '32 %.0s' $(seq 19)) 1
run_sum "$TMPDIR/trunc" 1 "FAIL lcp-c1: no incomplete answer counted ok"
# a request neither ok nor error
mkrun "$TMPDIR/lost" lcp-c1 19 '{}' true 0 tokenize-endpoint 608 $(printf '32 %.0s' $(seq 19))
run_sum "$TMPDIR/lost" 1 "FAIL lcp-c1: every request accounted for"
# a stale kept-alive connection billed as a reset (item 1)
mkrun "$TMPDIR/stale" lcp-c1 10 '{"reset": 10}' true 0 tokenize-endpoint 320 $ok32
run_sum "$TMPDIR/stale" 1 "FAIL lcp-c1: no stale-connection error"
# INVALID yet exit 0 (item 3)
mkrun "$TMPDIR/rc" lcp-c1 0 '{"http_4xx": 20}' false 0 none 0 $(printf '0 %.0s' $(seq 20))
run_sum "$TMPDIR/rc" 1 "FAIL lcp-c1: exit status"
# inexact output tokens (item 4): 18 events per request counted where 32 were generated
mkrun "$TMPDIR/tok" lcp-c1 20 '{}' true 0 tokenize-endpoint 360 $ok32
run_sum "$TMPDIR/tok" 1 "FAIL lcp-c1: exact output tokens"
# nothing ran: no checks is a failure, not a pass
mkdir -p "$TMPDIR/empty/runs"
run_sum "$TMPDIR/empty" 1
exit 0

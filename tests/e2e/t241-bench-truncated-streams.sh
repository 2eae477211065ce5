#!/usr/bin/env bash
# t241-bench-truncated-streams: streams that end in order but incomplete are errors of their
# own class, "truncated", counted once for the engine and the LLM views (issue 17 item 2).
# serve-test openai --interrupt does what llama-cpp-python does by default: a request that
# arrives while streams run cuts them (tokens so far, `data: [DONE]`, no finish_reason, close
# without the terminating chunk). Before: engine "errors 59 (reset 59)", LLM "ok 60 errors 0".
# --stop-after N ends every response early with finish_reason "stop" (min_tokens ignored).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm

start_fixture --interrupt --prefill 2ms --token-interval 2ms
URL="http://127.0.0.1:$FX_PORT/v1/chat/completions"
# One connection: nothing interrupts anything; every request is complete.
"$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 -c 1 -t 1 -n 20 \
    --format json >"$TMPDIR/c1.json" 2>"$TMPDIR/c1.err" || fail "c=1: $(cat "$TMPDIR/c1.err")"
python3 - "$TMPDIR/c1.json" <<'PY' || fail "c=1 counts"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
assert p["errors"]["total"] == 0 and p["llm_errors"]["total"] == 0, (p["errors"], p["llm_errors"])
assert p["valid"] is True
PY

# Two connections: each new request cuts the other's stream.
set +e
"$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 -c 2 -t 1 -n 60 \
    --format json >"$TMPDIR/c2.json" 2>"$TMPDIR/c2.err"
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "c=2 against --interrupt: exit $rc, want 1 (INVALID)"
python3 - "$TMPDIR/c2.json" <<'PY' || fail "c=2 counts: $(cat "$TMPDIR/c2.json")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
e, l = p["errors"], p["llm_errors"]
# one set of counters: the same failed requests in both views, in the same class
assert e["total"] == l["total"] and e["total"] > 30, (e, l)
assert e["truncated"] == l["truncated"] and e["truncated"] > 30, (e, l)
assert e["reset"] == 0 and l["transport"] == 0 and l["stream_cut"] == 0, (e, l)
assert p["requests"] + e["total"] == 60, (p["requests"], e)
assert p["valid"] is False and "most requests failed" in p["invalid_reason"], p["invalid_reason"]
PY
"$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 -c 2 -t 1 -n 40 \
    >"$TMPDIR/c2.txt" 2>/dev/null || true
grep -Eq "errors [0-9]+ \(truncated [0-9]+\)" "$TMPDIR/c2.txt" || fail "engine line: $(cat "$TMPDIR/c2.txt")"
grep -Eq "^errors: truncated [0-9]+$" "$TMPDIR/c2.txt" || fail "LLM line: $(cat "$TMPDIR/c2.txt")"
eng=$(sed -nE 's/.*errors ([0-9]+) \(truncated.*/\1/p' "$TMPDIR/c2.txt")
llm=$(sed -nE 's/^requests [0-9]+ ok [0-9]+ errors ([0-9]+);.*/\1/p' "$TMPDIR/c2.txt")
[[ -n $eng && $eng == "$llm" ]] || fail "engine errors '$eng' != LLM errors '$llm'"

# An early EOS the server did not suppress: fewer tokens (usage) than min_tokens demanded.
kill "$FX_PID"; wait "$FX_PID" 2>/dev/null || true
start_fixture --stop-after 3 --prefill 1ms --token-interval 1ms
URL="http://127.0.0.1:$FX_PORT/v1/chat/completions"
set +e
"$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 6 -c 2 -t 1 -n 20 \
    --format json >"$TMPDIR/s.json" 2>/dev/null
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "--stop-after 3 with min_tokens 6: exit $rc, want 1"
check_py() { python3 - "$1" <<PY || fail "$2"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
$3
PY
}
check_py "$TMPDIR/s.json" "short responses" "
assert p['errors']['truncated'] == 20 and p['llm_errors']['truncated'] == 20, (p['errors'], p['llm_errors'])
"
# Without ignore_eos/min_tokens the short answer is the server's right: ok, an OSL mismatch.
"$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 6 --no-ignore-eos \
    -c 2 -t 1 -n 20 --format json >"$TMPDIR/n.json" 2>/dev/null || fail "--no-ignore-eos run failed"
check_py "$TMPDIR/n.json" "--no-ignore-eos" "
assert p['errors']['total'] == 0 and p['llm_errors']['total'] == 0, (p['errors'], p['llm_errors'])
assert p['osl_mismatch'] == 20, p['osl_mismatch']
"
exit 0

#!/usr/bin/env bash
# t516-llm-failed-requests: with --target openai every failed request is an error in the
# engine's totals and in llm_errors (issue 14 item 7): a server that does not speak SSE, cut
# streams and refused connections. A point whose requests mostly fail is INVALID (exit 1);
# a few failures leave it VALID. Also: a metrics URL answering 500 says so, and --prompts
# /dev/zero is refused at its size cap.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm

# A plain HTTP server (the generic fixture: 200 with a 16-byte text body): not SSE.
out=$TMPDIR/plain.port
"$LATSCOPE" serve-test --port 0 --max-seconds 120s >"$out" 2>/dev/null &
PLAIN_PID=$!
cleanup() { kill $FX_PID $PLAIN_PID 2>/dev/null; wait 2>/dev/null; }
trap cleanup EXIT
for _ in $(seq 100); do [[ -s $out ]] && break; sleep 0.05; done
PLAIN=$(head -1 "$out")
[[ -n $PLAIN ]] || fail "serve-test did not start"

set +e
"$LATSCOPE" bench --target openai "http://127.0.0.1:$PLAIN/v1/chat/completions" \
    --input-tokens 8 --output-tokens 4 -c 2 -n 30 -t 1 --format json >"$TMPDIR/plain.json" \
    2>"$TMPDIR/plain.err"
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "non-SSE server: exit $rc, want 1: $(cat "$TMPDIR/plain.err")"
python3 - "$TMPDIR/plain.json" <<'PY' || fail "non-SSE: $(cat "$TMPDIR/plain.json")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
assert p["valid"] is False, p["invalid_reason"]
assert p["requests"] == 0, p["requests"]                # nothing counted ok
assert p["errors"]["total"] == 30, p["errors"]
assert p["errors"]["stream"] == 30, p["errors"]
assert p["llm_errors"]["total"] == 30 and p["llm_errors"]["stream_cut"] == 30, p["llm_errors"]
PY

# Refused connections: in the engine's connect class and in llm_errors.
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
set +e
"$LATSCOPE" bench --target openai "http://127.0.0.1:$dead/v1/chat/completions" \
    --input-tokens 8 -c 1 -n 5 -t 1 --format json >"$TMPDIR/dead.json" 2>/dev/null
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "refused: exit $rc"
python3 - "$TMPDIR/dead.json" <<'PY' || fail "refused: $(cat "$TMPDIR/dead.json")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
assert p["errors"]["connect"] > 0, p["errors"]
assert p["llm_errors"]["connect"] == p["errors"]["connect"], (p["llm_errors"], p["errors"])
assert p["llm_errors"]["total"] == p["errors"]["total"], (p["llm_errors"], p["errors"])
PY

# Mostly cut streams: INVALID. A fifth cut: VALID, and the two views count the same errors.
for spec in "cut:0.8 1" "cut:0.2 0"; do
    set -- $spec
    start_fixture --prefill 1ms --token-interval 1ms --seed 3 --faults "$1"
    trap cleanup EXIT # start_fixture's trap knows only its own server
    set +e
    "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/chat/completions" \
        --input-tokens 8 --output-tokens 4 -c 2 -n 60 -t 1 --max-send-lag 1000 \
        --format json >"$TMPDIR/cut.json" 2>"$TMPDIR/cut.err"
    rc=$?
    set -e
    [[ $rc -eq $2 ]] || fail "--faults $1: exit $rc, want $2: $(cat "$TMPDIR/cut.err")"
    python3 - "$TMPDIR/cut.json" "$2" <<'PY' || fail "--faults $1: $(cat "$TMPDIR/cut.json")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
want_invalid = sys.argv[2] == "1"
assert p["llm_errors"]["stream_cut"] > 0, p["llm_errors"]
assert p["errors"]["total"] == p["llm_errors"]["total"], (p["errors"], p["llm_errors"])
assert p["requests"] + p["errors"]["total"] == 60, p
assert p["valid"] is (not want_invalid), p["invalid_reason"]
if want_invalid:
    assert "most requests failed" in p["invalid_reason"], p["invalid_reason"]
PY
    kill $FX_PID 2>/dev/null; wait $FX_PID 2>/dev/null || true
done

# --metrics-url that answers 500: the status, not "malformed HTTP response".
start_fixture --prefill 1ms --token-interval 1ms
trap cleanup EXIT
set +e
"$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/chat/completions" \
    --input-tokens 8 -n 1 --metrics-url "http://127.0.0.1:$PLAIN/status/500" >/dev/null \
    2>"$TMPDIR/m.err"
rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "HTTP 500" "$TMPDIR/m.err" && ! grep -q "malformed HTTP" "$TMPDIR/m.err" ||
    fail "metrics 500 (exit $rc): $(cat "$TMPDIR/m.err")"
# A full disk under --records-detail is named as such (was "Input/output error", silently).
if [[ -w /dev/full ]]; then
    set +e
    "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/chat/completions" \
        --input-tokens 8 --output-tokens 4 -c 2 -n 500 --records-detail /dev/full >/dev/null \
        2>"$TMPDIR/full.err"
    rc=$?
    set -e
    [[ $rc -eq 1 ]] && grep -q -- "--records-detail: No space left on device" "$TMPDIR/full.err" ||
        fail "--records-detail /dev/full (exit $rc): $(cat "$TMPDIR/full.err")"
fi
# --prompts /dev/zero stops at the cap instead of growing until killed.
set +e
timeout 60 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/chat/completions" \
    --prompts /dev/zero --max-input-size 1M -n 1 >/dev/null 2>"$TMPDIR/z.err"
rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "larger than 1000000 bytes" "$TMPDIR/z.err" ||
    fail "--prompts /dev/zero (exit $rc): $(cat "$TMPDIR/z.err")"
exit 0

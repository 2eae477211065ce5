#!/usr/bin/env bash
# t525-llm-send-log: `serve-test openai --send-log` records when every content chunk actually
# left, and pairs with `bench --records-detail` by response id: same ids, same chunk counts,
# arrival >= send for every chunk. The log is complete after SIGTERM, and a stream interrupted
# by SIGINT is logged as incomplete. perf/llm-itl-pair.py reads both files.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm

expect_rc 1 "$LATSCOPE" serve-test openai --send-log /nonexistent/dir/send.jsonl
contains "$TMPDIR/err" "/nonexistent/dir/send.jsonl"

# Chat (a role chunk travels with content chunk 0) with 2 tokens per chunk. --rx-time user:
# arrivals are CLOCK_MONOTONIC read after recv() returned, so arrival >= send is exact causality
# (kernel receive times are converted from CLOCK_REALTIME, which can be off by a preemption
# between the two clock reads of the conversion: not this test's subject).
start_fixture --prefill 5ms --token-interval 2ms --tokens-per-chunk 2 --send-log "$TMPDIR/send.jsonl"
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/chat/completions" \
    --input-tokens 8 --output-tokens 9 -c 3 -n 12 --warmup 2 -t 1 --rx-time user \
    --records-detail "$TMPDIR/rec.jsonl" --format json
kill -TERM "$FX_PID"
rc=0
wait "$FX_PID" || rc=$?
trap - EXIT # the fixture is gone (lib.sh's trap would fail to kill it)
[[ $rc -eq 0 ]] || fail "fixture exited $rc after SIGTERM: $(cat "$TMPDIR/fx.err")"
python3 - "$TMPDIR/rec.jsonl" "$TMPDIR/send.jsonl" <<'PY' || fail "pairing: $(head -c 600 "$TMPDIR/send.jsonl")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
logs = [json.loads(l) for l in open(sys.argv[2])]
sent = {s["id"]: s for s in logs}
assert len(sent) == len(logs), "duplicate ids in the send log"
assert len(recs) == 12, len(recs)
assert len(logs) >= len(recs), (len(logs), len(recs))
assert len({r["id"] for r in recs}) == len(recs), "duplicate ids in the records"
for s in logs:   # every response ran to completion and every chunk went out as content
    assert s["complete"] is True and s["chunks"] == 5, s            # 9 tokens, 2 per chunk
    assert len(s["send_ns"]) == 5 and all(t is not None for t in s["send_ns"]), s
    # non-decreasing: a loop that wakes late (a loaded machine) writes the chunks that came
    # due meanwhile in one write, with one send time (seen: late_ns 4 ms, two equal times)
    assert all(a <= b for a, b in zip(s["send_ns"], s["send_ns"][1:])), s
    assert all(l >= 0 for l in s["late_ns"]), s                     # never before its plan
    assert all(w >= 0 for w in s["write_ns"]), s
for r in recs:
    assert r["error"] is None, r
    s = sent.get(r["id"])
    assert s is not None, ("no send-log line for", r["id"])
    arr = [r["t0_mono_ns"] + r["t_sched_ns"] + round(ms * 1e6) for ms in r["chunks_ms"]]
    assert len(arr) == len(s["send_ns"]), (r, s)                    # same count, index by index
    for i, (a, t) in enumerate(zip(arr, s["send_ns"])):
        assert a >= t, ("chunk", i, "of", r["id"], "arrived", a, "before it was sent", t)
    assert r["t0_mono_ns"] + r["t_send_ns"] <= s["send_ns"][0]      # request before the answer
PY
# The analysis script pairs the same files.
python3 "$LATSCOPE_SRCDIR/perf/llm-itl-pair.py" "$TMPDIR/rec.jsonl" "$TMPDIR/send.jsonl" t \
    >"$TMPDIR/pair.tsv" || fail "llm-itl-pair.py failed"
contains "$TMPDIR/pair.tsv" "t.paired_chunks	60	chunks	12 error-free records, 0 without"
grep -q "^t.gap_error_abs_p99	" "$TMPDIR/pair.tsv" || fail "no gap error line"

# Completions, a long stream cut short by SIGINT: logged with "complete": false and the chunks
# that were not sent as null. The client reads until two content chunks have arrived.
start_fixture --prefill 1ms --token-interval 20ms --send-log "$TMPDIR/send2.jsonl"
python3 - "$FX_PORT" "$FX_PID" <<'PY' || fail "interrupted stream client"
import http.client, json, os, signal, sys
conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=30)
conn.request("POST", "/v1/completions",
             json.dumps({"prompt": "a", "max_tokens": 500, "stream": True}),
             {"Content-Type": "application/json"})
r = conn.getresponse()
seen = 0
for raw in r:
    if raw.startswith(b"data: {"):
        seen += 1
        if seen == 2:
            os.kill(int(sys.argv[2]), signal.SIGINT)
            break
PY
rc=0
wait "$FX_PID" || rc=$?
trap - EXIT # the fixture is gone (lib.sh's trap would fail to kill it)
[[ $rc -eq 0 ]] || fail "fixture exited $rc after SIGINT: $(cat "$TMPDIR/fx.err")"
python3 - "$TMPDIR/send2.jsonl" <<'PY' || fail "interrupted stream log: $(head -c 600 "$TMPDIR/send2.jsonl")"
import json, sys
logs = [json.loads(l) for l in open(sys.argv[1])]
assert len(logs) == 1, logs
s = logs[0]
assert s["complete"] is False and s["chunks"] == 500, s
n = sum(t is not None for t in s["send_ns"])
assert 2 <= n < 500, n
assert all(t is not None for t in s["send_ns"][:n]) and all(t is None for t in s["send_ns"][n:])
PY
exit 0

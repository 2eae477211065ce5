#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t265-bench-sessions: --sessions against the fixture's prefix cache (issue 17, multi-turn).
# Each session is sent turn after turn by one user with its history: the ISL grows per turn
# (the server saw the history), later turns' TTFT falls well below turn 1's (their prefix is
# cached: the fixture's prefill is 1 ms per uncached prompt token, so a long first prompt costs
# ~100 ms and a later turn a few ms), --history dataset sends the file's replies instead of the
# streamed ones, and --think-time holds each user between turns.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
# 4 sessions of 3 turns: a distinct 100-word first prompt, then short follow-ups; ShareGPT
# (with 30-word replies) and AIPerf multi_turn spellings.
python3 - "$TMPDIR" <<'PY'
import json, sys
d = sys.argv[1]
with open(d + "/s.jsonl", "w") as f:
    for s in range(4):
        first = " ".join("s%dw%d" % (s, i) for i in range(100))
        reply = " ".join("r%d" % i for i in range(30))
        conv = [{"from": "human", "value": first}, {"from": "gpt", "value": reply},
                {"from": "human", "value": "and then what"}, {"from": "gpt", "value": reply},
                {"from": "human", "value": "why so"}]
        if s % 2:
            f.write(json.dumps({"id": s, "conversations": conv}) + "\n")
        else:
            f.write(json.dumps({"session_id": s, "turns": [{"text": first},
                    {"text": "and then what"}, {"text": "why so"}]}) + "\n")
with open(d + "/g.jsonl", "w") as f:
    for s in range(4):
        first = " ".join("g%dw%d" % (s, i) for i in range(100))
        reply = " ".join("r%d" % i for i in range(30))
        f.write(json.dumps({"conversations": [{"from": "human", "value": first},
                {"from": "gpt", "value": reply}, {"from": "human", "value": "more"}]}) + "\n")
PY
"$LATSCOPE" serve-test openai --prefix-cache --prefix-block 8 --prefill 1ms \
    --prefill-per-token 1ms --token-interval 1ms --port-file "$TMPDIR/o.port" >/dev/null \
    2>"$TMPDIR/o.err" &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/o.port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/o.port ]] || { cat "$TMPDIR/o.err"; fail "serve-test openai did not start"; }
U=http://127.0.0.1:$(cat "$TMPDIR/o.port")

"$LATSCOPE" bench --target openai "$U/v1/chat/completions" --sessions "$TMPDIR/s.jsonl" -c 2 -t 1 \
    -n 12 --output-tokens 8 --metrics-url "$U/metrics" --format json >"$TMPDIR/a.json" \
    2>"$TMPDIR/a.err" || { cat "$TMPDIR/a.err"; fail "bench --sessions"; }
check_py "$TMPDIR/a.json" "
p = d['points'][0]
s = p['sessions']
assert p['requests'] == 12 and p['errors']['total'] == 0, (p['requests'], p['errors'])
assert s['history'] == 'server' and s['in_file'] == 4, s
assert (s['started'], s['completed'], s['failed']) == (4, 4, 0), s
t = s['turns']
assert [x['turn'] for x in t] == [1, 2, 3] and all(x['requests'] == 4 == x['ok'] for x in t), t
# the history: turn k carries turns 1..k-1 and the 8-token streamed replies (the fixture's
# usage.prompt_tokens is 1 + the spaces of the prompt: 100 words, + 8 reply tokens + 2 spaces
# of 'and then what', + 8 + 1 of 'why so')
isl = [x['isl_mean'] for x in t]
assert isl == [100.0, 110.0, 119.0], isl
# prefix reuse: ~100 uncached tokens at 1 ms each on turn 1, a handful later
assert t[0]['ttft_mean_ms'] > 60, t[0]
assert s['later_turns']['ttft_mean_ms'] < 0.5 * t[0]['ttft_mean_ms'], s
assert s['later_vs_first_ttft'] < 0.5, s
assert s['later_turns']['requests'] == 8, s['later_turns']
sm = {x['label']: x for x in p['server_metrics']['series']}
assert sm['prefix-cache hits']['delta'] > 0, sm
assert s['duration_mean_ms'] is not None and s['duration_p99_ms'] >= s['duration_p50_ms'], s
"

# text and CSV show the per-turn table
"$LATSCOPE" bench --target openai "$U/v1/chat/completions" --sessions "$TMPDIR/s.jsonl" -c 1 -t 1 \
    -n 6 --output-tokens 4 >"$TMPDIR/a.txt" 2>"$TMPDIR/a.err" || { cat "$TMPDIR/a.err"; fail "text"; }
grep -q "sessions: 2 started, 2 completed, 0 failed (history: server)" "$TMPDIR/a.txt" ||
    { cat "$TMPDIR/a.txt"; fail "text sessions line"; }
grep -Eq "^    later +4 +4 " "$TMPDIR/a.txt" || { cat "$TMPDIR/a.txt"; fail "text later row"; }
"$LATSCOPE" bench --target openai "$U/v1/chat/completions" --sessions "$TMPDIR/s.jsonl" -c 1 -t 1 \
    -n 3 --output-tokens 4 --format csv >"$TMPDIR/a.csv" 2>"$TMPDIR/a.err" || fail "csv"
grep -q "^Point,Turn,Requests,OK,TTFT mean" "$TMPDIR/a.csv" && grep -q "^1,later,2,2," "$TMPDIR/a.csv" ||
    { cat "$TMPDIR/a.csv"; fail "csv sessions table"; }

# --history dataset: turn 2 carries the file's 30-word reply instead of the 8 streamed tokens
for h in server dataset; do
    "$LATSCOPE" bench --target openai "$U/v1/chat/completions" --sessions "$TMPDIR/g.jsonl" \
        --history $h -c 1 -t 1 -n 8 --output-tokens 8 --format json >"$TMPDIR/$h.json" \
        2>"$TMPDIR/$h.err" || { cat "$TMPDIR/$h.err"; fail "--history $h"; }
done
python3 - "$TMPDIR" <<'PY' || fail "--history dataset vs server"
import json, sys
d = sys.argv[1]
a = json.load(open(d + "/server.json"))["points"][0]["sessions"]
b = json.load(open(d + "/dataset.json"))["points"][0]["sessions"]
assert a["history"] == "server" and b["history"] == "dataset", (a, b)
ia, ib = a["turns"][1]["isl_mean"], b["turns"][1]["isl_mean"]
assert (ia, ib) == (108.0, 129.0), (ia, ib)  # 100 + 8 streamed tokens, or + 29 spaces of 30 words
assert a["turns"][0]["isl_mean"] == b["turns"][0]["isl_mean"], (a, b)
PY

# --think-time: two pauses of 500 ms per 3-turn session (a lower bound, set by the client)
"$LATSCOPE" bench --target openai "$U/v1/chat/completions" --sessions "$TMPDIR/s.jsonl" -c 1 -t 1 \
    -n 3 --output-tokens 2 --think-time 500ms --format json >"$TMPDIR/t.json" 2>"$TMPDIR/t.err" ||
    { cat "$TMPDIR/t.err"; fail "--think-time"; }
check_py "$TMPDIR/t.json" "
s = d['points'][0]['sessions']
assert s['completed'] == 1 and s['think_time_ms'] == 500.0, s
assert s['duration_mean_ms'] >= 1000, s
# TTFT runs from the intended send (end + think): the pause is not in it (with it, every later
# TTFT would be >= 500 ms; a cached prompt's prefill is a few ms, 100x less)
assert s['later_turns']['ttft_mean_ms'] < 500, s
"
exit 0

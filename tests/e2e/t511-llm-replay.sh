#!/usr/bin/env bash
# t511-llm-replay: `--replay FILE.jsonl` sends one request per line at the line's time (open
# loop): the intended send times in --records-detail are the file's offsets to the ns, each
# request carries its line's output length, the burst's queueing shows in TTFT (measured from
# the intended time), --replay-speed scales the offsets, and bad files fail with the line.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 20ms --token-interval 5ms --max-seqs 2
URL="http://127.0.0.1:$FX_PORT/v1/completions"
TRACE=$TMPDIR/trace.jsonl
python3 - "$TRACE" <<'PY'
import json, sys
lines = []
# a burst of 6 at t = 1000 ms (Mooncake style: input/output lengths only), then a spread tail
for i in range(6):
    lines.append({"timestamp": 1000, "input_length": 16, "output_length": 4, "hash_ids": [i]})
t = 1400.0
for i in range(14):
    t += 37.5 + 11 * (i % 4)
    if i % 5 == 2:
        lines.append({"timestamp": t, "prompt": "a real prompt %d" % i, "output_tokens": 2 + i})
    else:
        lines.append({"timestamp": t, "input_length": 8 + i, "output_length": 2 + i})
with open(sys.argv[1], "w") as f:
    for l in lines:
        f.write(json.dumps(l) + "\n")
PY

run_replay() { # OUT RECORDS extra args...
    local out=$1 rec=$2
    shift 2
    set +e
    "$LATSCOPE" bench --target openai "$URL" --replay "$TRACE" --records-detail "$rec" \
        --max-send-lag 50 -t 2 --format json "$@" >"$out" 2>"$TMPDIR/err"
    local rc=$?
    set -e
    [[ $rc -eq 0 ]] || fail "replay exited $rc: $(cat "$TMPDIR/err")"
}
run_replay "$TMPDIR/out1" "$TMPDIR/rec1"
run_replay "$TMPDIR/out2" "$TMPDIR/rec2" --replay-speed 2
python3 - "$TRACE" "$TMPDIR/out1" "$TMPDIR/rec1" "$TMPDIR/out2" "$TMPDIR/rec2" <<'PY' ||
import json, sys
trace = [json.loads(l) for l in open(sys.argv[1])]
t0 = trace[0]["timestamp"]
want = [round((l["timestamp"] - t0) * 1e6) for l in trace]
outlen = [l.get("output_length", l.get("output_tokens")) for l in trace]
for out, rec, speed in ((sys.argv[2], sys.argv[3], 1), (sys.argv[4], sys.argv[5], 2)):
    d = json.load(open(out))
    assert d["mode"] == "replay" and d["arrival"] == "replay", (d["mode"], d["arrival"])
    assert len(d["points"]) == 1
    p = d["points"][0]
    assert p["requests"] == len(trace), (p["requests"], len(trace))
    assert p["errors"]["total"] == 0 and p["llm_errors"]["total"] == 0, p["errors"]
    recs = sorted((json.loads(l) for l in open(rec)), key=lambda r: (r["t_sched_ns"], r["requested_tokens"]))
    assert len(recs) == len(trace), len(recs)
    base = recs[0]["t_sched_ns"]
    got = [r["t_sched_ns"] - base for r in recs]
    exp = [int(w / speed) for w in want]
    # intended send times are the file's offsets (the engine's schedule is exact)
    assert all(abs(g - e) <= 1 for g, e in zip(got, exp)), list(zip(got, exp))
    # request k carried line k's output length (ties only inside the burst, all 4)
    assert [r["requested_tokens"] for r in recs] == outlen, [r["requested_tokens"] for r in recs]
    assert all(r["output_tokens"] == r["requested_tokens"] for r in recs)
    # the burst of 6 on 2 slots: the last pair waits 2 x (20 + 3 x 5) ms before its 20 ms
    # prefill; TTFT from the intended send time shows it
    burst = sorted(r["ttft_ms"] for r in recs[:6])
    assert burst[0] >= 19 and burst[-1] >= 85, burst
    assert all(r["t_send_ns"] >= r["t_sched_ns"] for r in recs)
PY
    fail "replay results: $(head -c 2000 "$TMPDIR/out1")"

# Bad trace: the error names the file and the line.
printf '{"timestamp": 0, "input_length": 4}\n{"timestamp": 5, "input_length": 4}\n{"timestamp": 3, "input_length": 4}\n' >"$TMPDIR/bad.jsonl"
set +e
"$LATSCOPE" bench --target openai "$URL" --replay "$TMPDIR/bad.jsonl" >/dev/null 2>"$TMPDIR/e3"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "bad trace exited $rc: $(cat "$TMPDIR/e3")"
grep -q "bad.jsonl:3: send time 3.000 ms is before the previous line's 5.000 ms" "$TMPDIR/e3" ||
    fail "$(cat "$TMPDIR/e3")"
set +e
"$LATSCOPE" bench --target openai "$URL" --replay "$TRACE" --rate 5 >/dev/null 2>"$TMPDIR/e4"
rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "trace sets every send time" "$TMPDIR/e4" || fail "$(cat "$TMPDIR/e4")"
exit 0

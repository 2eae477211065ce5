#!/usr/bin/env bash
# t252-bench-shard-llm: --target openai split over shards: streams (closed-loop connections)
# and requests are split, and shard K sends requests K, K+N, ... of the one seeded workload, so
# 2 shards merged send exactly the single run's requests (the same output-token total); a
# replay file is split by row (the union is every row once); the merged result carries the
# LLM summary (TTFT/TPOT from the merged histograms, summed counters).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 5ms --token-interval 1ms --max-seqs 8
URL="http://127.0.0.1:$FX_PORT/v1/completions"
common=(--target openai --output-tokens 12:5 --input-tokens 20:8 --seed 9 -t 1
    --max-send-lag 50 --format json)

run() { # OUT args...
    local out=$1
    shift
    set +e
    "$LATSCOPE" bench "${common[@]}" "$@" "$URL" >"$out" 2>"$out.err"
    local rc=$?
    set -e
    [[ $rc -le 1 ]] || fail "bench $*: exit $rc: $(cat "$out.err")"
}
run "$TMPDIR/single.json" -c 4 -n 40
run "$TMPDIR/s0.json" --shard 0/2 -c 4 -n 40 &
p0=$!
run "$TMPDIR/s1.json" --shard 1/2 -c 4 -n 40 &
p1=$!
wait $p0 $p1
set +e
"$LATSCOPE" bench merge --format json "$TMPDIR"/s{0,1}.json >"$TMPDIR/m.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || fail "merge: exit $rc: $(cat "$TMPDIR/err")"
python3 - "$TMPDIR" <<'PY' || fail "closed-loop LLM shards"
import json, sys
T = sys.argv[1]
s = json.load(open(T + "/single.json"))["points"][0]
sh = [json.load(open(T + "/s%d.json" % k))["points"][0] for k in range(2)]
m = json.load(open(T + "/m.json"))["points"][0]
assert [q["concurrency"] for q in sh] == [2, 2], [q["concurrency"] for q in sh]
assert m["concurrency"] == 4 and m["requests"] == 40 == s["requests"], (m["requests"], s["requests"])
# requests K, K+2, ... of one workload: the same bodies as the single run, so the same tokens
assert s["llm_errors"]["total"] == 0 and m["llm_errors"]["total"] == 0
assert m["output_tokens"] == s["output_tokens"] == sum(q["output_tokens"] for q in sh), \
    (m["output_tokens"], s["output_tokens"], [q["output_tokens"] for q in sh])
assert sh[0]["output_tokens"] != sh[1]["output_tokens"] or sh[0]["output_tokens"] * 2 == s["output_tokens"]
assert m["ttft_ms"]["n"] == 40 and m["ttft_ms"]["p50"] is not None, m["ttft_ms"]
assert m["histograms"]["ttft"].startswith("HISTF")
assert abs(m["ttft_ms"]["max"] - max(q["ttft_ms"]["max"] for q in sh)) < 0.01, m["ttft_ms"]
PY

# Replay: 12 rows, 3 shards take rows 0,3,6,9 / 1,4,7,10 / 2,5,8,11.
TRACE=$TMPDIR/trace.jsonl
python3 - "$TRACE" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(12):
        f.write(json.dumps({"timestamp": 100 + 40 * i, "input_length": 8, "output_length": 3 + i}) + "\n")
PY
pids=()
for k in 0 1 2; do
    run "$TMPDIR/r$k.json" --shard $k/3 --replay "$TRACE" &
    pids+=($!)
done
wait "${pids[@]}"
"$LATSCOPE" bench merge --format json "$TMPDIR"/r{0,1,2}.json >"$TMPDIR/rm.json" || true
python3 - "$TMPDIR" <<'PY' || fail "replay split by row"
import json, sys
T = sys.argv[1]
sh = [json.load(open(T + "/r%d.json" % k))["points"][0] for k in range(3)]
m = json.load(open(T + "/rm.json"))["points"][0]
n = lambda q: q["requests"] + q["errors"]["total"]
assert [n(q) for q in sh] == [4, 4, 4], [n(q) for q in sh]
# output_length 3+i: shard k has rows k, k+3, k+6, k+9 -> 4*3 + (k + k+3 + k+6 + k+9)
assert [q["output_tokens"] for q in sh] == [12 + 4 * k + 18 for k in range(3)], [q["output_tokens"] for q in sh]
assert n(m) == 12 and m["output_tokens"] == sum(3 + i for i in range(12)), (n(m), m["output_tokens"])
PY
exit 0

#!/usr/bin/env bash
# t283-bench-merge-sessions: `bench merge` keeps the --sessions report (issue 17). Two shards of
# a sessions run merged give the per-turn counts of one process running the whole load (the
# numbers the dataset implies: 4 sessions of 3 turns; shard K starts sessions K, K + N, ...),
# ISL means from the summed isl_sum/isl_n,
# and latencies from the summed per-row histograms: a result merged with itself keeps its
# percentiles, and a fast and a slow run merged put p50 among the fast requests and p99 at the
# slow run's (an average of percentiles would land in between). A shard without the row
# histograms (an older result) gives null latencies, never a made-up number; shards with
# different --history / --think-time are refused.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
python3 - "$TMPDIR" <<'PY'
import json, sys
with open(sys.argv[1] + "/s.jsonl", "w") as f:
    for s in range(4):
        first = " ".join("s%dw%d" % (s, i) for i in range(100 + 10 * s))
        f.write(json.dumps({"session_id": s, "turns": [{"text": first},
                {"text": "and then what"}, {"text": "why so"}]}) + "\n")
PY
fixture() { # NAME PREFILL
    "$LATSCOPE" serve-test openai --prefill "$2" --token-interval 1ms \
        --port-file "$TMPDIR/$1.port" >/dev/null 2>"$TMPDIR/$1.ferr" &
    FIXTURE_PIDS+=($!)
    for _ in $(seq 100); do [[ -s $TMPDIR/$1.port ]] && break; sleep 0.05; done
    [[ -s $TMPDIR/$1.port ]] || { cat "$TMPDIR/$1.ferr"; fail "serve-test openai did not start"; }
}
fixture fast 2ms
fixture slow 40ms
FAST=http://127.0.0.1:$(cat "$TMPDIR/fast.port")/v1/chat/completions
SLOW=http://127.0.0.1:$(cat "$TMPDIR/slow.port")/v1/chat/completions
common=(--target openai --sessions "$TMPDIR/s.jsonl" -t 1 --output-tokens 8 --format json)
run() { # OUT URL ARGS...
    local out=$1 url=$2
    shift 2
    "$LATSCOPE" bench "${common[@]}" "$@" "$url" >"$TMPDIR/$out" 2>"$TMPDIR/$out.err" ||
        { cat "$TMPDIR/$out.err"; fail "bench $out"; }
}
merge() { # OUT FILES...
    local out=$1
    shift
    "$LATSCOPE" bench merge --format json "$@" >"$TMPDIR/$out" 2>"$TMPDIR/$out.err" ||
        { cat "$TMPDIR/$out.err"; fail "bench merge $out"; }
}

# the whole load in one process, and in two shards (one user each, 6 requests: 2 sessions;
# shard K takes sessions K, K + 2: together the four one process sends)
run one.json "$FAST" -c 2 -n 12
run s0.json "$FAST" -c 2 -n 12 --shard 0/2 &
p0=$!
run s1.json "$FAST" -c 2 -n 12 --shard 1/2 &
p1=$!
wait $p0 $p1
merge m.json "$TMPDIR/s0.json" "$TMPDIR/s1.json"
python3 - "$TMPDIR" <<'PY' || fail "shards merged"
import json, sys
T = sys.argv[1]
ld = lambda f: json.load(open(T + "/" + f))["points"][0]["sessions"]
one, m = ld("one.json"), ld("m.json")
sh = [ld("s%d.json" % k) for k in range(2)]
cnt = lambda s: (s["started"], s["completed"], s["failed"], [(t["turn"], t["requests"], t["ok"])
                 for t in s["turns"]], s["later_turns"]["requests"], s["later_turns"]["ok"])
# 4 sessions of 3 turns, 12 requests: 4 started and completed, 4 requests per turn, 8 later
expect = (4, 4, 0, [(1, 4, 4), (2, 4, 4), (3, 4, 4)], 8, 8)
assert cnt(one) == expect, cnt(one)
assert cnt(m) == expect, cnt(m)
assert [cnt(s)[:2] for s in sh] == [(2, 2), (2, 2)], [cnt(s) for s in sh]
for k in range(3):
    assert m["turns"][k]["requests"] == sum(s["turns"][k]["requests"] for s in sh)
assert m["history"] == "server" and m["in_file"] == 4 and m["think_time_ms"] is None, m
# ISL: 100 + 10 s words in session s, + 8 streamed tokens + 2 spaces, + 8 + 1 (the fixture
# counts spaces + 1): one process sends sessions 0..3; shard 0 sessions 0 and 2, shard 1 1 and 3
assert [t["isl_mean"] for t in one["turns"]] == [115.0, 125.0, 134.0], one["turns"]
assert [s["turns"][0]["isl_mean"] for s in sh] == [110.0, 120.0], [s["turns"] for s in sh]
assert [t["isl_mean"] for t in m["turns"]] == [115.0, 125.0, 134.0], m["turns"]
assert [t["isl_n"] for t in m["turns"]] == [4, 4, 4] and m["turns"][0]["isl_sum"] == 460, m
assert m["later_turns"]["isl_mean"] == 129.5, m["later_turns"]
# the merged rows carry their histograms again (a merged result merges further)
for t in m["turns"] + [m["later_turns"]]:
    assert t["histograms"]["ttft"].startswith("HISTF") and t["ttft_p50_ms"] is not None, t
    assert "percentiles" not in t, t
assert m["histograms"]["duration"].startswith("HISTF") and m["duration_p99_ms"] is not None, m
# the merged TTFT lies within the shards' and the ratio is recomputed from the merged means
t1 = [s["turns"][0] for s in sh]
assert min(t["ttft_p50_ms"] for t in t1) <= m["turns"][0]["ttft_p50_ms"] <= max(t["ttft_p99_ms"] for t in t1)
assert m["turns"][0]["ttft_p99_ms"] == max(t["ttft_p99_ms"] for t in t1), (m["turns"][0], t1)
r = m["later_turns"]["ttft_mean_ms"] / m["turns"][0]["ttft_mean_ms"]
assert abs(m["later_vs_first_ttft"] - r) < 0.002, (m["later_vs_first_ttft"], r)
PY

# a result merged with itself: the same percentiles and means, twice the counts
merge self.json "$TMPDIR/one.json" "$TMPDIR/one.json"
# a fast run (4 turn-1 requests) and a slow one (2 turn-1 requests at 40 ms prefill)
run slow.json "$SLOW" -c 1 -n 6
merge fs.json "$TMPDIR/one.json" "$TMPDIR/slow.json"
python3 - "$TMPDIR" <<'PY' || fail "percentiles from the histograms"
import json, sys
T = sys.argv[1]
ld = lambda f: json.load(open(T + "/" + f))["points"][0]["sessions"]
one, me, slow, fs = ld("one.json"), ld("self.json"), ld("slow.json"), ld("fs.json")
keys = ["ttft_mean_ms", "ttft_p50_ms", "ttft_p99_ms", "e2e_mean_ms", "e2e_p50_ms", "e2e_p99_ms", "isl_mean"]
for a, b in zip(one["turns"] + [one["later_turns"]], me["turns"] + [me["later_turns"]]):
    assert b["requests"] == 2 * a["requests"] and b["ok"] == 2 * a["ok"], (a, b)
    for k in keys:
        assert abs(a[k] - b[k]) <= 0.001, (k, a, b)
assert me["started"] == 8 and me["duration_p50_ms"] == one["duration_p50_ms"], (one, me)
f1, s1, m1 = one["turns"][0], slow["turns"][0], fs["turns"][0]
assert m1["requests"] == 6 and s1["requests"] == 2, (m1, s1)
assert f1["ttft_p99_ms"] < 20 and s1["ttft_p50_ms"] > 35, (f1, s1)
# nearest rank 3 of 6 is the third fastest: a fast request; rank 6 is the slow run's slowest
assert m1["ttft_p50_ms"] <= f1["ttft_p99_ms"], (m1, f1)
assert m1["ttft_p99_ms"] == s1["ttft_p99_ms"], (m1, s1)
w = (4 * f1["ttft_mean_ms"] + 2 * s1["ttft_mean_ms"]) / 6
assert abs(m1["ttft_mean_ms"] - w) < 0.005, (m1["ttft_mean_ms"], w)
r = fs["later_turns"]["ttft_mean_ms"] / m1["ttft_mean_ms"]
assert abs(fs["later_vs_first_ttft"] - r) < 0.002, (fs["later_vs_first_ttft"], r)
PY

# the merged text shows the sessions table like a normal run
"$LATSCOPE" bench merge "$TMPDIR/s0.json" "$TMPDIR/s1.json" >"$TMPDIR/m.txt" 2>"$TMPDIR/m.txt.err" ||
    { cat "$TMPDIR/m.txt.err"; fail "merge text"; }
grep -q "sessions: 4 started, 4 completed, 0 failed (history: server)" "$TMPDIR/m.txt" &&
    grep -Eq "^    later +8 +8 " "$TMPDIR/m.txt" && grep -Eq "^    3 +4 +4 " "$TMPDIR/m.txt" ||
    { cat "$TMPDIR/m.txt"; fail "merge text sessions table"; }

# an older shard result (no row histograms, no isl_n): null latencies where both shards have
# requests, its counts still summed; the single-shard case keeps that shard's own values
python3 - "$TMPDIR" <<'PY'
import json, sys
T = sys.argv[1]
d = json.load(open(T + "/s1.json"))
s = d["points"][0]["sessions"]
for t in s["turns"] + [s["later_turns"]]:
    for k in ("histograms", "histogram_extremes_ns", "isl_n", "isl_sum"):
        t.pop(k, None)
for k in ("histograms", "histogram_extremes_ns"):
    s.pop(k, None)
json.dump(d, open(T + "/old1.json", "w"))
PY
merge old.json "$TMPDIR/s0.json" "$TMPDIR/old1.json"
check_py "$TMPDIR/old.json" "
s = d['points'][0]['sessions']
t = s['turns'][0]
assert (s['started'], t['requests'], s['later_turns']['requests']) == (4, 4, 8), s
assert t['ttft_p50_ms'] is None and t['ttft_mean_ms'] is None and t['e2e_p99_ms'] is None, t
assert t['isl_mean'] is None and 'histograms' not in t, t
assert t['percentiles'] == 'not mergeable', t
assert s['later_turns']['percentiles'] == 'not mergeable', s['later_turns']
assert s['duration_p50_ms'] is None and s['later_vs_first_ttft'] is None, s
assert s['duration_percentiles'] == 'not mergeable', s
"
# ... and where the older shard is the only one with requests in a row, the row is its own
python3 - "$TMPDIR" <<'PY'
import json, sys
T = sys.argv[1]
for src, dst, keep in (("s0.json", "x0.json", lambda k: k != 3), ("old1.json", "x1.json", lambda k: k == 3)):
    d = json.load(open(T + "/" + src))
    s = d["points"][0]["sessions"]
    s["turns"] = [t for t in s["turns"] if keep(t["turn"])]
    json.dump(d, open(T + "/" + dst, "w"))
PY
merge x.json "$TMPDIR/x0.json" "$TMPDIR/x1.json"
python3 - "$TMPDIR" <<'PY' || fail "an older shard alone in a row"
import json, sys
T = sys.argv[1]
ld = lambda f: json.load(open(T + "/" + f))["points"][0]["sessions"]
x, o1, s0 = ld("x.json"), ld("old1.json"), ld("s0.json")
t1, t3 = x["turns"][0], x["turns"][2]
assert t3["turn"] == 3 and t3["requests"] == 2 and "histograms" not in t3, t3
assert "percentiles" not in t3, t3
for k in ("ttft_mean_ms", "ttft_p50_ms", "ttft_p99_ms", "e2e_p99_ms", "isl_mean"):
    assert t3[k] == o1["turns"][2][k], (k, t3, o1["turns"][2])
assert t1["requests"] == 2 and t1["histograms"]["ttft"] == s0["turns"][0]["histograms"]["ttft"], t1
assert t1["ttft_p99_ms"] == s0["turns"][0]["ttft_p99_ms"], (t1, s0["turns"][0])
PY
"$LATSCOPE" bench merge "$TMPDIR/s0.json" "$TMPDIR/old1.json" >"$TMPDIR/old.txt" 2>&1 || true
grep -q "not mergeable" "$TMPDIR/old.txt" || { cat "$TMPDIR/old.txt"; fail "text: not mergeable"; }

# different --history (or --think-time) between the results: refused, exit 2
run th.json "$FAST" -c 1 -n 3 --think-time 5ms
set +e
"$LATSCOPE" bench merge "$TMPDIR/one.json" "$TMPDIR/th.json" >/dev/null 2>"$TMPDIR/th.err"
rc=$?
set -e
[[ $rc == 2 ]] && grep -q "think-time" "$TMPDIR/th.err" ||
    { cat "$TMPDIR/th.err"; fail "different --think-time merged (exit $rc)"; }
python3 - "$TMPDIR" <<'PY'
import json, sys
T = sys.argv[1]
d = json.load(open(T + "/one.json"))
del d["points"][0]["sessions"]
json.dump(d, open(T + "/nos.json", "w"))
PY
set +e
"$LATSCOPE" bench merge "$TMPDIR/one.json" "$TMPDIR/nos.json" >/dev/null 2>"$TMPDIR/nos.err"
rc=$?
set -e
[[ $rc == 2 ]] && grep -q 'no "sessions"' "$TMPDIR/nos.err" ||
    { cat "$TMPDIR/nos.err"; fail "a result without sessions merged (exit $rc)"; }
exit 0

#!/usr/bin/env bash
# t514-llm-azure-replay: `--replay FILE.csv` replays an Azure LLM inference trace
# (TIMESTAMP,ContextTokens,GeneratedTokens, 100 ns timestamps) like the JSONL replay: request k
# is row k, sent at its offset from the first row (exact to the ns), asking GeneratedTokens
# (0 -> 1) with a synthetic prompt of ContextTokens; --requests N replays the first N rows,
# --replay-speed F divides the offsets; a bad row fails the run before any request, naming the
# file and the line. Data: tests/e2e/data/handmade-azure-conv.csv (hand-made, 7 rows, a tie and
# a 100 ns step).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
CSV="$LATSCOPE_SRCDIR/tests/e2e/data/handmade-azure-conv.csv"
[[ -f $CSV ]] || fail "missing $CSV"
start_fixture --prefill 20ms --token-interval 5ms
URL="http://127.0.0.1:$FX_PORT/v1/completions"
replay() { # replay TAG ARGS...: JSON in $TMPDIR/TAG.json, per-request lines in $TMPDIR/TAG.rd
    local tag=$1; shift
    # (send lag is not what this test checks: a loaded machine must not make the point INVALID)
    expect_rc 0 "$LATSCOPE" bench --target openai "$URL" --replay "$CSV" -t 1 --max-send-lag 5000 \
        --records-detail "$TMPDIR/$tag.rd" --format json "$@"
    cp "$TMPDIR/out" "$TMPDIR/$tag.json"
}
replay all
replay first3 --requests 3
replay fast --replay-speed 2
python3 - "$CSV" "$TMPDIR" <<'PY' || fail "azure replay results"
import json, sys
from datetime import datetime, timezone
csv, tmp = sys.argv[1], sys.argv[2]
rows = [l.strip().split(",") for l in open(csv) if l.strip()][1:]
def ns(ts):  # exact ns from "YYYY-MM-DD HH:MM:SS.fffffff" (Python keeps only µs: split it)
    whole, frac = ts.split(".")
    s = datetime.strptime(whole, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc).timestamp()
    return int(s) * 10**9 + int(frac.ljust(9, "0"))
t0 = ns(rows[0][0])
want = [(ns(r[0]) - t0, max(1, int(r[2]))) for r in rows]
def got(tag):
    d = json.load(open(f"{tmp}/{tag}.json"))
    assert d["mode"] == "replay" and d["arrival"] == "replay", (d["mode"], d["arrival"])
    recs = [json.loads(l) for l in open(f"{tmp}/{tag}.rd")]
    base = min(r["t_sched_ns"] for r in recs)
    assert all(r["error"] is None and r["output_tokens"] == r["requested_tokens"] for r in recs)
    return d["points"][0], sorted((r["t_sched_ns"] - base, r["requested_tokens"]) for r in recs)
def same(a, b, div=1):
    assert len(a) == len(b), (a, b)
    for (ga, ra), (wa, rb) in zip(a, b):
        assert ra == rb and abs(ga - wa // div) <= 1, (a, b)
p, g = got("all")
assert p["requests"] == len(rows) == 7, p["requests"]
same(g, sorted(want))              # row k at its offset with its GeneratedTokens (0 -> 1)
assert g[1][0] == 50_000_000 and g[3][0] == 50_000_100, g  # the tie and the 100 ns step
p, g = got("first3")
assert p["requests"] == 3, p["requests"]
same(g, sorted(want[:3]))
p, g = got("fast")
same(g, sorted(want), div=2)
PY

# Bad rows: the run fails before any request, naming the file and the line.
bad() { # bad NAME CONTENT EXPECTED
    printf "$2" >"$TMPDIR/$1"
    expect_rc 2 "$LATSCOPE" bench --target openai "$URL" --replay "$TMPDIR/$1"
    contains "$TMPDIR/err" "$3"
}
bad unsorted.csv 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:47.5,1,1\n2023-11-16 18:15:47.25,1,1\n' \
    "unsorted.csv:3: TIMESTAMP is 250.000 ms before the previous row's; sort the trace by time"
bad date.csv 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1,1\n\n2023-11-31 18:15:46,1,1\n' \
    "date.csv:4: TIMESTAMP '2023-11-31 18:15:46' is not a date and time"
bad tokens.csv 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,12k,1\n' \
    "tokens.csv:2: ContextTokens '12k' must be a whole number of tokens"
bad header.csv 'TIMESTAMP,Context,GeneratedTokens\n2023-11-16 18:15:46,1,1\n' \
    "header.csv:1: the header has no ContextTokens column"
# --requests is the only run-length option the replay takes
expect_rc 2 "$LATSCOPE" bench --target openai "$URL" --replay "$CSV" --duration 1s
contains "$TMPDIR/err" "--requests N replays the first N"
exit 0

#!/usr/bin/env bash
# exclusive: sampler accuracy (shares of samples) needs the CPUs to itself
# t363-analyze-cpu-live: a real `latscope trace --cpu` of tests/progs/hot.c (60/30/10 % of its
# work in hot_a/hot_b/cold_c, all in spin) read back by `latscope analyze`: the CPU section
# names spin as the top self function and hot_a above hot_b above cold_c by total, and the JSON
# "cpu" object agrees. Skips where perf_event_open is not permitted.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
cpu_have_trace || skip "this build's 'latscope trace' has no --cpu/--folded"
need_cpu
build_prog "$TMPDIR/hot" hot.c -O1 -g -fno-omit-frame-pointer -pthread
"$LATSCOPE" trace --cpu --freq 499 -o "$TMPDIR/hot.pt.trace.json.gz" -- "$TMPDIR/hot" 1 \
    2>"$TMPDIR/terr" || { cat "$TMPDIR/terr"; fail "trace failed"; }
expect_rc 0 "$LATSCOPE" analyze "$TMPDIR/hot.pt.trace.json.gz"
contains "$TMPDIR/out" "CPU samples: "
contains "$TMPDIR/out" "Top functions by total samples:"
awk '/^Top functions by self samples:/ { getline; getline; print $NF; exit }' "$TMPDIR/out" \
    >"$TMPDIR/top"
[[ $(cat "$TMPDIR/top") == spin ]] || { cat "$TMPDIR/out"; fail "top self function is not spin"; }
expect_rc 0 "$LATSCOPE" analyze --format json --top 50 "$TMPDIR/hot.pt.trace.json.gz"
python3 - "$TMPDIR/out" <<'PY' || fail "JSON cpu object of a live trace"
import json, sys
c = json.load(open(sys.argv[1]))["ranks"][0]["cpu"]
assert c["samples"] >= 100, c["samples"]
tot = {f["function"]: f["total"] for f in c["top_functions_total"]}
assert tot.get("hot_a", 0) > tot.get("hot_b", 0) > tot.get("cold_c", 0) > 0, tot
assert tot["hot_a"] / c["samples"] > 0.4, tot
assert c["top_functions_self"][0]["function"] == "spin", c["top_functions_self"][0]
assert any(s["stack"].endswith(";main;hot_a;spin") for s in c["top_stacks"]), c["top_stacks"][:3]
assert c["threads"][0]["samples"] > 0
PY

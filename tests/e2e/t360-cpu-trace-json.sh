#!/usr/bin/env bash
# t360: `latscope trace --cpu` end to end: the Kineto-compatible trace holds one cpu_sample
# event per sample on the sampled thread (args.stack root-first, args.state on/off), on the
# trace's own time base (0 = launch, so every sample lies within the command's wall time),
# the thread names from the kernel, valid JSON; --flamegraph writes the SVG; --pid attaches.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
cpu_have_trace || skip "this build's 'latscope trace' has no --cpu/--folded"
need_cpu
build_prog "$TMPDIR/hot" hot.c -O1 -g -fno-omit-frame-pointer -pthread
"$LATSCOPE" -v trace --cpu --freq 499 -o "$TMPDIR/t.json" --flamegraph "$TMPDIR/t.svg" \
    -- "$TMPDIR/hot" 1 threads 2>"$TMPDIR/err" || { cat "$TMPDIR/err"; fail "trace failed"; }
cat "$TMPDIR/err"
"$LATSCOPE" selftest lint-json "$TMPDIR/t.json" >/dev/null || fail "trace is not valid JSON"
contains "$TMPDIR/t.svg" "<title>worker_one_loop ("
wall=$(grep -Eo 'command wall time [0-9.]+' "$TMPDIR/err" | awk '{ print $4 }')
python3 - "$TMPDIR/t.json" "$wall" <<'PY' || fail "trace content"
import json, sys
d = json.load(open(sys.argv[1]))
wall_us = float(sys.argv[2]) * 1e6
ev = [e for e in d["traceEvents"] if e.get("cat") == "cpu_sample"]
on = [e for e in ev if e["args"]["state"] == "on"]
assert len(on) >= 100, len(on)
for e in ev:
    assert e["ph"] in ("i", "X"), e
    assert e["args"]["state"] in ("on", "off"), e
    # ts 0 is the launch (before the fork); the wall time starts at the exec: allow slack.
    assert -1000 <= e["ts"] <= e["ts"] + e.get("dur", 0) <= wall_us * 1.05 + 50000, (e, wall_us)
    if e["ph"] == "X":
        assert e["args"]["state"] == "off" and e["dur"] >= 0, e
by_tid = {}
for e in on:
    leaf = e["args"]["stack"].split(";")
    by_tid.setdefault(e["tid"], []).append(leaf)
# Two worker threads, each with its own hot function as the leaf of most samples.
tops = {}
for tid, stacks in by_tid.items():
    for fn in ("worker_one_loop", "worker_two_loop"):
        n = sum(1 for s in stacks if fn in s)
        if n > 0.8 * len(stacks) and len(stacks) > 20:
            tops[fn] = tid
assert len(tops) == 2 and tops["worker_one_loop"] != tops["worker_two_loop"], tops
names = {e["tid"]: e["args"]["name"] for e in d["traceEvents"]
         if e.get("ph") == "M" and e.get("name") == "thread_name"}
assert names.get(tops["worker_one_loop"]) == "hot-one", names
print("samples", len(on), "threads", {k: names.get(v) for k, v in tops.items()})
PY
# Attach to a running process for a fixed duration.
"$TMPDIR/hot" 20 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 0.2
"$LATSCOPE" trace --cpu --pid "$pid" --duration 1 --folded "$TMPDIR/a.folded" -o "$TMPDIR/a.json" \
    2>"$TMPDIR/err2" || { cat "$TMPDIR/err2"; fail "attach failed"; }
grep -q ';main;hot_a' "$TMPDIR/a.folded" || fail "attached samples lack main;hot_a"

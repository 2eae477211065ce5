#!/usr/bin/env bash
# t193-analyze-cp-overlay: `analyze --critical-path --write-trace` adds HTA's critical-path
# overlay (overlay_critical_path_analysis) to the written trace: a "critical path" thread with
# one span per critical operator edge, and flows (cat critical_path) for the critical
# dependency, launch-delay and sync edges (HTA's default edge types). HTA's own test values on
# simple_add (analyses.md §18, test_critical_path_analysis at f4d0062c: annotation
# [param|pytorch.model.alex_net|0|0|0|measure|forward], instance 1,
# CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1): 159 critical events, 21 edges in the default
# overlay. Without --critical-path the trace gets no overlay; the [memory] series becomes the
# "Memory Allocated" counter track.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v jq >/dev/null || skip "jq not installed"
f=$(need_trace hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz)
ann='[param|pytorch.model.alex_net|0|0|0|measure|forward]'
CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1 expect_rc 0 "$LATSCOPE" -v analyze --hta-compat \
    --critical-path "$ann:1" --write-trace "$TMPDIR/o.json" "$f"
contains "$TMPDIR/err" "critical path of 1 window(s): 159 critical events"
contains "$TMPDIR/err" ", 21 flows"
o=$TMPDIR/o.json
expect_rc 0 "$LATSCOPE" selftest lint-json "$o"
[[ $(jq '[.traceEvents[] | select(.cat == "critical_path" and .ph == "s")] | length' "$o") == 21 ]] || fail "21 flow starts"
[[ $(jq '[.traceEvents[] | select(.cat == "critical_path" and .ph == "f" and .bp == "e")] | length' "$o") == 21 ]] || fail "21 flow ends"
# every flow start has its end (same id), none goes back in time
[[ $(jq '[.traceEvents[] | select(.cat == "critical_path" and (.ph == "s" or .ph == "f"))] | group_by(.id) | map(select(length != 2 or (.[0].ts > .[1].ts and .[0].ph == "s") or (.[1].ph == "s" and .[1].ts > .[0].ts))) | length' "$o") == 0 ]] || fail "unpaired or backward flows"
spans=$(jq '[.traceEvents[] | select(.cat == "critical_path" and .ph == "X")] | length' "$o")
[[ $spans -gt 0 ]] || fail "no critical-path spans"
[[ $(jq '[.traceEvents[] | select(.cat == "critical_path" and .ph == "X" and (.tid != "critical path" or .dur < 0))] | length' "$o") == 0 ]] || fail "span off its track or negative"
# the spans cover the path's operator time: their sum is at most the path length
len=$(CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1 "$LATSCOPE" analyze --hta-compat --critical-path "$ann:1" --format json "$f" | jq '.ranks[0].critical_path.windows[0].length_us')
sum=$(jq '[.traceEvents[] | select(.cat == "critical_path" and .ph == "X") | .args.weight_us] | add' "$o")
awk -v s="$sum" -v l="$len" 'BEGIN { exit !(s > 0 && s <= l + 0.001) }' || fail "span weights $sum vs path length $len"
# no --critical-path: no overlay
expect_rc 0 "$LATSCOPE" analyze --write-trace "$TMPDIR/p.json" "$f"
[[ $(jq '[.traceEvents[] | select(.cat == "critical_path")] | length' "$TMPDIR/p.json") == 0 ]] || fail "overlay without --critical-path"

# [memory] instants -> Memory Allocated counter track (CPU and CUDA:1 on df_index_resolver)
m=$(need_trace hta/tests/data/df_index_resolver/df_index_resolver.json.gz)
expect_rc 0 "$LATSCOPE" analyze --format json "$m"
cp "$TMPDIR/out" "$TMPDIR/m.json"
peak=$(jq '.ranks[0].memory_timeline.devices[] | select(.device == "CUDA") | .peak_allocated_bytes' "$TMPDIR/m.json")
[[ $peak -gt 0 ]] || fail "no CUDA peak"
expect_rc 0 "$LATSCOPE" analyze --write-trace "$TMPDIR/m-out.json" "$m"
cmax=$(jq '[.traceEvents[] | select(.ph == "C" and .name == "Memory Allocated") | .args["Memory Allocated"]] | max' "$TMPDIR/m-out.json")
[[ $cmax == "$peak" ]] || fail "counter track max $cmax != peak $peak"
exit 0

#!/usr/bin/env bash
# t180-analyze-critical-path: `analyze --critical-path` (HTA's critical_path_analysis, §11):
# the windows it picks, the JSON and text it writes, and its errors.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
tr=$LATSCOPE_SRCDIR/tests/data/handmade-critpath-launch.json
cp1() { jq -r ".ranks[0].critical_path.windows[$1] | $2" "$TMPDIR/out"; }

# off unless asked: no critical_path key
expect_rc 0 "$LATSCOPE" analyze --format json "$tr"
[[ $(jq '.ranks[0] | has("critical_path")' "$TMPDIR/out") == false ]] || fail "critical_path without --critical-path"

# alone (the next argument is the trace): one window per ProfilerStep, the hand-worked path
expect_rc 0 "$LATSCOPE" analyze --format json --critical-path "$tr"
[[ $(jq '.ranks[0].critical_path.windows | length' "$TMPDIR/out") == 1 ]] || fail "not one window"
[[ $(cp1 0 '.annotation') == ProfilerStep#1 && $(cp1 0 '.step') == 1 ]] || fail "window: $(cp1 0 .)"
[[ $(cp1 0 '"\(.nodes) \(.edges) \(.path_nodes) \(.length_us)"') == "8 8 4 70" ]] || fail "graph: $(cp1 0 .)"
[[ $(cp1 0 '.bound_us | "\(.cpu_bound) \(.gpu_compute_bound) \(.gpu_kernel_launch_overhead)"') == "5 50 15" ]] || fail "bounds: $(cp1 0 .bound_us)"
[[ $(cp1 0 '[.bound_pct[] | select(. != null)] | add | round') == 100 ]] || fail "bound_pct does not add up to 100"
[[ $(cp1 0 '.ops[0] | "\(.name) \(.time_us) \(.gpu)"') == "k1 50 true" ]] || fail "ops: $(cp1 0 .ops)"

# NAME[:INSTANCE], as the next argument or with =; '' is the whole trace
for spec in "ProfilerStep" "ProfilerStep:0" "aten::op:0"; do
    expect_rc 0 "$LATSCOPE" analyze --format json --critical-path "$spec" "$tr"
    [[ $(cp1 0 '.instance') == 0 ]] || fail "$spec: instance $(cp1 0 .instance)"
done
[[ $(cp1 0 '"\(.annotation) \(.nodes) \(.edges) \(.length_us)"') == "aten::op 6 5 70" ]] || fail "aten::op window: $(cp1 0 .)"
expect_rc 0 "$LATSCOPE" analyze --format json --critical-path= "$tr"
[[ $(cp1 0 '"\(.annotation)|\(.nodes)"') == "|8" ]] || fail "whole trace: $(cp1 0 .)"
expect_rc 0 "$LATSCOPE" analyze --format json --critical-path '' "$tr"
[[ $(cp1 0 '.length_us') == 70 ]] || fail "'' window: $(cp1 0 .)"

# "-" (stdin) after it is the input, not a NAME
expect_rc 0 "$LATSCOPE" analyze --format json --critical-path - < "$tr"
[[ $(cp1 0 '.annotation') == ProfilerStep#1 ]] || fail "stdin: $(cp1 0 .)"
expect_rc 0 "$LATSCOPE" analyze --help
contains "$TMPDIR/out" "--critical-path [NAME[:INSTANCE]]"

# text: a short section
expect_rc 0 "$LATSCOPE" analyze --critical-path "$tr"
contains "$TMPDIR/out" "critical path (HTA)"
contains "$TMPDIR/out" "ProfilerStep#1"
contains "$TMPDIR/out" "on the longest path"
expect_rc 0 "$LATSCOPE" analyze "$tr"
! grep -q "critical path" "$TMPDIR/out" || fail "text critical path section without the option"

# errors: exit 2 with a clear message, nothing on stdout
expect_rc 2 "$LATSCOPE" analyze --critical-path "no such annotation" "$tr"
contains "$TMPDIR/err" "no event name contains 'no such annotation'"
[[ ! -s $TMPDIR/out ]] || fail "stdout not empty on error"
expect_rc 2 "$LATSCOPE" analyze --format json --critical-path ProfilerStep:3 "$tr"
contains "$TMPDIR/err" "'ProfilerStep' has 1 instance(s) (0..0), not 3"
[[ ! -s $TMPDIR/out ]] || fail "stdout not empty on error"
expect_rc 2 "$LATSCOPE" analyze --critical-path ProfilerStep:99999999999 "$tr"
contains "$TMPDIR/err" "INSTANCE must be a number"
expect_rc 2 "$LATSCOPE" analyze --critical-path
contains "$TMPDIR/err" "no trace given"

# a corpus trace: HTA's own numbers for the cuda_event_sync test trace (docs/critical-path.md)
es=${LATSCOPE_TRACES:-/nonexistent}/hta/tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz
if [[ -e $es ]]; then
    expect_rc 0 "$LATSCOPE" analyze --format json --hta-compat --critical-path ProfilerStep:0 "$es"
    [[ $(cp1 0 '"\(.nodes) \(.edges) \(.path_nodes) \(.length_us)"') == "54 57 40 2411" ]] || fail "event_sync: $(cp1 0 .)"
fi
echo ok

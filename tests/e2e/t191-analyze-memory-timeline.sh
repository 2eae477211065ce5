#!/usr/bin/env bash
# t191-analyze-memory-timeline: `analyze --memory-timeline RAW` folds torch's
# export_memory_timeline raw file as HTA's MemoryAnalysis (hta/memory_analysis.py at
# f4d0062c): HTA gives 7721 points for the §18 file, its peak at point 762 (3082832104 B,
# 98.424 ms after the start), sizes[744] = [102440608, 102228128, 19395584, 0, 2618160128,
# 58417152, 41811968, 25494440]; errors name the file and what to give.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v jq >/dev/null || skip "jq not installed"
f=$(need_trace hta/tests/data/memory_analysis/memory_timeline.raw.gz)
expect_rc 0 "$LATSCOPE" analyze --memory-timeline "$f" --format json
m='.memory_timeline_raw'
[[ $(jq -r "$m | \"\(.rows) \(.points) \(.peak_index) \(.peak_total_bytes) \(.peak_after_start)\"" "$TMPDIR/out") == "16845 7721 762 3082832104 98424324" ]] || fail "summary"
[[ $(jq -r "[$m.categories[].name] | join(\",\")" "$TMPDIR/out") == "Parameter,Optimizer state,Input,Temporary,Activation,Gradient,Autograd,Unknown" ]] || fail "categories"
[[ $(jq -r "[$m.categories[].at_peak_bytes] | add" "$TMPDIR/out") == 3082832104 ]] || fail "at-peak sum"
expect_rc 0 "$LATSCOPE" analyze --memory-timeline "$f"
contains "$TMPDIR/out" "16845 rows, 7721 points"
contains "$TMPDIR/out" "peak 3.08 GB at 98.424 ms (point 762)"
# not a raw timeline: a clear error, exit 1
printf '{"traceEvents": []}' >"$TMPDIR/k.json"
expect_rc 1 "$LATSCOPE" analyze --memory-timeline "$TMPDIR/k.json"
contains "$TMPDIR/err" "not an export_memory_timeline raw file"
expect_rc 1 "$LATSCOPE" analyze --memory-timeline "$TMPDIR/missing.raw.gz"
contains "$TMPDIR/err" "missing.raw.gz"
printf '[[1, 1, 5, 2], [2, 1' | gzip >"$TMPDIR/cut.raw.gz"
expect_rc 1 "$LATSCOPE" analyze --memory-timeline "$TMPDIR/cut.raw.gz"
contains "$TMPDIR/err" "the list does not end"
expect_rc 2 "$LATSCOPE" analyze --memory-timeline "$f" "$TMPDIR/k.json"
exit 0

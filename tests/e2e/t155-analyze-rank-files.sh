#!/usr/bin/env bash
# t155-analyze-rank-files: HTA's trace-file rules (analyses.md §18, test_trace_file) through
# `latscope analyze DIR`: no distributedInfo or no rank -> rank 0 with a warning; two files
# with the same rank -> one kept, a warning; a lone file keeps its rank. Also HTA's
# mtia_inference case: no ProfilerStep, nothing dropped by the preprocessing.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
d=$(need_trace hta/tests/data)

for sub in distributed_info_unavailable rank_unavailable; do
    expect_rc 0 "$LATSCOPE" analyze --format json "$d/$sub"
    [[ $(jq -c '[.ranks[].rank]' "$TMPDIR/out") == "[0]" ]] || fail "$sub: ranks"
    contains "$TMPDIR/err" "has no distributedInfo.rank; using rank 0"
done

mkdir "$TMPDIR/mixed"
cp "$d/mixed_files/rank_non_gpu.json.gz" "$TMPDIR/mixed/a.json.gz"
cp "$d/rank_non_gpu/rank_non_gpu.json.gz" "$TMPDIR/mixed/b.json.gz"
expect_rc 0 "$LATSCOPE" analyze --format json "$TMPDIR/mixed"
[[ $(jq -c '[.ranks[].rank]' "$TMPDIR/out") == "[0]" ]] || fail "mixed: ranks"
[[ $(jq -r '.ranks[0].path' "$TMPDIR/out") == */a.json.gz ]] || fail "mixed: first file kept"
contains "$TMPDIR/err" "has the same rank"

expect_rc 0 "$LATSCOPE" analyze --format json "$d/trace_file_list/inference_rank_1.json.gz"
[[ $(jq -c '[.ranks[].rank]' "$TMPDIR/out") == "[1]" ]] || fail "inference_rank_1"

expect_rc 0 "$LATSCOPE" analyze --format json --hta-compat "$d/mtia_inference_trace/mtia_inference_rank_0.json.gz"
jq -e '.preprocessing.steps_distinct == 0 and .preprocessing.last_step_dropped == false and .ranks[0].dropped_last_step == 0' "$TMPDIR/out" >/dev/null || fail "mtia inference preprocessing"
contains "$TMPDIR/out" "ProfilerStep not found"
exit 0

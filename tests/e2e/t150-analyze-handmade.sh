#!/usr/bin/env bash
# t150-analyze-handmade: `latscope analyze` on a hand-made Kineto trace whose answers are worked
# out by hand (the same trace as tests/unit/test-analyze.c): text and JSON.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
tr=$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json

expect_rc 0 "$LATSCOPE" analyze "$tr"
contains "$TMPDIR/out" "kernel time 90.0 us: compute 50.0 us (55.56%), non-compute 32.0 us (35.56%), idle 8.00 us (8.89%)"
contains "$TMPDIR/out" "COMPUTATION overlapping COMMUNICATION"
contains "$TMPDIR/out" "comm/compute overlap  13.51%"
contains "$TMPDIR/out" "the last ProfilerStep was dropped as incomplete: ProfilerStep#2 holds 1 GPU launches, under 80% of the 5 of #1"
[[ ! -s $TMPDIR/err ]] || fail "stderr not empty: $(cat "$TMPDIR/err")"

expect_rc 0 "$LATSCOPE" analyze --format json "$tr"
cp "$TMPDIR/out" "$TMPDIR/a.json"
expect_rc 0 "$LATSCOPE" selftest lint-json "$TMPDIR/a.json"
q() { jq -r "$1" "$TMPDIR/a.json"; }
[[ $(q '.ranks[0].rank') == 0 ]] || fail "rank"
[[ $(q '.ranks[0].temporal.kernel_time_us') == 90 ]] || fail "kernel_time_us $(q '.ranks[0].temporal.kernel_time_us')"
[[ $(q '.ranks[0].temporal.idle_us') == 8 ]] || fail "idle_us"
[[ $(q '.ranks[0].temporal.compute_us') == 50 ]] || fail "compute_us"
[[ $(q '.ranks[0].temporal.non_compute_us') == 32 ]] || fail "non_compute_us"
[[ $(q '.ranks[0].idle[0] | "\(.stream) \(.host_wait_us) \(.kernel_wait_us) \(.other_us)"') == "7 40 0 0" ]] || fail "idle s7"
[[ $(q '.ranks[0].idle[1] | "\(.stream) \(.kernel_wait_us)"') == "8 1" ]] || fail "idle s8"
[[ $(q '[.ranks[0].kernel_types[] | "\(.type)=\(.sum_us)"] | join(",")') == \
   "COMPUTATION=44,COMMUNICATION=32,COMPUTATION overlapping COMMUNICATION=5,COMPUTATION overlapping MEMORY=1" ]] || fail "kernel_types $(q '.ranks[0].kernel_types')"
[[ $(q '.ranks[0].comm_comp_overlap_pct') == 13.5135 ]] || fail "overlap"
[[ $(q '.ranks[0].launch | "\(.count) \(.short_kernels) \(.runtime_outliers) \(.launch_delay_outliers) \(.median_launch_delay_us)"') == "5 1 0 0 26" ]] || fail "launch $(q '.ranks[0].launch')"
[[ $(q '[.ranks[0].queue[] | "\(.stream):\(.max_length)"] | join(",")') == "7:2,8:1" ]] || fail "queue"
[[ $(q '.ranks[0].steps[0] | "\(.step) \(.dur_us) \(.gpu_compute_us) \(.comm_us) \(.cpu_only_us) \(.idle_us)"') == "1 100 40 32 23 5" ]] || fail "steps"
# key_averages() semantics: ProfilerStep* and the runtime calls are rows (and children)
[[ $(q '.ranks[0].top_ops[0] | "\(.name) \(.total_us) \(.self_us)"') == "ProfilerStep* 100 33" ]] || fail "top_ops step"
[[ $(q '.ranks[0].top_ops[1] | "\(.name) \(.total_us) \(.self_us)"') == "aten::linear 40 10" ]] || fail "top_ops"
[[ $(q '.ranks[0].top_ops[1].input_dims') == "[[8,16],[32,16]]" ]] || fail "input_dims $(q '.ranks[0].top_ops[1].input_dims')"
[[ $(q '.ranks[0].top_kernels[0] | "\(.name) \(.sum_us)"') == "gemm_kernel 40" ]] || fail "top_kernels"
[[ $(q '.ranks[0].memcpy[0] | "\(.kind) \(.memory) \(.bytes) \(.gb_per_s)"') == "HtoD Pageable 2000 2" ]] || fail "memcpy"
[[ $(q '.ranks[0].syncs.blocking_us') == 10 ]] || fail "syncs"
[[ $(q '.ranks[0].op_kernels[0] | "\(.op) \(.kernel) \(.count)"') == "aten::mm gemm_kernel 2" ]] || fail "op_kernels"

# --include-last-step keeps step 2 and its kernel; --top limits the tables
expect_rc 0 "$LATSCOPE" analyze --format json --include-last-step --top 1 "$tr"
[[ $(jq '.ranks[0].dropped_last_step' "$TMPDIR/out") == 0 ]] || fail "include-last-step"
[[ $(jq '.ranks[0].launch.count' "$TMPDIR/out") == 6 ]] || fail "launch count with last step"
[[ $(jq '.ranks[0].top_ops | length' "$TMPDIR/out") == 1 ]] || fail "--top 1"
exit 0

#!/usr/bin/env bash
# t154-analyze-ranks: a directory of per-rank traces is analysed per rank and as a whole;
# --rank picks one; several files on the command line are one job.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
dir=$(need_trace param/example_input_files/chakra_traces/dlrm_kineto)
expect_rc 0 "$LATSCOPE" analyze --format json "$dir"
cp "$TMPDIR/out" "$TMPDIR/all.json"
expect_rc 0 "$LATSCOPE" selftest lint-json "$TMPDIR/all.json"
[[ $(jq -c '[.ranks[].rank]' "$TMPDIR/all.json") == "[0,1,2,3,4,5,6,7]" ]] || fail "ranks $(jq -c '[.ranks[].rank]' "$TMPDIR/all.json")"
# whole = the sum over ranks
[[ $(jq '[.ranks[].launch.count] | add' "$TMPDIR/all.json") == $(jq '.whole.launch.count' "$TMPDIR/all.json") ]] || fail "whole launch count"
[[ $(jq '[.ranks[].temporal.kernel_time_us] | add' "$TMPDIR/all.json") == $(jq '.whole.temporal.kernel_time_us' "$TMPDIR/all.json") ]] || fail "whole kernel time"
# every rank's temporal parts add up
jq -e '[.ranks[].temporal | (.compute_us + .idle_us + .non_compute_us - .kernel_time_us) | fabs < 0.0005] | all' "$TMPDIR/all.json" >/dev/null || fail "temporal invariant"
expect_rc 0 "$LATSCOPE" analyze --format json --rank 3 "$dir"
[[ $(jq -c '[.ranks[].rank]' "$TMPDIR/out") == "[3]" ]] || fail "--rank 3"
# files given one by one are the same job
expect_rc 0 "$LATSCOPE" analyze --format json "$dir"/worker0_*.json.gz "$dir"/worker1_*.json.gz
[[ $(jq -c '[.ranks[].rank]' "$TMPDIR/out") == "[0,1]" ]] || fail "two files"
expect_rc 0 "$LATSCOPE" analyze "$dir"
contains "$TMPDIR/out" "== all 8 ranks"
exit 0

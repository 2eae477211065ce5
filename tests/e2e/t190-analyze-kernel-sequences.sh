#!/usr/bin/env bash
# t190-analyze-kernel-sequences: frequent kernel sequences (analyses.md §10) through the CLI.
# --kernel-sequences OP is HTA's get_frequent_cuda_kernel_sequences(operator_name=OP); the
# numbers are HTA f4d0062c's on the same file (tests/tools/hta-kseq.py; rank 0,
# min_pattern_len 3): 1 pattern, count 32, GPU 1695 us, CPU 6423 us. The default (outermost
# aten:: ops) finds fusion candidates without an operator name.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v jq >/dev/null || skip "jq not installed"
f=$(need_trace hta/tests/data/negative_queue_length_values_check/rank0.json.gz)
expect_rc 0 "$LATSCOPE" analyze --hta-compat --kernel-sequences aten::binary_cross --format json "$f"
k='.ranks[0].kernel_sequences'
[[ $(jq -r "$k | \"\(.operator) \(.min_pattern_len) \(.patterns)\"" "$TMPDIR/out") == "aten::binary_cross 3 1" ]] || fail "header"
[[ $(jq -r "$k.rows[0] | \"\(.op) \(.count) \(.num_kernels) \(.gpu_us) \(.cpu_us)\"" "$TMPDIR/out") == "aten::binary_cross_entropy_with_logits 32 15 1695 6423" ]] || fail "row 0"
[[ $(jq -r "$k.rows[0].pattern | startswith(\"aten::binary_cross_entropy_with_logits|void at::native::\")" "$TMPDIR/out") == true ]] || fail "pattern text"
# HTA's rule: an operator that only matches ops launching < min_pattern_len kernels: none
expect_rc 0 "$LATSCOPE" analyze --hta-compat --kernel-sequences aten:: --format json "$f"
[[ $(jq -r "$k | \"\(.roots) \(.patterns) \(.rows | length)\"" "$TMPDIR/out") == "0 0 0" ]] || fail "aten:: (HTA: empty)"
expect_rc 0 "$LATSCOPE" analyze --kernel-sequences no-such-op "$f"
contains "$TMPDIR/out" "frequent kernel sequences (no-such-op, >= 3 kernels): none"
# default: outermost aten:: ops; the text shows the table
expect_rc 0 "$LATSCOPE" analyze "$f"
contains "$TMPDIR/out" "frequent kernel sequences (outermost aten:: ops, >= 3 kernels; 45 instances, 5 patterns)"
expect_rc 0 "$LATSCOPE" analyze --min-pattern-len 1000 --format json "$f"
[[ $(jq -r "$k // \"absent\"" "$TMPDIR/out") == absent ]] || fail "no op launches 1000: no key"
# bad arguments
expect_rc 2 "$LATSCOPE" analyze --kernel-sequences '' "$f"
contains "$TMPDIR/err" "--kernel-sequences needs an operator name"
expect_rc 2 "$LATSCOPE" analyze --min-pattern-len 0 "$f"
exit 0

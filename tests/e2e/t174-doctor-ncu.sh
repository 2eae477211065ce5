#!/usr/bin/env bash
# t174-doctor-ncu: doctor with an Nsight Compute report. Alone, the shared B200 `ncu --csv`
# report gets its own findings (ncu-kernel-speedup from ncu's largest Estimated Speedup, fires
# at the default threshold and not above it; ncu-low-occupancy). Given with a Kineto trace of
# the same kernel (written here: its demangled name with an argument list, as Kineto names
# kernels), the dominant-kernels finding carries ncu's numbers (bound, occupancy, limiter, top
# rule and its speedup, the same values as the report) and its saving is ncu's estimate; with a
# trace whose dominant kernel ncu did not profile, no ncu evidence. The report is no rank:
# analyze numbers the trace rank 0 and leaves the report out of the sums over ranks.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
ncu=$(need_trace ncu/cublaslt_ncu.log)
command -v jq >/dev/null || skip "jq not installed"
K=cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256x128_1x1x1_0_tnn_align4_1sm_bias_f16_relu_aux_scalemax

# a Kineto trace: two steps, each one launch of the kernel (400 us) and a small copy kernel
mk() { # NAME-OF-DOMINANT-KERNEL FILE
    local ev="" s ts
    for s in 1 2; do
        ts=$((s * 1000))
        ev+="{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#$s\",\"pid\":1,\"tid\":1,\"ts\":$ts,\"dur\":1000,\"args\":{}},"
        ev+="{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":$((ts + 10)),\"dur\":5,\"args\":{\"correlation\":$((s * 10))}},"
        ev+="{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"$1\",\"pid\":0,\"tid\":7,\"ts\":$((ts + 20)),\"dur\":400,\"args\":{\"correlation\":$((s * 10)),\"stream\":7,\"device\":0,\"grid\":[9,32,1],\"block\":[384,1,1]}},"
        ev+="{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":$((ts + 30)),\"dur\":5,\"args\":{\"correlation\":$((s * 10 + 1))}},"
        ev+="{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void copy_kernel<float>(float*)\",\"pid\":0,\"tid\":7,\"ts\":$((ts + 430)),\"dur\":20,\"args\":{\"correlation\":$((s * 10 + 1)),\"stream\":7,\"device\":0}},"
    done
    printf '{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"B200","computeMajor":10,"computeMinor":0,"numSms":148}],"traceEvents":[%s]}\n' "${ev%,}" >"$2"
}
mk "void $K(cutlass::Params)" "$TMPDIR/t.json"
mk "void other_gemm_kernel<float>(float*)" "$TMPDIR/other.json"

# ncu alone: its own findings
expect_rc 1 "$LATSCOPE" doctor --format json "$ncu"
jq -e '[.findings[] | select(.id == "ncu-kernel-speedup")] | length == 1' "$TMPDIR/out" >/dev/null ||
    fail "ncu alone: no ncu-kernel-speedup finding"
jq -e '.findings[] | select(.id == "ncu-kernel-speedup") | .evidence.top_rule == "TheoreticalOccupancy"
       and .evidence.top_rule_speedup_pct == 81.25 and .saving_pct == 81.25' "$TMPDIR/out" >/dev/null ||
    fail "ncu alone: speedup finding has the wrong rule or saving"
jq -e '[.findings[] | select(.id == "ncu-low-occupancy")] | length == 1' "$TMPDIR/out" >/dev/null ||
    fail "ncu alone: 15.5 % achieved occupancy not reported"
# above ncu's largest speedup and below its occupancy: neither fires
set +e
"$LATSCOPE" doctor --format json --threshold ncu_speedup_pct=90 --threshold ncu_occupancy_pct=10 \
    "$ncu" >"$TMPDIR/hi.json" 2>"$TMPDIR/hi.err"
set -e
jq -e '[.findings[] | select(.id | startswith("ncu-"))] | length == 0' "$TMPDIR/hi.json" >/dev/null ||
    fail "ncu findings fire above their thresholds"
jq -e '.traces[0].judged == true' "$TMPDIR/hi.json" >/dev/null || fail "ncu report not judged"

# the trace alone: dominant-kernels without ncu evidence
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/t.json"
jq -e '.findings[] | select(.id == "dominant-kernels") | .evidence.kernels[0] | has("ncu_bound") | not' \
    "$TMPDIR/out" >/dev/null || fail "ncu evidence without an ncu report"

# trace + report: the ncu numbers in the dominant-kernels finding
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/t.json" "$ncu"
cp "$TMPDIR/out" "$TMPDIR/pair.json"
jq -e --arg k "$K" '.findings[] | select(.id == "dominant-kernels") | .evidence.kernels[0] |
       .ncu_kernel == $k and .ncu_bound == "latency" and .ncu_achieved_occupancy_pct == 15.53
       and .ncu_theoretical_occupancy_pct == 18.75 and .ncu_occupancy_limiter == "registers+shared memory"
       and .ncu_top_rule == "TheoreticalOccupancy" and .ncu_top_rule_speedup_pct == 81.25
       and .ncu_sm_throughput_pct == 23.59 and .ncu_memory_throughput_pct == 21.68' \
    "$TMPDIR/pair.json" >/dev/null || { jq '.findings[] | select(.id == "dominant-kernels")' "$TMPDIR/pair.json" >&2; fail "dominant kernel lacks the ncu evidence"; }
jq -e '.findings[] | select(.id == "dominant-kernels") | (.recommendation | contains("Nsight Compute measured"))
       and (.next_step | startswith("ncu --set full --section Occupancy"))' "$TMPDIR/pair.json" >/dev/null ||
    fail "dominant kernel recommendation is not ncu's"
# saving: 81.25 % of the kernel's 400 us per step = 325 us
jq -e '.findings[] | select(.id == "dominant-kernels") | .saving_us_per_step == 325' "$TMPDIR/pair.json" >/dev/null ||
    fail "saving is not ncu's estimate of the kernel's time"
jq -e '(.traces | length) == 2 and .traces[1].format == "ncu"' "$TMPDIR/pair.json" >/dev/null ||
    fail "the report is not listed as its own input"

# a dominant kernel ncu did not profile: no ncu evidence
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/other.json" "$ncu"
jq -e '.findings[] | select(.id == "dominant-kernels") | .evidence.kernels[0] | has("ncu_bound") | not' \
    "$TMPDIR/out" >/dev/null || fail "ncu evidence matched to another kernel"

# analyze: the trace is rank 0, the report a profile after it, not in the sums
"$LATSCOPE" analyze --format json "$TMPDIR/t.json" "$ncu" >"$TMPDIR/an.json" 2>/dev/null || fail "analyze pair"
jq -e '.ranks[0].rank == 0 and .ranks[0].format == "kineto" and .ranks[1].format == "ncu"' "$TMPDIR/an.json" >/dev/null ||
    fail "ranks: $(jq -c '[.ranks[] | [.rank, .format]]' "$TMPDIR/an.json")"
"$LATSCOPE" analyze --format json "$TMPDIR/t.json" >"$TMPDIR/an1.json" 2>/dev/null
[[ $(jq -c '.whole.temporal' "$TMPDIR/an.json") == $(jq -c '.whole.temporal' "$TMPDIR/an1.json") ]] ||
    fail "the ncu report changed the sums over ranks"
exit 0

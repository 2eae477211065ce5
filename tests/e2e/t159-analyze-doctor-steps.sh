#!/usr/bin/env bash
# t159-analyze-doctor-steps: analyze and doctor count the same steps on CPU-only traces: a
# complete last ProfilerStep (torch.profiler's schedule ends each one in prof.step()) is kept by
# both; a last step cut short (1 op where the others have 4) is dropped by both, and analyze
# says why. --hta-compat applies HTA's rule (always drop the last step).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
mk() { # mk FILE OPS_IN_LAST_STEP
    local ev=() s k ts
    for s in 0 1 2; do
        ev+=("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#$((s + 1))\",\"pid\":1,\"tid\":1,\"ts\":$((s * 1000)),\"dur\":1000}")
        for k in 0 1 2 3; do
            [[ $s -eq 2 && $k -ge $2 ]] && continue
            ts=$((s * 1000 + k * 200 + 10))
            ev+=("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":$ts,\"dur\":150}")
        done
    done
    local IFS=,
    echo "{\"schemaVersion\":1,\"traceEvents\":[${ev[*]}]}" >"$1"
}
mk "$TMPDIR/full.json" 4
mk "$TMPDIR/cut.json" 1
for c in full:3:false cut:2:true; do
    IFS=: read -r name want dropped <<<"$c"
    expect_rc 0 "$LATSCOPE" analyze --format json "$TMPDIR/$name.json"
    [[ $(jq '.ranks[0].steps | length' "$TMPDIR/out") == "$want" ]] || fail "$name: analyze steps $(jq '.ranks[0].steps | length' "$TMPDIR/out")"
    [[ $(jq '.preprocessing.last_step_dropped' "$TMPDIR/out") == "$dropped" ]] || fail "$name: last_step_dropped"
    expect_rc 0 "$LATSCOPE" doctor --fail-on never --format json "$TMPDIR/$name.json"
    [[ $(jq '.traces[0].steps' "$TMPDIR/out") == "$want" ]] || fail "$name: doctor steps $(jq '.traces[0].steps' "$TMPDIR/out"), analyze $want"
done
expect_rc 0 "$LATSCOPE" analyze "$TMPDIR/cut.json"
contains "$TMPDIR/out" "the last ProfilerStep was dropped as incomplete: ProfilerStep#3 holds 1 cpu_ops, under 80% of the 4 of #2"
expect_rc 0 "$LATSCOPE" analyze --format json --hta-compat "$TMPDIR/full.json"
[[ $(jq '.ranks[0].steps | length' "$TMPDIR/out") == 2 ]] || fail "--hta-compat keeps the last step"
exit 0

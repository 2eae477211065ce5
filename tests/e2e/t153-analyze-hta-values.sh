#!/usr/bin/env bash
# t153-analyze-hta-values: the values HTA's test suite asserts on the MTIA trace (analyses.md
# §18), through the CLI and its JSON, plus HTA 0.5.0's numbers on df_index_resolver (both
# under --hta-compat: HTA's ns rounding and last-step rule apply only there).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
m=$(need_trace hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz)
expect_rc 0 "$LATSCOPE" analyze --hta-compat --format json "$m"
cp "$TMPDIR/out" "$TMPDIR/m.json"
expect_rc 0 "$LATSCOPE" selftest lint-json "$TMPDIR/m.json"
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
r='.ranks[0]'
near "$(jq "$r.temporal.idle_pct" "$TMPDIR/m.json")" 42.382 0.01 || fail "idle pct"
near "$(jq "$r.temporal.compute_pct" "$TMPDIR/m.json")" 54.812 0.01 || fail "compute pct"
near "$(jq "$r.temporal.non_compute_pct" "$TMPDIR/m.json")" 2.805 0.01 || fail "non-compute pct"
[[ $(jq -r "$r.kernel_types[0] | \"\(.type) \(.sum_us)\"" "$TMPDIR/m.json") == "COMPUTATION 7305597" ]] || fail "type row0"
[[ $(jq "$r.kernels_by_type[0].sum_us" "$TMPDIR/m.json") == 77283 ]] || fail "kernel row0"
[[ $(jq -r "$r.kernels_by_type[11] | \"\(.type) \(.sum_us)\"" "$TMPDIR/m.json") == "MEMORY 400892" ]] || fail "kernel row11"
[[ $(jq -c "[$r.idle[].stream]" "$TMPDIR/m.json") == "[1,102]" ]] || fail "idle streams"
[[ $(jq "$r.idle[0].host_wait_us" "$TMPDIR/m.json") == 417937 ]] || fail "host_wait"
[[ $(jq -r "$r.queue[1] | \"\(.stream) \(.samples) \(.mean) \(.std) \(.p50)\"" "$TMPDIR/m.json") == "102 6 0.5 0.547723 0.5" ]] || fail "queue 102"
[[ $(jq -r "$r.aten_op_kernels[0] | \"\(.op) \(.kernels) \(.count)\"" "$TMPDIR/m.json") == "aten::mul customized_fba_mul_const-dtype_Float 822" ]] || fail "aten op row0"
near "$(jq "$r.aten_op_kernels[0].avg_aten_op_launch_delay_us" "$TMPDIR/m.json")" 1092.545 2 || fail "aten op delay"
near "$(jq "$r.aten_op_kernels[0].avg_runtime_delay_us" "$TMPDIR/m.json")" 293.113 2 || fail "runtime delay"

d=$(need_trace hta/tests/data/df_index_resolver/df_index_resolver.json.gz)
expect_rc 0 "$LATSCOPE" analyze --hta-compat --format json "$d"
cp "$TMPDIR/out" "$TMPDIR/d.json"
[[ $(jq -r "$r.temporal | \"\(.idle_us) \(.compute_us) \(.non_compute_us) \(.kernel_time_us)\"" "$TMPDIR/d.json") == "643612 496485 256572 1396669" ]] || fail "df temporal"
[[ $(jq -r "$r.launch | \"\(.count) \(.short_kernels) \(.runtime_outliers) \(.launch_delay_outliers) \(.median_launch_delay_us)\"" "$TMPDIR/d.json") == "17832 9686 2 6605 2" ]] || fail "df launch"
[[ $(jq -r "[$r.idle[] | \"\(.host_wait_us)/\(.kernel_wait_us)/\(.other_us)\"] | join(\" \")" "$TMPDIR/d.json") == "791330/16727/73829 933139/5568/4444" ]] || fail "df idle"
exit 0

#!/usr/bin/env bash
# t258-doctor-straggler: the cross-rank doctor rule (src/doctor/rule-straggler.c) on the
# hand-made 4-rank job of tests/data/gen-handmade-ranks.sh: rank 2 works 2 ms longer per step
# (3 ms in step #3) and the other ranks wait for it in the all-reduce, so every rank's step time
# is the same 9.9 ms and only the work/communication split shows the straggler. The even job
# (every rank within 0.1 ms) gets no cross-rank finding; with 2 ranks (real HTA traces) the
# rule does not apply; a real 3-rank mix agrees with analyze's cross-rank table.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data
# doc OUT ARGS...: doctor's JSON into OUT (exit 0 or 1: findings or none; anything else fails)
doc() {
    local out=$1
    shift
    set +e
    "$LATSCOPE" doctor --format json "$@" >"$out" 2>"$TMPDIR/doc-err"
    local rc=$?
    set -e
    [[ $rc -le 1 ]] || { cat "$TMPDIR/doc-err" >&2; fail "doctor $* exited $rc"; }
}
expect_rc 1 "$LATSCOPE" doctor --format json "$data/handmade-ranks-straggler"
j=$TMPDIR/out
[[ $(jq '[.findings[] | select(.id == "straggler-rank")] | length' "$j") == 1 ]] || fail "one straggler finding"
[[ $(jq '[.findings[] | select(.id == "comm-wait-rank")] | length' "$j") == 0 ]] || fail "no comm-wait finding"
f='.findings[] | select(.id == "straggler-rank")'
# hand-worked numbers: work = 9.9 ms step - all-reduce time; rank 2: 9.6 ms every step; ranks
# 0/1/3 (means 7.40, 7.44, 7.40 ms): median 7.42 ms; excess 2.18 ms = 22.0 % of its 9.9 ms step
jq -e "$f | .evidence.rank == 2 and .evidence.step == 3 and .evidence.rank_mean_us == 9600 and .evidence.median_rank_us == 7420 and .evidence.worst_step_us == 9600 and .evidence.median_at_worst_step_us == 6650 and .evidence.ranks_judged == 4" "$j" >/dev/null || { jq "$f" "$j" >&2; fail "straggler evidence"; }
jq -e "$f | .saving_us_per_step == 2180 and .severity == \"high\" and (.evidence.trace | endswith(\"rank-2.json\"))" "$j" >/dev/null || { jq "$f" "$j" >&2; fail "straggler saving"; }
jq -e "$f | (.title | contains(\"Rank 2 is a straggler\")) and (.next_step | contains(\"rank-2.json\"))" "$j" >/dev/null || fail "straggler text"
# text and markdown say it too
expect_rc 1 "$LATSCOPE" doctor "$data/handmade-ranks-straggler"
contains "$TMPDIR/out" "straggler-rank"
contains "$TMPDIR/out" "Rank 2 is a straggler"
# the same files named one by one (not streamed) give the same report
doc "$TMPDIR/named.json" "$data/handmade-ranks-straggler/"rank-*.json
doc "$TMPDIR/dir.json" "$data/handmade-ranks-straggler"
cmp -s "$TMPDIR/dir.json" "$TMPDIR/named.json" || fail "directory (streamed) and named files differ"

# the even job: no cross-rank finding
doc "$TMPDIR/even.json" "$data/handmade-ranks-even"
[[ $(jq '[.findings[] | select(.id == "straggler-rank" or .id == "comm-wait-rank")] | length' "$TMPDIR/even.json") == 0 ]] || fail "even job: a cross-rank finding"
# the test's two thresholds are --threshold keys (and in the JSON's thresholds)
doc "$TMPDIR/th.json" --threshold straggler_pct=1000 "$data/handmade-ranks-straggler"
[[ $(jq '[.findings[] | select(.id == "straggler-rank")] | length' "$TMPDIR/th.json") == 0 ]] || fail "straggler_pct=1000: still a straggler"
[[ $(jq '.thresholds.straggler_pct' "$TMPDIR/th.json") == 1000 ]] || fail "straggler_pct not in the JSON thresholds"
doc "$TMPDIR/th0.json" --threshold straggler_sigmas=0 "$data/handmade-ranks-straggler"
[[ $(jq '[.findings[] | select(.id == "straggler-rank")] | length' "$TMPDIR/th0.json") -ge 1 ]] || fail "straggler_sigmas=0: no straggler"
# one rank alone: the rule does not apply (fewer than 3 ranks)
doc "$TMPDIR/one.json" "$data/handmade-ranks-straggler/rank-2.json"
[[ $(jq '[.findings[] | select(.id == "straggler-rank")] | length' "$TMPDIR/one.json") == 0 ]] || fail "one rank: a straggler"

# a rank that waits alone in communication: rank 1's all-reduce 3 ms longer in the even job
mkdir "$TMPDIR/cw"
cp "$data/handmade-ranks-even/"rank-*.json "$TMPDIR/cw/"
sed -i 's/"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":20,"ts":\([0-9]*\),"dur":\([0-9]*\)/"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":20,"ts":\1,"dur":\2000/' "$TMPDIR/cw/rank-1.json"
doc "$TMPDIR/cw.json" "$TMPDIR/cw"
jq -e '[.findings[] | select(.id == "comm-wait-rank")] | length == 1 and .[0].evidence.rank == 1' "$TMPDIR/cw.json" >/dev/null || { jq -c '[.findings[] | {id, title}]' "$TMPDIR/cw.json" >&2; fail "comm-wait-rank"; }

# real traces (HTA's test data)
d=$(need_trace hta/tests/data)
doc "$TMPDIR/two.json" "$d/trace_filter"
[[ $(jq '[.findings[] | select(.id == "straggler-rank" or .id == "comm-wait-rank")] | length' "$TMPDIR/two.json") == 0 ]] || fail "2 ranks: judged"
mkdir "$TMPDIR/real3"
cp "$d/trace_filter/"*.json.gz "$d/trace_diff/control/control.json.gz" "$TMPDIR/real3/"
doc "$TMPDIR/real3.json" "$TMPDIR/real3"
"$LATSCOPE" analyze --format json "$TMPDIR/real3" >"$TMPDIR/real3-an.json" 2>/dev/null
[[ $(jq '.cross_rank.ranks | length' "$TMPDIR/real3-an.json") == 3 ]] || fail "real 3 ranks: analyze"
# rank 3 (another job's trace) is 87 % faster, ranks 0 and 1 within 1 %: neither names a straggler
[[ $(jq '.cross_rank.stragglers' "$TMPDIR/real3-an.json") == 0 ]] || fail "real: analyze straggler"
[[ $(jq '[.findings[] | select(.id == "straggler-rank")] | length' "$TMPDIR/real3.json") == 0 ]] || fail "real: doctor straggler"
exit 0

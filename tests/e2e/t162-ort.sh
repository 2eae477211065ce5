#!/usr/bin/env bash
# t162-ort: ONNX Runtime profiles (src/ingest/ort.c, src/analyze/ort.c). On every shared ORT
# sample, latscope's numbers are checked against an independent jq computation over the raw
# JSON: model_run count = runs, Σ/p50/p90/max of model_run dur, Σ dur per op_name and per
# provider of the Node events (fences excluded), the event count minus the folded fences. Then:
# a 0-byte ORT profile is an error that says why ORT leaves one; a directory of ORT profiles
# loads every file as a separate profile (no rank rules); doctor runs its CPU rules on it and
# gives no GPU advice.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v jq >/dev/null || skip "jq not installed"
dir=$(need_trace ort)
T() { timeout 60 "$LATSCOPE" "$@"; }
n=0
while IFS= read -r f; do
    [[ -s $f ]] || continue
    n=$((n + 1))
    expect_rc 0 T analyze --format json --top 1000 "$f"
    o=$TMPDIR/out
    [[ $(jq -r '.ranks[0].format // empty' "$o") == ort || $(jq -r '.ranks[0].ort | type' "$o") == object ]] ||
        fail "$f: no ort section"
    want=$(jq -c '[.[] | select(.cat == "Session" and .name == "model_run") | .dur] | sort as $d |
        ($d | length) as $n | def nr(q): if $n == 0 then 0 else $d[([((q * $n) | ceil), 1] | max) - 1] end;
        {runs: $n, total: ($d | add // 0), p50: nr(0.5), p90: nr(0.9), max: ($d | max // 0)}' "$f")
    got=$(jq -c '.ranks[0].ort | {runs, total: .run_total_us, p50: .run_p50_us, p90: .run_p90_us,
        max: .run_max_us}' "$o")
    [[ $want == "$got" ]] || fail "$f: runs: want $want, got $got"
    want=$(jq -c '[.[] | select(.cat == "Node" and (.name | test("_fence_(before|after)$") | not))] |
        group_by(.args.op_name) | map({k: .[0].args.op_name, calls: length, total: (map(.dur) | add)}) |
        sort_by(.k)' "$f")
    got=$(jq -c '.ranks[0].ort.op_types | map({k: .name, calls, total: .total_us}) | sort_by(.k)' "$o")
    [[ $want == "$got" ]] || fail "$f: op types: want $want, got $got"
    want=$(jq -c '[.[] | select(.cat == "Node" and (.name | test("_fence_(before|after)$") | not))] |
        group_by(.args.provider) | map({k: .[0].args.provider, total: (map(.dur) | add)}) | sort_by(.k)' "$f")
    got=$(jq -c '.ranks[0].ort.providers | map({k: .name, total: .total_us}) | sort_by(.k)' "$o")
    [[ $want == "$got" ]] || fail "$f: providers: want $want, got $got"
    # every event is in the model except the fences (folded into their node)
    want=$(jq '[.[] | select((.name | test("_fence_(before|after)$")) | not)] | length' "$f")
    [[ $(jq '.ranks[0].events' "$o") == "$want" ]] || fail "$f: events $(jq '.ranks[0].events' "$o"), want $want"
    # shares are shares
    jq -e '[.ranks[0].ort | .op_types[], .nodes[], .providers[] | .pct] | all(. >= 0 and . <= 100)' "$o" >/dev/null ||
        fail "$f: a share outside 0..100"
    jq -e '.ranks[0].ort | .uncovered_pct >= 0 and .uncovered_pct <= 100' "$o" >/dev/null || fail "$f: uncovered_pct"
done < <(find "$dir" -name '*.json' | sort)
[[ $n -ge 10 ]] || fail "only $n ORT samples checked"

# the text report names the runs and the op types
f=$(need_trace ort/py/1.32.0/ort1.32.0_tiny_resnet_seq_intra2_2026-12-01_08-52-42_296.json)
expect_rc 0 T analyze "$f"
contains "$TMPDIR/out" "== profile 0"
contains "$TMPDIR/out" "model_run  10 runs: mean"
contains "$TMPDIR/out" "op types (op_name)"
grep -qE '^  Conv +60 ' "$TMPDIR/out" || fail "no Conv row with 60 calls"

# ORT <= 1.20 fences: folded, counted in the metadata
f=$(need_trace ort/py/1.20.1/ort1.20.1_tiny_resnet_seq_intra2_2026-12-01_08-43-56.json)
expect_rc 0 T analyze --format json "$f"
nf=$(jq '[.[] | select(.name | test("_fence_(before|after)$"))] | length' "$f")
[[ $nf -gt 0 ]] || fail "the 1.20.1 sample has no fences"

# 0-byte failure file: an error naming it and why ORT leaves one
z=$(need_trace ort/py/failures/ort1.32.0_loadfail_2026-12-01_08-46-58_358.json)
expect_rc 2 T analyze "$z"
contains "$TMPDIR/err" "$z: empty ONNX Runtime profile (0 bytes): ORT leaves an empty profile when the model fails to load"
expect_rc 2 T doctor "$z"
contains "$TMPDIR/err" "empty ONNX Runtime profile (0 bytes)"

# a directory of ORT profiles: every file loads (no "no distributedInfo.rank", no duplicates),
# the 0-byte ones are skipped with the ORT message
mkdir "$TMPDIR/d"
for g in "$dir"/py/1.32.0/*.json "$dir"/py/failures/*.json; do ln -s "$g" "$TMPDIR/d/"; done
nn=$(find -L "$TMPDIR/d" -name '*.json' -size +0 | wc -l)
expect_rc 0 T analyze --format json "$TMPDIR/d"
[[ $(jq '.ranks | length' "$TMPDIR/out") == "$nn" ]] || fail "directory: $(jq '.ranks | length' "$TMPDIR/out") of $nn profiles loaded"
! grep -q 'distributedInfo.rank\|same rank' "$TMPDIR/err" || fail "ORT profiles treated as ranks: $(cat "$TMPDIR/err")"
contains "$TMPDIR/err" "empty ONNX Runtime profile"

# doctor: the CPU rules ran, the GPU family did not and gave nothing; the executor-overhead rule
# fires on the ORT_PARALLEL profile (its nodes on another thread, checked with jq) and not on
# the sequential one of the same model
gpu_ids='launch-bound|cpu-pre-post-processing|host-bound-idle|sync-points|memcpy-exposed|dominant-kernels|fp32-no-tensor-cores|underfilled-gpu|exposed-communication|allocator-churn|memory-pressure'
for m in seq_intra1_2026-12-01_08-52-43_146 par_intra2_2026-12-01_08-52-46_839; do
    f=$(need_trace "ort/py/1.32.0/ort1.32.0_transformer_block_$m.json")
    expect_rc 0 T doctor --fail-on never --format json "$f"
    o=$TMPDIR/out
    jq -e '.traces[0].rule_families | map({(.family): .ran}) | add | .cpu and (.gpu | not)' "$o" >/dev/null ||
        fail "$m: rule families $(jq -c .traces[0].rule_families "$o")"
    ! jq -r '.findings[].id' "$o" | grep -qE "^($gpu_ids)\$" || fail "$m: GPU finding on a CPU ORT profile"
    ! jq -r '.findings[].id' "$o" | grep -qx cpu-python-overhead || fail "$m: Python advice on ORT"
    # the step-tail advice is ONNX Runtime's, not PyTorch's (torch.profiler, torch.compile)
    ! jq -r '.findings[] | select(.id == "tail-steps" or .id == "cpu-contention") | .recommendation' "$o" | grep -qi torch ||
        fail "$m: PyTorch advice in the tail-steps or cpu-contention finding on ORT"
    # the cold first run (one-time work) is never called CPU contention
    ! jq -e '.findings[] | select(.id == "cpu-contention") | .evidence.worst_step == 0' "$o" >/dev/null ||
        fail "$m: the first run called contention"
    other_tid=$(jq '([.[] | select(.name == "model_run") | .tid] | unique) as $r |
        [.[] | select(.cat == "Node" and ((.tid as $t | $r | index($t)) | not))] | length > 0' "$f")
    has=$(jq '[.findings[] | select(.id == "ort-executor-overhead")] | length' "$o")
    if [[ $m == par* ]]; then
        [[ $other_tid == true && $has == 1 ]] || fail "$m: parallel profile: other tid $other_tid, finding $has"
        jq -e '.findings[] | select(.id == "ort-executor-overhead") | .saving_pct > 0 and .saving_pct <= 100' "$o" >/dev/null ||
            fail "$m: saving"
    else
        [[ $other_tid == false && $has == 0 ]] || fail "$m: sequential profile: other tid $other_tid, finding $has"
    fi
done
# a profile where cpu-contention fires (the first runs of an unoptimised graph on a loaded VM):
# its thread advice is ONNX Runtime's SessionOptions, not torch.set_num_threads
f=$(need_trace "ort/py/1.32.0/ort1.32.0_tiny_resnet_noopt_2026-12-01_08-52-48_515.json")
expect_rc 0 T doctor --fail-on never --format json "$f"
jq -e '[.findings[] | select(.id == "cpu-contention")] | length == 1' "$TMPDIR/out" >/dev/null ||
    fail "noopt: no cpu-contention finding (the test needs one)"
jq -r '.findings[] | select(.id == "cpu-contention") | .recommendation' "$TMPDIR/out" | grep -q intra_op_num_threads ||
    fail "noopt: contention advice without SessionOptions threads"
! jq -r '.findings[].recommendation' "$TMPDIR/out" | grep -qi torch || fail "noopt: PyTorch advice on ORT"
echo ok

#!/usr/bin/env bash
# san: skip (torch truth generation in Python)
# truth: downloads torch from PyPI, ~1.8 GB, once into ~/.cache/latscope/venv-torch
# timeout: 600
# t158-analyze-torch-live: ground truth on a fresh trace. tests/tools/torch-truth.py profiles a
# small real torch model on CPU (record_function regions, a DataLoader, Python work, an op nested
# in itself, profile_memory, record_shapes, with_stack) and saves what prof.key_averages() and
# key_averages(group_by_input_shape=True) report; latscope's tables must equal them exactly
# (tests/tools/ka-compare.sh: calls, CPU total, self CPU, CPU Mem, Self CPU Mem per row; every
# shape row; the ProfilerStep durations), by default and under --hta-compat --include-last-step.
# analyze and doctor count the same steps. Needs torch in a venv (tests/tools/torch-venv.sh
# installs it from PyPI once); skips without it.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
set +e
py=$("$LATSCOPE_SRCDIR/tests/tools/torch-venv.sh")
rc=$?
set -e
[[ $rc -eq 0 ]] || skip "no torch: $py"
out=$TMPDIR/live
"$py" "$LATSCOPE_SRCDIR/tests/tools/torch-truth.py" "$out" >"$TMPDIR/py.log" 2>&1 ||
    { tail -20 "$TMPDIR/py.log" >&2; fail "torch-truth.py failed"; }
tr=$out/live.pt.trace.json
for mode in default compat; do
    opts=()
    [[ $mode == compat ]] && opts=(--hta-compat --include-last-step)
    expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "${opts[@]}" "$tr"
    cp "$TMPDIR/out" "$TMPDIR/l.json"
    bad=$("$LATSCOPE_SRCDIR/tests/tools/ka-compare.sh" "$TMPDIR/l.json" "$out/live.key_averages.json" \
        "$out/live.shapes.json" "$mode")
    [[ -z $bad ]] || fail "$mode: latscope != key_averages: $bad"
done
q() { jq -r "$1" "$TMPDIR/l.json"; }
# the regions are rows, the DataLoader shows in the CPU split of every step, Python has a table
for n in model_forward postprocess "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"; do
    [[ $(jq --arg n "$n" '[.ranks[0].top_ops[] | select(.name == $n and .annotation)] | length' "$TMPDIR/l.json") == 1 ]] ||
        fail "no region row $n"
done
[[ $(q '[.ranks[0].steps[] | select(.cpu_dataloader_us > 0 and .cpu_ops_us > 0 and .cpu_python_us > 0)] | length') == 3 ]] ||
    fail "CPU split: $(q '.ranks[0].steps')"
[[ $(q '.ranks[0].cpu_only') == true ]] || fail "cpu_only"
[[ $(q '.ranks[0].python_functions | length') -gt 0 ]] || fail "no Python table"
[[ $(q '.ranks[0].cpu_memory.allocs') -gt 0 ]] || fail "no CPU memory"
expect_rc 0 "$LATSCOPE" analyze --top 5 --group-by-input-shape "$tr"
for s in "(CPU-only trace)" "top CPU ops by self time" "by input shape" "Python functions by self time" "CPU memory (profile_memory)" "by self CPU memory"; do
    contains "$TMPDIR/out" "$s"
done
! grep -q "compute       comm" "$TMPDIR/out" || fail "GPU step columns on a CPU-only trace"
! grep -qE -- " -[0-9.]+ (ns|us|ms|s) " "$TMPDIR/out" || fail "a negative time in the text"
# analyze and doctor agree on the steps: the schedule's last step is complete
steps=$(jq '.ranks[0].steps | length' "$TMPDIR/l.json")
[[ $steps == 3 ]] || fail "analyze has $steps steps, the schedule recorded 3"
set +e
"$LATSCOPE" doctor --format json "$tr" >"$TMPDIR/doc.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err" >&2; fail "doctor exited $rc"; } # 1: it has findings
dsteps=$(jq '.traces[0].steps' "$TMPDIR/doc.json")
[[ $dsteps == 3 ]] || fail "doctor has $dsteps steps, analyze $steps"
echo "torch $(jq -r .torch "$out/live.key_averages.json"): $(jq '.ops | length' "$out/live.key_averages.json") rows equal"
exit 0

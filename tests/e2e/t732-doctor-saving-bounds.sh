#!/usr/bin/env bash
# t732-doctor-saving-bounds: a saving printed "<=" is an upper bound, "at least" a lower one.
# On real ONNX Runtime CPU profiles ($LATSCOPE_TRACES/ort/py, cpu/ort: runs stalled under load)
# tail-steps' "<=" is never below the mean minus the median run (what running every run at the
# median saves at least), cpu-contention says "at least" (its slowed ops leave others out), and
# the JSON names each bound. diff on two ORT profiles names the runs the doctor judged instead of
# "steps compared: 0 before, 0 after", and never calls a finding resolved on a side no rule
# judged. Skips without the corpus.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
tr=${LATSCOPE_TRACES:-}
[[ -n $tr && -d $tr/ort/py/1.32.0 && -d $tr/cpu/ort ]] || skip "no \$LATSCOPE_TRACES ORT profiles"
n=0
for f in "$tr"/ort/py/1.32.0/*.json "$tr"/cpu/ort/*.json; do
    set +e
    "$LATSCOPE" doctor --format json "$f" >"$TMPDIR/d.json" 2>"$TMPDIR/err"
    rc=$?
    set -e
    [[ $rc -le 1 ]] || { cat "$TMPDIR/err" >&2; fail "$f: doctor exited $rc"; }
    python3 - "$TMPDIR/d.json" "$f" <<'PY' || fail "$f"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["traces"][0]
bad = []
for f in d["findings"]:
    b = f.get("saving_bound")
    if b not in ("upper", "estimate", "lower"):
        bad.append(f"{f['id']}: saving_bound {b!r}")
    if f["id"] == "tail-steps":
        if b != "upper":
            bad.append("tail-steps is not an upper bound")
        if f["saving_us_per_step"] + 0.001 < s["step_mean_us"] - s["step_median_us"]:
            bad.append(f"tail-steps <= {f['saving_us_per_step']} us is below mean - median "
                       f"{s['step_mean_us'] - s['step_median_us']:.3f} us")
    if f["id"] == "cpu-contention" and b != "lower":
        bad.append("cpu-contention is not a lower bound")
if bad: print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
    if jq -e '.findings[] | select(.id == "tail-steps")' "$TMPDIR/d.json" >/dev/null; then n=$((n + 1)); fi
done
[[ $n -ge 5 ]] || fail "tail-steps fired on only $n ORT profiles"
# the text says which bound it is
a=$(ls "$tr"/cpu/ort/ppocrv4_det_*.json | head -1)
set +e
"$LATSCOPE" doctor "$a" >"$TMPDIR/t.txt" 2>&1
set -e
contains "$TMPDIR/t.txt" "cpu-contention  saving at least"
contains "$TMPDIR/t.txt" "tail-steps  saving <="
# diff of two ORT profiles: the header counts the runs
b1=$(ls "$tr"/ort/py/1.32.0/ort1.32.0_tiny_resnet_seq_intra1_*.json | head -1)
b2=$(ls "$tr"/ort/py/1.32.0/ort1.32.0_tiny_resnet_seq_intra2_*.json | head -1)
set +e
"$LATSCOPE" diff "$b1" "$b2" >"$TMPDIR/diff.txt" 2>&1
"$LATSCOPE" diff --format json "$b1" "$b2" >"$TMPDIR/diff.json" 2>/dev/null
set -e
contains "$TMPDIR/diff.txt" "steps compared: none in the step table (the doctor judged 10 runs before, 10 after)"
! grep -q "steps compared: 0 before, 0 after" "$TMPDIR/diff.txt" || fail "0 steps header"
[[ $(jq '.doctor_steps_before' "$TMPDIR/diff.json") == 10 ]] || fail "doctor_steps_before"
# a finding whose after side no rule could judge is not "resolved"
set +e
"$LATSCOPE" diff "$LATSCOPE_SRCDIR/tests/data/handmade-doctor-cpurule-python.json" \
    "$LATSCOPE_SRCDIR/tests/data/handmade-merge-cpu.json" >"$TMPDIR/nj.txt" 2>&1
set -e
contains "$TMPDIR/nj.txt" "not judged after cpu-python-overhead"
! grep -q "resolved  cpu-python-overhead" "$TMPDIR/nj.txt" || fail "resolved on an unjudged side"
echo "tail-steps on $n ORT profiles: every <= above mean - median"
exit 0

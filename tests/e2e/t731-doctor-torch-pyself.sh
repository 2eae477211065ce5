#!/usr/bin/env bash
# t731-doctor-torch-pyself: a real with_stack decode loop (tests/tools/torch-doctor-traces.py
# decode) whose record_function ranges start inside a short Python call and end after it
# returns. doctor's Python functions' self times per step equal the ones the script computes
# from the Python parent ids (duration minus op/region cover minus the callees' own time).
# Needs torch (skips without).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
set +e
py=$("$LATSCOPE_SRCDIR/tests/tools/torch-venv.sh")
rc=$?
set -e
[[ $rc -eq 0 ]] || skip "no torch: $py"
out=$TMPDIR/tr
# the real program's trace, cached per torch version and script (truth_cached: a torch.compile
# run took 45 s of the test's 48)
vers=$("$py" -c 'import importlib.metadata as m; print(m.version("torch"))')
truth_cached torch-doctor-decode "$out" "$LATSCOPE_SRCDIR/tests/tools/torch-doctor-traces.py" "$vers" \
    "$(cc --version 2>/dev/null | head -1)" -- \
    "$py" "$LATSCOPE_SRCDIR/tests/tools/torch-doctor-traces.py" "$out" decode >"$TMPDIR/py.log" 2>&1 ||
    { tail -20 "$TMPDIR/py.log" >&2; fail "torch-doctor-traces.py failed"; }
set +e
"$LATSCOPE" doctor --format json --threshold cpu_python_pct=0 "$out/decode.pt.trace.json" >"$TMPDIR/d.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err" >&2; fail "doctor exited $rc"; }
python3 - "$TMPDIR/d.json" "$out/truth.json" <<'PY' || fail "Python self times"
import json, sys
d, truth = (json.load(open(p)) for p in sys.argv[1:3])
py = [f for f in d["findings"] if f["id"] == "cpu-python-overhead"]
if not py:
    sys.exit("no cpu-python-overhead finding at cpu_python_pct=0")
want = truth["traces"]["decode"]["python_self_us_per_step"]
rows = py[0]["evidence"].get("python_functions_self_time", [])
bad = []
if not any(r["function"].endswith(": step") for r in rows):
    bad.append("the decode step function is not listed")
for r in rows:
    w = want.get(r["function"])
    if w is None or abs(r["self_us_per_step"] - w) > 0.01:
        bad.append(f"{r['function']}: {r['self_us_per_step']} us/step, from the parent ids {w}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
exit 0

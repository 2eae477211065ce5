#!/usr/bin/env bash
# t730-doctor-torch-compiled: a real torch.compile'd MLP on CPU (tests/tools/torch-doctor-traces.py
# compiled: Inductor's C++, with_stack, record_shapes). The `## Call CompiledFxGraph ##` region's
# self time (its time no cpu_op inside covers: Inductor's kernels, `<built-in function kernel>`
# under with_stack) is compiled-kernel time, as computed here from the trace; analyze has the
# region as a row; it is not in doctor's Python time, and no finding advises torch.compile for the compiled model. The
# Python functions' self times equal the ones the script computes from the Python parent ids.
# Needs torch and a C compiler (skips without).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
set +e
py=$("$LATSCOPE_SRCDIR/tests/tools/torch-venv.sh")
rc=$?
set -e
[[ $rc -eq 0 ]] || skip "no torch: $py"
command -v cc >/dev/null || skip "no C compiler for Inductor"
out=$TMPDIR/tr
# the real program's trace, cached per torch version and script (truth_cached: a torch.compile
# run took 45 s of the test's 48)
vers=$("$py" -c 'import importlib.metadata as m; print(m.version("torch"))')
truth_cached torch-doctor-compiled "$out" "$LATSCOPE_SRCDIR/tests/tools/torch-doctor-traces.py" "$vers" \
    "$(cc --version 2>/dev/null | head -1)" -- \
    "$py" "$LATSCOPE_SRCDIR/tests/tools/torch-doctor-traces.py" "$out" compiled >"$TMPDIR/py.log" 2>&1 ||
    { tail -20 "$TMPDIR/py.log" >&2; skip "torch.compile failed here (see the log above)"; }
tr=$out/compiled.pt.trace.json
set +e
"$LATSCOPE" doctor --format json "$tr" >"$TMPDIR/d.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err" >&2; fail "doctor exited $rc"; }
expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "$tr"
cp "$TMPDIR/out" "$TMPDIR/a.json"
python3 - "$TMPDIR/d.json" "$TMPDIR/a.json" "$out/truth.json" "$tr" <<'PY' || fail "doctor on a compiled model"
import json, sys
d, a, truth, tr = (json.load(open(p)) for p in sys.argv[1:5])
evs = [e for e in tr["traceEvents"] if e.get("ph") == "X"]
steps_ev = [e for e in evs if e["name"].startswith("ProfilerStep#")]
def uncovered(r):
    a, b = r["ts"], r["ts"] + r["dur"]
    iv = sorted((max(a, o["ts"]), min(b, o["ts"] + o["dur"])) for o in evs
                if o.get("cat") == "cpu_op" and o["tid"] == r["tid"] and o["ts"] >= a and o["ts"] < b)
    cov, end = 0, a
    for x, y in iv:
        x = max(x, end)
        if y > x:
            cov += y - x
            end = y
    return r["dur"] - cov
kern = sum(uncovered(r) for r in evs if r["name"].startswith("## Call CompiledFxGraph") and
           any(s["ts"] <= r["ts"] < s["ts"] + s["dur"] for s in steps_ev))
bad = []
for f in d["findings"]:
    if "torch.compile(model)" in (f.get("recommendation") or ""):
        bad.append(f"{f['id']} advises torch.compile for a compiled model")
steps = d["traces"][0]["steps"]
region = [r for r in a["ranks"][0]["top_ops"] if r["name"].startswith("## Call CompiledFxGraph")]
if not region:
    bad.append("analyze has no CompiledFxGraph row")
py = [f for f in d["findings"] if f["id"] == "cpu-python-overhead"]
if py:
    ev = py[0]["evidence"]
    if ev.get("compiled_model") is not True:
        bad.append("compiled_model is not true")
    if region:
        want = kern / steps
        got = ev.get("compiled_kernels_us_per_step", -1)
        if abs(got - want) > 0.01:
            bad.append(f"compiled kernels {got} us/step, the region's time outside ops {want}")
    for r in ev.get("regions_self_time", []):
        if "CompiledFxGraph" in r["region"]:
            bad.append("the compiled graph's region is counted as Python")
    want = truth["traces"]["compiled"]["python_self_us_per_step"]
    for r in ev.get("python_functions_self_time", []):
        w = want.get(r["function"])
        if w is None or abs(r["self_us_per_step"] - w) > 0.01:
            bad.append(f"{r['function']}: {r['self_us_per_step']} us/step, from the parent ids {w}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
echo "compiled MLP: $(jq -r '[.findings[].id] | join(" ")' "$TMPDIR/d.json")"
exit 0

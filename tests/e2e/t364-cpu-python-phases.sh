#!/usr/bin/env bash
# exclusive: sampler accuracy (shares of samples) needs the CPUs to itself
# t364 (issue 13 item 8): the sampler's Python attribution against the program's own timers.
# tests/progs/phases.py runs a pure-Python loop, zlib.compress and hashlib.sha256 phases of
# random lengths and times each with time.thread_time(); the share of samples under each
# phase's Python frame must match the program's own share within TOL percentage points, and
# most samples must carry Python frames (every sample without them is counted in the stats).
# Interpreter frames between Python frames are folded away by default and kept with
# --py-internals.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
need_cpu
cpu_have_trace || skip "needs 'latscope trace --cpu'"
py=$(command -v python3.11 || command -v python3 || true)
[[ -n $py ]] || skip "no python3"
ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
[[ $ver == 3.11 || $ver == 3.12 || $ver == 3.13 ]] || skip "python3 is $ver, not 3.11-3.13"
TOL=5
"$LATSCOPE" -v trace --cpu --freq 199 --folded "$TMPDIR/p.folded" -o "$TMPDIR/p.json" -- \
    "$py" "$SRC/tests/progs/phases.py" 3 "$TMPDIR/own.json" 2>"$TMPDIR/cpu.err" ||
    { cat "$TMPDIR/cpu.err"; fail "record failed"; }
grep 'cpu:' "$TMPDIR/cpu.err"
grep -q 'Python read lag after the sample' "$TMPDIR/cpu.err" || fail "no Python read lag reported"
"$py" - "$TMPDIR/p.folded" "$TMPDIR/own.json" "$TOL" <<'PY' || fail "shares differ from the program's own timers"
import json, sys
folded, own, tol = sys.argv[1], json.load(open(sys.argv[2])), float(sys.argv[3])
names = ["py_phase", "zlib_phase", "hash_phase"]
cnt = dict.fromkeys(names, 0)
total = 0
for line in open(folded):
    stack, n = line.rstrip("\n").rsplit(" ", 1)
    n = int(n)
    total += n
    for nm in names:
        if ";py:%s (" % nm in ";" + stack:
            cnt[nm] += n
            break
inph = sum(cnt.values())
print("samples %d, under a phase's Python frame %d" % (total, inph))
assert inph >= 100, "too few samples with phase frames: %d" % inph
# Many samples carry their Python frames (the rest: start-up, exit, and reads more than 10 ms
# after their sample, which a loaded machine makes common: counted, see the stats).
assert inph >= 0.25 * total, "only %d of %d samples have phase frames" % (inph, total)
bad = []
for nm in names:
    got, want = 100.0 * cnt[nm] / inph, 100.0 * own[nm]
    print("%-10s latscope %5.1f %%  program %5.1f %%" % (nm, got, want))
    if abs(got - want) > tol:
        bad.append(nm)
assert not bad, "off by more than %.0f points: %s" % (tol, bad)
PY
# The counts reach the trace: latscope_cpu_stats (raw JSON metadata).
"$py" - "$TMPDIR/p.json" <<'PY' || fail "latscope_cpu_stats"
import json, sys
d = json.load(open(sys.argv[1]))
st = d["latscope_cpu_stats"]
if isinstance(st, str):
    st = json.loads(st)
print(st)
assert st["samples"] > 100 and st["python_merged"] > 0, st
assert st["python_max_lag_ms"] == 10 and st["interpreter_frames_folded"] is True, st
for k in ("python_late", "python_stale", "python_torn", "python_no_frames", "python_unwind_cut_short"):
    assert isinstance(st[k], int) and st[k] >= 0, (k, st)
PY
# Native frames stay under the Python frame that called them (zlib's deflate under zlib_phase;
# without DWARF unwinding only the leaf in libz, unnamed when libz is stripped).
grep -Eq 'py:zlib_phase \(phases.py:[0-9]+\);(.*deflate|\[libz)' "$TMPDIR/p.folded" ||
    fail "no libz frames under py:zlib_phase"
# C calling back into Python (sorted's key function): the interpreter's frames between the
# two Python frames are folded away by default and kept with --py-internals.
cat >"$TMPDIR/cb.py" <<'PY'
import time
def key(x):
    return -x
def outer(data):
    return sorted(data, key=key)
end = time.thread_time() + 1.5
data = list(range(2000))
while time.thread_time() < end:
    outer(data)
PY
interp='(_PyEval_Vector|_PyObject_MakeTpCall|PyObject_Vectorcall|_PyFunction_Vectorcall|builtin_sorted|list_sort_impl|_PyObject_Call|PyObject_Call|vectorcall)'
"$LATSCOPE" trace --cpu --freq 199 --folded "$TMPDIR/cb.folded" -o "$TMPDIR/cb.json" -- "$py" "$TMPDIR/cb.py" 2>"$TMPDIR/cb.err" ||
    { cat "$TMPDIR/cb.err"; fail "record failed"; }
grep -Eq 'py:outer \(cb.py:[0-9]+\);py:key \(cb.py:[0-9]+\)' "$TMPDIR/cb.folded" ||
    { head -5 "$TMPDIR/cb.folded"; fail "no outer;key stack with the interpreter folded away"; }
if grep -Eq "py:outer [^;]*;([^;]*;)*[^;]*$interp[^;]*;([^;]*;)*py:key" "$TMPDIR/cb.folded"; then
    fail "interpreter frames between py:outer and py:key were not folded"
fi
# (The interpreter has no frame pointers: its frames between Python frames need DWARF.)
grep -q 'no DWARF unwinding in this build' "$TMPDIR/cpu.err" && exit 0
"$LATSCOPE" trace --cpu --py-internals --freq 199 --folded "$TMPDIR/cbi.folded" -o "$TMPDIR/cbi.json" -- "$py" "$TMPDIR/cb.py" 2>"$TMPDIR/cb.err" ||
    { cat "$TMPDIR/cb.err"; fail "record failed"; }
grep -Eq "py:outer [^;]*;([^;]*;)*[^;]*$interp[^;]*;([^;]*;)*py:key" "$TMPDIR/cbi.folded" ||
    { grep 'py:key' "$TMPDIR/cbi.folded" | head -3; fail "--py-internals: no interpreter frames between py:outer and py:key"; }
exit 0

#!/usr/bin/env bash
# exclusive: sampler accuracy (shares of samples) needs the CPUs to itself
# t353: a Python script with known hot functions under the machine's python3 (3.11): the
# Python frames (function, file, line) replace the interpreter's eval frames, hot_py takes
# about 2/3 of the time of hot_py + warm_py, and native frames sit around them.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
need_cpu
py=$(command -v python3.11 || command -v python3 || true)
[[ -n $py ]] || skip "no python3"
ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
[[ $ver == 3.11 || $ver == 3.12 || $ver == 3.13 ]] || skip "python3 is $ver, not 3.11-3.13"
cpu_record "$TMPDIR/p.folded" 199 "$py" "$SRC/tests/progs/hot.py" 3 ||
    { cat "$TMPDIR/cpu.err"; fail "record failed"; }
cat "$TMPDIR/cpu.err"
grep -q 'Python frames in' "$TMPDIR/cpu.err" || fail "no Python frames counted"
hot=$(awk '{ n = $NF; if ($0 ~ /py:hot_py \(hot.py:[0-9]+\)/) h += n; if ($0 ~ /py:warm_py \(hot.py:[0-9]+\)/) w += n }
           END { if (h + w == 0) print 0; else printf "%.1f\n", 100 * h / (h + w) }' "$TMPDIR/p.folded")
echo "hot_py share of hot_py + warm_py: $hot %"
in_range "$hot" 55 78 "hot_py share"
# Caller order and lines: <module> -> run_rounds -> hot_py, lines inside each function.
grep -Eq 'py:<module> \(hot.py:3[0-9]\);py:run_rounds \(hot.py:2[5-9]\);py:hot_py \(hot.py:1[2-6]\)' \
    "$TMPDIR/p.folded" || fail "no <module>;run_rounds;hot_py stack with lines"
# Samples without Python frames are counted by reason (issue 35 item 1): the summary names the
# main threads' share, and the JSON's counts add up, its "with_python" being exactly the
# main-thread on-CPU samples whose stack holds a Python frame.
grep -Eq 'main threads: [0-9]+ of [0-9]+ on-CPU samples with Python frames \([0-9.]+ %\), without: [0-9]+ late' \
    "$TMPDIR/cpu.err" || fail "no main-thread Python-frame count in the summary"
if cpu_have_trace && command -v jq >/dev/null; then
    j=$TMPDIR/cpu-trace.json
    jq -e '.latscope_cpu_stats.python_main_thread as $m | $m.samples > 0 and
           ($m.with_python + $m.late + $m.stale + $m.torn + $m.no_frame + $m.not_read) == $m.samples' \
        "$j" >/dev/null || fail "python_main_thread counts do not add up: $(jq -c .latscope_cpu_stats "$j")"
    got=$(jq '[.traceEvents[] | select(.cat == "cpu_sample" and .ph == "i" and .pid == .tid and
               (.args.stack | contains("py:")))] | length' "$j")
    want=$(jq '.latscope_cpu_stats.python_main_thread.with_python' "$j")
    [[ $got == "$want" ]] || fail "with_python $want, but $got main-thread samples hold Python frames"
fi
# Interleaved: native frames of the interpreter below the Python ones (the interpreter has
# no frame pointers: that needs DWARF unwinding).
grep -q 'no DWARF unwinding in this build' "$TMPDIR/cpu.err" && exit 0
grep -Eq '(Py_RunMain|PyEval_EvalCode|Py_BytesMain).*;py:<module>' "$TMPDIR/p.folded" ||
    fail "no native frames below the Python frames"

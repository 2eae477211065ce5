#!/usr/bin/env bash
# exclusive: the sampler's Python frames thin out on a loaded machine
# t368-cpu-names-pyspy: one frame-naming convention (model/pyframe.h) for own and imported CPU
# samples. tests/progs/names.py (a method, a module function, the standard library's json) is
# sampled by `latscope trace --cpu` and by a real py-spy (from PyPI in a venv,
# tests/tools/pyspy-venv.sh; skips without it) in speedscope and raw format: the program's
# functions have the same names in all three ("py:Enc.forward (names.py)",
# "py:JSONEncoder.encode (json/encoder.py)", ...), every Python function above 5 % of one
# source's samples is found by name in the others, and `latscope diff` of the own capture vs
# the py-spy file matches them (samples on both sides of one row).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
command -v jq >/dev/null || skip "jq not installed"
need_cpu
py=$(command -v python3.11 || command -v python3 || true)
[[ -n $py ]] || skip "no python3"
ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
[[ $ver == 3.11 || $ver == 3.12 || $ver == 3.13 ]] || skip "python3 is $ver, not 3.11-3.13"
pyspy=$("$SRC/tests/tools/pyspy-venv.sh") || skip "$pyspy"
prog=$SRC/tests/progs/names.py

"$LATSCOPE" trace --cpu --freq 199 -o "$TMPDIR/own.json" -- "$py" "$prog" 1.5 2>"$TMPDIR/own.err" ||
    { cat "$TMPDIR/own.err" >&2; fail "trace --cpu failed"; }
for fmt in raw speedscope; do
    set +e
    timeout 120 "$pyspy" record -r 199 -f "$fmt" -o "$TMPDIR/ps.$fmt" -- "$py" "$prog" 1.5 \
        >"$TMPDIR/pyspy.out" 2>&1
    rc=$?
    set -e
    if [[ $rc -ne 0 ]]; then
        grep -qiE "permission|ptrace|operation not permitted" "$TMPDIR/pyspy.out" &&
            skip "py-spy may not trace here: $(tail -1 "$TMPDIR/pyspy.out")"
        cat "$TMPDIR/pyspy.out" >&2
        fail "py-spy record ($fmt) failed ($rc)"
    fi
done
# per source: "NAME<TAB>TOTAL" of every Python function, and those above 5 % of its samples
for s in own.json ps.raw ps.speedscope; do
    "$LATSCOPE" analyze --format json --top 100000 "$TMPDIR/$s" >"$TMPDIR/$s.an" 2>"$TMPDIR/an.err" ||
        { cat "$TMPDIR/an.err" >&2; fail "analyze failed on $s"; }
    jq -r '.ranks[0].cpu.top_functions_total[] | select(.function | startswith("py:")) |
           "\(.function)\t\(.total)"' "$TMPDIR/$s.an" >"$TMPDIR/$s.all"
    jq -r '.ranks[0].cpu as $c | $c.top_functions_total[] | select(.function | startswith("py:")) |
           select(.total >= 0.05 * $c.samples) | .function' "$TMPDIR/$s.an" >"$TMPDIR/$s.big"
done
for want in "py:<module> (names.py)" "py:main (names.py)" "py:Enc.forward (names.py)" \
    "py:tokenize (names.py)" "py:dumps (json/__init__.py)" "py:JSONEncoder.encode (json/encoder.py)"; do
    for s in own.json ps.raw ps.speedscope; do
        cut -f1 "$TMPDIR/$s.all" | grep -qxF "$want" ||
            { head -20 "$TMPDIR/$s.all" >&2; fail "$s: no function named '$want'"; }
    done
done
for a in own.json ps.raw ps.speedscope; do
    for b in own.json ps.raw ps.speedscope; do
        [[ $a == "$b" ]] && continue
        while IFS= read -r f; do
            cut -f1 "$TMPDIR/$b.all" | grep -qxF "$f" || fail "'$f' (over 5 % in $a) has no sample of that name in $b"
        done <"$TMPDIR/$a.big"
    done
done
# diff matches own and py-spy functions by name: one row with samples on both sides
"$LATSCOPE" diff --format json "$TMPDIR/own.json" "$TMPDIR/ps.speedscope" >"$TMPDIR/diff.json" 2>"$TMPDIR/diff.err" ||
    [[ $? -eq 1 ]] || { cat "$TMPDIR/diff.err" >&2; fail "diff failed"; }
for f in "py:Enc.forward (names.py)" "py:JSONEncoder.encode (json/encoder.py)"; do
    jq -e --arg f "$f" '[.cpu_functions[] | select(.function == $f and .total_before > 0 and .total_after > 0)] | length == 1' \
        "$TMPDIR/diff.json" >/dev/null || fail "diff: '$f' not matched between the own capture and py-spy's"
done
echo "t368: $(wc -l <"$TMPDIR/own.json.big") own, $(wc -l <"$TMPDIR/ps.raw.big") raw, $(wc -l <"$TMPDIR/ps.speedscope.big") speedscope functions over 5 % agree by name"

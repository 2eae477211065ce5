#!/usr/bin/env bash
# t354: the remote Python reader on CPython 3.12 and 3.13 where installed (pyenv); each must
# give <module> -> run_rounds -> hot_py stacks. Skips when neither is installed.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
need_cpu
found=0
for v in 3.12 3.13; do
    py=$(ls -d /root/.pyenv/versions/$v.*/bin/python$v /usr/bin/python$v 2>/dev/null | head -1 || true)
    [[ -n $py && -x $py ]] || continue
    found=$((found + 1))
    cpu_record "$TMPDIR/p$v.folded" 199 "$py" "$SRC/tests/progs/hot.py" 1.5 ||
        { cat "$TMPDIR/cpu.err"; fail "record under $py failed"; }
    cat "$TMPDIR/cpu.err"
    grep -Eq 'py:run_rounds \(hot.py:[0-9]+\);py:hot_py \(hot.py:[0-9]+\)' "$TMPDIR/p$v.folded" ||
        fail "Python $v: no run_rounds;hot_py stack"
    echo "Python $v: ok"
done
[[ $found -gt 0 ]] || skip "no CPython 3.12 or 3.13 installed"

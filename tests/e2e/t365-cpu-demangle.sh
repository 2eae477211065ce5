#!/usr/bin/env bash
# t365: C++ frames are demangled in the sampler's stacks (lsdemo::Spinner::spin<int>(long)
# instead of _ZN6lsdemo7Spinner4spinIiEEvl), through the libstdc++ demangler found at run time.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
need_cpu
command -v c++ >/dev/null || skip "no C++ compiler"
c++ -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o "$TMPDIR/hot-cc" "$SRC/tests/progs/hot.cc" || fail "cannot build hot.cc"
cpu_record "$TMPDIR/c.folded" 499 "$TMPDIR/hot-cc" 1 || { cat "$TMPDIR/cpu.err"; fail "record failed"; }
grep -q '_ZN6lsdemo' "$TMPDIR/c.folded" && fail "mangled C++ name in the stacks"
s=$(share "$TMPDIR/c.folded" 'void lsdemo::Spinner::spin<int>(long)')
echo "lsdemo::Spinner::spin<int> share: $s %"
in_range "$s" 80 100 "demangled spin<int> share"

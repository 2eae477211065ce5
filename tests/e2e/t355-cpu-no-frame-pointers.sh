#!/usr/bin/env bash
# t355: a program built with -O2 -fomit-frame-pointer: frame-pointer chains break, the user
# stack copies are unwound with DWARF CFI (libdw) and the stacks still reach main.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
need_cpu
need_dwarf
build_prog "$TMPDIR/hot" hot.c -O2 -g -fomit-frame-pointer
cpu_record "$TMPDIR/n.folded" 499 "$TMPDIR/hot" 2 || { cat "$TMPDIR/cpu.err"; fail "record failed"; }
cat "$TMPDIR/cpu.err"
dwarf=$(grep -Eo '[0-9]+ unwound with DWARF' "$TMPDIR/cpu.err" | awk '{ print $1 }')
[[ ${dwarf:-0} -gt 0 ]] || fail "no sample was unwound with DWARF"
# Among samples in hot_a, nearly all have the full chain up to main.
under=$(share "$TMPDIR/n.folded" main hot_a)
echo "hot_a samples with main in the stack: $under %"
in_range "$under" 90 100 "hot_a samples reaching main"
a=$(share "$TMPDIR/n.folded" hot_a main)
in_range "$a" 50 70 "hot_a share"

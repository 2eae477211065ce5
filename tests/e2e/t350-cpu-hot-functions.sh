#!/usr/bin/env bash
# exclusive: sampler accuracy (shares of samples) needs the CPUs to itself
# t350: a C program with known hot functions (60/30/10 % of its work in hot_a/hot_b/cold_c):
# the sampler must find each with its share within a few percent, under main.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
need_cpu
build_prog "$TMPDIR/hot" hot.c -O1 -g -fno-omit-frame-pointer
cpu_record "$TMPDIR/hot.folded" 499 "$TMPDIR/hot" 3 || { cat "$TMPDIR/cpu.err"; fail "record failed"; }
cat "$TMPDIR/cpu.err"
a=$(share "$TMPDIR/hot.folded" hot_a main)
b=$(share "$TMPDIR/hot.folded" hot_b main)
c=$(share "$TMPDIR/hot.folded" cold_c main)
echo "hot_a $a %, hot_b $b %, cold_c $c %"
in_range "$a" 53 67 "hot_a share"
in_range "$b" 24 36 "hot_b share"
in_range "$c" 6 14 "cold_c share"
# The stacks are complete: hot_a is reached from main (through libc's start code, which has
# no frame pointers: without DWARF unwinding the chain starts at main).
if grep -q 'no DWARF unwinding in this build' "$TMPDIR/cpu.err"; then
    grep -Eq '(^|;)main;hot_a;spin ' "$TMPDIR/hot.folded" || fail "no main;hot_a;spin stack"
else
    grep -q '^_start;.*;main;hot_a;spin ' "$TMPDIR/hot.folded" || fail "no _start...main;hot_a;spin stack"
fi
# At 499 Hz for ~3 s of CPU time there are hundreds of samples (whatever the load).
total=$(awk '{ s += $NF } END { print s + 0 }' "$TMPDIR/hot.folded")
[[ $total -ge 150 ]] || fail "only $total samples"

#!/usr/bin/env bash
# t352: a program that forks: the child (followed through inherit) is sampled in child_work,
# with its own symbols, as well as the parent in hot_a.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
need_cpu
build_prog "$TMPDIR/hot" hot.c -O1 -g -fno-omit-frame-pointer
cpu_record "$TMPDIR/f.folded" 499 "$TMPDIR/hot" 2 fork || { cat "$TMPDIR/cpu.err"; fail "record failed"; }
cat "$TMPDIR/cpu.err"
child=$(share "$TMPDIR/f.folded" child_work)
parent=$(share "$TMPDIR/f.folded" hot_a)
echo "child_work $child %, parent hot_a $parent %"
in_range "$child" 25 75 "child share"
in_range "$parent" 25 75 "parent share"
grep -q ';main;child_work' "$TMPDIR/f.folded" || fail "child stack not under main"

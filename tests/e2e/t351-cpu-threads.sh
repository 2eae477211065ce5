#!/usr/bin/env bash
# exclusive: sampler accuracy (shares of samples) needs the CPUs to itself
# t351: a multi-threaded program: both worker threads (created after exec, followed through
# inherit) are sampled, each in its own function, in about equal parts.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
need_cpu
build_prog "$TMPDIR/hot" hot.c -O1 -g -fno-omit-frame-pointer -pthread
cpu_record "$TMPDIR/t.folded" 499 "$TMPDIR/hot" 2 threads || { cat "$TMPDIR/cpu.err"; fail "record failed"; }
cat "$TMPDIR/cpu.err"
one=$(share "$TMPDIR/t.folded" worker_one_loop)
two=$(share "$TMPDIR/t.folded" worker_two_loop)
echo "worker_one $one %, worker_two $two %"
in_range "$one" 30 70 "worker_one share"
in_range "$two" 30 70 "worker_two share"
grep -q 'start_thread;.*worker_one;worker_one_loop' "$TMPDIR/t.folded" ||
    grep -q 'worker_one;worker_one_loop' "$TMPDIR/t.folded" || fail "no worker_one stack"
grep -Eq ' [0-9]+ threads' "$TMPDIR/cpu.err" || fail "no thread count in the stats"
threads=$(grep -Eo '[0-9]+ threads' "$TMPDIR/cpu.err" | awk '{ print $1 }')
[[ $threads -ge 2 ]] || fail "only $threads threads sampled"

#!/usr/bin/env bash
# exclusive: sampler accuracy (shares of samples) needs the CPUs to itself
# t358: off-CPU time: a shell loop that sleeps yields context-switch intervals (when the kernel
# lets us sample switches: root or CAP_PERFMON), and attaching with a duration to a running
# process works and stops on time.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
need_cpu
cpu_record "$TMPDIR/o.folded" 99 sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.05; done' ||
    { cat "$TMPDIR/cpu.err"; fail "record failed"; }
cp "$TMPDIR/cpu.err" "$TMPDIR/err"
cat "$TMPDIR/err"
if grep -q 'not recorded' "$TMPDIR/err"; then
    echo "off-CPU not permitted here; checked attach only"
else
    off=$(grep -Eo '[0-9]+ off-CPU intervals' "$TMPDIR/err" | awk '{ print $1 }')
    [[ ${off:-0} -ge 10 ]] || fail "only ${off:-0} off-CPU intervals for 10 sleeps"
fi
build_prog "$TMPDIR/hot" hot.c -O1 -g -fno-omit-frame-pointer
"$TMPDIR/hot" 5 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 0.2
start=$(date +%s%N)
if cpu_have_trace; then
    "$LATSCOPE" trace --cpu --freq 199 --pid "$pid" --duration 1 --folded "$TMPDIR/a.folded" \
        -o "$TMPDIR/a.json" 2>"$TMPDIR/err2" || { cat "$TMPDIR/err2"; fail "attach failed"; }
else
    "$CPURUN" -F 199 -P "$pid" -d 1 -f "$TMPDIR/a.folded" 2>"$TMPDIR/err2" || { cat "$TMPDIR/err2"; fail "attach failed"; }
fi
took=$((($(date +%s%N) - start) / 1000000))
cat "$TMPDIR/err2"
[[ $took -lt 3000 ]] || fail "attach with -d 1 took $took ms"
grep -q ';main;hot_a' "$TMPDIR/a.folded" || fail "attached samples lack main;hot_a"

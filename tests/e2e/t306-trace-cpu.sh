#!/usr/bin/env bash
# t306-trace-cpu: `latscope trace --cpu` drives the CPU sampler through capture/cpuprof.h: the
# child is held before exec, sampled, and its samples land in the trace, the folded file and the
# SVG; the command's exit status still comes back. Skips where perf_event_open is refused.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
cd "$TMPDIR"
set +e
"$LATSCOPE" trace --cpu --freq 499 --folded f.txt --flamegraph f.svg -o cpu.json -- \
    sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; exit 4' >out 2>err
rc=$?
set -e
if grep -q "CPU sampling is off" err; then skip "CPU sampling unavailable here: $(grep -m1 'sampling is off' err)"; fi
[[ $rc == 4 ]] || { cat err >&2; fail "exit status $rc, want 4"; }
contains err "latscope trace: cpu:"
[[ -s f.txt ]] || fail "no folded stacks"
grep -q '<svg' f.svg || fail "no SVG flame graph"
contains cpu.json '"cat":"cpu_sample"'
contains cpu.json '"latscope_capture":{"cuda":false,"nvtx":false,"cpu":true'
exit 0

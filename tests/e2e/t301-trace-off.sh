#!/usr/bin/env bash
# t301-trace-off: `--off` runs the command with nothing loaded (no injection variables reach
# it), reports its wall time and returns its exit status; the traced run reports its own wall
# time too, so the two can be compared.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
cd "$TMPDIR"

expect_rc 0 "$LATSCOPE" trace --off -- sh -c 'sleep 0.2; env'
contains "$TMPDIR/err" "wall time"
contains "$TMPDIR/err" "nothing loaded"
grep -q 'INJECTION64_PATH\|LATSCOPE_TRACE_DIR' "$TMPDIR/out" && fail "--off leaked capture variables"
w=$(sed -n 's/.*wall time \([0-9.]*\) s.*/\1/p' "$TMPDIR/err")
awk -v w="$w" 'BEGIN { exit !(w >= 0.2 && w < 30) }' || fail "wall time $w not >= 0.2 s"
[[ ! -e latscope-trace.pt.trace.json.gz ]] || fail "--off wrote a trace"

expect_rc 7 "$LATSCOPE" trace --off -- sh -c 'exit 7'
contains "$TMPDIR/err" "exit status 7"

# The traced run of the same command: its variables are set, its wall time is reported.
expect_rc 0 "$LATSCOPE" trace -o t.json -- sh -c 'env'
contains "$TMPDIR/err" "command wall time"
if [[ -e "$(dirname "$LATSCOPE")/liblatscope-cupti.so" ]]; then
    contains "$TMPDIR/out" "LATSCOPE_TRACE_DIR="
    contains "$TMPDIR/out" "NVTX_INJECTION64_PATH="
fi
exit 0

#!/usr/bin/env bash
# t305-trace-analyze: what `latscope trace` writes is read by `latscope analyze` and `doctor`
# like any Kineto trace: a capture (hand-packed from the documented record layout: one runtime
# launch, its kernel, an NVTX range) merged with --merge; the kernel counts as correlated.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
cd "$TMPDIR"
mkdir cap
cp "$LATSCOPE_SRCDIR/tests/fuzz/corpus/lcap/handmade-launch.lcap" cap/cuda.4242.lcap
expect_rc 0 "$LATSCOPE" trace --merge cap -o t.pt.trace.json.gz
contains "$TMPDIR/err" "1 API calls, 1 kernels"
if "$LATSCOPE" analyze --help 2>&1 | grep -q "not available"; then skip "latscope analyze not built"; fi
expect_rc 0 "$LATSCOPE" analyze t.pt.trace.json.gz
contains "$TMPDIR/out" "1 correlated, 0 uncorrelated"
contains "$TMPDIR/out" "k(float*)"
set +e
"$LATSCOPE" doctor t.pt.trace.json.gz >doctor.out 2>&1
rc=$?
set -e
[[ $rc == 0 || $rc == 1 ]] || { cat doctor.out >&2; fail "doctor exited $rc"; }
contains doctor.out "GPU busy"
exit 0

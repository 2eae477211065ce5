#!/usr/bin/env bash
# t304-trace-merge: --keep leaves the per-process capture files, --merge turns such a directory
# into the same trace again; scripts/gpu-check.sh (run on GPU machines) parses and answers --help.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
cd "$TMPDIR"
bash -n "$LATSCOPE_SRCDIR/scripts/gpu-check.sh" || fail "gpu-check.sh syntax"
"$LATSCOPE_SRCDIR/scripts/gpu-check.sh" --help | grep -q -- --dry-run || fail "gpu-check.sh --help"

inc=${CUDA_HOME:-/usr/local/cuda}/include
[[ -f $inc/nvtx3/nvToolsExt.h ]] || skip "NVTX3 headers absent ($inc)"
[[ -e "$(dirname "$LATSCOPE")/liblatscope-cupti.so" ]] || skip "liblatscope-cupti.so not built"
gcc -O1 -o nvtx-app -I"$inc" "$LATSCOPE_SRCDIR/tests/e2e/data/nvtx-app.c" -ldl -lpthread ||
    fail "cannot build nvtx-app"
expect_rc 0 "$LATSCOPE" trace --nvtx --keep -o a.json -- ./nvtx-app 30
dir=$(sed -n 's/.*raw capture files kept in //p' "$TMPDIR/err")
[[ -d $dir ]] || fail "no kept directory reported"
ls "$dir"/cuda.*.lcap >/dev/null || fail "no capture file kept"
expect_rc 0 "$LATSCOPE" trace --merge "$dir" -o b.json
contains "$TMPDIR/err" "92 NVTX ranges" # 30 outer + 30 inner + 30 worker + 2
n=$(grep -o '"name":"outer"' b.json | wc -l)
[[ $n == 30 ]] || fail "merged trace has $n outer ranges, want 30"
rm -rf "$dir"
expect_rc 1 "$LATSCOPE" trace --merge "$TMPDIR/nothing-here" -o c.json
expect_rc 2 "$LATSCOPE" trace --merge "$TMPDIR" -- true
exit 0

#!/usr/bin/env bash
# t303-trace-inject: liblatscope-cupti.so as the driver would load it. Exports exactly the three
# entry points, needs neither libcupti nor libcuda at link time, and a direct
# InitializeInjection call without a driver returns 1, records why capture is off and lets the
# program finish.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
cd "$TMPDIR"
lib=$(dirname "$LATSCOPE")/liblatscope-cupti.so
[[ -e $lib ]] || skip "liblatscope-cupti.so not built (no CUDA toolkit headers)"

if command -v nm >/dev/null; then
    syms=$(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | grep -v '^_' | sort | tr '\n' ' ')
    [[ $syms == "InitializeInjection InitializeInjectionNvtx InitializeInjectionNvtx2 " ]] ||
        fail "exported symbols: $syms"
fi
if command -v readelf >/dev/null; then
    readelf -d "$lib" | grep NEEDED | grep -qE 'libcupti|libcuda' && fail "links libcupti/libcuda"
fi

gcc -O1 -o inject-direct "$LATSCOPE_SRCDIR/tests/e2e/data/inject-direct.c" -ldl || fail "build"
mkdir cap
LATSCOPE_TRACE_DIR=$TMPDIR/cap LATSCOPE_CUDA=1 expect_rc 0 ./inject-direct "$lib"
contains "$TMPDIR/out" "InitializeInjection 1 1"
f=$(ls cap/cuda.*.lcap 2>/dev/null | head -1)
[[ -n $f ]] || fail "no capture file written"
head -c 8 "$f" | grep -q LATSCAP1 || fail "bad magic"
# Why capture is off is in the file (CUPTI's own error without a driver, or no libcupti).
grep -aqE 'cupti|CUPTI' "$f" || fail "no status recorded: $(strings "$f" | head)"

# Without LATSCOPE_TRACE_DIR the library is inert: no file, still returns 1.
rm -rf cap2 && mkdir cap2
expect_rc 0 ./inject-direct "$lib"
[[ -z $(ls cap2) ]] || fail "wrote without a trace dir"
exit 0

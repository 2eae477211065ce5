#!/usr/bin/env bash
# t356: the CPython struct offsets hard-coded in the remote reader equal those computed from
# each installed version's own headers (tests/progs/pyoffsets.c compiled with Py_BUILD_CORE).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
[[ -x $CPURUN ]] || skip "$CPURUN not built"
command -v cc >/dev/null || skip "no C compiler"
n=0
for cfg in /root/.pyenv/versions/3.1[123].*/bin/python3-config /usr/bin/python3.1[123]-config; do
    [[ -x $cfg ]] || continue
    inc=$("$cfg" --includes | awk '{ print $1 }' | sed 's/^-I//')
    [[ -f $inc/internal/pycore_frame.h ]] || { echo "$cfg: no internal headers"; continue; }
    cc -o "$TMPDIR/pyoff" "$SRC/tests/progs/pyoffsets.c" -I"$inc" -I"$inc/internal" ||
        fail "pyoffsets.c does not build against $inc"
    "$TMPDIR/pyoff" > "$TMPDIR/want"
    minor=$(awk '/^version/ { split($2, v, "."); print v[2] }' "$TMPDIR/want")
    "$CPURUN" -O "$minor" > "$TMPDIR/have" || fail "no table for 3.$minor"
    diff -u "$TMPDIR/want" "$TMPDIR/have" || fail "offsets for 3.$minor differ from $inc"
    echo "3.$minor ($inc): same offsets"
    n=$((n + 1))
done
[[ $n -gt 0 ]] || skip "no CPython 3.11-3.13 headers installed"

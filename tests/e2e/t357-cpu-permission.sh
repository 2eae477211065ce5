#!/usr/bin/env bash
# t357: the permission-denied path: an unprivileged user (nobody, via setpriv) attaching to a
# root-owned process is refused by perf_event_open; the error names perf_event_paranoid and
# CAP_PERFMON instead of failing silently.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
[[ -x $CPURUN ]] || skip "$CPURUN not built"
[[ $(id -u) -eq 0 ]] || skip "needs root to switch to an unprivileged user"
command -v setpriv >/dev/null || skip "no setpriv"
sleep 30 &
victim=$!
trap 'kill $victim 2>/dev/null || true' EXIT
cp "$CPURUN" "$TMPDIR/cpuprof-run"
chmod 755 "$TMPDIR" "$TMPDIR/cpuprof-run"
set +e
setpriv --reuid=65534 --regid=65534 --clear-groups "$TMPDIR/cpuprof-run" -P "$victim" -d 0.5 \
    >"$TMPDIR/out" 2>"$TMPDIR/err"
rc=$?
set -e
cat "$TMPDIR/err"
[[ $rc -ne 0 ]] || fail "attaching to root's process as nobody succeeded"
contains "$TMPDIR/err" "perf_event_paranoid"
contains "$TMPDIR/err" "CAP_PERFMON"
# The same user sampling its own program works at perf_event_paranoid 2: user-space stacks
# only (the sampler drops kernel frames and off-CPU by itself), with the reduced ring budget.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [[ $paranoid -le 2 ]]; then
    build_prog "$TMPDIR/hot" hot.c -O1 -g -fno-omit-frame-pointer
    chmod 755 "$TMPDIR/hot"
    mkdir -m 777 "$TMPDIR/nb"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$TMPDIR/cpuprof-run" -F 499 \
        -f "$TMPDIR/nb/nobody.folded" -- "$TMPDIR/hot" 0.5 2>"$TMPDIR/err3" ||
        { cat "$TMPDIR/err3"; fail "unprivileged sampling of its own process failed"; }
    cat "$TMPDIR/err3"
    grep -q ';main;hot_a;spin ' "$TMPDIR/nb/nobody.folded" || fail "no main;hot_a;spin as nobody"
    ! grep -q '_\[k\]' "$TMPDIR/nb/nobody.folded" || fail "kernel frames without permission"
    contains "$TMPDIR/err3" "not recorded"
fi

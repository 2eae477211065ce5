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

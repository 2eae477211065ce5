#!/usr/bin/env bash
# t275-bench-live: the live view (--live auto|on|off). On a pseudo-terminal (util-linux
# `script`) bench redraws one status line per --window while a point runs ("\r ESC[K point
# i/N ..."), its request count and errors (by class) agree with the final report, it is erased
# when each point ends and the report that follows on the same terminal is clean; with stderr
# a pipe or a file (CI) nothing of it appears, whatever --live says; off and TERM=dumb turn it
# off, on brings it back on a dumb terminal.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
command -v script >/dev/null || skip "util-linux script missing (no pseudo-terminal to test on)"
start_fixture --service exp:2ms --fault 5xx:0.1 --seed 3
u=$FIXTURE_URL
# pty OUT TERM CMD: runs the shell line CMD on a pseudo-terminal 200 columns wide; OUT gets
# every byte the terminal was sent (script's own stdout).
pty() {
    local out=$1 term=$2
    shift 2
    TERM=$term script -q -e -c "stty cols 200 2>/dev/null; $*" /dev/null >"$out" </dev/null || true
}
# the status lines and the rest, per point: checks order, counts and the erase
check_live() { # PTY-OUTPUT REPORT.json NPOINTS N
    python3 - "$@" <<'PY' || fail "live view check failed (terminal output: $(cat -A "$1" | head -c 3000))"
import json, re, sys
raw = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
rep = json.load(open(sys.argv[2]))
npoints, n = int(sys.argv[3]), int(sys.argv[4])
st = re.compile(r'\r\x1b\[Kpoint (\d+)/(\d+) c=(\d+)  (\d+)/(\d+) req  ([0-9.]+) req/s  '
                r'p50/p99 (-|[0-9.]+/[0-9.]+ ms)  errors (\d+)(?: \(([^)]*)\))?')
lines = [m for m in st.finditer(raw)]
assert lines, 'no status line'
# nothing but status lines and erases: every byte is accounted for
rest = st.sub('', raw).replace('\r\x1b[K', '')
assert rest.strip() == '', repr(rest[:300])
# each point: at least 2 redraws, counts never go down, the last shows every request
for pi in range(npoints):
    mine = [m for m in lines if int(m.group(1)) == pi + 1]
    assert len(mine) >= 2, (pi, len(mine))
    assert all(int(m.group(2)) == npoints and int(m.group(5)) == n for m in mine)
    done = [int(m.group(4)) for m in mine]
    assert done == sorted(done) and done[-1] == n, done
    last = mine[-1]
    p = rep['points'][pi]
    assert int(last.group(3)) == p['concurrency'], (last.group(0), p['concurrency'])
    errs = int(last.group(8))
    assert errs == p['errors']['total'] and errs > 0, (errs, p['errors'])
    by = dict(x.rsplit(' ', 1) for x in last.group(9).split(', '))
    assert {k: int(v) for k, v in by.items()} == {k: v for k, v in p['errors'].items()
                                                 if k != 'total' and v}, (by, p['errors'])
    # erased before the next point's first line (or the end)
    end = last.end()
    nxt = raw.find('point %d/' % (pi + 2), end) if pi + 1 < npoints else len(raw)
    assert '\r\x1b[K' in raw[end:nxt], repr(raw[end:nxt + 10])
# the output ends with the erase
assert raw.rstrip('\n').endswith('\r\x1b[K'), repr(raw[-80:])
PY
}
# 1. closed loop, two points, the JSON report to a file: the terminal shows only the live view
pty "$TMPDIR/p1" xterm "'$LATSCOPE' bench '$u/x' -c 2,3 -n 300 --window 100ms -t 1 \
    --max-send-lag 50 --max-error-rate 0.9 --format json >'$TMPDIR/r1.json'"
check_live "$TMPDIR/p1" "$TMPDIR/r1.json" 2 300
# 2. the text report on the same terminal: after the last erase comes the report, clean
pty "$TMPDIR/p2" xterm "'$LATSCOPE' bench '$u/x' -n 200 --window 100ms -t 1 --max-send-lag 50 \
    --max-error-rate 0.9"
python3 - "$TMPDIR/p2" <<'PY' || fail "text report after the live view: $(cat -A "$TMPDIR/p2" | head -c 3000)"
import sys
raw = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
assert raw.count('\r\x1b[Kpoint 1/1 c=1') >= 2, raw[:400]
tail = raw[raw.rindex('\x1b[K') + 3:]
assert 'latscope bench http' in tail and 'point 1: concurrency 1' in tail, tail[:400]
assert 'point 1/1' not in tail and '\x1b' not in tail and '\r\n' in tail or '\n' in tail
PY
# 3. stderr not a terminal: nothing of it, whatever --live says (on warns why)
for mode in auto on; do
    "$LATSCOPE" bench "$u/x" -n 200 --window 50ms -t 1 --max-error-rate 0.9 --live $mode \
        --format json >"$TMPDIR/o.json" 2>"$TMPDIR/e" || true
    python3 - "$TMPDIR/e" "$mode" <<'PY' || fail "--live $mode with stderr a file: $(cat -A "$TMPDIR/e")"
import sys
e = open(sys.argv[1], 'rb').read()
assert b'\r' not in e and b'\x1b' not in e and b'point 1/' not in e, e
assert (b'stderr is not a terminal' in e) == (sys.argv[2] == 'on'), e
PY
    "$LATSCOPE" bench "$u/x" -n 200 --window 50ms -t 1 --max-error-rate 0.9 --live $mode \
        2>&1 | cat >"$TMPDIR/pipe"
    ! grep -q $'\r' "$TMPDIR/pipe" || fail "--live $mode into a pipe: a carriage return"
    ! grep -q $'\033' "$TMPDIR/pipe" || fail "--live $mode into a pipe: an escape sequence"
    contains "$TMPDIR/pipe" "point 1: concurrency 1"
done
# 4. off, and a dumb terminal (auto: off; on: shown)
pty "$TMPDIR/p4" xterm "'$LATSCOPE' bench '$u/x' -n 200 --window 50ms -t 1 --max-error-rate 0.9 \
    --live off --format json >/dev/null"
! grep -q $'\033' "$TMPDIR/p4" || fail "--live off drew a line: $(cat -A "$TMPDIR/p4")"
pty "$TMPDIR/p5" dumb "'$LATSCOPE' bench '$u/x' -n 200 --window 50ms -t 1 --max-error-rate 0.9 \
    --format json >/dev/null"
! grep -q $'\033' "$TMPDIR/p5" || fail "TERM=dumb drew a line: $(cat -A "$TMPDIR/p5")"
pty "$TMPDIR/p6" dumb "'$LATSCOPE' bench '$u/x' -c 2 -n 300 --window 50ms -t 1 \
    --max-error-rate 0.9 --max-send-lag 50 --live on --format json >'$TMPDIR/r6.json'"
check_live "$TMPDIR/p6" "$TMPDIR/r6.json" 1 300
# 5. a bad value is a usage error
expect_rc 2 "$LATSCOPE" bench "$u/x" --live sometimes
contains "$TMPDIR/err" "--live: expected auto, on or off"
echo "ok"

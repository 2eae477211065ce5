#!/usr/bin/env bash
# t308-trace-hardening (issue 14 item 13): an unwritable output path fails before the command
# runs (exit 2, the reason, the command never started); SIGINT and SIGTERM sent to latscope
# reach the traced command and the trace so far is still written; `-o -` keeps the command's
# stdout out of the JSON (it goes to stderr); secrets on the command line are REDACTED in
# latscope_command.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
cd "$TMPDIR"
command -v python3 >/dev/null || skip "no python3 to read the JSON"

# 1. Unwritable outputs: nothing runs.
echo plain >afile
for opt in "-o $TMPDIR/no/such/dir/t.json" "-o $TMPDIR" "--cpu --folded $TMPDIR/no/dir/x.folded" \
    "--cpu --flamegraph $TMPDIR/afile/x.svg"; do
    rm -f ran
    # shellcheck disable=SC2086
    expect_rc 2 "$LATSCOPE" trace $opt -- sh -c 'touch ran'
    contains "$TMPDIR/err" "nothing was run"
    [[ ! -e ran ]] || fail "the command ran although '$opt' cannot be written"
done
contains "$TMPDIR/err" "afile/x.svg"
# A writable new path is left as it was (the check creates and removes it).
"$LATSCOPE" trace --off -- true 2>/dev/null
[[ ! -e latscope-trace.pt.trace.json.gz ]] || fail "--off created the default trace"

# 2. Signals reach the command; the trace is still written. latscope runs in the background
# here, so a Ctrl-C from a terminal is not what arrives: kill sends SIGINT to latscope only.
for sig in INT TERM; do
    rm -f "sig.json" started
    "$LATSCOPE" trace -o sig.json -- sh -c 'touch started; exec sleep 60' >/dev/null 2>sig.err &
    lp=$!
    for _ in $(seq 100); do [[ -e started ]] && break; sleep 0.1; done
    [[ -e started ]] || fail "the traced command did not start"
    sleep 0.3
    kill -s "$sig" "$lp"
    # Bounded wait (not a timing assertion): without forwarding sleep keeps latscope 60 s.
    for _ in $(seq 200); do kill -0 "$lp" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$lp" 2>/dev/null; then
        pkill -P "$lp" sleep || true
        fail "SIG$sig did not reach the traced command (latscope still waiting after 20 s)"
    fi
    set +e
    wait "$lp"
    rc=$?
    set -e
    num=$(kill -l "$sig")
    [[ $rc -eq $((128 + num)) ]] || { cat sig.err; fail "SIG$sig: exit $rc, want $((128 + num))"; }
    [[ -s sig.json ]] || { cat sig.err; fail "SIG$sig: no trace written"; }
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' sig.json || fail "SIG$sig: bad JSON"
done

# 3. -o -: stdout is the trace only; the command's output is on stderr.
# (the printed marker is computed, so the command line stored in the JSON does not contain it)
expect_rc 0 "$LATSCOPE" trace -o - -- sh -c 'echo hello-$((6 * 7)); echo to-err >&2'
python3 - "$TMPDIR/out" <<'PY' || fail "-o - stdout is not one JSON trace"
import json, sys
d = json.load(open(sys.argv[1]))
assert "traceEvents" in d, d.keys()
PY
grep -q hello-42 "$TMPDIR/out" && fail "the command's stdout reached the JSON"
contains "$TMPDIR/err" "hello-42"
contains "$TMPDIR/err" "to-err"

# 4. Secrets on the command line.
expect_rc 0 "$LATSCOPE" trace -o sec.json -- true --token=tok-SECRET1 --api-key SECRET2 \
    'Authorization: Bearer SECRET3' password=SECRET4 'https://bob:SECRET5@example.com/x?a=1&api_key=SECRET6' \
    --model resnet50 -H 'X-Api-Key: SECRET7' 'Bearer SECRET8' --keep-me plain.txt
python3 - sec.json <<'PY' || fail "latscope_command"
import json, sys
d = json.load(open(sys.argv[1]))
cmd = d["latscope_command"]
if isinstance(cmd, str):
    cmd = json.loads(cmd)
s = " ".join(cmd)
print(cmd)
for i in range(1, 9):
    assert "SECRET%d" % i not in s, ("SECRET%d" % i, s)
assert cmd[0] == "true" and "--token=REDACTED" in cmd and "--api-key" in cmd, cmd
assert cmd[cmd.index("--api-key") + 1] == "REDACTED", cmd
assert "password=REDACTED" in cmd and "Authorization: REDACTED" in cmd, cmd
assert "https://bob:REDACTED@example.com/x?a=1&api_key=REDACTED" in cmd, cmd
# what is not secret stays as it was
assert cmd[cmd.index("--model") + 1] == "resnet50", cmd
assert cmd[cmd.index("--keep-me") + 1] == "plain.txt", cmd
assert "Bearer REDACTED" in cmd, cmd
PY
grep -q SECRET sec.json && fail "a secret reached the trace file"
exit 0

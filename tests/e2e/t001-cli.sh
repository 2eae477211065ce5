#!/usr/bin/env bash
# t001-cli: the CLI conventions every command follows (help, version, exit codes, streams).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"

expect_rc 0 "$LATSCOPE" help
for c in bench trace analyze doctor report diff version; do
    contains "$TMPDIR/out" "$c"
done
expect_rc 0 "$LATSCOPE" --help
contains "$TMPDIR/out" "usage: latscope"

expect_rc 0 "$LATSCOPE" version
grep -qE '^latscope [^ ]+$' "$TMPDIR/out" || fail "version line: $(cat "$TMPDIR/out")"

# Unknown command and option: usage error (2), diagnostics on stderr, nothing on stdout.
expect_rc 2 "$LATSCOPE" no-such-command
[[ ! -s $TMPDIR/out ]] || fail "stdout not empty on usage error"
contains "$TMPDIR/err" "unknown command"
expect_rc 2 "$LATSCOPE" --bogus
expect_rc 2 "$LATSCOPE"

# Every command answers --help with exit 0 on stdout, also through `latscope help CMD`.
for c in bench trace analyze doctor report diff version; do
    expect_rc 0 "$LATSCOPE" "$c" --help
    contains "$TMPDIR/out" "usage: latscope $c"
    expect_rc 0 "$LATSCOPE" help "$c"
    contains "$TMPDIR/out" "usage: latscope $c"
done

# No colour escapes when NO_COLOR is set or output is not a TTY.
NO_COLOR=1 "$LATSCOPE" no-such-command 2>"$TMPDIR/err" || true
if grep -q $'\033' "$TMPDIR/err"; then fail "colour escape with NO_COLOR"; fi

# A full stdout is an error, not silent data loss.
if [[ -w /dev/full ]]; then
    set +e; "$LATSCOPE" help >/dev/full 2>"$TMPDIR/err"; rc=$?; set -e
    [[ $rc -eq 1 ]] || fail "help >/dev/full exited $rc, want 1"
    contains "$TMPDIR/err" "latscope: error: writing standard output: No space left on device"
fi
exit 0

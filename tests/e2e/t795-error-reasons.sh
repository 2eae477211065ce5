#!/usr/bin/env bash
# t795-error-reasons: error lines carry the program name once ("latscope: error:" /
# "latscope: MODULE: error:"); a stdout that cannot be written (/dev/full: ENOSPC) exits 2 for
# diff and doctor, whose 1 is a verdict, and 1 elsewhere, naming the reason; report -o names the
# path the user gave (never its .tmp), writes a device in place (a rename would replace the
# node) and leaves no temporary; bench --hdr-log on a full disk says ENOSPC like --records and
# leaves no partial file.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
T=$TMPDIR
D=$LATSCOPE_SRCDIR/tests/data
tr=$D/handmade-analyze-basic.json

# ---- (a) the program name once
expect_rc 2 "$LATSCOPE" no-such-command
contains "$T/err" "latscope: error: unknown command 'no-such-command'; run 'latscope help'"
expect_rc 2 "$LATSCOPE" analyze "$T/absent.json"
contains "$T/err" "latscope: analyze: error: $T/absent.json: cannot open: No such file or directory"
expect_rc 2 "$LATSCOPE" diff "$T/absent.json" "$tr"
for f in out err; do
    ! grep -q 'latscope: latscope' "$T/$f" || { cat "$T/$f" >&2; fail "program name twice"; }
done
expect_rc 2 "$LATSCOPE" analyze --no-such-option "$tr"
! grep -q 'latscope: latscope' "$T/err" || { cat "$T/err" >&2; fail "program name twice"; }

[[ -c /dev/full ]] || skip "no /dev/full character device: the write-failure checks need it"

# full_rc CMD...: runs CMD with stdout on /dev/full; its status in $rc, stderr in $T/err
full_rc() { set +e; "$@" >/dev/full 2>"$T/err"; rc=$?; set -e; }

# ---- (b) stdout on a full disk: the reason, and an exit status that is not a verdict
expect_rc 0 "$LATSCOPE" diff "$tr" "$tr"
full_rc "$LATSCOPE" diff "$tr" "$tr"
[[ $rc -eq 2 ]] || { cat "$T/err" >&2; fail "diff >/dev/full exited $rc, want 2 (1 means a rule fired)"; }
contains "$T/err" "latscope: error: writing standard output: No space left on device"
full_rc "$LATSCOPE" diff --format json "$tr" "$tr"
[[ $rc -eq 2 ]] || fail "diff --format json >/dev/full exited $rc, want 2"
full_rc "$LATSCOPE" doctor "$D/handmade-doctor-dataloader.json"
[[ $rc -eq 2 ]] || fail "doctor >/dev/full exited $rc, want 2"
contains "$T/err" "No space left on device"
full_rc "$LATSCOPE" analyze "$tr"
[[ $rc -eq 1 ]] || fail "analyze >/dev/full exited $rc, want 1"
contains "$T/err" "latscope: error: writing standard output: No space left on device"

# ---- (c) report -o: the user's path and the reason; a device is written in place
expect_rc 1 "$LATSCOPE" report -o /dev/full "$tr"
contains "$T/err" "latscope: report: error: cannot write /dev/full: No space left on device"
[[ -c /dev/full ]] || fail "report -o /dev/full replaced the device node"
[[ ! -e /dev/full.tmp ]] || fail "report left /dev/full.tmp"
expect_rc 1 "$LATSCOPE" report --format svg --plot steps -o /dev/full "$tr"
contains "$T/err" "latscope: report: error: cannot write /dev/full: No space left on device"
[[ -c /dev/full ]] || fail "report --format svg -o /dev/full replaced the device node"
expect_rc 1 "$LATSCOPE" report -o "$T/no/dir/x.html" "$tr"
contains "$T/err" "latscope: report: error: cannot write $T/no/dir/x.html: No such file or directory"
! grep -q 'x.html.tmp' "$T/err" || fail "the error names the temporary file"
# a regular file is still replaced only when complete
echo old >"$T/r.html"
expect_rc 0 "$LATSCOPE" report -o "$T/r.html" "$tr"
[[ $(head -c 15 "$T/r.html") == '<!DOCTYPE html>' ]] || fail "r.html not a report: $(head -c 40 "$T/r.html")"
[[ ! -e $T/r.html.tmp ]] || fail "temporary file left behind"

#!/usr/bin/env bash
# t795-error-reasons: error lines carry the program name once ("latscope: error:" /
# "latscope: MODULE: error:"); a stdout that cannot be written (/dev/full: ENOSPC) exits 2 for
# diff and doctor, whose 1 is a verdict, and 1 elsewhere, naming the reason; report -o names the
# path the user gave (never its .tmp), writes a device in place (a rename would replace the
# node) and leaves no temporary; bench --hdr-log on a full disk says ENOSPC like --records and
# leaves no partial file.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
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

# ---- (d) bench output files on a full disk: the path, ENOSPC, no partial file left
start_fixture
expect_rc 1 "$LATSCOPE" bench -c 1 -n 200 --hdr-log /dev/full "$FIXTURE_URL/"
contains "$T/err" "latscope: bench: error: --hdr-log /dev/full: No space left on device"
! grep -q 'Input/output error\|write error' "$T/err" || { cat "$T/err" >&2; fail "EIO wording"; }
[[ -c /dev/full ]] || fail "bench --hdr-log removed /dev/full"
# A real full file system: a 64 KiB tmpfs (root only; skipped where mount is not allowed).
mnt=$T/full
mkdir -p "$mnt"
mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null || skip "cannot mount a tmpfs (needs root): (a)-(c) and /dev/full passed"
trap 'umount "$mnt" 2>/dev/null || true; stop_fixtures' EXIT
fill() { rm -f "$mnt/fill"; dd if=/dev/zero of="$mnt/fill" bs=1k count="$1" 2>/dev/null || true; }
# full before the run, then 4 KiB left: the log fails part way (many windows, three tags each)
for kb in 64 60; do
    fill $kb
    expect_rc 1 "$LATSCOPE" bench -c 1 -d 2s --window 50ms --hdr-log "$mnt/h.hlog" "$FIXTURE_URL/"
    contains "$T/err" "latscope: bench: error: --hdr-log $mnt/h.hlog: No space left on device (the partial file was removed)"
    ! grep -q 'Input/output error\|write error' "$T/err" || { cat "$T/err" >&2; fail "EIO wording ($kb KiB)"; }
    [[ $(grep -c -- '--hdr-log' "$T/err") -eq 1 ]] || { cat "$T/err" >&2; fail "more than one --hdr-log line"; }
    [[ ! -e $mnt/h.hlog ]] || fail "partial --hdr-log file left ($kb KiB filled)"
    expect_rc 1 "$LATSCOPE" bench -c 1 -n 5000 --records "$mnt/r.jsonl" "$FIXTURE_URL/"
    contains "$T/err" "latscope: bench: error: --records $mnt/r.jsonl: No space left on device (the partial file was removed)"
    [[ ! -e $mnt/r.jsonl ]] || fail "partial --records file left ($kb KiB filled)"
done
# room enough: the log is written and kept
rm -f "$mnt/fill"
expect_rc 0 "$LATSCOPE" bench -c 1 -n 50 --hdr-log "$mnt/h.hlog" "$FIXTURE_URL/"
head -1 "$mnt/h.hlog" | grep -qF '#[Histogram log format version 1.3]' || fail "--hdr-log not written with room"

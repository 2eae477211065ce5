#!/usr/bin/env bash
# t736-report-doctor-verdict: the report's doctor card says what the CLI says. Headless Chromium
# (optional: SKIP without it) renders the report of an input no rule applies to
# (tests/data/handmade-merge-cpu.json: 2 CPU samples) and of a clean CPU trace; the DOM holds
# "No rule applies to this input" (never "No finding") and "No significant finding", as
# `latscope doctor` prints them.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v chromium >/dev/null || skip "chromium not installed (apt-get install chromium)"
T=$TMPDIR
D=$LATSCOPE_SRCDIR/tests/data
dom() { # HTML: the rendered body (without the embedded data) in $T/body
    timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$T/chrome-profile" --dump-dom "file://$1#page=0" >"$T/dom" 2>/dev/null ||
        fail "chromium failed on $1"
    grep -q '<body data-status="ok"' "$T/dom" || fail "$1: self-check did not pass"
    sed '/id="report-data"/,$d' "$T/dom" >"$T/body"
}
"$LATSCOPE" report "$D/handmade-merge-cpu.json" -o "$T/n.html" 2>/dev/null || fail "report failed"
set +e
"$LATSCOPE" doctor "$D/handmade-merge-cpu.json" >"$T/cli.txt" 2>&1
rc=$?
set -e
[[ $rc -eq 3 ]] || fail "doctor exit $rc, want 3 (no rule applies)"
contains "$T/cli.txt" "No rule applies to this input"
dom "$T/n.html"
grep -q "No rule applies to this input" "$T/body" || fail "report lacks the CLI's 'No rule applies'"
! grep -q "No finding" "$T/body" || fail "report says 'No finding' where no rule applies"
"$LATSCOPE" report "$D/handmade-doctor-cpurule-python-neg.json" -o "$T/c.html" 2>/dev/null || fail "report failed"
set +e
"$LATSCOPE" doctor "$D/handmade-doctor-cpurule-python-neg.json" >"$T/cli2.txt" 2>&1
set -e
if grep -q "No significant finding" "$T/cli2.txt"; then
    dom "$T/c.html"
    grep -q "No significant finding" "$T/body" || fail "report lacks 'No significant finding'"
fi
exit 0

#!/usr/bin/env bash
# t805-report-csp-hashes: the report's Content-Security-Policy allows only its own inline script
# and style, named by SHA-256 (issue 32 item 5; no 'unsafe-inline'). The hashes in the page equal
# Python's hashlib over the <script> and <style> elements' text; headless Chromium (optional:
# SKIP without it) renders a trace page, a CPU-sample page and a compare + diff page with the
# self-check passed and no CSP violation on the console; a page whose script is altered by one
# character stays "loading" with the script-src violation logged, a script added after the
# page's own (what an escaping slip would let in) does not run, and an altered style is refused.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (it checks the hashes)"
T=$TMPDIR
D=$LATSCOPE_SRCDIR/tests/data
"$LATSCOPE" report "$D/handmade-doctor-launch.json" -o "$T/a.html" 2>/dev/null || fail "report failed"
"$LATSCOPE" report "$D/handmade-doctor-cpu.json" -o "$T/cpu.html" 2>/dev/null || fail "report failed"
"$LATSCOPE" report "$D/handmade-doctor-launch.json" "$D/handmade-doctor-sync.json" -o "$T/c.html" \
    2>/dev/null || fail "report failed"
for f in a cpu c; do
    ! grep -q "unsafe-inline" "$T/$f.html" || fail "$f.html: the CSP still allows 'unsafe-inline'"
    python3 - "$T/$f.html" <<'PY' || fail "$f.html: CSP hashes do not match the inline elements"
import base64, hashlib, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
def h(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
styles = re.findall(r"<style>(.*?)</style>", page, re.S)
assert len(scripts) == 1 and len(styles) == 1, (len(scripts), len(styles))
src = dict((d.split()[0], d.split()[1:]) for d in csp.split(";") if d.strip())
assert src["script-src"] == [h(scripts[0])], (src["script-src"], h(scripts[0]))
assert src["style-src"] == [h(styles[0])], (src["style-src"], h(styles[0]))
assert src["default-src"] == ["'none'"], src
PY
done
command -v chromium >/dev/null || skip "chromium not installed (LATSCOPE_DEPS_BROWSER=1 scripts/deps.sh)"
report_dom_ok "$T/a.html" 0
grep -q 'class="legend"' "$T/body" || fail "trace page: no legend (its swatches are inline styles)"
report_dom_ok "$T/cpu.html" 0
for p in 0 1 2 3; do report_dom_ok "$T/c.html" $p; done
# one character of the script changed: the browser refuses to run it
sed 's/self-check ok/self-check OK/' "$T/a.html" >"$T/alt.html"
cmp -s "$T/a.html" "$T/alt.html" && fail "the script has no 'self-check ok' to alter"
report_chrome "$T/alt.html" 0
grep -q '<body data-status="loading"' "$T/dom" || fail "an altered script ran: $(grep -o '<body[^>]*>' "$T/dom")"
grep -q "violates the following Content Security Policy directive 'script-src" "$T/console" ||
    fail "no script-src violation logged for the altered script"
# a script element added after the page's own (an escaping slip) does not run
sed 's|</body>|<script>document.body.setAttribute("data-pwned","1")</script></body>|' "$T/a.html" >"$T/inj.html"
report_chrome "$T/inj.html" 0
grep -q '<body data-status="ok"' "$T/dom" || fail "the page's own script stopped running"
! grep -o '<body[^>]*>' "$T/dom" | grep -q 'data-pwned' || fail "an injected inline script ran"
grep -q "violates the following Content Security Policy directive 'script-src" "$T/console" ||
    fail "no script-src violation logged for the injected script"
# the style altered: refused (the page's script still runs)
sed 's/--fg:#1d2330/--fg:#1d2331/' "$T/a.html" >"$T/sty.html"
cmp -s "$T/a.html" "$T/sty.html" && fail "the style has no --fg to alter"
report_chrome "$T/sty.html" 0
grep -q "violates the following Content Security Policy directive 'style-src" "$T/console" ||
    fail "no style-src violation logged for the altered style"
exit 0

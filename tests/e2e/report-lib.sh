# report-lib.sh - helpers for the `latscope report` tests (t60x), sourced after lib.sh.
#
# report_data FILE: prints the JSON document embedded in the page (the one line of the
#   <script type="application/json" id="report-data"> element).
# report_self_contained FILE: fails when the page references anything outside itself: an
#   http(s):// or protocol-relative src/href/action, a <link>, CSS @import/url(), or a network
#   API (fetch, XMLHttpRequest, WebSocket, EventSource, sendBeacon, importScripts) in the page's
#   own code (the data line is left out: trace names may say anything); and when the CSP that
#   forbids every fetch is missing.
report_data() {
    sed -n 's/.*<script type="application\/json" id="report-data">\(.*\)<\/script>.*/\1/p' "$1"
}
report_self_contained() {
    local f=$1 code
    code=$(grep -v 'id="report-data"' "$f")
    [[ -n $code ]] || fail "$f: empty page"
    ! grep -Eiq '(src|href|action|srcset|poster)[[:space:]]*=[[:space:]]*["'"'"']?[[:space:]]*(https?:)?//' "$f" ||
        fail "$f references an external resource: $(grep -Eio '(src|href)[^>]{0,80}' "$f" | head -3)"
    ! grep -Eq '(fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon|importScripts)[[:space:]]*\(|<link|@import|url\(' <<<"$code" ||
        fail "$f: the page's code can reach the network"
    grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$f" || fail "$f: no CSP"
    [[ $(report_data "$f" | wc -l) -eq 1 ]] || fail "$f: no embedded data line"
}

# report_chrome FILE PAGE: headless Chromium (the caller skips without it) loads FILE at
#   #page=PAGE; the DOM after the scripts ran goes to $TMPDIR/dom, the console (stderr log) to
#   $TMPDIR/console, the rendered document without the page's script and data to $TMPDIR/body.
# report_dom_ok FILE PAGE: report_chrome, then fails unless the self-check passed (body
#   data-status="ok"), no script error and no Content-Security-Policy violation was logged.
report_chrome() {
    local mult=1
    [[ ${LATSCOPE_SAN:-0} == 1 ]] && mult=3
    timeout $((120 * mult)) chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --no-first-run --user-data-dir="$TMPDIR/chrome-profile" --enable-logging=stderr --v=0 \
        --dump-dom "file://$1#page=$2" >"$TMPDIR/dom" 2>"$TMPDIR/console" ||
        fail "chromium failed on $1 page $2: $(tail -5 "$TMPDIR/console")"
    sed '/id="report-data"/,$d' "$TMPDIR/dom" >"$TMPDIR/body"
}
report_dom_ok() {
    report_chrome "$1" "$2"
    grep -q '<body data-status="ok"' "$TMPDIR/dom" ||
        fail "$1 page $2: self-check did not pass: $(grep -o '<div id="selfcheck">[^<]*' "$TMPDIR/dom") $(grep CONSOLE "$TMPDIR/console" | head -3)"
    ! grep -q 'Uncaught' "$TMPDIR/console" || fail "$1 page $2: $(grep 'Uncaught' "$TMPDIR/console")"
    ! grep -q 'Content Security Policy' "$TMPDIR/console" ||
        fail "$1 page $2: CSP violation: $(grep 'Content Security Policy' "$TMPDIR/console" | head -3 | cut -c1-400)"
}

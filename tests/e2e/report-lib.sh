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

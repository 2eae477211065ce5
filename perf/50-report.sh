#!/usr/bin/env bash
# 50-report.sh - `latscope report`: generation time and HTML size on corpus traces and on a
# synthetic trace of about 1 M timeline events (perf/gen-kineto-trace.py REPORT_SCALE_MB MB,
# gzip, in a temp dir, never committed; REPORT_SCALE_MB=0 skips it). With chromium installed,
# also the page's own first-view time and JSON parse time (its self-check line). Never asserts.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # NAME FILE
    local name=$1 f=$2 w m
    /usr/bin/time -f "%e %M" "$LATSCOPE" report "$f" -o "$tmp/$name.html" 2>"$tmp/err" >/dev/null ||
        { echo "report.$name	FAILED		$(head -1 "$tmp/err")"; return; }
    read -r w m < <(tail -1 "$tmp/err")
    ev=$(sed -n 's/.*page(s), \([0-9]*\) timeline events.*/\1/p' "$tmp/err")
    echo "report.$name.wall	$w	s	$ev timeline events, peak RSS $((m / 1024)) MB"
    echo "report.$name.size	$(awk -v b="$(stat -c %s "$tmp/$name.html")" 'BEGIN{printf "%.2f", b/1e6}')	MB	$(awk -v b="$(stat -c %s "$tmp/$name.html")" -v e="$ev" 'BEGIN{ if (e > 0) printf "%.1f", b/e; else printf "-" }') bytes per event"
    if command -v chromium >/dev/null; then
        sc=$(timeout 300 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/prof" \
            --dump-dom "file://$tmp/$name.html#page=0" 2>/dev/null | grep -o 'self-check ok[^<·]*' || true)
        ms=$(sed -n 's/.*drawn in \([0-9]*\) ms (JSON parse \([0-9]*\) ms).*/\1 \2/p' <<<"$sc")
        [[ -n $ms ]] && echo "report.$name.first-view	${ms% *}	ms	headless Chromium, JSON parse ${ms#* } ms"
    fi
    return 0
}
H=$LATSCOPE_TRACES/hta/tests/data
[[ -e $H/df_index_resolver/df_index_resolver.json.gz ]] && one df_index_resolver "$H/df_index_resolver/df_index_resolver.json.gz"
[[ -e $H/mtia_trace_single_rank/mtia_rank_0.json.gz ]] && one mtia_rank_0 "$H/mtia_trace_single_rank/mtia_rank_0.json.gz"
mb=${REPORT_SCALE_MB:-400}
if ((mb > 0)); then
    if command -v python3 >/dev/null; then
        python3 "$LATSCOPE_SRCDIR/perf/gen-kineto-trace.py" "$mb" "$tmp/syn.json.gz" --gzip
        one "synthetic-${mb}MB" "$tmp/syn.json.gz"
    else
        echo "report.scale	skipped		python3 missing"
    fi
fi

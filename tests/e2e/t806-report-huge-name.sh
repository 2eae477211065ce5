#!/usr/bin/env bash
# t806-report-huge-name: a 20 MB kernel name (~20 KB gzipped; issue 32 item 2) no longer makes a
# 189 MB report: every string of the page's data is cut to 4096 bytes with an ellipsis
# (REP_STR_MAX, src/report/html.h), the page shows names up to 256 characters with the cut name
# on hover. The page of one such trace, and of two (the diff page too), stays under 1 MB; the
# report's peak RSS (/usr/bin/time -f %M, else python's getrusage) stays <= 8 x the name's
# size per trace + 64 MB (before: 376 MB; the trace itself is read into memory, so not 20 x the gzip);
# the embedded top kernel is the name's first 4096 bytes and "…". Headless Chromium (optional:
# SKIP without it) shows the top-kernel cells as 256 characters and "…", their title 4096 and
# "…". The RSS bound is for the release build; the sanitizer pass prints it only.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (it writes the trace)"
T=$TMPDIR
N=$((20 * 1024 * 1024))
python3 - "$T/huge.json.gz" "$N" <<'EOF_PY'
import gzip, json, sys
name = "k" * int(sys.argv[2])
ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1,
       "dur": 5, "args": {"correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": 10, "dur": 30,
       "args": {"correlation": 1, "stream": 7, "device": 0}}]
with gzip.open(sys.argv[1], "wt") as f:
    json.dump({"traceEvents": ev}, f)
EOF_PY
# rss K CMD...: runs CMD (a report of K traces), fails unless it exits 0 and its peak RSS is
# <= K x 8 x N + 64 MB
rss() {
    local k=$1 kb rc limit
    shift
    set +e
    if [[ -x /usr/bin/time ]]; then
        /usr/bin/time -f %M -o "$T/rss" "$@" >"$T/out" 2>"$T/err"
        rc=$?
        kb=$(tail -1 "$T/rss")
    else
        python3 -c 'import resource,subprocess,sys
r=subprocess.call(sys.argv[2:],stdout=open(sys.argv[1]+"/out","w"),stderr=open(sys.argv[1]+"/err","w"))
open(sys.argv[1]+"/rss","w").write("%d\n"%resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r)' "$T" "$@"
        rc=$?
        kb=$(cat "$T/rss")
    fi
    set -e
    [[ $rc -eq 0 ]] || fail "'$*' exited $rc: $(cat "$T/err")"
    [[ $kb =~ ^[0-9]+$ ]] || fail "no peak RSS measured for '$*' ($kb)"
    limit=$((k * 8 * N / 1024 + 64 * 1024))
    echo "report of $k trace(s): peak RSS ${kb} KB (limit $limit KB)"
    [[ ${LATSCOPE_SAN:-0} == 1 ]] && return 0
    ((kb <= limit)) || fail "'$*' took ${kb} KB of RSS, over $k x 8 x $N bytes + 64 MB"
}
rss 1 "$LATSCOPE" report "$T/huge.json.gz" -o "$T/h.html"
rss 2 "$LATSCOPE" report "$T/huge.json.gz" "$T/huge.json.gz" -o "$T/h2.html"
for f in h h2; do
    size=$(stat -c %s "$T/$f.html")
    echo "$f.html: $size bytes"
    ((size < 1024 * 1024)) || fail "$f.html is $size bytes for a $N-byte name"
done
report_data "$T/h.html" >"$T/data.json"
check_py "$T/data.json" '
k = d["pages"][0]["analysis"]["ranks"][0]["top_kernels"][0]["name"]
assert k == "k" * 4096 + "\u2026", len(k)'
command -v chromium >/dev/null || skip "chromium not installed (LATSCOPE_DEPS_BROWSER=1 scripts/deps.sh)"
report_dom_ok "$T/h.html" 0
python3 - "$T/body" <<'EOF_PY' || fail "the top-kernel cells do not show the cut name"
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
cells = re.findall(r'<td class="name" title="(k*)(…?)"><a class="jump"[^>]*>(k*)(…?)</a>', s)
assert cells, "no top-kernel cell with a title"
for title, te, text, e in cells:
    assert (len(title), te, len(text), e) == (4096, "…", 256, "…"), (len(title), te, len(text), e)
assert not re.search(r">k{257}", s), "a text node longer than 256 characters of the name"
print(len(cells), "cells")
EOF_PY
exit 0

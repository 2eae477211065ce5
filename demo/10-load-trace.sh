#!/usr/bin/env bash
# 10-load-trace.sh - the trace reader: load a PyTorch profiler trace (gzip, streamed) and show
# what the model holds; then a broken file, to show the error message.
set -euo pipefail
: "${LATSCOPE:?}" "${LATSCOPE_SRCDIR:?}"
traces=${LATSCOPE_TRACES:-$LATSCOPE_SRCDIR/../shared/traces}
t=$traces/hta/tests/data/df_index_resolver/df_index_resolver.json.gz
[[ -f $t ]] || t=$LATSCOPE_SRCDIR/tests/data/handmade-kineto-current.json
step "Loading a Kineto trace: $(basename "$t") (54 MB of JSON when it is the corpus file)"
start=$(date +%s%N)
"$LATSCOPE" selftest load "$t" | grep -E '^(format|json_bytes|input_events|events|kind\.|steps|rank|world_size|devices|device\.)'
echo "(loaded in $(( ($(date +%s%N) - start) / 1000000 )) ms)"
step "A truncated trace fails with the byte offset and what was expected"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c 900 "$LATSCOPE_SRCDIR/tests/data/handmade-kineto-current.json" >"$tmp/cut.json"
"$LATSCOPE" selftest load "$tmp/cut.json" || true

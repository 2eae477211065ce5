#!/usr/bin/env bash
# 10-parse.sh - trace reader throughput and memory (`latscope selftest load`, parse only, no
# analyses) on the largest Kineto traces of the shared corpus, gzip as shipped and an
# uncompressed copy made in a temp dir. Best of $PARSE_RUNS runs (default 3).
# Prints name<TAB>value<TAB>unit<TAB>note. MB = 10^6 bytes of JSON.
set -euo pipefail
: "${LATSCOPE:?}" "${LATSCOPE_TRACES:?}"
runs=${PARSE_RUNS:-3}
tmp=$(mktemp -d /tmp/latscope-perf-parse.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[[ -x /usr/bin/time ]] || { echo "parse	skipped		/usr/bin/time missing"; exit 0; }

# measure NAME ARGS...: best wall time of $runs; prints wall, cpu (user+sys), peak RSS KB.
measure() {
    local best="" line
    for _ in $(seq "$runs"); do
        line=$(/usr/bin/time -f '%e %U %S %M' "$LATSCOPE" selftest load "$@" 2>&1 >/dev/null |
            tail -1)
        read -r w u s m <<<"$line"
        if [[ -z $best ]] || awk -v a="$w" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then
            best="$w $(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}') $m"
        fi
    done
    echo "$best"
}

for rel in hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz \
    hta/tests/data/df_index_resolver/df_index_resolver.json.gz; do
    gz=$LATSCOPE_TRACES/$rel
    name=$(basename "$rel" .json.gz)
    if [[ ! -f $gz ]]; then
        echo "parse.$name	skipped		trace absent"
        continue
    fi
    plain=$tmp/$name.json
    gzip -dc "$gz" >"$plain"
    bytes=$(stat -c %s "$plain")
    mb=$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}')
    rate() { awk -v b="$bytes" -v t="$1" 'BEGIN{ if (t <= 0) t = 0.005; printf "%.0f", b/1e6/t }'; }
    read -r w c m <<<"$(measure "$plain")"
    echo "parse.$name.json.cpu	$(rate "$c")	MB/s	one core: ${mb} MB of JSON per CPU second (user+sys ${c} s)"
    echo "parse.$name.json.wall	$(rate "$w")	MB/s	wall ${w} s (includes waiting for a CPU on a loaded machine)"
    echo "parse.$name.json.rss	$((m / 1024))	MB	peak RSS = $(awk -v m="$m" -v b="$bytes" 'BEGIN{printf "%.2f", m*1024/b}') x JSON size"
    read -r w c m <<<"$(measure "$gz")"
    echo "parse.$name.gz.wall	$(rate "$w")	MB/s	JSON MB per wall s, zlib inflate on a 2nd thread; wall ${w} s, cpu ${c} s"
    echo "parse.$name.gz.rss	$((m / 1024))	MB	peak RSS"
    read -r w c m <<<"$(measure --no-thread "$gz")"
    echo "parse.$name.gz.1thread.wall	$(rate "$w")	MB/s	inflate and parse on one thread; wall ${w} s, cpu ${c} s"
    read -r w c m <<<"$(measure --args-all "$plain")"
    echo "parse.$name.json.args-all.rss	$((m / 1024))	MB	--args-all (every arg kept) peak RSS; cpu ${c} s"
    read -r w c m <<<"$(measure --no-args "$plain")"
    echo "parse.$name.json.no-args.cpu	$(rate "$c")	MB/s	--no-args (columns only); rss $((m / 1024)) MB"
    s=$( { /usr/bin/time -f '%U %S' gzip -dc "$gz" >/dev/null; } 2>&1 | tail -1 | awk '{print $1+$2}')
    echo "inflate.$name.gzip-dc.cpu	$(rate "$s")	MB/s	reference: gzip -dc alone, per CPU second"
done

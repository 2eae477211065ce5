#!/usr/bin/env bash
# 11-analyze.sh - `latscope analyze` end to end (parse + every analysis + JSON output) on the
# largest Kineto traces of the shared corpus: MB of JSON per wall second and peak RSS, for the
# gzip file as shipped and for an uncompressed copy. Best of $ANALYZE_RUNS runs (default 3).
# With LATSCOPE_PERF_HTA=1, Holistic Trace Analysis (PyPI HolisticTraceAnalysis, installed into
# a temporary venv, or $HTA_PYTHON if set) runs the same analyses on df_index_resolver and the
# ratio is printed. Prints name<TAB>value<TAB>unit<TAB>note. MB = 10^6 bytes of JSON.
set -euo pipefail
: "${LATSCOPE:?}" "${LATSCOPE_TRACES:?}" "${LATSCOPE_SRCDIR:?}"
runs=${ANALYZE_RUNS:-3}
tmp=$(mktemp -d /tmp/latscope-perf-analyze.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[[ -x /usr/bin/time ]] || { echo "analyze	skipped		/usr/bin/time missing"; exit 0; }

# measure CMD...: best wall time of $runs; prints "wall cpu rss_kb".
measure() {
    local best="" line w u s m
    for _ in $(seq "$runs"); do
        line=$(/usr/bin/time -f '%e %U %S %M' "$@" 2>&1 >/dev/null | tail -1)
        read -r w u s m <<<"$line"
        if [[ -z $best ]] || awk -v a="$w" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then
            best="$w $(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}') $m"
        fi
    done
    echo "$best"
}
# precise_wall CMD...: mean wall seconds of 20 runs by hyperfine (ms resolution), or nothing
# when hyperfine (LATSCOPE_DEPS_PERF=1 scripts/deps.sh) is absent.
precise_wall() {
    command -v hyperfine >/dev/null && command -v jq >/dev/null || return 0
    hyperfine -N -w 2 -r 20 --export-json "$tmp/hf.json" -- "$(printf '%q ' "$@")" >/dev/null 2>&1 &&
        jq -r '.results[0].mean' "$tmp/hf.json"
}
rate() { awk -v b="$1" -v w="$2" 'BEGIN{ if (w <= 0) w = 0.005; printf "%.0f", b/1e6/w }'; }

df_wall="" df_cpu=""
for rel in hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz \
    hta/tests/data/df_index_resolver/df_index_resolver.json.gz \
    hta/tests/data/negative_queue_length_values_check/rank0.json.gz; do
    gz=$LATSCOPE_TRACES/$rel
    name=$(basename "$(dirname "$rel")")
    if [[ ! -f $gz ]]; then
        echo "analyze.$name	skipped		trace absent"
        continue
    fi
    plain=$tmp/$name.json
    gzip -dc "$gz" >"$plain"
    bytes=$(stat -c %s "$plain")
    mb=$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}')
    read -r w c m <<<"$(measure "$LATSCOPE" analyze --format json "$plain")"
    echo "analyze.$name.json	$(rate "$bytes" "$w")	MB/s	${mb} MB JSON, parse + all analyses, wall ${w} s, cpu ${c} s"
    echo "analyze.$name.json.rss	$((m / 1024))	MB	peak RSS ($(awk -v m="$m" -v b="$bytes" 'BEGIN{printf "%.2f", m*1024/b}') x JSON size)"
    read -r w c m <<<"$(measure "$LATSCOPE" analyze --format json "$gz")"
    echo "analyze.$name.gz	$(rate "$bytes" "$w")	MB/s	JSON MB per wall s from the .gz; wall ${w} s, cpu ${c} s"
    echo "analyze.$name.gz.rss	$((m / 1024))	MB	peak RSS"
    an=$("$LATSCOPE" -v analyze --format json "$gz" 2>&1 >/dev/null | sed -n 's/.*analyses took \([0-9.]*\) s wall, \([0-9.]*\) s cpu.*/\1 \2/p')
    echo "analyze.$name.analyses-only	${an#* }	s	cpu time of analysis_run() alone (wall ${an% *} s), after the load"
    if [[ $name == df_index_resolver ]]; then
        df_wall=$w
        df_cpu=$c
        pw=$(precise_wall "$LATSCOPE" analyze --format json "$gz")
        if [[ -n $pw ]]; then
            df_wall=$(awk -v w="$pw" 'BEGIN{printf "%.4f", w}')
            echo "analyze.$name.gz.hyperfine	$df_wall	s	mean wall of 20 runs (hyperfine); used for the HTA ratio"
        fi
    fi
done

if [[ ${LATSCOPE_PERF_HTA:-0} == 1 && -n $df_wall ]]; then
    py=${HTA_PYTHON:-}
    if [[ -z $py ]]; then
        python3 -m venv "$tmp/venv" >/dev/null 2>&1 &&
            "$tmp/venv/bin/pip" install -q HolisticTraceAnalysis >/dev/null 2>&1 &&
            py=$tmp/venv/bin/python
    fi
    if [[ -z $py ]]; then
        echo "hta.df_index_resolver	skipped		pip install HolisticTraceAnalysis failed"
    else
        mkdir -p "$tmp/df"
        ln -s "$LATSCOPE_TRACES/hta/tests/data/df_index_resolver/df_index_resolver.json.gz" "$tmp/df/"
        # best of $runs, like latscope's numbers (same measure() helper)
        read -r hw hc hm <<<"$(measure "$py" "$LATSCOPE_SRCDIR/perf/hta/hta-analyses.py" "$tmp/df")"
        echo "hta.df_index_resolver.gz	$hw	s	HTA $("$py" -c 'import importlib.metadata as m; print(m.version("HolisticTraceAnalysis"))') same analyses: best wall of $runs; cpu ${hc} s, peak RSS $((hm / 1024)) MB"
        echo "hta.df_index_resolver.ratio	$(awk -v h="$hw" -v l="$df_wall" 'BEGIN{ if (l <= 0) l = 0.005; printf "%.1f", h/l }')	x	HTA wall / latscope analyze wall (gzip input)"
        echo "hta.df_index_resolver.cpu-ratio	$(awk -v h="$hc" -v l="$df_cpu" 'BEGIN{ if (l <= 0) l = 0.005; printf "%.1f", h/l }')	x	HTA cpu / latscope analyze cpu (gzip input; latscope ${df_cpu} s)"
    fi
fi

# Scale check: a synthetic Kineto trace of ANALYZE_SCALE_MB MB (perf/gen-kineto-trace.py, in a
# temp dir, never committed) analysed end to end; peak RSS must stay bounded (below the JSON
# size). ANALYZE_SCALE_MB=0 skips it.
mb=${ANALYZE_SCALE_MB:-2048}
if ((mb > 0)); then
    free_mb=$(df -Pm "$tmp" | awk 'NR==2 {print $4}')
    if ! command -v python3 >/dev/null; then
        echo "analyze.scale	skipped		python3 missing"
    elif ((free_mb < mb * 2)); then
        echo "analyze.scale	skipped		only ${free_mb} MB free in $tmp"
    else
        python3 "$LATSCOPE_SRCDIR/perf/gen-kineto-trace.py" "$mb" "$tmp/syn.json"
        bytes=$(stat -c %s "$tmp/syn.json")
        /usr/bin/time -f "%e %U %S %M" "$LATSCOPE" -v analyze --format json "$tmp/syn.json" 2>"$tmp/err" >/dev/null
        line=$(tail -1 "$tmp/err")
        read -r w u s m <<<"$line"
        c=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
        an=$(sed -n 's/.*analyses took \([0-9.]*\) s wall, \([0-9.]*\) s cpu.*/\2/p' "$tmp/err")
        echo "analyze.scale.${mb}MB.cpu	$(awk -v b="$bytes" -v c="$c" 'BEGIN{printf "%.0f", b/1e6/c}')	MB/s	$((bytes / 1000000)) MB JSON end to end, cpu ${c} s (analyses ${an} s), wall ${w} s"
        echo "analyze.scale.${mb}MB.rss	$((m / 1024))	MB	peak RSS = $(awk -v m="$m" -v b="$bytes" 'BEGIN{printf "%.2f", m*1024/b}') x JSON size"
    fi
fi

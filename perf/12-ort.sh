#!/usr/bin/env bash
# 12-ort.sh - the ONNX Runtime reader and analysis against the Kineto reader (issue 15: an ORT
# profile of 1 M events analysed at >= the Kineto reader's MB/s): `latscope analyze --format
# json` on a synthetic ORT profile of ORT_EVENTS events (default 10^6, perf/gen-ort-profile.py)
# and on a synthetic Kineto trace of the same size in bytes (perf/gen-kineto-trace.py), plain
# JSON, --threads 1, best of $ORT_RUNS (default 3) wall times. MB = 10^6 bytes of JSON.
set -euo pipefail
: "${LATSCOPE:?}"
here=$(cd "$(dirname "$0")" && pwd)
runs=${ORT_RUNS:-3}
n=${ORT_EVENTS:-1000000}
command -v python3 >/dev/null || { echo "ort	skipped		python3 missing"; exit 0; }
[[ -x /usr/bin/time ]] || { echo "ort	skipped		/usr/bin/time missing"; exit 0; }
tmp=$(mktemp -d /tmp/latscope-perf-ort.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/gen-ort-profile.py" "$n" "$tmp/p_2026-12-01_00-00-00_000.json"
ort=$tmp/p_2026-12-01_00-00-00_000.json
bytes=$(stat -c %s "$ort")
python3 "$here/gen-kineto-trace.py" "$(awk -v b="$bytes" 'BEGIN{print b/1e6}')" "$tmp/k.pt.trace.json"
kin=$tmp/k.pt.trace.json

best() { # FILE: best wall time, cpu, peak RSS KB of analyze
    local b="" line
    for _ in $(seq "$runs"); do
        line=$(/usr/bin/time -f '%e %U %S %M' "$LATSCOPE" analyze --threads 1 --format json "$1" \
            2>&1 >/dev/null | tail -1)
        read -r w u s m <<<"$line"
        if [[ -z $b ]] || awk -v a="$w" -v c="${b%% *}" 'BEGIN{exit !(a<c)}'; then
            b="$w $(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}') $m"
        fi
    done
    echo "$b"
}
for f in "$ort" "$kin"; do
    sz=$(stat -c %s "$f")
    read -r w c m <<<"$(best "$f")"
    name=$([[ $f == "$ort" ]] && echo "ort.analyze_${n}_events" || echo "kineto.analyze_same_bytes")
    echo "$name	$(awk -v b="$sz" -v t="$w" 'BEGIN{if (t<=0) t=0.005; printf "%.0f", b/1e6/t}')	MB/s	$(awk -v b="$sz" 'BEGIN{printf "%.0f", b/1e6}') MB, wall ${w} s, cpu ${c} s, peak RSS $((m / 1024)) MB"
done

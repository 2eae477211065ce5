#!/usr/bin/env bash
# 40-trace.sh - costs of `latscope trace` that a CPU-only machine can measure:
#  - NVTX hook cost in the traced program: ns per push/pop pair, no tool vs liblatscope-cupti.so
#    (a C program using the NVTX3 headers; median of $TRACE_RUNS runs of 1M pairs)
#  - collector cost: merging a synthetic capture of $TRACE_LAUNCHES kernel launches (one runtime
#    API record + one kernel record each, plus their ac2g flows) and writing Kineto JSON, plain
#    and gzip: ns per event, output size, peak RSS (`latscope trace --merge`)
# Prints name<TAB>value<TAB>unit<TAB>note. No GPU involved: CUPTI's own cost needs one.
set -euo pipefail
: "${LATSCOPE:?}" "${LATSCOPE_SRCDIR:?}"
runs=${TRACE_RUNS:-5}
launches=${TRACE_LAUNCHES:-200000}
tmp=$(mktemp -d /tmp/latscope-perf-trace.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
inc=${CUDA_HOME:-/usr/local/cuda}/include
lib=$(dirname "$LATSCOPE")/liblatscope-cupti.so

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

if [[ -f $inc/nvtx3/nvToolsExt.h && -e $lib ]]; then
    cat >"$tmp/nvtx-bench.c" <<'C'
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    nvtxRangePushA("warmup");
    nvtxRangePop();
    double t0 = now();
    for (int i = 0; i < n; i++) {
        nvtxRangePushA("step");
        nvtxRangePop();
    }
    printf("%.2f\n", (now() - t0) / n);
    return 0;
}
C
    gcc -O2 -I"$inc" -o "$tmp/nvtx-bench" "$tmp/nvtx-bench.c" -ldl
    off=$(for _ in $(seq "$runs"); do "$tmp/nvtx-bench"; done | median)
    on=$(for _ in $(seq "$runs"); do
        "$LATSCOPE" trace --nvtx -o "$tmp/n.json.gz" -- "$tmp/nvtx-bench" 2>/dev/null
    done | median)
    printf 'trace.nvtx.pushpop.no_tool\t%s\tns\tper push/pop pair, median of %s runs of 1M\n' "$off" "$runs"
    printf 'trace.nvtx.pushpop.latscope\t%s\tns\tper pair with liblatscope-cupti.so (copy, intern, record)\n' "$on"
else
    printf 'trace.nvtx\tskipped\t\tNVTX3 headers or liblatscope-cupti.so absent\n'
fi

command -v python3 >/dev/null || { printf 'trace.merge\tskipped\t\tpython3 absent\n'; exit 0; }
mkdir "$tmp/cap"
python3 - "$tmp/cap" "$launches" <<'PY'
import struct, sys
out, n = sys.argv[1], int(sys.argv[2])
def rec(t, p): return struct.pack("<HHI", t, 1, len(p)) + p + b"\0" * ((-len(p)) % 8)
def s(i, txt):
    b = txt.encode(); return rec(2, struct.pack("<II", i, len(b)) + b)
C = 10**12
parts = [b"LATSCAP1", s(1, "python3"), s(2, "cudaLaunchKernel"),
         s(3, "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)"),
         rec(1, struct.pack("<IIIIqqII", 7, 1, 130001, 130001, 0, 0, 1, 0)),
         rec(3, struct.pack("<qQqq", 10**9, 10**9 + C, 0, 30))]
api = struct.Struct("<QQIIIIIIII"); k = struct.Struct("<QQQQQQqIIIIIIIIiiiiiiiiIHBB")
for i in range(1, n + 1):
    t = 2 * 10**9 + i * 5000 + C
    parts.append(rec(4, api.pack(t, t + 3000, 211, 7, 7, i, 0, 2, 0, 0)))
    parts.append(rec(5, k.pack(t + 4000, t + 6000, 0, 0, 0, 0, 0, 0, 1, 7, i, 3, 0, 0, 0, 128, 1, 1, 256, 1, 1, 0, 0, 0, 32, 0, 0)))
open(out + "/cuda.7.lcap", "wb").write(b"".join(parts))
PY
in_mb=$(du -m "$tmp/cap/cuda.7.lcap" | cut -f1)
for ext in json json.gz; do
    best=""
    for _ in $(seq 3); do
        line=$(/usr/bin/time -f '%e %M' "$LATSCOPE" trace --merge "$tmp/cap" -o "$tmp/out.$ext" 2>&1 |
            tail -1)
        read -r w m <<<"$line"
        if [[ -z $best ]] || awk -v a="$w" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then best="$w $m"; fi
    done
    read -r w m <<<"$best"
    events=$((2 * launches))
    size=$(du -k "$tmp/out.$ext" | cut -f1)
    ns=$(awk -v w="$w" -v e="$events" 'BEGIN { printf "%.0f", w * 1e9 / e }')
    printf 'trace.merge_write.%s\t%s\tns/event\t%s events + %s flows from a %s MB capture, best of 3 (wall %s s)\n' \
        "$ext" "$ns" "$events" "$events" "$in_mb" "$w"
    printf 'trace.merge_write.%s.size\t%s\tKiB\toutput size\n' "$ext" "$size"
    printf 'trace.merge_write.%s.rss\t%s\tKiB\tpeak RSS\n' "$ext" "$m"
done

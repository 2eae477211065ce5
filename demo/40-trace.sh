#!/usr/bin/env bash
# 40-trace.sh - `latscope trace`: run a program with the capture library injected and get one
# Kineto trace. On this CPU-only machine CUDA capture is off (said clearly, the program still
# runs); NVTX ranges from a small C program (tests/e2e/data/nvtx-app.c) are captured for real.
# On a GPU machine the same command also records kernels, copies, syncs and API calls
# (scripts/gpu-check.sh).
set -euo pipefail
root=${LATSCOPE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
L=${LATSCOPE:-$root/build/latscope}
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
tmp=$(mktemp -d /tmp/latscope-demo-trace.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
inc=${CUDA_HOME:-/usr/local/cuda}/include

step "trace: a command on a machine without the NVIDIA driver (it still runs; exit status kept)"
"$L" trace -o "$tmp/sh.json" -- sh -c 'echo "hello from the traced command"; exit 3' || echo "(exit status $?)"

if [[ -f $inc/nvtx3/nvToolsExt.h && -e $(dirname "$L")/liblatscope-cupti.so ]] && command -v gcc >/dev/null; then
    gcc -O1 -o "$tmp/nvtx-app" -I"$inc" "$root/tests/e2e/data/nvtx-app.c" -ldl -lpthread
    step "trace --nvtx: NVTX ranges of a C program (two threads, marks, a domain), no GPU needed"
    "$L" trace --nvtx -o "$tmp/nvtx.pt.trace.json.gz" -- "$tmp/nvtx-app" 100
    step "the trace is Kineto JSON: first events (open it in Perfetto or with latscope analyze)"
    zcat "$tmp/nvtx.pt.trace.json.gz" | python3 -c '
import json, sys, collections
d = json.load(sys.stdin)
c = collections.Counter((e.get("cat"), e["name"]) for e in d["traceEvents"] if e["ph"] != "M")
for (cat, name), n in sorted(c.items(), key=lambda x: -x[1])[:6]: print(f"  {n:4d} x {cat:16s} {name}")
print("  metadata:", ", ".join(k for k in d if k != "traceEvents"))' 2>/dev/null || true
    step "trace --off: the same program with nothing loaded, for the true latency"
    "$L" trace --off -- "$tmp/nvtx-app" 100 >/dev/null
else
    echo "(CUDA toolkit headers or the capture library absent: NVTX demo skipped)"
fi

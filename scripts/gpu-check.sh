#!/usr/bin/env bash
# gpu-check.sh - the GPU half of `latscope trace` (issue #7): run on a machine with an NVIDIA GPU.
#
#   scripts/gpu-check.sh                 build, then run every check (one H200: ~6 min)
#   scripts/gpu-check.sh --prebuilt DIR  use latscope + liblatscope-cupti.so (+ libs) from DIR
#   scripts/gpu-check.sh --bundle DIR    (on the build machine) build and copy the binaries and
#                                        their non-libc shared libraries into DIR, for --prebuilt
#   scripts/gpu-check.sh --dry-run       (anywhere) syntax, build, nvcc compile, Python checks
#                                        against a synthetic capture; no GPU needed
#
# Steps (one PASS/FAIL/SKIP/INFO line each in $OUT/summary.txt, everything in $OUT/log.txt):
#  1. inventory: nvidia-smi, nvcc, torch, libcupti locations
#  2. build latscope and a CUDA C program with known counts (kernels on two streams, H2D/D2H
#     copies, memsets, stream and device syncs, NVTX ranges, a CUDA graph replayed M times)
#  3. trace it: every kernel/copy/memset appears once, correlated (args.correlation + ac2g flow)
#     to exactly one runtime API call that starts before it (clock alignment), syncs recorded,
#     NVTX ranges projected on the GPU, nothing dropped
#  4. launch overhead: 100k empty launches, µs per launch untraced (--off) vs traced
#  5. PyTorch inference (ResNet-50 if torchvision is there, a small transformer; random weights,
#     batch 1, 300 iterations): per-iteration time with --off, with latscope, with torch.profiler
#  6. latscope analyze / doctor on the traces, when those commands are built
#  7. small gzipped traces for examples/traces/ in $OUT
# Environment: OUT (results folder; default $TMPDIR/latscope-gpu-check-out), ITERS (default 300), LATSCOPE
# (a prebuilt binary). Exit status: 0 when no step FAILed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-${TMPDIR:-/tmp}/latscope-gpu-check-out}
ITERS=${ITERS:-300}
mode=run
prebuilt=
bundle=
while [[ $# -gt 0 ]]; do
    case $1 in
    --dry-run) mode=dry ;;
    --prebuilt) prebuilt=$2; shift ;;
    --bundle) mode=bundle; bundle=$2; shift ;;
    -h | --help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

if [[ $mode == bundle ]]; then
    make -C "$root" -j"$(nproc)" all || exit 1
    mkdir -p "$bundle/lib"
    cp "$root/build/latscope" "$root/build/liblatscope-cupti.so" "$bundle/"
    ldd "$root/build/latscope" | awk '$3 ~ /^\// { print $3 }' |
        grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
        while read -r f; do cp -L "$f" "$bundle/lib/"; done
    du -sh "$bundle"
    echo "bundle ready: carry $bundle and run scripts/gpu-check.sh --prebuilt $bundle"
    exit 0
fi

mkdir -p "$OUT"
work=$(mktemp -d "${TMPDIR:-/tmp}/latscope-gpu.XXXXXX")
trap 'rm -rf "$work"' EXIT
summary=$OUT/summary.txt
log=$OUT/log.txt
: >"$summary"
: >"$log"
nfail=0
say() { echo "$*" | tee -a "$summary"; }
pass() { say "PASS  $*"; }
failc() { say "FAIL  $*"; nfail=$((nfail + 1)); }
skip() { say "SKIP  $*"; }
info() { say "INFO  $*"; }
run() { echo "+ $*" >>"$log"; "$@" >>"$log" 2>&1; }
PY=${PYTHON:-python3}

# --- sources written by this script -------------------------------------------------------

write_app() {
    cat >"$work/app.cu" <<'EOF'
// app.cu - a CUDA program with known activity counts for `latscope trace` (gpu-check.sh).
// Usage: app check ITERS  |  app launches N
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                           \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

__global__ void k_add(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
__global__ void k_scale(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 0.5f; }
__global__ void k_graph(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] -= 1.0f; }
__global__ void k_empty(void) {}

static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "launches") == 0) {
        int n = atoi(argv[2]);
        CK(cudaFree(0));
        for (int i = 0; i < 1000; i++) k_empty<<<1, 1>>>();
        CK(cudaDeviceSynchronize());
        double t0 = now_us();
        for (int i = 0; i < n; i++) {
            k_empty<<<1, 1>>>();
            if (i % 1000 == 999) CK(cudaDeviceSynchronize());
        }
        CK(cudaDeviceSynchronize());
        printf("LAUNCH_US %.4f\n", (now_us() - t0) / n);
        return 0;
    }
    int iters = argc > 2 ? atoi(argv[2]) : 200;
    const int n = 1 << 18, G = 5, M = 20;
    size_t bytes = n * sizeof(float);
    float *h, *d, *d2;
    cudaStream_t s0, s1;
    CK(cudaMallocHost(&h, bytes));
    CK(cudaMalloc(&d, bytes));
    CK(cudaMalloc(&d2, bytes));
    CK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    memset(h, 0, bytes);
    for (int i = 0; i < iters; i++) {
        nvtxRangePushA("iter");
        CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s0));
        k_add<<<n / 256, 256, 0, s0>>>(d, n);
        k_scale<<<n / 256, 256, 0, s1>>>(d2, n);
        CK(cudaMemsetAsync(d2, 0, bytes, s1));
        CK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s0));
        CK(cudaStreamSynchronize(s0));
        CK(cudaStreamSynchronize(s1));
        nvtxRangePop();
    }
    CK(cudaDeviceSynchronize());
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < G; k++) k_graph<<<n / 256, 256, 0, s0>>>(d, n);
    CK(cudaStreamEndCapture(s0, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    for (int m = 0; m < M; m++) CK(cudaGraphLaunch(ge, s0));
    CK(cudaStreamSynchronize(s0));
    printf("EXPECT {\"iters\": %d, \"k_add\": %d, \"k_scale\": %d, \"htod\": %d, \"dtoh\": %d, "
           "\"memset\": %d, \"stream_sync\": %d, \"device_sync\": 1, \"graph_kernels\": %d, "
           "\"graph_launches\": %d}\n", iters, iters, iters, iters, iters, iters, 2 * iters + 1,
           G * M, M);
    return 0;
}
EOF
}

write_py() {
    cat >"$work/infer.py" <<'EOF'
# infer.py - batch-1 inference loop for gpu-check.sh; prints one RESULT json line.
import argparse, json, statistics, sys, time
p = argparse.ArgumentParser()
p.add_argument("--model", choices=["resnet50", "transformer"], required=True)
p.add_argument("--iters", type=int, default=300)
p.add_argument("--warmup", type=int, default=30)
p.add_argument("--torch-profiler", metavar="PATH")
a = p.parse_args()
try:
    import torch
except ImportError:
    print("SKIP torch not installed"); sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP no CUDA device for torch"); sys.exit(77)
torch.manual_seed(0)
dev = torch.device("cuda")
if a.model == "resnet50":
    try:
        import torchvision
    except ImportError:
        print("SKIP torchvision not installed"); sys.exit(77)
    model = torchvision.models.resnet50(weights=None)
    x = torch.randn(1, 3, 224, 224)
else:
    layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048,
                                             batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=6, enable_nested_tensor=False)
    x = torch.randn(1, 128, 512)
model = model.to(dev).eval()
x = x.to(dev)

def loop(n, times):
    for _ in range(n):
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push("iter")
        model(x)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        times.append((time.perf_counter() - t0) * 1e3)

with torch.inference_mode():
    loop(a.warmup, [])
    times = []
    if a.torch_profiler:
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            loop(a.iters, times)
        prof.export_chrome_trace(a.torch_profiler)
    else:
        loop(a.iters, times)
times.sort()
print("RESULT " + json.dumps({
    "model": a.model, "mode": "torch.profiler" if a.torch_profiler else "plain",
    "iters": a.iters, "mean_ms": statistics.fmean(times), "p50_ms": times[len(times) // 2],
    "p99_ms": times[min(len(times) - 1, int(len(times) * 0.99))],
    "torch": torch.__version__, "cuda": torch.version.cuda}), flush=True)
EOF
}

write_checker() {
    cat >"$work/check_trace.py" <<'EOF'
# check_trace.py TRACE EXPECT_JSON - the app trace against the app's known counts.
# Prints PASS/FAIL/WARN lines; exit 1 when any FAIL.
import collections, gzip, json, sys
path, expect = sys.argv[1], json.loads(sys.argv[2])
op = gzip.open if path.endswith(".gz") else open
d = json.load(op(path, "rt"))
ev = d["traceEvents"]
fails = 0
def out(ok, what, warn=False):
    global fails
    tag = "PASS" if ok else ("WARN" if warn else "FAIL")
    if not ok and not warn: fails += 1
    print(f"{tag}  app: {what}")
by_cat = collections.defaultdict(list)
for e in ev:
    if e.get("ph") == "X": by_cat[e.get("cat")].append(e)
kern = by_cat["kernel"]
names = collections.Counter(e["name"] for e in kern)
def count(sub):  # demangled "k_add(float*, int)" or mangled "_Z5k_addPfi"
    return sum(v for k, v in names.items() if sub in k)
print(f"INFO  app: kernel names {dict(names)}")
for k in ("k_add", "k_scale"):
    out(count(k) == expect[k], f"{k} kernels {count(k)} == {expect[k]}")
gk = [e for e in kern if "k_graph" in e["name"]]
out(len(gk) == expect["graph_kernels"], f"graph kernels {len(gk)} == {expect['graph_kernels']}")
gcorr = {e["args"]["correlation"] for e in gk}
out(len(gcorr) == expect["graph_launches"],
    f"graph kernels share one correlation per cudaGraphLaunch: {len(gcorr)} == {expect['graph_launches']}")
mc = collections.Counter(e["name"].split()[1] for e in by_cat["gpu_memcpy"])
out(mc["HtoD"] == expect["htod"], f"HtoD copies {mc['HtoD']} == {expect['htod']}")
out(mc["DtoH"] == expect["dtoh"], f"DtoH copies {mc['DtoH']} == {expect['dtoh']}")
out(len(by_cat["gpu_memset"]) == expect["memset"], f"memsets {len(by_cat['gpu_memset'])} == {expect['memset']}")
sy = collections.Counter(e["name"] for e in by_cat["cuda_sync"])
out(sy["Stream Sync"] >= expect["stream_sync"], f"Stream Sync records {sy['Stream Sync']} >= {expect['stream_sync']}")
out(sy["Context Sync"] >= expect["device_sync"],
    f"Context Sync records {sy['Context Sync']} >= {expect['device_sync']} (missing before CUDA 13.0U1)", warn=True)
api = by_cat["cuda_runtime"] + by_cat["cuda_driver"]
api_by_corr = collections.defaultdict(list)
for e in api:
    api_by_corr[(e["pid"], e["args"]["correlation"])].append(e)
flows = collections.defaultdict(set)
for e in ev:
    if e.get("ph") in ("s", "f") and e.get("cat") == "ac2g": flows[e["id"]].add(e["ph"])
gpu = kern + by_cat["gpu_memcpy"] + by_cat["gpu_memset"]
pids = {e["pid"] for e in api}
bad_corr = bad_flow = bad_order = 0
worst_lead = 0.0
for e in gpu:
    c = e["args"]["correlation"]
    launches = [a for p in pids for a in api_by_corr.get((p, c), []) if a["cat"] == "cuda_runtime"]
    if len(launches) != 1:
        bad_corr += 1; continue
    if flows.get(c) != {"s", "f"}: bad_flow += 1
    lead = launches[0]["ts"] - e["ts"]  # > 0: GPU work "before" its launch = clock error
    worst_lead = max(worst_lead, lead)
    if lead > 2.0: bad_order += 1
out(bad_corr == 0, f"every GPU activity has exactly one runtime call with its correlation ({bad_corr} without)")
out(bad_flow == 0, f"every GPU activity has an ac2g s/f flow pair ({bad_flow} without)")
out(bad_order == 0, f"no GPU activity starts > 2 us before its launch call (clock alignment; worst {worst_lead:.3f} us, {bad_order} bad)")
launch_names = collections.Counter(a["name"] for a in api)
out(launch_names["cudaLaunchKernel"] >= expect["k_add"] + expect["k_scale"],
    f"cudaLaunchKernel calls {launch_names['cudaLaunchKernel']} >= {expect['k_add'] + expect['k_scale']}")
nv = [e for e in by_cat["user_annotation"] if e["name"] == "iter"]
out(len(nv) == expect["iters"], f"NVTX 'iter' ranges {len(nv)} == {expect['iters']}")
gnv = [e for e in by_cat["gpu_user_annotation"] if e["name"] == "iter"]
out(len(gnv) >= expect["iters"], f"NVTX ranges projected on GPU streams: {len(gnv)} >= {expect['iters']}")
zero = [e for e in gpu if e["dur"] <= 0]
out(not zero, f"GPU activities with a zero duration: {len(zero)}", warn=True)
cap = d.get("latscope_capture", {})
out(cap.get("cupti_dropped", 1) == 0 and cap.get("lost_records", 1) == 0,
    f"nothing dropped (cupti {cap.get('cupti_dropped')}, latscope {cap.get('lost_records')})")
out(len(d.get("deviceProperties", [])) >= 1, f"deviceProperties: {[p.get('name') for p in d.get('deviceProperties', [])]}")
out("overhead" in by_cat, f"CUPTI overhead records: {len(by_cat['overhead'])}", warn=True)
print(f"INFO  app: capture status {cap.get('status')}")
print(f"INFO  app: clock syncs {cap.get('clock_syncs')}, steps {cap.get('clock_steps')}, injection self time {cap.get('injection_self_ns')} ns")
sys.exit(1 if fails else 0)
EOF
}

# A synthetic capture standing in for the app's (dry run only): exercises --merge and the checker.
write_synth() {
    cat >"$work/synth.py" <<'EOF'
import struct, sys, os
out, iters, G, M = sys.argv[1], 3, 5, 2
def rec(t, p): return struct.pack("<HHI", t, 1, len(p)) + p + b"\0" * ((-len(p)) % 8)
strs = {}
buf = [b"LATSCAP1"]
def s(txt):
    if txt not in strs:
        strs[txt] = len(strs) + 1
        b = txt.encode(); buf.append(rec(2, struct.pack("<II", strs[txt], len(b)) + b))
    return strs[txt]
C = 10**12
buf.append(rec(1, struct.pack("<IIIIqqII", 4242, 1, 130001, 130001, 0, 0, s("app"), 0)))
buf.append(rec(3, struct.pack("<qQqq", 10**9, 10**9 + C, 0, 30)))
buf.append(rec(10, struct.pack("<qIIiiiiiiiiiiii", 150 * 10**9, 0, s("NVIDIA H200"), 9, 0, 132, 1024, 64, 32, 65536, 65536, 32, 49152, 233472, 0)))
t, corr = 2 * 10**9, [0]
def api(name, cbid):
    global t
    corr[0] += 1; t += 1000
    buf.append(rec(4, struct.pack("<QQIIIIIIII", t + C, t + C + 500, cbid, 4242, 11, corr[0], 0, s(name), 0, 0)))
    return corr[0]
def kernel(name, c, stream):
    buf.append(rec(5, struct.pack("<QQQQQQqIIIIIIIIiiiiiiiiIHBB", t + C + 800, t + C + 900, 0, 0, 0, 0, 0, 0, 1, stream, c, s(name), 0, 0, 0, 1, 1, 1, 256, 1, 1, 0, 0, 0, 16, 0, 0)))
def memcpy(kind, c, stream):
    buf.append(rec(6, struct.pack("<QQQQQIIIIIIIIIIBBBBB3x", t + C + 800, t + C + 900, 4096, 1, 0, 0, 1, stream, c, 2**32 - 1, 2**32 - 1, 2**32 - 1, 2**32 - 1, 0, 0, kind, 2, 3, 0, 0)))
def memset(c, stream):
    buf.append(rec(7, struct.pack("<QQQQIIIIIIIHH", t + C + 800, t + C + 900, 4096, 0, 0, 1, stream, c, 0, 0, 0, 3, 0)))
def sync(kind, c, stream):
    buf.append(rec(8, struct.pack("<QQIIIIII", t + C + 950, t + C + 990, kind, c, 1, stream, 2**32 - 1, 0)))
def nvtx(op, msg):
    buf.append(rec(12, struct.pack("<qQIIII", t, 0, 11, op, 0, s(msg) if msg else 0)))
for i in range(iters):
    nvtx(1, "iter")
    memcpy(1, api("cudaMemcpyAsync", 41), 13)
    kernel("k_add(float*, int)", api("cudaLaunchKernel", 211), 13)
    kernel("k_scale(float*, int)", api("cudaLaunchKernel", 211), 14)
    memset(api("cudaMemsetAsync", 51), 14)
    memcpy(2, api("cudaMemcpyAsync", 41), 13)
    sync(3, api("cudaStreamSynchronize", 131), 13)
    sync(3, api("cudaStreamSynchronize", 131), 14)
    t += 10000
    nvtx(2, None)
sync(4, api("cudaDeviceSynchronize", 165), 2**32 - 1)
for m in range(M):
    c = api("cudaGraphLaunch", 311)
    for g in range(G): kernel("k_graph(float*, int)", c, 13)
sync(3, api("cudaStreamSynchronize", 131), 13)
buf.append(rec(9, struct.pack("<QQIIIIII", 2 * 10**9 + C, 2 * 10**9 + C + 100, 2 << 16, 0, 0, 0, 0, 0)))
open(os.path.join(out, "cuda.4242.lcap"), "wb").write(b"".join(buf))
print('EXPECT {"iters": 3, "k_add": 3, "k_scale": 3, "htod": 3, "dtoh": 3, "memset": 3, "stream_sync": 7, "device_sync": 1, "graph_kernels": 10, "graph_launches": 2}')
EOF
}

# --- building --------------------------------------------------------------------------------

build_latscope() {
    if [[ -n $prebuilt ]]; then
        LATSCOPE=$(cd "$prebuilt" && pwd)/latscope
        # Only the libraries this machine lacks go on LD_LIBRARY_PATH: the traced programs
        # inherit it, and they must keep their own libz/libcrypto.
        local missing
        missing=$(ldd "$LATSCOPE" 2>/dev/null | awk '/not found/ { print $1 }')
        if [[ -n $missing ]]; then
            mkdir -p "$work/libs"
            for l in $missing; do cp -L "$prebuilt/lib/$l" "$work/libs/" 2>>"$log"; done
            export LD_LIBRARY_PATH=$work/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
            info "build: using bundled $(echo $missing | tr '\n' ' ')"
        fi
    elif [[ -z ${LATSCOPE:-} ]]; then
        run make -C "$root" -j"$(nproc)" all || { failc "build: make failed (see log.txt)"; return 1; }
        LATSCOPE=$root/build/latscope
    fi
    if ! "$LATSCOPE" version >>"$log" 2>&1; then
        failc "build: $LATSCOPE does not run (missing shared libraries? ldd in log.txt)"
        ldd "$LATSCOPE" >>"$log" 2>&1
        return 1
    fi
    local lib
    lib=$(dirname "$LATSCOPE")/liblatscope-cupti.so
    if [[ -e $lib ]]; then pass "build: $("$LATSCOPE" version) with $lib"; else
        failc "build: $lib missing (CUDA toolkit headers absent at build time?)"; return 1; fi
}

# --- the steps ----------------------------------------------------------------------------------

inventory() {
    {
        echo "== uname"; uname -a
        echo "== nvidia-smi"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
        echo "== nvcc"; nvcc --version 2>&1 | tail -2
        echo "== torch"; $PY -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())' 2>&1
        echo "== libcupti"; ls /usr/local/cuda/lib64/libcupti* 2>&1
        $PY -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null
        find / -name 'libcupti.so*' -not -path '/proc/*' 2>/dev/null | head -5
        echo "== libcuda"; ldconfig -p | grep libcuda.so; echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    } >>"$log" 2>&1
    # liblatscope-cupti.so reuses a libcupti the process already loaded, else LATSCOPE_CUPTI_LIB
    # (latscope trace sets it to the toolkit's), else libcupti.so.13 on the search path.
    if [[ -z ${LATSCOPE_CUPTI_LIB:-} && ! -e ${CUDA_HOME:-/usr/local/cuda}/lib64/libcupti.so.13 ]]; then
        local c
        c=$(find / -name 'libcupti.so.13*' -not -path '/proc/*' 2>/dev/null | head -1)
        [[ -n $c ]] && export LATSCOPE_CUPTI_LIB=$c
    fi
    info "libcupti: ${LATSCOPE_CUPTI_LIB:-${CUDA_HOME:-/usr/local/cuda}/lib64/libcupti.so.13}"
    local gpu
    gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
    if [[ -n $gpu ]]; then info "gpu: $gpu"; else failc "inventory: nvidia-smi found no GPU"; fi
    info "torch: $($PY -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo absent)"
}

build_app() {
    command -v nvcc >/dev/null || { skip "app: nvcc absent"; return 1; }
    local inc=${CUDA_HOME:-/usr/local/cuda}/include
    run nvcc -O2 -arch=sm_90 -I"$inc" -o "$work/app" "$work/app.cu" ||
        { failc "app: nvcc failed (see log.txt)"; return 1; }
}

check_app() {
    local expect
    if ! "$LATSCOPE" trace --cuda --nvtx -o "$work/app.pt.trace.json.gz" -- "$work/app" check 200 \
        >"$work/app.out" 2>"$work/app.err"; then
        cat "$work/app.out" "$work/app.err" >>"$log"; failc "app: traced run failed"; return
    fi
    cat "$work/app.out" "$work/app.err" >>"$log"
    expect=$(sed -n 's/^EXPECT //p' "$work/app.out")
    $PY "$work/check_trace.py" "$work/app.pt.trace.json.gz" "$expect" >"$work/check.out" 2>&1
    local rc=$?
    cat "$work/check.out" >>"$summary"
    [[ $rc == 0 ]] || nfail=$((nfail + 1))
    # Example trace: fewer iterations.
    "$LATSCOPE" trace --cuda --nvtx -o "$OUT/app.pt.trace.json.gz" -- "$work/app" check 20 >>"$log" 2>&1 &&
        info "example: app.pt.trace.json.gz $(du -k "$OUT/app.pt.trace.json.gz" | cut -f1) KiB"
}

launch_overhead() {
    local off on
    for i in 1 2 3; do
        off=$("$LATSCOPE" trace --off -- "$work/app" launches 100000 2>>"$log" | sed -n 's/LAUNCH_US //p')
        on=$("$LATSCOPE" trace --cuda -o "$work/launch.json.gz" -- "$work/app" launches 100000 2>>"$log" |
            sed -n 's/LAUNCH_US //p')
        echo "launch run $i: off $off us, traced $on us" >>"$log"
        echo "$off $on" >>"$work/launch.txt"
    done
    local med
    med=$(sort -n -k1 "$work/launch.txt" | awk '{o[NR]=$1} END {print o[2]}')
    local medon
    medon=$(sort -n -k2 "$work/launch.txt" | awk '{print $2}' | sort -n | awk '{o[NR]=$1} END {print o[2]}')
    info "launch overhead: median of 3 runs of 100k empty kernels: ${med} us/launch untraced, ${medon} us/launch traced"
    echo "{\"launch_us_off\": ${med:-null}, \"launch_us_traced\": ${medon:-null}}" >"$work/launch.json"
}

torch_runs() {
    if ! $PY -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
        skip "torch: not installed or no CUDA device"; return
    fi
    : >"$work/results.jsonl"
    for m in resnet50 transformer; do
        local r
        r=$("$LATSCOPE" trace --off -- $PY "$work/infer.py" --model $m --iters "$ITERS" 2>>"$log")
        if grep -q '^SKIP' <<<"$r"; then skip "torch $m: ${r#SKIP }"; continue; fi
        grep '^RESULT' <<<"$r" | sed 's/^RESULT //; s/"mode": "plain"/"mode": "off"/' >>"$work/results.jsonl" ||
            failc "torch $m --off: no result"
        r=$("$LATSCOPE" trace --cuda --nvtx -o "$work/$m.json.gz" -- $PY "$work/infer.py" --model $m \
            --iters "$ITERS" 2>>"$log")
        grep '^RESULT' <<<"$r" | sed 's/^RESULT //; s/"mode": "plain"/"mode": "latscope"/' >>"$work/results.jsonl" ||
            failc "torch $m latscope: no result"
        r=$($PY "$work/infer.py" --model $m --iters "$ITERS" --torch-profiler "$work/$m.torch.json" 2>>"$log")
        grep '^RESULT' <<<"$r" | sed 's/^RESULT //' >>"$work/results.jsonl" ||
            failc "torch $m torch.profiler: no result"
        # Example traces: 10 iterations.
        "$LATSCOPE" trace --cuda --nvtx -o "$OUT/$m.pt.trace.json.gz" -- $PY "$work/infer.py" \
            --model $m --iters 10 --warmup 5 >>"$log" 2>&1 &&
            info "example: $m.pt.trace.json.gz $(du -k "$OUT/$m.pt.trace.json.gz" | cut -f1) KiB"
        if [[ -s $work/$m.json.gz ]]; then
            $PY - "$work/$m.json.gz" <<'EOF' >>"$summary" 2>&1 || nfail=$((nfail + 1))
import gzip, json, sys, collections
d = json.load(gzip.open(sys.argv[1], "rt"))
c = collections.Counter(e.get("cat") for e in d["traceEvents"] if e.get("ph") == "X")
cap = d.get("latscope_capture", {})
ok = c["kernel"] > 0 and c["cuda_runtime"] + c["cuda_driver"] > 0
print(("PASS" if ok else "FAIL") + f"  torch trace {sys.argv[1].split('/')[-1]}: " +
      ", ".join(f"{k}={v}" for k, v in sorted(c.items())) +
      f"; dropped cupti={cap.get('cupti_dropped')} latscope={cap.get('lost_records')}; status={cap.get('status')}")
sys.exit(0 if ok else 1)
EOF
        fi
    done
    $PY - "$work/results.jsonl" <<'EOF' >>"$summary" 2>&1
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = collections.defaultdict(dict)
for r in rows: by[r["model"]][r["mode"]] = r
for m, modes in by.items():
    off = modes.get("off", {}).get("mean_ms")
    for mode in ("off", "latscope", "torch.profiler"):
        r = modes.get(mode)
        if not r: continue
        ov = f", overhead {100 * (r['mean_ms'] - off) / off:+.1f} %" if off and mode != "off" else ""
        print(f"INFO  torch {m} {mode}: mean {r['mean_ms']:.3f} ms/iter, p50 {r['p50_ms']:.3f}, p99 {r['p99_ms']:.3f}{ov}")
    if off and "latscope" in modes and "torch.profiler" in modes:
        ok = modes["latscope"]["mean_ms"] < modes["torch.profiler"]["mean_ms"]
        print(("PASS" if ok else "FAIL") + f"  torch {m}: latscope overhead below torch.profiler's")
EOF
}

doctor_runs() {
    local t
    for t in "$work/app.pt.trace.json.gz" "$work/resnet50.json.gz" "$work/transformer.json.gz"; do
        [[ -s $t ]] || continue
        for c in analyze doctor; do
            if "$LATSCOPE" $c --help 2>&1 | grep -q "not available"; then
                skip "latscope $c: not built yet"; continue
            fi
            if "$LATSCOPE" $c "$t" >"$work/$c.out" 2>&1 || [[ $c == doctor && $? == 1 ]]; then
                pass "latscope $c $(basename "$t") ($(wc -l <"$work/$c.out") lines)"
            else
                failc "latscope $c $(basename "$t") failed"
            fi
            { echo "== latscope $c $t"; cat "$work/$c.out"; } >>"$log"
        done
    done
}

# --- main -----------------------------------------------------------------------------------

write_app
write_py
write_checker

if [[ $mode == dry ]]; then
    bash -n "$0" && pass "dry: bash -n"
    build_latscope || exit 1
    if command -v nvcc >/dev/null; then
        run nvcc -O2 -arch=sm_90 -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$work/app" "$work/app.cu" &&
            pass "dry: nvcc builds app.cu for sm_90 (not run: no GPU)" || failc "dry: nvcc app.cu"
    else skip "dry: nvcc absent"; fi
    for f in infer.py check_trace.py; do
        run $PY -m py_compile "$work/$f" && pass "dry: $f compiles" || failc "dry: $f"
    done
    write_synth
    mkdir -p "$work/cap"
    expect=$($PY "$work/synth.py" "$work/cap" | sed -n 's/^EXPECT //p')
    run "$LATSCOPE" trace --merge "$work/cap" -o "$work/synth.json.gz" || failc "dry: --merge"
    if $PY "$work/check_trace.py" "$work/synth.json.gz" "$expect" >"$work/check.out" 2>&1; then
        pass "dry: checker accepts a synthetic capture with the app's shape"
    else
        failc "dry: checker on the synthetic capture"; cat "$work/check.out" >>"$summary"
    fi
    cat "$work/check.out" >>"$log"
    # The checker must also catch a broken trace: drop one kernel's flow.
    $PY - "$work/synth.json.gz" "$work/broken.json.gz" <<'EOF'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1], "rt"))
k = next(e for e in d["traceEvents"] if e.get("cat") == "kernel")
d["traceEvents"] = [e for e in d["traceEvents"] if not (e.get("ph") == "f" and e.get("id") == k["args"]["correlation"])]
d["traceEvents"].remove(k)
json.dump(d, gzip.open(sys.argv[2], "wt"))
EOF
    if $PY "$work/check_trace.py" "$work/broken.json.gz" "$expect" >"$work/check2.out" 2>&1; then
        failc "dry: checker passed a trace with a kernel removed"
    else pass "dry: checker fails a trace with a kernel removed ($(grep -c ^FAIL "$work/check2.out") FAIL lines)"; fi
    if $PY -c 'import torch' 2>/dev/null; then info "dry: torch importable here"; else
        info "dry: torch absent here: step 5 would SKIP"; fi
    say "dry run: $nfail failed"
    exit $((nfail > 0))
fi

inventory
build_latscope || { say "gpu-check: $nfail failed"; exit 1; }
if build_app; then
    check_app
    launch_overhead
fi
torch_runs
doctor_runs
[[ -s $work/launch.json ]] && cp "$work/launch.json" "$OUT/launch.json"
[[ -s $work/results.jsonl ]] && cp "$work/results.jsonl" "$OUT/results.jsonl"
say "gpu-check: $nfail failed"
exit $((nfail > 0))

#!/usr/bin/env bash
# t307-trace-mock-cupti: the CUDA capture path of liblatscope-cupti.so end to end without a GPU,
# against a mock libcupti (tests/e2e/data/mock-cupti.c) that speaks CUPTI's buffer protocol with
# real CUDA 13.0 record structs: InitializeInjection, kinds enabled (never the serialising
# KERNEL), buffer request/complete, conversion in the library, periodic flush thread, forced
# flush at exit, SIGTERM, _exit, fork, dropped-record counts and "CUPTI busy".
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
cd "$TMPDIR"
lib=$(dirname "$LATSCOPE")/liblatscope-cupti.so
inc=${CUDA_HOME:-/usr/local/cuda}/include
[[ -e $lib ]] || skip "liblatscope-cupti.so not built"
[[ -f $inc/cupti.h ]] || skip "CUPTI headers absent ($inc)"
command -v python3 >/dev/null || skip "python3 absent (used to check the JSON)"
gcc -O1 -shared -fPIC -fvisibility=hidden -isystem "$inc" -o libmockcupti.so \
    "$LATSCOPE_SRCDIR/tests/e2e/data/mock-cupti.c" -lpthread || fail "cannot build the mock"
gcc -O1 -o mock-app "$LATSCOPE_SRCDIR/tests/e2e/data/mock-app.c" -ldl || fail "cannot build mock-app"

# run NAME HOW SLEEP_MS [VAR=VALUE...]: one mock-app run into cap-NAME, merged into NAME.json.
run() {
    local name=$1 how=$2 ms=$3
    shift 3
    mkdir -p "cap-$name"
    set +e
    env LATSCOPE_TRACE_DIR="$TMPDIR/cap-$name" LATSCOPE_CUDA=1 LATSCOPE_FLUSH_MS=20 \
        LATSCOPE_CUPTI_LIB="$TMPDIR/libmockcupti.so" MOCK_CUPTI_LAUNCHES=100 "$@" \
        ./mock-app "$lib" "$how" "$ms" >"$name.out" 2>"$name.err"
    echo $? >"$name.rc"
    set -e
    grep -q "KERNEL (serialising)" "$name.err" && fail "$name: the serialising KERNEL kind was enabled"
    expect_rc 0 "$LATSCOPE" trace --merge "cap-$name" -o "$name.json"
}

# check NAME KERNELS: counts, correlation, flows, clock order, demangling, device properties.
check() {
    python3 - "$1.json" "$2" <<'PY' || fail "$1: trace content"
import json, sys
d = json.load(open(sys.argv[1])); want = int(sys.argv[2])
ev = d["traceEvents"]
k = [e for e in ev if e.get("cat") == "kernel"]
api = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "cuda_runtime"}
mc = [e for e in ev if e.get("cat") == "gpu_memcpy"]
assert len(k) == want, ("kernels", len(k), want)
assert all(e["name"] == "kernel(float*)" for e in k), k[0]["name"]
assert len(mc) == want // 10, ("memcpys", len(mc))
assert sum(1 for e in api.values() if e["name"] == "cudaLaunchKernel") == want
for e in k + mc:
    a = api[e["args"]["correlation"]]
    assert a["ts"] <= e["ts"], ("GPU work before its launch", a["ts"], e["ts"])
    assert e["ts"] - a["ts"] < 1000, ("launch to kernel > 1 ms", e["ts"] - a["ts"])
fl = [e for e in ev if e.get("cat") == "ac2g"]
assert len(fl) == 2 * (want + want // 10), ("flows", len(fl))
assert d["deviceProperties"][0]["name"] == "Mock H200"
assert d["deviceProperties"][0]["numSms"] == 132
print("ok", sys.argv[1], len(k), "kernels")
PY
}

run exit exit 100
[[ $(cat exit.rc) == 0 ]] || fail "mock-app exit: rc $(cat exit.rc)"
check exit 100
contains exit.json '"status":[{"pid"'
contains exit.json 'libmockcupti.so'

# Dropped records are counted and reported.
run drop exit 50 MOCK_CUPTI_DROPPED=7
check drop 100
contains drop.json '"cupti_dropped":7'

# SIGTERM: the library's handler writes what it has, then the default action kills the process.
run term term 400
[[ $(cat term.rc) == 143 ]] || fail "mock-app term: rc $(cat term.rc), want 143"
check term 100
contains term.json '"kind":"signal"'

# _exit skips every exit path: what the periodic flush thread already wrote survives.
run quick _exit 400
check quick 100

# fork: the child writes no file of its own (no NVTX) and takes none of the parent's records.
run fork fork 100
[[ $(ls cap-fork | wc -l) == 1 ]] || fail "fork: $(ls cap-fork) files"
check fork 100

# Another CUPTI subscriber (torch.profiler, Nsight): capture off with the reason, app unharmed.
run busy exit 50 MOCK_CUPTI_BUSY=1
[[ $(cat busy.rc) == 0 ]] || fail "busy: rc $(cat busy.rc)"
contains busy.json '"kind":"CUPTI busy"'
contains busy.json 'MULTIPLE_SUBSCRIBERS'
grep -q '"cat":"kernel"' busy.json && fail "busy: kernels recorded"
exit 0

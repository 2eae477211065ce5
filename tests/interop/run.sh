#!/usr/bin/env bash
# tests/interop/run.sh - latscope bench against real servers nobody here wrote, side by side with
# aiperf (issue 17, "Real servers in the test suite"). `make interop` runs it; `make check` does not
# (llama-cpp-python builds llama.cpp from source: 15-30 min on a 2-core machine, once).
#
#   tests/interop/run.sh [--install-only]
#
# Environment:
#   LATSCOPE                  the binary (default build/latscope)
#   LATSCOPE_INTEROP_VENV     the servers' venv (default build/interop-venv); aiperf gets its own,
#                             $LATSCOPE_INTEROP_VENV-aiperf (its pins differ from the servers')
#   LATSCOPE_INTEROP_OUT      results (default build/interop): summary.json, summary.md, every
#                             run's JSON, records, stderr and the servers' logs
#   LATSCOPE_INTEROP_NO_INSTALL=1   never pip install: use the venvs as they are, skip without
#   LATSCOPE_INTEROP_NO_LLAMA=1     only the FastAPI + onnxruntime part (no llama-cpp-python build)
#   LATSCOPE_INTEROP_LLAMA_SPEC     what pip installs (default 'llama-cpp-python[server]', the latest;
#                             'llama-cpp-python[server]==0.2.90' compiles 24 files instead of 193)
#   LATSCOPE_INTEROP_N1, _N4  requests per point at c=1 (default 20) and c=4 (default 40)
#   LLAMA_SERVER              a llama-server binary; without it one is built (cmake, ~4 min on
#                             2 cores) from the installed llama-cpp-python's vendored llama.cpp
#                             into build/interop-llama-server (LATSCOPE_INTEROP_LLAMA_BUILD);
#                             LATSCOPE_INTEROP_NO_LLAMA_SERVER=1 skips that server
#
# Exit: 0 every check held, 1 a check failed (summary.md lists which), 77 skipped (no python3
# venv, PyPI unreachable, an install failed: the reason is the last line).
#
# Nothing goes into the repository: models, venvs and results are under build/.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LATSCOPE=${LATSCOPE:-$ROOT/build/latscope}
VENV=${LATSCOPE_INTEROP_VENV:-$ROOT/build/interop-venv}
AVENV=$VENV-aiperf
OUT=${LATSCOPE_INTEROP_OUT:-$ROOT/build/interop}
N1=${LATSCOPE_INTEROP_N1:-20}
N4=${LATSCOPE_INTEROP_N4:-40}
AIPERF_VERSION=0.13.0
LLAMA_SPEC=${LATSCOPE_INTEROP_LLAMA_SPEC:-llama-cpp-python[server]}
# no multimodal library (mtmd/llava): the text server does not need it, and it is a tenth of the build
export CMAKE_ARGS=${CMAKE_ARGS:--DLLAVA_BUILD=OFF}
export ORT_DISABLE_TELEMETRY=1
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONUNBUFFERED=1
# aiperf and transformers: never reach a hub (there is none here); the tokenizer is a local dir.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false

skip() { echo "interop: SKIP: $*"; exit 77; }
say() { echo "interop: $*" >&2; }

[[ -x $LATSCOPE ]] || skip "no latscope binary at $LATSCOPE (make all first)"
command -v python3 >/dev/null || skip "python3 not installed (scripts/deps.sh installs it)"
mkdir -p "$OUT"

# ---------- install (once; later runs reuse the venvs) ----------
# The FastAPI + onnxruntime part and aiperf install in a minute; llama-cpp-python builds llama.cpp
# from source. A failed llama-cpp-python build is recorded and the LLM part skipped; the rest runs.
have_ort() {
    [[ -x $VENV/bin/python ]] && "$VENV/bin/python" -c 'import fastapi, uvicorn, onnxruntime, onnx, numpy, gguf' 2>/dev/null
}
have_llama() {
    [[ ${LATSCOPE_INTEROP_NO_LLAMA:-0} == 1 ]] && return 0
    [[ -x $VENV/bin/python ]] && "$VENV/bin/python" -c 'import llama_cpp, llama_cpp.server' 2>/dev/null; }
have_aiperf() {
    [[ ${LATSCOPE_INTEROP_NO_LLAMA:-0} == 1 ]] && return 0 # aiperf runs only the LLM workloads
    [[ -x $AVENV/bin/aiperf ]] && "$AVENV/bin/python" -c 'import aiperf' 2>/dev/null; }
# Before any venv is made: can pip reach an index at all? (one small download, no install)
pypi_reachable() { timeout 120 python3 -m pip download --no-deps -d "$OUT/.probe" -q six >"$OUT/pip-probe.log" 2>&1; }
mkvenv() {
    [[ -x $1/bin/pip ]] && return 0
    python3 -m venv "$1" 2>"$OUT/venv.err" ||
        skip "python3 -m venv $1 failed ($(tail -1 "$OUT/venv.err"); Debian: apt-get install python3-venv)"
    "$1/bin/pip" install -q --upgrade pip >/dev/null 2>&1 || true # pip 23's resolver takes 15+ min on aiperf
}
rm -f "$OUT/llama-install-failed" "$OUT/server-failures"
if ! have_ort || ! have_llama || ! have_aiperf; then
    [[ ${LATSCOPE_INTEROP_NO_INSTALL:-0} == 1 ]] && skip "venvs incomplete and LATSCOPE_INTEROP_NO_INSTALL=1"
    python3 -m pip --version >/dev/null 2>&1 || skip "python3 has no pip (Debian: apt-get install python3-pip python3-venv)"
    pypi_reachable || skip "PyPI unreachable (pip download six failed: $(tail -1 "$OUT/pip-probe.log")): cannot install the servers"
    mkvenv "$VENV"
    mkvenv "$AVENV"
    if ! have_ort; then
        say "installing fastapi, uvicorn, onnxruntime, onnx, numpy, gguf into $VENV (log $OUT/pip-servers.log)"
        nice -n 5 "$VENV/bin/pip" install fastapi uvicorn onnxruntime onnx numpy gguf >"$OUT/pip-servers.log" 2>&1 ||
            skip "pip install of the FastAPI/onnxruntime server failed: $(tail -1 "$OUT/pip-servers.log")"
    fi
    if ! have_aiperf; then
        say "installing aiperf $AIPERF_VERSION into $AVENV (log $OUT/pip-aiperf.log)"
        nice -n 5 "$AVENV/bin/pip" install "aiperf==$AIPERF_VERSION" >"$OUT/pip-aiperf.log" 2>&1 ||
            nice -n 5 "$AVENV/bin/pip" install aiperf >>"$OUT/pip-aiperf.log" 2>&1 ||
            skip "pip install aiperf failed: $(tail -1 "$OUT/pip-aiperf.log")"
    fi
    if ! have_llama; then
        say "installing llama-cpp-python[server] into $VENV: builds llama.cpp from source, 15-60 min (log $OUT/pip-llama.log)"
        { nice -n 5 "$VENV/bin/pip" install cmake ninja && nice -n 5 "$VENV/bin/pip" install -v "$LLAMA_SPEC"; } \
            >"$OUT/pip-llama.log" 2>&1 || tail -5 "$OUT/pip-llama.log" >"$OUT/llama-install-failed"
    fi
fi
# llama-server (llama.cpp's own server): built once from the llama.cpp that the installed
# llama-cpp-python vendors (its sdist's vendor/llama.cpp), only the llama-server target, into
# $LLAMA_BUILD; a failed build is recorded and that server skipped. LLAMA_SERVER=PATH uses yours.
LLAMA_BUILD=${LATSCOPE_INTEROP_LLAMA_BUILD:-$(dirname "$VENV")/interop-llama-server}
build_llama_server() {
    [[ -n ${LLAMA_SERVER:-} || ${LATSCOPE_INTEROP_NO_LLAMA:-0} == 1 ]] && return 0
    [[ ${LATSCOPE_INTEROP_NO_LLAMA_SERVER:-0} == 1 ]] && return 0
    command -v llama-server >/dev/null && return 0
    [[ -x $LLAMA_BUILD/build/bin/llama-server ]] && { LLAMA_SERVER=$LLAMA_BUILD/build/bin/llama-server; return 0; }
    [[ ${LATSCOPE_INTEROP_NO_INSTALL:-0} == 1 ]] && return 0
    command -v cmake >/dev/null && command -v g++ >/dev/null ||
        { echo "llama-server: no cmake/g++ to build it" >"$OUT/llama-server-build-failed"; return 0; }
    local ver
    ver=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("llama_cpp_python"))' 2>/dev/null) || return 0
    say "building llama-server from llama-cpp-python $ver's llama.cpp into $LLAMA_BUILD (log $OUT/llama-server-build.log)"
    {
        rm -rf "$LLAMA_BUILD" && mkdir -p "$LLAMA_BUILD/sdist" &&
            "$VENV/bin/pip" download --no-deps --no-binary :all: -d "$LLAMA_BUILD/sdist" "llama-cpp-python==$ver" &&
            tar -xzf "$LLAMA_BUILD"/sdist/llama_cpp_python-*.tar.gz -C "$LLAMA_BUILD/sdist" &&
            mv "$LLAMA_BUILD"/sdist/llama_cpp_python-*/vendor/llama.cpp "$LLAMA_BUILD/src" &&
            rm -rf "$LLAMA_BUILD/src/.git" && # a submodule's gitlink: its build-info rule needs the index
            rm -rf "$LLAMA_BUILD/sdist" &&
            nice -n 5 cmake -S "$LLAMA_BUILD/src" -B "$LLAMA_BUILD/build" -DCMAKE_BUILD_TYPE=Release \
                -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_EXAMPLES=ON -DLLAMA_CURL=OFF &&
            nice -n 5 cmake --build "$LLAMA_BUILD/build" --target llama-server -j "$CMAKE_BUILD_PARALLEL_LEVEL"
    } >"$OUT/llama-server-build.log" 2>&1 || { tail -5 "$OUT/llama-server-build.log" >"$OUT/llama-server-build-failed"; return 0; }
    LLAMA_SERVER=$LLAMA_BUILD/build/bin/llama-server
}
have_llama && [[ ${LATSCOPE_INTEROP_NO_LLAMA:-0} != 1 ]] && build_llama_server
have_ort || skip "the servers' venv $VENV lacks a module after install"
have_aiperf || skip "the aiperf venv $AVENV lacks aiperf after install"
have_llama || say "llama-cpp-python is not installed: the LLM part is skipped ($OUT/llama-install-failed)"
[[ ${1:-} == --install-only ]] && { say "venvs ready"; exit 0; }

PY=$VENV/bin/python
versions() {
    "$PY" - <<'PY'
import importlib.metadata as m
for p in ("llama_cpp_python", "fastapi", "uvicorn", "onnxruntime", "onnx", "numpy", "gguf"):
    try:
        print(p, m.version(p))
    except m.PackageNotFoundError:
        print(p, "-")
PY
    [[ -x $AVENV/bin/python ]] && "$AVENV/bin/python" -c 'import importlib.metadata as m; print("aiperf", m.version("aiperf")); print("transformers", m.version("transformers"))'
    echo "latscope $("$LATSCOPE" --version 2>&1 | head -1)"
    echo "python $("$PY" -c 'import platform; print(platform.python_version())')"
    echo "kernel $(uname -r)"
    echo "cpus $(nproc)"
}
versions >"$OUT/versions.txt" 2>&1

# ---------- models ----------
MODELS=$OUT/models
if [[ ! -s $MODELS/tiny-llama.gguf || ! -s $MODELS/mlp.onnx || $ROOT/tests/interop/make-models.py -nt $MODELS/mlp.onnx ]]; then
    "$PY" "$ROOT/tests/interop/make-models.py" "$MODELS" >"$OUT/models.log" 2>&1 ||
        { cat "$OUT/models.log" >&2; echo "interop: FAIL: the models could not be made"; exit 1; }
fi

# ---------- servers ----------
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    PIDS=()
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# wait_ready PID URL SECONDS LOG: 0 when URL answers 200, 1 when the server died or timed out.
wait_ready() {
    local pid=$1 url=$2 n=$(($3 * 5)) log=$4
    while ((n-- > 0)); do
        kill -0 "$pid" 2>/dev/null || { say "server exited: $(tail -3 "$log")"; return 1; }
        curl -sf -m 2 -o /dev/null "$url" && return 0
        sleep 0.2
    done
    say "server not ready after $3 s: $url ($(tail -2 "$log"))"
    return 1
}
SPID=
start_server() { # NAME READY_PATH CMD... -> SPID, SPORT
    local name=$1 path=$2 log=$OUT/server-$1.log
    shift 2
    SPORT=$(free_port)
    local args=("${@//@PORT@/$SPORT}")
    # in $OUT: llama-server writes llama.log into its working directory
    (cd "$OUT" && exec "${args[@]}") >"$log" 2>&1 &
    SPID=$!
    PIDS+=("$SPID")
    wait_ready "$SPID" "http://127.0.0.1:$SPORT$path" 120 "$log"
}
# uvicorn waits for its background tasks on SIGTERM ("Waiting for background tasks to complete"):
# llama-cpp-python's never finished after interrupted streams, so after 5 s it gets SIGKILL.
stop_server() {
    kill "$SPID" 2>/dev/null
    for _ in $(seq 25); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$SPID" 2>/dev/null
    wait "$SPID" 2>/dev/null
    SPID=
}

# ---------- runs ----------
RUNS=$OUT/runs
rm -rf "$RUNS"
mkdir -p "$RUNS"
# run_latscope ID TIMEOUT ARGS...: one bench run, its JSON, records, stderr and exit status.
run_latscope() {
    local id=$1 t=$2 d=$RUNS/$1
    shift 2
    mkdir -p "$d"
    printf '%q ' latscope bench "$@" >"$d/cmd"
    /usr/bin/time -f '%U %S %e' -o "$d/time" timeout "$t" "$LATSCOPE" bench "$@" --format json \
        --records "$d/records.jsonl" >"$d/result.json" 2>"$d/stderr"
    echo $? >"$d/rc"
    say "$id: latscope rc $(cat "$d/rc")"
}
# run_aiperf ID TIMEOUT PORT CONC N: aiperf on the same workload as the latscope LLM runs.
run_aiperf() {
    local id=$1 t=$2 port=$3 c=$4 n=$5 d=$RUNS/$1
    mkdir -p "$d"
    local args=(profile --model tiny --url "http://127.0.0.1:$port" --endpoint-type completions
        --streaming --concurrency "$c" --request-count "$n"
        --synthetic-input-tokens-mean 16 --synthetic-input-tokens-stddev 0
        --output-tokens-mean 32 --output-tokens-stddev 0
        --extra-inputs ignore_eos:true --extra-inputs min_tokens:32
        --tokenizer "$MODELS/tokenizer" --random-seed 17 --ui-type none
        --artifact-dir "$d/artifacts")
    printf '%q ' aiperf "${args[@]}" >"$d/cmd"
    # aiperf 0.13 in HF offline mode looks a local tokenizer dir up as a hub snapshot and fails
    # ("Repo id must be in the form 'repo_name'"); online it loads the dir as a path, no hub call.
    (cd "$d" && /usr/bin/time -f '%U %S %e' -o "$d/time" timeout "$t" \
        env -u HF_HUB_OFFLINE -u TRANSFORMERS_OFFLINE -u HF_DATASETS_OFFLINE HF_HUB_DISABLE_TELEMETRY=1 \
        "$AVENV/bin/aiperf" "${args[@]}" \
        >"$d/stdout" 2>"$d/stderr")
    echo $? >"$d/rc"
    say "$id: aiperf rc $(cat "$d/rc")"
}

llm_runs() { # PREFIX PORT
    local p=$1 port=$2 url=http://127.0.0.1:$2/v1/completions
    local common=(--target openai "$url" --model tiny --input-tokens 16 --output-tokens 32 -t 1
        --duration 300s --timeout 30s)
    # Honest without a counter: the server's token events (llama-cpp-python sends no usage).
    run_latscope "$p-c1-events" 180 "${common[@]}" -c 1 -n "$N1" --records-detail "$RUNS/$p-c1-events/detail.jsonl"
    run_latscope "$p-c1" 180 "${common[@]}" -c 1 -n "$N1" --tokenize-url auto \
        --records-detail "$RUNS/$p-c1/detail.jsonl"
    run_latscope "$p-c4" 240 "${common[@]}" -c 4 -n "$N4" --tokenize-url auto \
        --records-detail "$RUNS/$p-c4/detail.jsonl"
    run_latscope "$p-c1-aiperf-view" 180 "${common[@]}" -c 1 -n "$N1" --tokenize-url auto \
        --metrics-compat aiperf
    run_latscope "$p-c4-aiperf-view" 240 "${common[@]}" -c 4 -n "$N4" --tokenize-url auto \
        --metrics-compat aiperf
    run_aiperf "$p-c1-aiperf" 300 "$port" 1 "$N1"
    run_aiperf "$p-c4-aiperf" 300 "$port" 4 "$N4"
    # A prompt over the server's 256-token context: every request fails (HTTP 400), INVALID, rc 1.
    run_latscope "$p-overctx" 120 --target openai "$url" --model tiny --input-tokens 300 \
        --output-tokens 8 -t 1 -c 1 -n 5 --tokenize-url auto --duration 300s
}

HAVE_LLAMA=0
[[ ${LATSCOPE_INTEROP_NO_LLAMA:-0} != 1 ]] && have_llama && HAVE_LLAMA=1
LCP=("$PY" -m llama_cpp.server --model "$MODELS/tiny-llama.gguf" --model_alias tiny --host 127.0.0.1
    --port @PORT@ --n_ctx 256 --n_threads 1 --n_threads_batch 1 --n_batch 256)
# (b1) llama-cpp-python, default interrupt_requests=True
if [[ ${LATSCOPE_INTEROP_NO_LLAMA:-0} == 1 ]]; then
    echo "llama-cpp-python skipped (LATSCOPE_INTEROP_NO_LLAMA=1)" >>"$OUT/server-failures"
elif [[ $HAVE_LLAMA == 0 ]]; then
    echo "llama-cpp-python not installed: $(tail -1 "$OUT/llama-install-failed" 2>/dev/null)" >>"$OUT/server-failures"
elif start_server lcp /v1/models "${LCP[@]}"; then
    llm_runs lcp "$SPORT"
    stop_server
else
    echo "server lcp did not start" >>"$OUT/server-failures"
fi
# (b2) llama-cpp-python --interrupt_requests False
if [[ $HAVE_LLAMA == 0 ]]; then
    :
elif start_server lcpnoint /v1/models "${LCP[@]}" --interrupt_requests False; then
    llm_runs lcpnoint "$SPORT"
    stop_server
else
    echo "server lcpnoint did not start" >>"$OUT/server-failures"
fi
# (b3) llama-server: $LLAMA_SERVER, one on PATH, or the one build_llama_server made
LLAMA_SERVER=${LLAMA_SERVER:-$(command -v llama-server || true)}
if [[ -n $LLAMA_SERVER && -x $LLAMA_SERVER ]]; then
    if start_server llamaserver /health "$LLAMA_SERVER" -m "$MODELS/tiny-llama.gguf" --host 127.0.0.1 \
        --port @PORT@ -c 256 -t 1 --alias tiny; then
        llm_runs llamaserver "$SPORT"
        stop_server
    fi
fi

# (a) FastAPI + uvicorn + onnxruntime: KServe v2 and plain JSON
if start_server ort /v2/health/ready "$PY" "$ROOT/tests/interop/ort-server.py" "$MODELS/mlp.onnx" @PORT@; then
    base=http://127.0.0.1:$SPORT
    "$PY" - "$RUNS" <<'PY'
import json, random, sys
random.seed(17)
rows = lambda b: [[round(random.uniform(-1, 1), 6) for _ in range(256)] for _ in range(b)]
d = sys.argv[1]
json.dump({"input": rows(1)}, open(d + "/plain-b1.json", "w"))
json.dump({"inputs": [{"name": "input", "shape": [8, 256], "datatype": "FP32",
                       "data": sum(rows(8), [])}]}, open(d + "/kserve-b8.json", "w"))
PY
    # the reference answers: their sizes are what each request must get back
    curl -s -m 10 -o "$RUNS/plain-b1.answer" -H 'Content-Type: application/json' -d @"$RUNS/plain-b1.json" "$base/predict"
    curl -s -m 10 -o "$RUNS/kserve-b8.answer" -H 'Content-Type: application/json' -d @"$RUNS/kserve-b8.json" "$base/v2/models/mlp/infer"
    for c in 1 4; do
        n=$N1
        [[ $c == 4 ]] && n=$N4
        run_latscope "ort-kserve-c$c" 120 "$base/v2/models/mlp/infer" -c "$c" -n "$n" -t 1 --duration 300s
        run_latscope "ort-kserve-b8-c$c" 120 "$base/v2/models/mlp/infer" -d @"$RUNS/kserve-b8.json" \
            -c "$c" -n "$n" -t 1 --duration 300s
        run_latscope "ort-plain-c$c" 120 "$base/predict" -d @"$RUNS/plain-b1.json" -c "$c" -n "$n" -t 1 \
            --duration 300s
    done
    if command -v wrk >/dev/null; then
        "$PY" -c 'import json,sys; b=open(sys.argv[1]).read(); print("wrk.method=\"POST\"\nwrk.headers[\"Content-Type\"]=\"application/json\"\nwrk.body=" + json.dumps(b))' \
            "$RUNS/plain-b1.json" >"$RUNS/wrk-plain.lua"
        for c in 1 4; do
            mkdir -p "$RUNS/ort-plain-c$c-wrk"
            timeout 60 wrk -t1 -c"$c" -d5s --latency -s "$RUNS/wrk-plain.lua" "$base/predict" \
                >"$RUNS/ort-plain-c$c-wrk/stdout" 2>&1
            echo $? >"$RUNS/ort-plain-c$c-wrk/rc"
        done
    fi
    stop_server
else
    echo "server ort did not start" >>"$OUT/server-failures"
fi
cleanup

# ---------- checks and summary ----------
"$PY" "$ROOT/tests/interop/summarize.py" "$OUT" "$N1" "$N4"

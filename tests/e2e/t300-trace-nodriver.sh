#!/usr/bin/env bash
# t300-trace-nodriver: `latscope trace -- CMD` on a machine without the NVIDIA driver: a clear
# message, the command still runs with its own stdout, its exit status (or 128+signal) comes
# back, and a valid, empty-but-well-formed Kineto trace is written with the command line and a
# filtered, redacted environment.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
cd "$TMPDIR"

driver=0
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then driver=1; fi

CUDA_VISIBLE_DEVICES=0 NCCL_DEBUG=INFO HF_TOKEN=hf_secretvalue123 \
    expect_rc 3 "$LATSCOPE" trace -o out.json -- sh -c 'echo from-child; exit 3'
contains "$TMPDIR/out" "from-child"
if [[ $driver == 0 ]]; then
    contains "$TMPDIR/err" "no NVIDIA driver"
    contains "$TMPDIR/err" "running the command anyway"
fi
contains "$TMPDIR/err" "wrote out.json"
[[ -s out.json ]] || fail "no trace written"
contains out.json '"schemaVersion":1'
contains out.json '"traceEvents":['
contains out.json '"latscope_command":["sh","-c","echo from-child; exit 3"]'
contains out.json '"CUDA_VISIBLE_DEVICES":"0"'
contains out.json '"NCCL_DEBUG":"INFO"'
contains out.json '"exit_status":3'
grep -q hf_secretvalue123 out.json && fail "a secret reached the trace"
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; d=json.load(open("out.json")); assert isinstance(d["traceEvents"], list)' ||
        fail "out.json is not valid JSON"
fi

# Killed by a signal: 128 + N, and the trace is still written.
expect_rc 143 "$LATSCOPE" trace -o sig.json.gz -- sh -c 'kill -TERM $$'
[[ -s sig.json.gz ]] || fail "no trace after the command was killed"
gzip -t sig.json.gz || fail "sig.json.gz is not valid gzip"
zcat sig.json.gz | grep -qF '"exit_status":143' || fail "exit status not recorded"

# A command that does not exist: 127, like a shell.
expect_rc 127 "$LATSCOPE" trace -o nf.json -- ./no-such-program
contains "$TMPDIR/err" "no-such-program"

# Usage errors: 2, nothing run.
expect_rc 2 "$LATSCOPE" trace
contains "$TMPDIR/err" "no command"
expect_rc 2 "$LATSCOPE" trace --bogus -- true
expect_rc 2 "$LATSCOPE" trace --duration x -- true
expect_rc 2 "$LATSCOPE" trace --freq 99 -- true
contains "$TMPDIR/err" "need --cpu"
expect_rc 2 "$LATSCOPE" trace --cuda --pid 1

# Another tool already injects: refuse clearly instead of overwriting it.
CUDA_INJECTION64_PATH=/opt/other/libinject.so expect_rc 1 "$LATSCOPE" trace --cuda -- true
contains "$TMPDIR/err" "CUDA_INJECTION64_PATH is already set"
exit 0

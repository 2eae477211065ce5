#!/usr/bin/env bash
# timeout: 600
# truth: downloads Seldon MLServer from PyPI (~150 MB, about 2 minutes) into build/venv-mlserver
# t289-bench-grpc-mlserver: `bench grpc://` against a real KServe v2 server, Seldon MLServer
# (from PyPI, tests/tools/mlserver-venv.sh; skips when it cannot be installed): a custom model
# that doubles its FP32 [-1, 4] input, served over HTTP and gRPC by one process. The gRPC run
# reads the inputs through ModelMetadata, every call succeeds and decodes, the same load over the
# HTTP kserve path succeeds too, and an unknown model is named by the metadata call's error.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
"$LATSCOPE" version | grep -qE '^ *nghttp2 +yes' || skip "built without nghttp2 (grpc://)"
py=$("$LATSCOPE_SRCDIR/tests/tools/mlserver-venv.sh") || skip "$py"

d=$TMPDIR/mls
mkdir -p "$d/echo"
cat >"$d/echo/model.py" <<'PY'
from mlserver import MLModel
from mlserver.codecs import NumpyCodec
from mlserver.types import InferenceRequest, InferenceResponse


class Echo(MLModel):
    async def load(self) -> bool:
        return True

    async def predict(self, payload: InferenceRequest) -> InferenceResponse:
        x = NumpyCodec.decode_input(payload.inputs[0])
        return InferenceResponse(model_name=self.name,
                                 outputs=[NumpyCodec.encode_output("OUTPUT0", x * 2)])
PY
cat >"$d/echo/model-settings.json" <<'EOF2'
{"name": "echo", "implementation": "model.Echo",
 "inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [-1, 4]}],
 "outputs": [{"name": "OUTPUT0", "datatype": "FP32", "shape": [-1, 4]}]}
EOF2
read -r hp gp mp < <(python3 -c 'import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
cat >"$d/settings.json" <<EOF2
{"http_port": $hp, "grpc_port": $gp, "metrics_port": $mp, "parallel_workers": 0, "host": "127.0.0.1"}
EOF2
(cd "$d" && exec "$(dirname "$py")/mlserver" start .) >"$TMPDIR/mls.log" 2>&1 &
FIXTURE_PIDS+=($!)
up=
for _ in $(seq 1 600); do
    grep -q "gRPC server running" "$TMPDIR/mls.log" && grep -q "Uvicorn running" "$TMPDIR/mls.log" && { up=1; break; }
    sleep 0.1
done
[[ -n $up ]] || { tail -20 "$TMPDIR/mls.log" >&2; fail "MLServer did not start"; }

expect_rc 0 "$LATSCOPE" bench "grpc://127.0.0.1:$gp" --model echo -c 4 -t 1 -n 500 --format json
cp "$TMPDIR/out" "$TMPDIR/grpc.json"
check_py "$TMPDIR/grpc.json" "
p = d['points'][0]
assert p['requests'] == 500 and p['errors']['total'] == 0, (p['requests'], p['errors'])
assert p['grpc']['streams'] == 500 and p['grpc']['status']['OK'] == 500, p['grpc']
assert p['valid'] is True
"
expect_rc 0 "$LATSCOPE" bench "http://127.0.0.1:$hp/v2/models/echo/infer" --input INPUT0:1x4:FP32 \
    -c 4 -t 1 -n 500 --format json
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['requests'] == 500 and p['errors']['total'] == 0, (p['requests'], p['errors'])
"
expect_rc 2 "$LATSCOPE" bench "grpc://127.0.0.1:$gp" --model nosuch -n 1
contains "$TMPDIR/err" "ModelMetadata"
contains "$TMPDIR/err" "nosuch"
echo "ok"

#!/usr/bin/env bash
# t282-tokenize-llama-cpp-python: llama-cpp-python's server has no /tokenize; its tokenizer is
# POST /extras/tokenize {"input": TEXT} -> {"tokens": [...]} (found by `make interop`: before,
# --tokenize-url auto against it failed with "no llama.cpp, vLLM/SGLang or TGI tokenize answer").
# --tokenize-url auto falls back to it after a 404 at /tokenize; --tokenize-api llama-cpp-python
# names it. A stand-in server (python3, stdlib) answers as llama-cpp-python 0.2.90/0.3.x does:
# FastAPI's 404 elsewhere, 422 for a body without "input", one token per whitespace-separated word.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
cat >"$TMPDIR/srv.py" <<'PY'
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def answer(self, code, obj):
        b = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/extras/tokenize":
            try:
                text = json.loads(body)["input"]
            except (ValueError, KeyError, TypeError):
                return self.answer(422, {"detail": [{"type": "missing", "loc": ["body", "input"]}]})
            return self.answer(200, {"tokens": list(range(len(text.split())))})
        self.answer(404, {"detail": "Not Found"})
    def log_message(self, *a):
        pass
s = HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$TMPDIR/srv.py" >"$TMPDIR/port" &
SRV=$!
trap 'kill $SRV 2>/dev/null; wait $SRV 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s $TMPDIR/port ]] && break; sleep 0.1; done
PORT=$(head -1 "$TMPDIR/port")
[[ -n $PORT ]] || fail "stand-in server did not start"

expect_rc 0 "$LATSCOPE" tokenize --tokenize-url "http://127.0.0.1:$PORT/tokenize" "a b c" "one two"
[[ $(cat "$TMPDIR/out") == $'3\n2' ]] || fail "auto fallback counts: $(cat "$TMPDIR/out")"
expect_rc 0 "$LATSCOPE" tokenize --tokenize-url "http://127.0.0.1:$PORT/extras/tokenize" \
    --tokenize-api llama-cpp-python "w x y z"
[[ $(cat "$TMPDIR/out") == 4 ]] || fail "explicit dialect count: $(cat "$TMPDIR/out")"
# another dialect's body at /extras/tokenize is refused (422), and said so (exit 1: counting failed)
expect_rc 1 "$LATSCOPE" tokenize --tokenize-url "http://127.0.0.1:$PORT/extras/tokenize" \
    --tokenize-api llamacpp "w x"
contains "$TMPDIR/err" "HTTP 422"
# a path that is not /tokenize gets no fallback: the 404 is reported as it is
expect_rc 1 "$LATSCOPE" tokenize --tokenize-url "http://127.0.0.1:$PORT/v1/tokenize" "w x"
contains "$TMPDIR/err" "/v1/tokenize: no llama.cpp, vLLM/SGLang or TGI tokenize answer (give"
contains "$TMPDIR/err" "(HTTP 404: {\"detail\": \"Not Found\"})"
exit 0

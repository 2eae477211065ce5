#!/usr/bin/env bash
# t520-llm-exact-osl: output tokens counted exactly when the server sends no usage (issue 17
# item 4). The fixture streams 3 tokens per event without usage: the events say 4 tokens for 12,
# and TPOT 3x too high. With --tokenize-url (the fixture's llama.cpp /tokenize) or --tokenizer
# FILE (a tokenizer.json that Hugging Face `tokenizers` trained, when the venv can be made) the
# output text is counted after the point: 12 tokens, TPOT = the token interval spread over 11
# gaps, and the JSON names the source of every count. Bad combinations are usage errors.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --tokenize llamacpp --no-usage --tokens-per-chunk 3 --prefill 5ms --token-interval 10ms
for api in chat completions; do
    for tok in "" "--tokenize-url auto"; do
        # shellcheck disable=SC2086
        expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/" --api $api \
            --input-tokens 8 --output-tokens 12 -c 2 -n 8 -t 1 --format json $tok
        python3 - "$TMPDIR/out" "$TOL_MS" "$tok" <<'PY' || fail "$api '$tok': $(head -c 3000 "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
tol, tok = float(sys.argv[2]), sys.argv[3]
assert p["requests"] == 8 and p["errors"]["total"] == 0, p["errors"]
tpot = p["tpot_ms"]["p50"]
if tok:
    assert p["tokens_source"] == "tokenize-endpoint", p["tokens_source"]
    assert p["tokens_source_counts"]["tokenize-endpoint"] == 8, p["tokens_source_counts"]
    assert p["output_tokens"] == 12 * 8, p["output_tokens"]
    assert p["osl_mismatch"] == 0, p["osl_mismatch"]
    # content at tokens 3, 6, 9, 12: 90 ms over 11 token gaps
    assert abs(tpot - 90 / 11) < tol, tpot
    assert abs(p["tokens_per_chunk"]["mean"] - 3.0) < 1e-9, p["tokens_per_chunk"]
    # no usage: ISL from the same endpoint; the fixture's count of an 8-token prompt is 8
    assert p["input_tokens_source"] == "tokenize-endpoint", p["input_tokens_source"]
    assert p["input_tokens_min"] == p["input_tokens_max"] == 8, p
else:
    assert p["tokens_source"] == "events", p["tokens_source"]
    assert p["output_tokens"] == 4 * 8, p["output_tokens"]
    assert abs(tpot - 30) < tol, tpot           # what the issue complained about
    assert p["input_tokens_source"] == "none", p["input_tokens_source"]
PY
    done
done
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/completions" \
    --tokenize-url auto --input-tokens 8 --output-tokens 12 -c 1 -n 2 -t 1
contains "$TMPDIR/out" "output tokens 24 (source tokenize-endpoint)"
contains "$TMPDIR/out" "input tokens 16 (mean 8.0, source tokenize-endpoint)"

# usage errors, before any request
expect_rc 2 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/" --input-tokens 8 -n 1 \
    --tokenizer /nonexistent/tokenizer.json
contains "$TMPDIR/err" "/nonexistent/tokenizer.json: No such file or directory"
expect_rc 2 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/" --input-tokens 8 -n 1 \
    --tokenizer /dev/null --tokenize-url auto
contains "$TMPDIR/err" "--tokenizer and --tokenize-url both count tokens"
expect_rc 2 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/" --input-tokens 8 -n 1 \
    --tokenize-api nosuch
contains "$TMPDIR/err" "expected auto, llamacpp, vllm or tgi"

# --tokenizer FILE, checked against Hugging Face tokenizers (skipped without the venv)
py=$("$LATSCOPE_SRCDIR/tests/tools/tokenizers-venv.sh") || { echo "tokenizer file part skipped: $py"; exit 0; }
mkdir -p "$TMPDIR/tok"
"$py" "$LATSCOPE_SRCDIR/tests/tools/tokenizer-truth.py" "$TMPDIR/tok" 2>/dev/null || fail "tokenizer-truth.py"
want=$("$py" -c 'import sys; from tokenizers import Tokenizer
t = Tokenizer.from_file(sys.argv[1]); print(len(t.encode(" tok" * 12, add_special_tokens=False).ids))' \
    "$TMPDIR/tok/gpt2.json")
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/chat/completions" \
    --tokenizer "$TMPDIR/tok/gpt2.json" --input-tokens 24 --output-tokens 12 -c 2 -n 6 -t 1 \
    --format json
python3 - "$TMPDIR/out" "$want" <<'PY' || fail "--tokenizer: $(head -c 3000 "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
want = int(sys.argv[2])
assert p["tokens_source"] == "tokenizer", p["tokens_source"]
assert p["output_tokens"] == want * 6, (p["output_tokens"], want)
assert p["input_tokens_source"] == "tokenizer", p["input_tokens_source"]
assert p["input_tokens_min"] == p["input_tokens_max"] == 24, p
PY
exit 0

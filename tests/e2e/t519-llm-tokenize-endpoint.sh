#!/usr/bin/env bash
# t519-llm-tokenize-endpoint: the server's tokenize endpoint as latscope's token counter (issue 17
# item 4, exact ISL/OSL). serve-test openai --tokenize DIALECT answers POST /tokenize the way
# llama.cpp ({"content"} -> {"tokens"}), vLLM/SGLang ({"prompt"} -> {"count","tokens"}) and TGI
# ({"inputs"} -> [{id,text,start,stop}]) do, with the fixture's own tokenization (a piece of L
# bytes is ceil(L/4) tokens), and then counts usage.prompt_tokens the same way. Checked:
#  - `latscope tokenize --tokenize-url` finds each dialect (auto) and gives the exact counts
#    (computed here independently of the C code); a wrong --tokenize-api is an error naming the
#    HTTP status and the server's message, never a count;
#  - bench --tokenize-url auto --input-tokens 16: every request's usage.prompt_tokens is 16
#    (min = max = 16), where word-count prompts give other counts (the issue: 16 became 61-72).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
texts=("hello world" " tok tok tok" "people number water" "中文 ok" "a,b;c" "" "x  y" \
    "don't stop" "1234567890123")
printf '%s\n' "${texts[@]}" >"$TMPDIR/texts"
python3 - "$TMPDIR/texts" >"$TMPDIR/expected" <<'PY'
import sys
def word(c): return c.isascii() and c.isalnum() or ord(c) >= 0x80
for line in open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]:
    b = line.encode()
    i, n = 0, 0
    while i < len(b):
        j = i + 1 if b[i:i+1] == b" " and i + 1 < len(b) and (chr(b[i+1]).isalnum() and b[i+1] < 128 or b[i+1] >= 128) else i
        if j < len(b) and (b[j] >= 128 or (b[j] < 128 and chr(b[j]).isalnum())):
            while j < len(b) and (b[j] >= 128 or (b[j] < 128 and chr(b[j]).isalnum())):
                j += 1
        else:
            j = i + 1
        n += (j - i + 3) // 4
        i = j
    print(n)
PY
for d in llamacpp vllm tgi; do
    start_fixture --tokenize $d --prefill 2ms --token-interval 1ms
    url=http://127.0.0.1:$FX_PORT/tokenize
    expect_rc 0 "$LATSCOPE" tokenize --tokenize-url "$url" <"$TMPDIR/texts"
    cmp -s "$TMPDIR/out" "$TMPDIR/expected" ||
        fail "$d (auto): $(paste -d' ' "$TMPDIR/out" "$TMPDIR/expected" | tr '\n' ,)"
    expect_rc 0 "$LATSCOPE" tokenize --tokenize-url "$url" --tokenize-api $d <"$TMPDIR/texts"
    cmp -s "$TMPDIR/out" "$TMPDIR/expected" || fail "$d (explicit) counts differ"
    other=$([[ $d == tgi ]] && echo llamacpp || echo tgi)
    expect_rc 1 "$LATSCOPE" tokenize --tokenize-url "$url" --tokenize-api $other x
    grep -Eq "HTTP (400|422)" "$TMPDIR/err" || fail "$d asked as $other: $(cat "$TMPDIR/err")"
    for api in completions chat; do
        for tok in "" "--tokenize-url auto"; do
            # shellcheck disable=SC2086
            expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/" --api $api \
                --input-tokens 16 --output-tokens 4 -c 2 -n 12 -t 1 --format json $tok
            python3 - "$TMPDIR/out" "$tok" <<'PY' || fail "$d $api '$tok': $(head -c 3000 "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
assert p["requests"] == 12 and p["errors"]["total"] == 0, p["errors"]
assert p["input_tokens_source"] == "usage", p["input_tokens_source"]
lo, hi = p["input_tokens_min"], p["input_tokens_max"]
if sys.argv[2]:
    # sized with the server's own tokenizer: exactly 16 prompt tokens, every request
    assert lo == hi == 16 and p["input_tokens"] == 16 * 12, (lo, hi, p["input_tokens"])
else:
    # words are not tokens: the fixture counts "people" as 2
    assert hi > 16, (lo, hi)
PY
        done
    done
    kill "$FX_PID"
    wait "$FX_PID" 2>/dev/null || true
done
# a server without /tokenize: bench refuses to start, naming the endpoint and the answer
start_fixture
expect_rc 2 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/completions" \
    --tokenize-url auto --input-tokens 8 -n 2
grep -q "tokenize endpoint http://127.0.0.1:$FX_PORT/tokenize: no llama.cpp, vLLM/SGLang or TGI tokenize answer" "$TMPDIR/err" ||
    fail "no tokenize endpoint: $(cat "$TMPDIR/err")"
exit 0

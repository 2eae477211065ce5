#!/usr/bin/env bash
# t768-tokenize-bos: a tokenize endpoint that prepends BOS to every count (llama-cpp-python's
# /extras/tokenize; issue 31 item 8). Before: every count was one too many, so bench refused
# ("this tokenizer joins words") and `latscope tokenize` with the /extras/tokenize URL did not
# try that dialect. Now the constant prefix (the empty text's tokens) is subtracted and named.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
python3 "$LATSCOPE_SRCDIR/tests/tools/hostile-http.py" lcpp "$TMPDIR/port" "$TMPDIR/count" 60 &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/port ]] || fail "tokenize server did not start"
base=http://127.0.0.1:$(cat "$TMPDIR/port")
for url in "$base/tokenize" "$base/extras/tokenize"; do
    "$LATSCOPE" tokenize --tokenize-url "$url" "hello world" "a b c d e" "x" >"$TMPDIR/o.txt" \
        2>"$TMPDIR/e.txt" || { cat "$TMPDIR/e.txt"; fail "$url: exit $?"; }
    [[ $(tr '\n' ' ' <"$TMPDIR/o.txt") == "2 5 1 " ]] || { cat "$TMPDIR/o.txt"; fail "$url: counts"; }
    grep -q "puts 1 token(s) before every count (BOS, id 1" "$TMPDIR/e.txt" ||
        { cat "$TMPDIR/e.txt"; fail "$url: BOS not named"; }
done
exit 0

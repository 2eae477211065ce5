#!/usr/bin/env bash
# san: skip (trains tokenizers in Python; the C tokenizer reader runs in the release pass and the unit tests)
# t518-tokenizer-json: latscope's tokenizer.json reader (src/llm/tokenizer.c) against Hugging
# Face `tokenizers` itself (issue 17 item 4, exact ISL/OSL). tests/tools/tokenizer-truth.py
# trains four small byte-level BPE tokenizers on generated multilingual text (GPT-2 ByteLevel,
# with add_prefix_space, the Llama-3 Split regex with ignore_merges, the GPT-2 regex as a
# Split) and writes a fifth with 20000 random merges (overlapping candidates of close ranks), and
# encodes 729 strings (ASCII, accents, combining marks, CJK, kana, Hangul, Arabic,
# Devanagari, emoji with modifiers, Unicode digits and spaces, CR/LF runs, contractions, added
# tokens, random code points of many blocks); `latscope tokenize --jsonl --ids` must give the
# same ids and the same pre-tokenizer pieces (--pieces) for every string. Skips (77) when the venv with tokenizers cannot be made (no pip).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
py=$("$LATSCOPE_SRCDIR/tests/tools/tokenizers-venv.sh") || skip "$py"
d=$TMPDIR/tok
mkdir -p "$d"
# the trained tokenizers and tokenizers' answers, computed once per script and tokenizers version
ver=$("$py" -c 'import tokenizers, sys; print(tokenizers.__version__, sys.version.split()[0])')
truth_cached tokenizers "$d" "$LATSCOPE_SRCDIR/tests/tools/tokenizer-truth.py" "$ver" -- \
    "$py" "$LATSCOPE_SRCDIR/tests/tools/tokenizer-truth.py" "$d" || fail "tokenizer-truth.py failed"
n=$(wc -l <"$d/strings.jsonl")
[[ $n -ge 700 ]] || fail "only $n strings"
for t in gpt2 gpt2-prefix llama3 split-gpt2 random-merges; do
    "$LATSCOPE" tokenize --tokenizer "$d/$t.json" --jsonl --ids <"$d/strings.jsonl" >"$d/$t.got" ||
        fail "$t: latscope tokenize failed"
    [[ $(wc -l <"$d/$t.got") -eq $n ]] || fail "$t: $(wc -l <"$d/$t.got") answers for $n strings"
    bad=$(paste -d'\n' "$d/$t.got" "$d/$t.expected" | paste - - | awk -F'\t' '$1 != $2' | wc -l)
    if [[ $bad -ne 0 ]]; then
        paste "$d/$t.got" "$d/$t.expected" | awk -F'\t' '$1 != $2 {print NR": latscope "$1" | tokenizers "$2; exit}' >&2 || true
        fail "$t: $bad of $n strings tokenized differently from tokenizers"
    fi
    # the pre-tokenizer's pieces (the regex split) are tokenizers' own, byte for byte
    "$LATSCOPE" tokenize --tokenizer "$d/$t.json" --jsonl --pieces <"$d/strings.jsonl" >"$d/$t.gotp" ||
        fail "$t: latscope tokenize --pieces failed"
    bad=$(paste -d'\n' "$d/$t.gotp" "$d/$t.pieces" | paste - - | awk -F'\t' '$1 != $2' | wc -l)
    if [[ $bad -ne 0 ]]; then
        paste "$d/$t.gotp" "$d/$t.pieces" | awk -F'\t' '$1 != $2 {print NR": latscope "$1" | tokenizers "$2; exit}' >&2 || true
        fail "$t: $bad of $n strings pre-tokenized differently from tokenizers"
    fi
    # the count alone (no --ids) is the same number
    "$LATSCOPE" tokenize --tokenizer "$d/$t.json" --jsonl <"$d/strings.jsonl" >"$d/$t.cnt"
    cut -d' ' -f1 "$d/$t.expected" | cmp -s - "$d/$t.cnt" || fail "$t: counts differ from the ids"
done
# a file latscope cannot count exactly is refused with its reason, never counted wrongly
"$py" - "$d/gpt2.json" "$d/nfc.json" "$d/wp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["normalizer"] = {"type": "NFC"}
json.dump(d, open(sys.argv[2], "w"))
d["normalizer"] = None
d["model"]["type"] = "WordPiece"
json.dump(d, open(sys.argv[3], "w"))
PY
expect_rc 2 "$LATSCOPE" tokenize --tokenizer "$d/nfc.json" x
contains "$TMPDIR/err" "normalizer NFC is not supported"
expect_rc 2 "$LATSCOPE" tokenize --tokenizer "$d/wp.json" x
contains "$TMPDIR/err" "model type WordPiece is not supported"
printf '{"model": ' >"$d/trunc.json"
expect_rc 2 "$LATSCOPE" tokenize --tokenizer "$d/trunc.json" x
contains "$TMPDIR/err" "not valid JSON"
exit 0

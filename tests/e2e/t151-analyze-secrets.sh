#!/usr/bin/env bash
# t151-analyze-secrets: secret-looking metadata values never reach analyze's output.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
tr=$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json
grep -q hf_handmadeSECRETvalue123 "$tr" || fail "fixture lost its secret"
for f in text json; do
    expect_rc 0 "$LATSCOPE" -v analyze --format $f "$tr"
    if grep -q SECRET "$TMPDIR/out" "$TMPDIR/err"; then fail "secret printed ($f)"; fi
done
# the whole corpus trace with a real environment dump (h100 files hold HF_TOKEN-like keys)
h=$LATSCOPE_TRACES/tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz
if [[ -e $h ]]; then
    expect_rc 0 "$LATSCOPE" analyze --format json "$h"
    if grep -qi 'hf_[A-Za-z0-9]\{20,\}' "$TMPDIR/out"; then fail "token-like value printed"; fi
fi
exit 0

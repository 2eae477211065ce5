#!/usr/bin/env bash
# t031-fuzz-ledger: docs/testing.md's cumulative fuzz table is the one tests/tools/fuzz-ledger.sh
# makes from docs/fuzz-ledger.tsv, listing every libFuzzer target of tests/fuzz/ (issue 32's
# ledger). The check must fail on a copy of the tree with a target added and no row, and on a
# hand-edited number.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
tool=$LATSCOPE_SRCDIR/tests/tools/fuzz-ledger.sh
expect_rc 0 bash "$tool" --check "$LATSCOPE_SRCDIR"
contains "$TMPDIR/out" "table matches docs/fuzz-ledger.tsv"
for f in "$LATSCOPE_SRCDIR"/tests/fuzz/fuzz-*.c; do
    n=${f##*/fuzz-} n=${n%.c}
    grep -q "^| \`$n\` | " "$LATSCOPE_SRCDIR/docs/testing.md" || fail "target $n has no row in docs/testing.md's ledger table"
done

# a copy of the tree: docs/ and tests/fuzz/*.c
mkdir -p "$TMPDIR/r/docs" "$TMPDIR/r/tests/fuzz"
cp "$LATSCOPE_SRCDIR/docs/testing.md" "$LATSCOPE_SRCDIR/docs/fuzz-ledger.tsv" "$TMPDIR/r/docs/"
cp "$LATSCOPE_SRCDIR"/tests/fuzz/fuzz-*.c "$TMPDIR/r/tests/fuzz/"
expect_rc 0 bash "$tool" --check "$TMPDIR/r"
: >"$TMPDIR/r/tests/fuzz/fuzz-zz-new.c"
expect_rc 1 bash "$tool" --check "$TMPDIR/r"
contains "$TMPDIR/err" "zz-new"
expect_rc 0 bash "$tool" --update "$TMPDIR/r"
grep -q '^| `zz-new` | 0 | 0 | 0 | - | never | 0 |$' "$TMPDIR/r/docs/testing.md" || fail "--update gave the new target no zero row"
expect_rc 0 bash "$tool" --check "$TMPDIR/r"
sed -i 's/^| `json` | \([0-9]*\) |/| `json` | 1\1 |/' "$TMPDIR/r/docs/testing.md"
expect_rc 1 bash "$tool" --check "$TMPDIR/r"
# a crash row after the last clean run is an open finding: one more campaign, 10 more seconds,
# its coverage and date, 1 open (the counts before it from the ledger, which campaigns extend)
read -r nc secs < <(awk -F'\t' '$3 == "json" { n++; s += $4 } END { print n + 0, s + 0 }' \
    "$TMPDIR/r/docs/fuzz-ledger.tsv")
printf '2026-12-02\tx\tjson\t10\t100\t5\t0\tcrash:build-fuzz/crashes/json/crash-1\n' >>"$TMPDIR/r/docs/fuzz-ledger.tsv"
expect_rc 0 bash "$tool" --update "$TMPDIR/r"
grep -q "^| \`json\` | [0-9]* | $((nc + 1)) | $((secs + 10)) | 5 | 2026-12-02 | 1 |\$" "$TMPDIR/r/docs/testing.md" ||
    { grep '`json`' "$TMPDIR/r/docs/testing.md"; fail "crash row not counted as open"; }
echo "t031: ok"

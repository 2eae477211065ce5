#!/usr/bin/env bash
# t003-cli-options: one option parser (src/cli-opts.c) for analyze, doctor, diff, report,
# trace, convert, tokenize, bench merge and serve-test (and its openai fixture): `--opt=value` and `--opt value` give the same result, options may follow the inputs,
# unknown/ambiguous/valueless options are usage errors (exit 2) that name the option and the
# command's --help, and --help lists every option the command accepts.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
T=$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json
D=$LATSCOPE_SRCDIR/tests/data/handmade-doctor-sync.json

# --opt=value, --opt value, a unique prefix and options after the input: identical output
"$LATSCOPE" analyze --format json --top 3 "$T" >"$TMPDIR/a1"
"$LATSCOPE" analyze --format=json --top=3 "$T" >"$TMPDIR/a2"
"$LATSCOPE" analyze "$T" --form=json --to 3 >"$TMPDIR/a3"
cmp -s "$TMPDIR/a1" "$TMPDIR/a2" || fail "analyze --top=3 differs from --top 3"
cmp -s "$TMPDIR/a1" "$TMPDIR/a3" || fail "analyze with options after the input differs"
grep -q '"tool":"latscope analyze"' "$TMPDIR/a1" || fail "analyze JSON missing"
# and --top really took effect: 3 rows at most in top_kernels, vs more by default
"$LATSCOPE" analyze --format=json --top=1 "$T" >"$TMPDIR/a4"
cmp -s "$TMPDIR/a1" "$TMPDIR/a4" && fail "--top=1 and --top=3 give the same output"

"$LATSCOPE" doctor --format json --fail-on never "$D" >"$TMPDIR/d1"
"$LATSCOPE" doctor "$D" --format=json --fail-on=never >"$TMPDIR/d2"
cmp -s "$TMPDIR/d1" "$TMPDIR/d2" || fail "doctor --format=json differs"
"$LATSCOPE" doctor --fail-on=never -o "$TMPDIR/d3" --format=json "$D"
cmp -s "$TMPDIR/d1" "$TMPDIR/d3" || fail "doctor -o FILE differs from stdout"
"$LATSCOPE" doctor --fail-on=never --output="$TMPDIR/d4" --format=json "$D"
cmp -s "$TMPDIR/d1" "$TMPDIR/d4" || fail "doctor --output=FILE differs from stdout"

"$LATSCOPE" diff --format=json "$T" "$T" >"$TMPDIR/f1"
"$LATSCOPE" diff "$T" --format json "$T" >"$TMPDIR/f2"
cmp -s "$TMPDIR/f1" "$TMPDIR/f2" || fail "diff --format=json differs"
expect_rc 2 "$LATSCOPE" diff "$T" "$T" "$T"
contains "$TMPDIR/err" "need '--' between the sides"
expect_rc 0 "$LATSCOPE" diff --format=json "$T" -- "$T"

expect_rc 0 "$LATSCOPE" report --output="$TMPDIR/r.html" --top=2 "$T"
[[ -s $TMPDIR/r.html ]] || fail "report --output=FILE wrote nothing"

expect_rc 0 "$LATSCOPE" trace --output="$TMPDIR/t.json" --off -- true
expect_rc 0 "$LATSCOPE" trace --off true --unknown-to-latscope # the command's own options
expect_rc 7 "$LATSCOPE" trace --off sh -c 'exit 7'

# errors: exit 2, nothing on stdout, the option and the command's --help named
for c in analyze doctor diff report trace convert tokenize "bench merge" serve-test \
    "serve-test openai"; do
    # shellcheck disable=SC2086 # "bench merge": a command and its subcommand
    expect_rc 2 "$LATSCOPE" $c --no-such-option "$T"
    [[ ! -s $TMPDIR/out ]] || fail "$c: stdout not empty on a usage error"
    contains "$TMPDIR/err" "unknown option '--no-such-option'"
    contains "$TMPDIR/err" "latscope $c --help"
done
expect_rc 2 "$LATSCOPE" analyze "$T" --top
contains "$TMPDIR/err" "--top needs N"
expect_rc 2 "$LATSCOPE" analyze --top=0 "$T"
contains "$TMPDIR/err" "--top wants a number"
expect_rc 2 "$LATSCOPE" analyze --pretty=yes "$T"
expect_rc 2 "$LATSCOPE" doctor -o
contains "$TMPDIR/err" "-o needs FILE"
expect_rc 2 "$LATSCOPE" trace --d 1 -- true # --delay or --duration
contains "$TMPDIR/err" "ambiguous option '--d'"
expect_rc 2 "$LATSCOPE" report --fo svg --plot=bogus "$T"
contains "$TMPDIR/err" "--plot wants percentiles, load or steps"

# the same errors for a bad value and a missing one in bench merge and the fixtures
expect_rc 2 "$LATSCOPE" bench merge --format xml "$T"
contains "$TMPDIR/err" "--format wants text, json or csv, not 'xml'"
expect_rc 2 "$LATSCOPE" serve-test --port
contains "$TMPDIR/err" "--port needs N"
expect_rc 2 "$LATSCOPE" serve-test --threads 0
contains "$TMPDIR/err" "--threads: bad value '0'"
expect_rc 2 "$LATSCOPE" serve-test openai --max-seqs=x
contains "$TMPDIR/err" "--max-seqs: bad value 'x'"

# --help lists every long option the parser accepts, and each one listed is accepted (the
# fixtures with a bad value after it, so that a flag alone does not start a server)
for c in analyze doctor diff report trace convert tokenize "bench merge" serve-test \
    "serve-test openai"; do
    # shellcheck disable=SC2086
    expect_rc 0 "$LATSCOPE" $c --help
    opts=$(grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' "$TMPDIR/out" | sed -E 's/.*--/--/' | sort -u)
    [[ $(wc -l <<<"$opts") -ge 2 ]] || fail "$c --help lists too few options: $opts"
    for o in $opts; do
        [[ $o == --help ]] && continue
        extra=()
        [[ $c == serve-test ]] && extra=(--threads 0)
        [[ $c == "serve-test openai" ]] && extra=(--faults bogus:1)
        # shellcheck disable=SC2086
        set +e; timeout 20 "$LATSCOPE" $c "$o" "${extra[@]}" >/dev/null 2>"$TMPDIR/e1" </dev/null; set -e
        if grep -q "unknown option" "$TMPDIR/e1"; then fail "$c --help lists $o but rejects it"; fi
    done
done
exit 0

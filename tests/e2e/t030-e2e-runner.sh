#!/usr/bin/env bash
# t030-e2e-runner: tests/e2e/run.sh itself, on a directory of made-up scripts (E2E_DIR): name
# order in each part, exclusive scripts alone after the parallel part, -j really runs scripts at
# once, per-script timeouts, filters, skip reasons (from skip() inside $(...) too) and a skip
# without a reason counted as a failure, the closing line.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
d=$TMPDIR/suite
mkdir -p "$d"
lib=$LATSCOPE_SRCDIR/tests/e2e/lib.sh
# tb and tc wait for each other (each writes its flag, then waits up to 10 s for the other's):
# they pass only when run at the same time.
cat >"$d/tb-pair.sh" <<X
touch "$TMPDIR/b"; for _ in \$(seq 100); do [[ -e "$TMPDIR/c" ]] && exit 0; sleep 0.1; done; exit 1
X
cat >"$d/tc-pair.sh" <<X
touch "$TMPDIR/c"; for _ in \$(seq 100); do [[ -e "$TMPDIR/b" ]] && exit 0; sleep 0.1; done; exit 1
X
# ta-excl is exclusive: while it runs, no other script may (the others mark themselves running).
cat >"$d/ta-excl.sh" <<X
# exclusive
ls "$TMPDIR"/running.* >/dev/null 2>&1 && exit 1
touch "$TMPDIR/excl-ran"; sleep 0.3; ls "$TMPDIR"/running.* >/dev/null 2>&1 && exit 1; exit 0
X
for n in td-slow te-fast; do
    cat >"$d/$n.sh" <<X
touch "$TMPDIR/running.$n"; [[ -e "$TMPDIR/excl-ran" ]] && exit 1
[[ $n == td-slow ]] && sleep 1; rm "$TMPDIR/running.$n"; echo "out of $n"
X
done
cat >"$d/tf-skip-subst.sh" <<X
. "$lib"
export LATSCOPE_TRACES=$TMPDIR/no-corpus
p=\$(need_trace some/trace.json)
echo "not reached \$p"
X
cat >"$d/tg-skip-empty.sh" <<X
echo; exit 77
X
cat >"$d/th-timeout.sh" <<X
# timeout: 1
sleep 30
X
cat >"$d/ti-fail.sh" <<X
echo "the reason it failed"; exit 3
X
# the outer run's settings (e2e-san stretches timeouts: E2E_TIMEOUT_MULT=2) are not this test's
unset E2E_TIMEOUT_MULT E2E_TIMEOUT E2E_JOBS E2E_TRUTH E2E_TIMES
set +e
E2E_DIR=$d "$LATSCOPE_SRCDIR/tests/e2e/run.sh" -j 4 >"$TMPDIR/out" 2>&1
rc=$?
set -e
cat "$TMPDIR/out"
[[ $rc -ne 0 ]] || fail "run.sh exited 0 with failures"
grep -v '^#' "$TMPDIR/out" >"$TMPDIR/lines"
cat >"$TMPDIR/want" <<X
ok 1 - tb-pair
ok 2 - tc-pair
ok 3 - td-slow
ok 4 - te-fast
ok 5 - tf-skip-subst # SKIP shared trace some/trace.json not present: set LATSCOPE_TRACES to the shared trace corpus
not ok 6 - tg-skip-empty # SKIP without a reason (exit 77 must say why and what installs it)
not ok 7 - th-timeout # TIMEOUT after 1 s
not ok 8 - ti-fail # exit 3
ok 9 - ta-excl
5 passed, 3 failed, 1 skipped
X
diff "$TMPDIR/want" "$TMPDIR/lines" || fail "run.sh output differs from the expected lines"
contains "$TMPDIR/out" "#   the reason it failed"
contains "$TMPDIR/out" "# exclusive part: 1 scripts, one at a time"
# a filter (substring and glob) selects; -l lists marks
E2E_DIR=$d "$LATSCOPE_SRCDIR/tests/e2e/run.sh" -l pair 't?-ex*' >"$TMPDIR/l"
cat >"$TMPDIR/want" <<X
tb-pair timeout=300
tc-pair timeout=300
ta-excl timeout=300 exclusive
X
diff "$TMPDIR/want" "$TMPDIR/l" || fail "run.sh -l with filters"
# -j 1: tb runs alone and waits for tc in vain (tc, run after it, finds tb's flag)
rm -f "$TMPDIR/b" "$TMPDIR/c"
set +e
E2E_DIR=$d "$LATSCOPE_SRCDIR/tests/e2e/run.sh" -j 1 pair >"$TMPDIR/out1" 2>&1
set -e
contains "$TMPDIR/out1" "not ok 1 - tb-pair # exit 1"
contains "$TMPDIR/out1" "1 passed, 1 failed, 0 skipped"
exit 0

#!/usr/bin/env bash
# t776-verdict-names-docs: the verdict names bench and diff print come from one table each in
# the code (stable_verdict_name() in src/stats/stable.c, diff_verdict_name() in
# src/diff/bench.c), and the docs list exactly those (docs/latscope-bench.md's "stability"
# table, docs/latscope-diff.md's "Verdicts" table): the two cannot drift apart again (issue 28:
# the docs said throughput_only / gave_up while bench printed other names).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (needed to read the tables)"
python3 - "$LATSCOPE_SRCDIR" <<'PY' || fail "verdict names differ between code and docs (above)"
import re, sys
src = sys.argv[1]
def code_names(path, func):
    text = open(f"{src}/{path}").read()
    body = re.search(r"const char \*%s\([^)]*\)\n\{(.*?)\n\}" % func, text, re.S)
    assert body, f"{func} not found in {path}"
    names = re.findall(r'return "([^"]*)";', body.group(1))
    names = [n for n in names if n != "?"]
    assert len(names) >= 3, (func, names)
    return set(names)
def doc_names(path, header):
    rows, on = [], False
    for line in open(f"{src}/{path}"):
        line = line.strip()
        if line.startswith("| %s |" % header): on = True; continue
        if on and line.startswith("|---"): continue
        if on and line.startswith("|"):
            rows += re.findall(r"`([^`]+)`", line.split("|")[1])
        elif on: break
    assert rows, f"no '{header}' table in {path}"
    return set(rows)
bad = 0
for path, func, doc, header in [
        ("src/stats/stable.c", "stable_verdict_name", "docs/latscope-bench.md", "stability"),
        ("src/diff/bench.c", "diff_verdict_name", "docs/latscope-diff.md", "verdict")]:
    c, d = code_names(path, func), doc_names(doc, header)
    if c != d:
        bad = 1
        print(f"{func}: in the code only {sorted(c - d)}, in {doc} only {sorted(d - c)}")
sys.exit(bad)
PY
# and bench prints one of them: a --stable point's JSON name is in the table
if "$LATSCOPE" serve-test --help 2>/dev/null | grep -q -- --port; then
    . "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
    start_fixture --service fixed:0
    "$LATSCOPE" bench -c 1 --stable --window 100ms -t 1 --max-send-lag 1000 --format json \
        "$FIXTURE_URL/" >"$TMPDIR/s.json" 2>/dev/null || true
    name=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["points"][0]["stability"])' "$TMPDIR/s.json")
    grep -qF "| \`$name\` |" "$LATSCOPE_SRCDIR/docs/latscope-bench.md" ||
        fail "bench printed stability '$name', not in docs/latscope-bench.md's table"
fi
exit 0

#!/usr/bin/env bash
# t266-bench-sessions-errors: bad --sessions files and combinations exit 2 naming the file, the
# line and what to do, before any request is sent (no server listens on the URL's port).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
U=http://127.0.0.1:9/v1/chat/completions
ok='{"conversations":[{"from":"human","value":"a"},{"from":"gpt","value":"b"}]}'
run() { expect_rc 2 "$LATSCOPE" bench --target openai "$@"; }
printf '%s\n%s\n' "$ok" 'not json' >"$TMPDIR/a.jsonl"
run "$U" --sessions "$TMPDIR/a.jsonl" -n 1
contains "$TMPDIR/err" "$TMPDIR/a.jsonl:2: not a JSON object (one conversation per line"
printf '%s\n\n{"conversations":[{"from":"gpt","value":"x"}]}\n' "$ok" >"$TMPDIR/b.jsonl"
run "$U" --sessions "$TMPDIR/b.jsonl" -n 1
contains "$TMPDIR/err" "b.jsonl:3: conversations[0]: a gpt message before any human message"
printf '{"session_id":1,"turns":[{"text":"a"},{"delay":5}]}\n' >"$TMPDIR/c.jsonl"
run "$U" --sessions "$TMPDIR/c.jsonl" -n 1
contains "$TMPDIR/err" "c.jsonl:1: turns[1] has no input; give \"text\""
printf '{"prompt":"x"}\n' >"$TMPDIR/d.jsonl"
run "$U" --sessions "$TMPDIR/d.jsonl" -n 1
contains "$TMPDIR/err" "d.jsonl:1: needs \"conversations\""
: >"$TMPDIR/e.jsonl"
run "$U" --sessions "$TMPDIR/e.jsonl" -n 1
contains "$TMPDIR/err" "e.jsonl: no conversations"
run "$U" --sessions "$TMPDIR/missing.jsonl" -n 1
contains "$TMPDIR/err" "missing.jsonl: No such file or directory"
# --history dataset needs replies in the file
printf '{"turns":[{"text":"a"}]}\n' >"$TMPDIR/f.jsonl"
run "$U" --sessions "$TMPDIR/f.jsonl" --history dataset -n 1
contains "$TMPDIR/err" "--history dataset: $TMPDIR/f.jsonl has no assistant replies"
run "$U" --sessions "$TMPDIR/f.jsonl" --history both -n 1
contains "$TMPDIR/err" "--history both: expected server or dataset"
run "$U" --sessions "$TMPDIR/f.jsonl" --think-time soon -n 1
contains "$TMPDIR/err" "--think-time soon: expected a duration"
run "$U" --think-time 1s -n 1
contains "$TMPDIR/err" "--history and --think-time need --sessions FILE.jsonl"
# combinations
run "$U" --sessions "$TMPDIR/f.jsonl" -r 5 -n 1
contains "$TMPDIR/err" "--sessions: runs a closed loop: -c N users"
run "http://127.0.0.1:9/v1/completions" --sessions "$TMPDIR/f.jsonl" -n 1
contains "$TMPDIR/err" "--sessions sends chat messages with their history: use --api chat"
run "$U" --sessions "$TMPDIR/f.jsonl" --prompts "$TMPDIR/f.jsonl" -n 1
contains "$TMPDIR/err" "--sessions gives the prompts; drop --prompts"
exit 0

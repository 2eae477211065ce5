#!/usr/bin/env bash
# fuzz-ledger.sh --update | --check [ROOT] - the cumulative fuzz table of docs/testing.md.
#
# docs/fuzz-ledger.tsv holds one row per target per campaign (tests/tools/fuzz-campaign.sh appends
# them). The table between "<!-- fuzz-ledger: begin -->" and "<!-- fuzz-ledger: end -->" in
# docs/testing.md lists every target of tests/fuzz/ (and the mutation driver, mutate-real) with its cumulative executions, campaigns,
# seconds, last coverage, last run and open findings (crash rows not followed by a clean run).
#   --update  rewrites that table from the ledger
#   --check   exits 1 when the table differs from what --update would write (a target added
#             without a row, a ledger row not in the table, a hand-edited number)
set -uo pipefail
mode=${1:-}
root=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
ledger=$root/docs/fuzz-ledger.tsv doc=$root/docs/testing.md
[[ $mode == --update || $mode == --check ]] || { echo "usage: fuzz-ledger.sh --update|--check [ROOT]" >&2; exit 2; }
[[ -f $doc ]] || { echo "fuzz-ledger: $doc missing" >&2; exit 2; }
grep -q '^<!-- fuzz-ledger: begin -->$' "$doc" && grep -q '^<!-- fuzz-ledger: end -->$' "$doc" ||
    { echo "fuzz-ledger: $doc has no '<!-- fuzz-ledger: begin/end -->' markers" >&2; exit 2; }

table() {
    local t
    { for f in "$root"/tests/fuzz/fuzz-*.c; do t=${f##*/fuzz-}; echo "${t%.c}"; done; echo mutate-real; } |
        awk -F'\t' -v ledger="$ledger" '
        BEGIN {
            while ((getline line < ledger) > 0) {
                if (++nr == 1) continue  # header
                split(line, c, "\t")
                n = c[3]; runs[n]++; secs[n] += c[4]; ex[n] += c[5]
                if (c[6] + 0 > 0) cov[n] = c[6]
                last[n] = c[1]
                open[n] = (c[8] == "ok") ? 0 : open[n] + 1
                if (!(n in known)) unknown[n] = 1
            }
            print "| target | executions (cumulative) | campaigns | seconds | last coverage (edges) | last run | open findings |"
            print "|---|--:|--:|--:|--:|---|--:|"
        }
        {
            n = $1; known[n] = 1; delete unknown[n]
            printf "| `%s` | %d | %d | %d | %s | %s | %d |\n", n, ex[n], runs[n], secs[n],
                (n in cov) ? cov[n] : "-", (n in last) ? last[n] : "never", open[n]
        }
        END { for (n in unknown) if (!(n in known)) printf "| `%s` (target removed) | %d | %d | %d | - | %s | %d |\n", n, ex[n], runs[n], secs[n], last[n], open[n] }'
}

new=$(mktemp)
trap 'rm -f "$new"' EXIT
{
    sed -n '1,/^<!-- fuzz-ledger: begin -->$/p' "$doc"
    table
    sed -n '/^<!-- fuzz-ledger: end -->$/,$p' "$doc"
} >"$new"
if [[ $mode == --update ]]; then
    cmp -s "$new" "$doc" || cat "$new" >"$doc"
    exit 0
fi
if ! cmp -s "$new" "$doc"; then
    echo "fuzz-ledger: the table in docs/testing.md is not the ledger's (run tests/tools/fuzz-ledger.sh --update):" >&2
    diff "$doc" "$new" >&2
    exit 1
fi
echo "fuzz-ledger: table matches docs/fuzz-ledger.tsv ($(($(wc -l <"$ledger") - 1)) rows)"

#!/usr/bin/env bash
# golden-norm.sh - normalises latscope output (stdin -> stdout) for the golden files of
# t160-golden.sh: the source tree, the corpus and the scratch directory become @SRC@, @TRACES@
# and @TMP@ (longest first, so a corpus inside the tree stays @TRACES@); "latscope X.Y.Z"
# version strings become "latscope @VERSION@"; the "latscope" build object every JSON output
# carries (version and compiled features, one line: core/features.h) becomes @BUILD@; the seconds of timing lines ("loaded N trace(s)
# in X s; analyses took X s wall, X s cpu", "... took X s") become "@S@". Nothing else changes:
# every number an analysis prints is kept.
set -euo pipefail
esc() { printf '%s' "$1" | sed 's/[][\.*^$/|&]/\\&/g'; }
args=()
for pair in "TRACES:${LATSCOPE_TRACES:-}" "SRC:${LATSCOPE_SRCDIR:-}" "TMP:${TMPDIR:-}"; do
    name=${pair%%:*} dir=${pair#*:}
    [[ -n $dir ]] || continue
    # the path as given and as resolved (either may appear in messages)
    for d in "${dir%/}" "$(cd "$dir" 2>/dev/null && pwd -P || echo "${dir%/}")"; do
        args+=("$((${#d} + 1000))	s|$(esc "$d")|@$name@|g")
    done
done
script=$(printf '%s\n' "${args[@]}" | sort -rn | cut -f2-)
sed -E -e "$script" \
    -e 's/"latscope": ?\{"version":"[^"]*","features":\{[^{}]*(\{[^{}]*\}[^{}]*)*\}\}/"latscope": @BUILD@/g' \
    -e 's/latscope [0-9]+\.[0-9]+(\.[0-9]+)?([-+~][0-9A-Za-z.+~-]*)?/latscope @VERSION@/g' \
    -e '/(loaded [0-9]+ trace|took [0-9.]+ s)/ s/[0-9]+\.[0-9]+ s\b/@S@ s/g'

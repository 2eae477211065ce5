#!/usr/bin/env bash
# 30-doctor.sh - `latscope doctor` end to end (load + every rule + JSON) on the largest traces of
# the shared corpus, next to loading alone (`latscope selftest load`), so the rules' own cost is
# visible. Best of $DOCTOR_RUNS runs (default 3). Prints name<TAB>value<TAB>unit<TAB>note.
set -euo pipefail
: "${LATSCOPE:?}" "${LATSCOPE_TRACES:?}"
runs=${DOCTOR_RUNS:-3}
[[ -x /usr/bin/time ]] || { echo "doctor	skipped		/usr/bin/time missing"; exit 0; }
best() {
    local b="" line w m
    for _ in $(seq "$runs"); do
        line=$(/usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1)
        read -r w m <<<"$line"
        if [[ -z $b ]] || awk -v a="$w" -v c="${b%% *}" 'BEGIN{exit !(a<c)}'; then b="$w $m"; fi
    done
    echo "$b"
}
for rel in hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz \
    hta/tests/data/df_index_resolver/df_index_resolver.json.gz \
    kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz; do
    f=$LATSCOPE_TRACES/$rel
    name=$(basename "$(dirname "$rel")")
    if [[ ! -f $f ]]; then
        echo "doctor.$name	skipped		trace absent"
        continue
    fi
    read -r lw lm <<<"$(best "$LATSCOPE" selftest load "$f")"
    read -r dw dm <<<"$(best "$LATSCOPE" doctor --fail-on never --format json "$f")"
    echo "doctor.$name.wall	$dw	s	load + rules + JSON ($(du -h "$f" | cut -f1) gz)"
    echo "doctor.$name.load_only	$lw	s	latscope selftest load"
    echo "doctor.$name.rules	$(awk -v a="$dw" -v b="$lw" 'BEGIN{printf "%.2f", a-b}')	s	doctor minus load"
    echo "doctor.$name.rss	$((dm / 1024))	MiB	peak RSS"
done

#!/usr/bin/env bash
# run.sh [-j N] [-l] [FILTER...] - runs tests/e2e/t*.sh against the real binary ($LATSCOPE).
#
# Each script gets LATSCOPE, LATSCOPE_SRCDIR, LATSCOPE_TRACES (the shared corpus, possibly
# absent), LATSCOPE_SKIP_FILE and a private TMPDIR. Exit 0 = pass, 77 = skip, anything else =
# fail. The skip reason is what lib.sh's skip() wrote to $LATSCOPE_SKIP_FILE, else the last line
# of the script's output; a skip without a reason counts as a failure (docs/testing.md).
#
# -j N     run N scripts at once (default: the number of cores; E2E_JOBS sets it too)
# -l       list the selected scripts with their marks, run nothing
# FILTER   a substring or a glob (*, ?, [) of script names (t233, 'bench-*', t5?0); several
#          filters select their union (a glob may match any part of the name, like a
#          substring); none selects every script
#
# Marks are header comment lines near the top of a script (first 30 lines):
#   # exclusive       (or "# exclusive: why") the script measures time or relies on load: it
#                     runs alone, after the parallel part
#   # timeout: 600    seconds for this script (default E2E_TIMEOUT, 300), times E2E_TIMEOUT_MULT
#   # san: skip       the sanitizer pass (LATSCOPE_SAN=1) does not run it: it exercises no C
#                     path the release pass does not (Python truth generation)
#   # truth: WHAT     a heavy truth check that downloads gigabytes (WHAT says what): skipped,
#                     saying so, unless E2E_TRUTH=1 (`make check-truth`), which runs only these
# A script without marks runs in the parallel part with the default timeout.
#
# Output: TAP-like lines, the parallel part first, then the exclusive part, each in name order
# and printed as soon as every earlier script of the part has finished; a failure shows the last
# 40 lines of its output, after the assertion lines from earlier in it (show_out). The closing line is "N passed, N failed, N skipped". E2E_TIMES=FILE
# appends "TIME name seconds" per script. E2E_DIR runs the t*.sh of another directory.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${LATSCOPE:=$root/build/latscope}"
: "${LATSCOPE_TRACES:=$root/../shared/traces}"
export LATSCOPE LATSCOPE_TRACES LATSCOPE_SRCDIR=$root
dir=${E2E_DIR:-$root/tests/e2e} # another directory of t*.sh: run.sh's own test (t030)

jobs=${E2E_JOBS:-$(nproc 2>/dev/null || echo 2)}
list=0
filters=()
while [[ $# -gt 0 ]]; do
    case $1 in
    -j) jobs=${2:?-j needs a number}; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    -l) list=1; shift ;;
    -h | --help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    --) shift; filters+=("$@"); break ;;
    -*) echo "run.sh: unknown option $1 (see run.sh --help)" >&2; exit 2 ;;
    *) filters+=("$1"); shift ;;
    esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -j wants a positive number, not '$jobs'" >&2; exit 2; }

selected() { # NAME: is it selected by the filters?
    [[ ${#filters[@]} -eq 0 ]] && return 0
    local f
    for f in "${filters[@]}"; do
        if [[ $f == *[*?[]* ]]; then
            # shellcheck disable=SC2053
            [[ $1 == *$f* || $1.sh == $f ]] && return 0
        elif [[ $1 == *"$f"* ]]; then
            return 0
        fi
    done
    return 1
}

# mark SCRIPT: prints "EXCLUSIVE TIMEOUT SANSKIP" from the header lines.
mark() {
    local ex=0 to=${E2E_TIMEOUT:-300} san=0 truth=- sanwhy='' line
    while IFS= read -r line; do
        case $line in
        '# exclusive' | '# exclusive '* | '# exclusive:'*) ex=1 ;;
        '# timeout: '*) line=${line#'# timeout: '}; [[ ${line%% *} =~ ^[0-9]+$ ]] && to=${line%% *} ;;
        '# san: skip' | '# san: skip '*) san=1 sanwhy=${line#'# san: skip'} ;;
        '# truth: '*) truth=${line#'# truth: '} ;;
        esac
    done < <(head -30 "$1")
    sanwhy=${sanwhy# }
    sanwhy=${sanwhy#(}
    sanwhy=${sanwhy%)}
    [[ -n $sanwhy ]] || sanwhy="Python truth generation, no C path the release pass does not run"
    echo "$ex $((to * ${E2E_TIMEOUT_MULT:-1})) $san $truth"
    echo "$sanwhy"
}

par=() exc=()
declare -A tmo sanskip sanwhy truth
for t in "$dir"/t*.sh; do
    [[ -f $t ]] || continue
    name=$(basename "$t" .sh)
    selected "$name" || continue
    { read -r ex to san tr && IFS= read -r why; } <<<"$(mark "$t")"
    [[ ${E2E_TRUTH:-0} == 1 && $tr == - ]] && continue # check-truth runs the truth scripts only
    tmo[$name]=$to sanskip[$name]=$san sanwhy[$name]=$why truth[$name]=$tr
    if [[ $ex == 1 ]]; then exc+=("$name"); else par+=("$name"); fi
done

if [[ $list == 1 ]]; then
    for n in "${par[@]}" "${exc[@]}"; do
        m=""
        for e in "${exc[@]}"; do [[ $e == "$n" ]] && m+=" exclusive"; done
        [[ ${sanskip[$n]} == 1 ]] && m+=" san:skip"
        [[ ${truth[$n]} != - ]] && m+=" truth"
        echo "$n timeout=${tmo[$n]}$m"
    done
    exit 0
fi

work=$(mktemp -d /tmp/latscope-e2e.XXXXXX)
trap 'rm -rf "$work"' EXIT
p=0 f=0 s=0 i=0

# run_one NAME: runs one script; leaves $work/NAME.{out,rc,skip,sec}. The .rc file is written
# last: its presence means the script is done.
run_one() {
    local n=$1 d t0 t1 rc
    # the script's TMPDIR directly under /tmp, as before -j: a script may open it to another user
    # (t357 chmods it for nobody), which a directory inside the 0700 $work would not allow
    d=$(mktemp -d /tmp/latscope-e2e.XXXXXX) ||
        { echo "run.sh: mktemp failed" >"$work/$n.out"; echo 0 >"$work/$n.sec"; echo 1 >"$work/$n.rc"; return; }
    t0=$(date +%s.%N)
    if [[ ${LATSCOPE_SAN:-0} == 1 && ${sanskip[$n]} == 1 ]]; then
        echo "sanitizer pass: ${sanwhy[$n]} (# san: skip)" >"$work/$n.out"
        rc=77
    elif [[ ${truth[$n]} != - && ${E2E_TRUTH:-0} != 1 ]]; then
        echo "heavy truth check (${truth[$n]}): make check-truth runs it" >"$work/$n.out"
        rc=77
    else
        TMPDIR=$d LATSCOPE_SKIP_FILE=$work/$n.skip timeout -k 10 "${tmo[$n]}" \
            bash "$dir/$n.sh" </dev/null >"$work/$n.out" 2>&1
        rc=$?
    fi
    t1=$(date +%s.%N)
    rm -rf "$d"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$work/$n.sec"
    echo "$rc" >"$work/$n.rc.tmp" && mv "$work/$n.rc.tmp" "$work/$n.rc"
}

# report NAME: prints the TAP line of a finished script and counts it.
report() {
    local n=$1 rc why reason
    rc=$(cat "$work/$n.rc")
    i=$((i + 1))
    [[ -n ${E2E_TIMES:-} ]] && echo "TIME $n $(cat "$work/$n.sec")" >>"$E2E_TIMES"
    if [[ $rc -eq 0 ]]; then
        echo "ok $i - $n"; p=$((p + 1))
    elif [[ $rc -eq 77 ]]; then
        reason=""
        [[ -s $work/$n.skip ]] && reason=$(tail -1 "$work/$n.skip")
        [[ -z ${reason//[[:space:]]/} ]] && reason=$(tail -1 "$work/$n.out")
        if [[ -z ${reason//[[:space:]]/} ]]; then
            echo "not ok $i - $n # SKIP without a reason (exit 77 must say why and what installs it)"
            show_out "$work/$n.out"; f=$((f + 1))
        else
            echo "ok $i - $n # SKIP $reason"; s=$((s + 1))
        fi
    else
        case $rc in
        124 | 137) why=" # TIMEOUT after ${tmo[$n]} s" ;;
        *) why=" # exit $rc" ;;
        esac
        echo "not ok $i - $n$why"; show_out "$work/$n.out"; f=$((f + 1))
    fi
}

# show_out FILE: a failed script's output for the log: its last 40 lines, and before them the
# assertion lines from earlier in the output (a Python traceback's "File"/"...Error" lines and
# the first line of each "FAIL:"), which a long document printed after them (fail "...: $(cat
# out.json)") would push out of the tail.
show_out() {
    local n
    n=$(wc -l <"$1")
    if ((n > 40)); then
        head -n $((n - 40)) "$1" | grep -E '^(Traceback|  File |[A-Za-z.]*(Error|Exception)\b|FAIL:)' |
            cut -c1-300 | tail -20 | sed 's/^/#   (earlier) /'
    fi
    sed 's/^/#   /' "$1" | tail -40
}

# run_part N NAME...: runs the scripts N at a time, reporting them in the given order.
run_part() {
    local n=$1; shift
    local names=("$@") next=0 started=0 running=0
    while [[ $next -lt ${#names[@]} ]]; do
        while [[ $started -lt ${#names[@]} && $running -lt $n ]]; do
            run_one "${names[$started]}" &
            started=$((started + 1)) running=$((running + 1))
        done
        # report every finished script at the head of the order
        while [[ $next -lt $started && -f $work/${names[$next]}.rc ]]; do
            report "${names[$next]}"; next=$((next + 1))
        done
        [[ $next -ge ${#names[@]} ]] && break
        if [[ $running -gt 0 ]]; then
            wait -n 2>/dev/null
            running=$((running - 1))
        fi
    done
    wait
}

if [[ ${#par[@]} -gt 0 ]]; then
    echo "# parallel part: ${#par[@]} scripts, -j $jobs"
    run_part "$jobs" "${par[@]}"
fi
if [[ ${#exc[@]} -gt 0 ]]; then
    echo "# exclusive part: ${#exc[@]} scripts, one at a time"
    run_part 1 "${exc[@]}"
fi
echo "$p passed, $f failed, $s skipped"
[[ $f -eq 0 ]]

#!/usr/bin/env bash
# ka-compare.sh LATSCOPE_JSON KA_JSON [SHAPES_JSON] [MODE] - prints every difference between
# latscope's operator table (`analyze --format json --top 100000`) and what torch's
# prof.key_averages() gave for the same trace (KA_JSON: {ops: [{name, count, cpu_time_total_us,
# self_cpu_time_total_us[, cpu_memory_usage, self_cpu_memory_usage]}], steps: [{dur_us}]}, as
# torch-cpu/prof_models.py and tests/tools/torch-truth.py write it), and, with SHAPES_JSON,
# key_averages(group_by_input_shape=True) rows ({name, input_dims, count, ...}) against
# ops_by_shape (a TensorList input counts as [] there, as torch leaves it out of input_shapes).
# Nothing printed = equal. Times: latscope's µs have 3 decimals (the trace's exact
# ns); the 0.0005 µs tolerance absorbs key_averages' float sums. Memory: bytes, exact.
# MODE compat: step durations are not compared (they take HTA's rounding under --hta-compat).
set -euo pipefail
shapes=${3:-}
[[ -n $shapes ]] || shapes=/dev/null
jq -rn --slurpfile a "$1" --slurpfile k "$2" --rawfile s "$shapes" --arg mode "${4:-default}" '
    def near(x; y): ((x - y) | fabs) <= 0.0005 + 1e-12 * (y | fabs);
    $a[0].ranks[0] as $r | $k[0] as $k |
    ($r.top_ops | map({key: .name, value: .}) | from_entries) as $L |
    [ ($k.ops[] | . as $o | $L[$o.name] as $l |
        if $l == null then "missing row \($o.name)"
        elif $l.count != $o.count or (near($l.total_us; $o.cpu_time_total_us) | not)
             or (near($l.self_us; $o.self_cpu_time_total_us) | not)
        then "\($o.name): latscope \($l.count) calls total \($l.total_us) self \($l.self_us), key_averages \($o.count) \($o.cpu_time_total_us) \($o.self_cpu_time_total_us)"
        elif ($o.cpu_memory_usage != null) and ($l.cpu_mem_bytes != $o.cpu_memory_usage or
                                                $l.self_cpu_mem_bytes != $o.self_cpu_memory_usage)
        then "\($o.name): CPU Mem latscope \($l.cpu_mem_bytes)/\($l.self_cpu_mem_bytes), key_averages \($o.cpu_memory_usage)/\($o.self_cpu_memory_usage)"
        else empty end),
      (if ($r.top_ops | length) != ($k.ops | length)
       then "latscope has \($r.top_ops | length) rows, key_averages \($k.ops | length)" else empty end),
      (if $r.ops_total != ($k.ops | length) then "ops_total \($r.ops_total)" else empty end),
      (if $mode == "compat" then empty
       elif ($r.steps | length) != ($k.steps | length)
       then "latscope has \($r.steps | length) steps, key_averages \($k.steps | length)"
       else ([$r.steps, $k.steps] | transpose[] | select((near(.[0].dur_us; .[1].dur_us)) | not) |
             "step \(.[0].step): \(.[0].dur_us) vs \(.[1].dur_us)") end),
      ($r.top_ops[] | select(.self_us < 0 or .total_us < 0) | "negative time: \(.name)"),
      (if $s == "" then empty else
         ($s | fromjson) as $S |
         # torch leaves a TensorList input out of input_shapes ([]); latscope keys its rows so
         # too (t704): summing them under torch'"'"'s key is the identity, kept as a check
         ($r.ops_by_shape | map(. + {key: "\(.name) \((.input_dims // "[]") | fromjson |
             map(if type == "array" and length > 0 and (.[0] | type) == "array" then [] else . end) |
             tojson)"}) | group_by(.key) |
          map({key: .[0].key, value: {count: (map(.count) | add), total_us: (map(.total_us) | add),
                                      self_us: (map(.self_us) | add)}}) | from_entries) as $B |
         (if ($B | length) != ($S | length)
          then "latscope has \($B | length) shape rows, key_averages \($S | length)" else empty end),
         ($S[] | . as $o | $B["\($o.name) \($o.input_dims)"] as $l |
          if $l == null then "missing shape row \($o.name) \($o.input_dims)"
          elif $l.count != $o.count or (near($l.total_us; $o.cpu_time_total_us) | not)
               or (near($l.self_us; $o.self_cpu_time_total_us) | not)
          then "\($o.name) \($o.input_dims): latscope \($l.count) \($l.total_us) \($l.self_us), key_averages \($o.count) \($o.cpu_time_total_us) \($o.self_cpu_time_total_us)"
          else empty end)
       end)
    ] | .[]'

# hta-parity-diff.jq: one line per difference between HolisticTraceAnalysis' numbers ($hta, a
# line of tests/data/hta-parity.jsonl) and `latscope analyze --hta-compat --format json` (the
# input): "FIELD hta=X latscope=Y". Times are us (HTA rounds idle times to 2 dp: tolerance
# 0.011); counts are exact. Used by tests/e2e/t192-analyze-hta-parity.sh.
def near($a; $b; $tol):
  if ($a | type) != "number" or ($b | type) != "number" then $a == $b
  else ((($a - $b) | fabs) <= $tol) end;
def chk($f; $a; $b; $tol): if near($a; $b; $tol) then empty
  else "\($f) hta=\($a | tojson) latscope=\($b | tojson)" end;
.ranks[0] as $r
| (
  # temporal breakdown (HTA raises on a rank without GPU rows: latscope's is null)
  (if ($hta.temporal | has("error")) then
     (if $r.temporal == null then empty else "temporal hta=error latscope=present" end)
   else
     ($hta.temporal) as $t
     | chk("temporal.idle"; $t.idle_time; $r.temporal.idle_us; 0.011),
       chk("temporal.compute"; $t.compute_time; $r.temporal.compute_us; 0.011),
       chk("temporal.non_compute"; $t.non_compute_time; $r.temporal.non_compute_us; 0.011),
       chk("temporal.kernel_time"; $t.kernel_time; $r.temporal.kernel_time_us; 0.011)
   end),
  # idle-time breakdown per stream and category (an absent category is 0)
  (if ($hta.idle | has("error")) then
     (if ($r.idle | length) == 0 then empty else "idle hta=error latscope=\($r.idle | length) streams" end)
   else
     ([$r.idle[] | {key: (.stream | tostring), value: .}] | from_entries) as $li
     | chk("idle.streams"; ($hta.idle | keys | sort | join(",")); ($li | keys | sort | join(",")); 0) ,
       ($hta.idle | to_entries[] | .key as $s | .value as $h
        | ["host_wait", "kernel_wait", "other"][] as $c
        | chk("idle.\($s).\($c)"; ($h[$c] // 0); ($li[$s][$c + "_us"] // null); 0.011))
   end),
  # kernel-type buckets
  (if ($hta.ktypes | type) == "object" and ($hta.ktypes | has("error") | not) then
     ([$r.kernel_types[] | {key: .type, value: .sum_us}] | from_entries) as $lk
     | ($hta.ktypes | keys) as $hk
     | (($hk + ($lk | keys)) | unique[]) as $k
     | chk("ktypes.\($k)"; $hta.ktypes[$k]; $lk[$k]; 0.011)
   else empty end),
  # launch statistics
  (if ($hta.launch | has("error")) then empty else
     chk("launch.count"; $hta.launch.count; $r.launch.count; 0),
     chk("launch.short"; $hta.launch.short; $r.launch.short_kernels; 0),
     chk("launch.runtime_outliers"; $hta.launch.runtime_outliers; $r.launch.runtime_outliers; 0),
     chk("launch.delay_outliers"; $hta.launch.delay_outliers; $r.launch.launch_delay_outliers; 0),
     (if $hta.launch.count > 0 then
        chk("launch.median_delay"; $hta.launch.median_delay; $r.launch.median_launch_delay_us; 0.0011)
      else empty end)
   end),
  # queue length per stream
  (if $hta.queue == null then
     (if ($r.queue | length) == 0 then empty else "queue hta=none latscope=\($r.queue | length) streams" end)
   elif ($hta.queue | has("error")) then empty
   else
     ([$r.queue[] | {key: (.stream | tostring), value: .}] | from_entries) as $lq
     | chk("queue.streams"; ($hta.queue | keys | sort | join(",")); ($lq | keys | sort | join(",")); 0),
       ($hta.queue | to_entries[] | .key as $s | .value as $h
        | chk("queue.\($s).count"; $h.count; $lq[$s].samples; 0),
          chk("queue.\($s).mean"; $h.mean; $lq[$s].mean; 0.000002),
          chk("queue.\($s).max"; $h.max; $lq[$s].max_length; 0))
   end)
  )

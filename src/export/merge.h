/*
 * merge.h - merges one trace into another on one clock (issue 13 item 9): a torch.profiler
 * trace and a `latscope trace --cpu` trace of the same run become one timeline, so the CPU
 * samples show up inside the operator that was running.
 *
 * Both traces must say when their ts 0 was (baseTimeNanoseconds: Kineto writes the epoch ns
 * that its µs timestamps count from; latscope writes the epoch ns of its launch). Every event,
 * arg, track (with its process/thread names) and flow of src is copied into dst with its time
 * shifted by src->base_time_ns - dst->base_time_ns, so both count from dst's ts 0.
 */
#ifndef LAT_EXPORT_MERGE_H
#define LAT_EXPORT_MERGE_H

#include "model/events.h"

/* Copies src into dst (see above). Returns 0, -ENOMEM, LAT_E_UNSUPPORTED when either trace
 * has no base time (the clocks cannot be related), or LAT_E_OVERFLOW when a shifted time
 * would not fit. *shift_ns (may be NULL) gets the shift applied. */
int lat_trace_merge(struct lat_trace *dst, const struct lat_trace *src, lat_ns *shift_ns);

#endif

/*
 * kineto_write.h - write a struct lat_trace as Kineto-compatible Chrome-trace JSON.
 *
 * The output follows pytorch/kineto's output_json.cpp layout (../shared/docs/trace-formats.md
 * §1) and the rules Perfetto's JSON importer applies (§6), so latscope analyze/doctor, Holistic
 * Trace Analysis, TensorBoard's profiler plugin and Perfetto open it unchanged.
 */
#ifndef LAT_EXPORT_KINETO_WRITE_H
#define LAT_EXPORT_KINETO_WRITE_H

#include <stdbool.h>
#include <stdio.h>

#include "model/events.h"

struct kineto_write_opts {
    bool pretty;    /* indent (bigger; for humans and golden files) */
    int gzip;       /* -1: by extension (".gz" = gzip), 0: plain, 1: gzip */
    int gzip_level; /* 1..9; 0 = zlib's default (6) */
};

/*
 * Writes trace t to `path` ("-" = stdout, never gzipped unless opts->gzip == 1). Metadata keys
 * that lat_meta_is_secret() flags are written with the value "REDACTED". Events are written in
 * the model's order (sort first with lat_trace_sort() for a time-ordered file).
 * Returns 0, -errno (open/write), -ENOMEM or LAT_E_GZIP. A failed write may leave a partial file.
 */
int kineto_write_file(const struct lat_trace *t, const char *path,
                      const struct kineto_write_opts *opts);

/* Same, as plain JSON to an open stream (not closed). */
int kineto_write_stream(const struct lat_trace *t, FILE *f, const struct kineto_write_opts *opts);

#endif

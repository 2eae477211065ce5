/*
 * bench.h - a `latscope bench --format json` result as a report page: the document checked
 * (one JSON object with a "points" array) and embedded as it is, except its "url" and
 * "workload" strings (the run's and its endpoints'), which pass through the one redaction
 * (core/redact.h), so a result written before it, or by another tool, brings no query secret
 * into the report. Library code: never prints.
 */
#ifndef LAT_REPORT_BENCH_H
#define LAT_REPORT_BENCH_H

#include <stddef.h>

struct jsonw;

/* Writes the page object {"kind":"bench", ..., "bench": DOC} of doc[0..len) into w; extra,
 * when not NULL, writes more members of that object after "bench" (the command's doctor
 * findings). 0, LAT_E_USAGE with err naming path and what is wrong (nothing written), or
 * -ENOMEM. */
int rep_bench_write(struct jsonw *w, const char *path, const char *doc, size_t len,
                    void (*extra)(struct jsonw *w, void *ctx), void *ctx, char *err, size_t errsz);

#endif

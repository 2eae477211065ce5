/*
 * hlog.h - an HdrHistogram interval log (`latscope bench --hdr-log`) as a report page: per tag,
 * the histogram of all intervals (total, mean, max, the percentile curve) and each interval's
 * row [start_s, length_s, count, p50, p90, p99, max] in ms. docs/latscope-report.md. Library
 * code: never prints.
 */
#ifndef LAT_REPORT_HLOG_H
#define LAT_REPORT_HLOG_H

#include <stddef.h>

struct jsonw;

/* Writes the page object {"kind":"hlog", ...} of the log doc[0..len) into w. 0, or LAT_E_USAGE
 * with err naming path and what is wrong (the line, or no interval; nothing written). */
int rep_hlog_write(struct jsonw *w, const char *path, const char *doc, size_t len, char *err,
                   size_t errsz);

#endif

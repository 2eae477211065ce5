/*
 * records.h - `latscope bench --records` (HTTP) / `--records-detail` (LLM) JSONL as a report
 * page: per load point and second of completion, completed requests, errors and (LLM) output
 * tokens; error classes. docs/latscope-report.md, "Records pages". Library code: never prints.
 */
#ifndef LAT_REPORT_RECORDS_H
#define LAT_REPORT_RECORDS_H

#include <stddef.h>

struct jsonw;

/* Writes the page object {"kind":"records", ...} of doc[0..len) into w. 0, LAT_E_USAGE with err
 * naming path, the line and what is wrong (nothing written), or -ENOMEM. */
int rep_records_write(struct jsonw *w, const char *path, const char *doc, size_t len, char *err,
                      size_t errsz);

#endif

/*
 * internal.h - helpers shared by diff/bench.c and diff/trace.c: rows.c (rows, notes, verdicts)
 * and findings.c (the findings matcher), below both.
 */
#ifndef LAT_DIFF_INTERNAL_H
#define LAT_DIFF_INTERNAL_H

#include "diff/diff.h"

/* Appends a note (deduplicated). 0 or -ENOMEM. */
int diff_note(struct diff_bench_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends a zeroed row; NULL on -ENOMEM. */
struct diff_row *diff_new_row(struct diff_bench_result *r);
/* Fills delta, delta_pct, ci_pct (from ci when unset) and the verdict. */
void diff_row_finish(struct diff_row *row, double noise_pct);

struct doc_report;
/* The findings of ra (before) and rb (after) matched by rule id, rank (single: one input per
 * side, any rank) and a service finding's load point, each with its status; appended to
 * *findings, sorted resolved, new, changed, unchanged. The one matcher of diff's trace and bench
 * modes. 0 or -ENOMEM. */
int diff_findings_match(const struct doc_report *ra, const struct doc_report *rb, bool single,
                        struct diff_finding **findings, size_t *nfindings, size_t *cap);

#endif

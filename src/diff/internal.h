/*
 * internal.h - helpers shared by diff/bench.c and diff/trace.c.
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

#endif

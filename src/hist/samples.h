/*
 * samples.h - exact order statistics for small runs: keep every sample, sort, read ranks.
 *
 * The buffer is allocated once with a capacity (samples_init); samples_push() never allocates
 * and returns -ENOSPC once full, at which point the caller keeps using its HDR histogram only
 * (samples_overflowed() tells the reporter that exact statistics are unavailable).
 * Estimator (docs/metrics.md): core/pctl.h's nearest rank, r = max(1, ceil(p/100 * N)) in
 * integers, value sorted[r - 1]; the same rank as hist_value_at_percentile(), without bucket error.
 * Threading: none; one buffer per thread, merged with samples_append().
 */
#ifndef LAT_HIST_SAMPLES_H
#define LAT_HIST_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lat_samples {
    int64_t *v;
    size_t n, cap;
    bool sorted;
    bool overflowed; /* a push was refused: the sample set is incomplete */
};

/* Allocates room for cap samples. 0, LAT_E_USAGE (cap 0) or -ENOMEM. */
int samples_init(struct lat_samples *s, size_t cap);
void samples_fini(struct lat_samples *s);
void samples_reset(struct lat_samples *s);
/* Appends one value; 0 or -ENOSPC (then the set is marked overflowed). O(1), no allocation. */
int samples_push(struct lat_samples *s, int64_t v);
/* Appends all of src; -ENOSPC (and nothing appended) when dst lacks room. */
int samples_append(struct lat_samples *dst, const struct lat_samples *src);
bool samples_overflowed(const struct lat_samples *s);
/* Sorts in place (idempotent). */
void samples_sort(struct lat_samples *s);
/* Nearest-rank percentile, pct in [0, 100]; pct <= 0 gives the min. Sorts if needed.
 * 0 when empty. */
int64_t samples_percentile(struct lat_samples *s, double pct);
/* Exact arithmetic mean (long double accumulation); 0 when empty. */
double samples_mean(const struct lat_samples *s);

#endif

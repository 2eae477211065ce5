/*
 * hist.h - latscope's HdrHistogram-compatible latency histogram (values in ns).
 *
 * The bucket layout is HdrHistogram_c's (../shared/docs/load-testing.md §2.1), so counts written
 * to an interval log (hist/hlog.h) decode in HdrHistogram's own tools and vice versa. Default
 * range: 1 µs .. 1 h in ns with 3 significant digits (23 buckets x 2048 sub-buckets, 24 576
 * counts, 192 KiB of counts).
 *
 * Lifecycle (validate first, then initialize):
 *   hist_calc_config()  pure arithmetic, no allocation: checks the range and fills the layout;
 *   hist_init_prealloc() uses caller storage of hist_counts_bytes(cfg) bytes (never frees it);
 *   hist_init()          allocates the counts; hist_fini() frees what hist_init allocated.
 *
 * Threading: none. Each bench thread records into its own histogram; merge with hist_add().
 * Recording is O(1) and never allocates. Values outside [0, highest] are clamped into range and
 * counted in `clamped` (a latency tool must not drop its worst samples).
 *
 * Percentiles (docs/metrics.md): hist_value_at_percentile() is latscope's estimator, nearest rank
 * r = max(1, ceil(p/100 * N)); it returns the highest equivalent value of the bucket holding the
 * r-th smallest sample, capped at the exact recorded max. It is an upper bound of the exact
 * order statistic sorted[r-1], at most one bucket width (< 0.1 % for 3 digits) above it.
 * hist_value_at_percentile_hdr() is HdrHistogram_c's rank rule (round half up), uncapped.
 */
#ifndef LAT_HIST_HIST_H
#define LAT_HIST_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAT_HIST_LOWEST_NS  1000LL          /* 1 µs */
#define LAT_HIST_HIGHEST_NS 3600000000000LL /* 1 h */
#define LAT_HIST_SIG_FIGS   3

/* The bucket layout; filled by hist_calc_config(). Field names follow HdrHistogram_c. */
struct hist_config {
    int64_t lowest;  /* lowest discernible value (>= 1) */
    int64_t highest; /* highest trackable value (>= 2 * lowest) */
    int sig_figs;    /* 1..5 */
    int unit_magnitude;
    int sub_bucket_half_count_magnitude;
    int32_t sub_bucket_count;
    int32_t sub_bucket_half_count;
    int64_t sub_bucket_mask;
    int32_t bucket_count;
    int32_t counts_len;
};

struct lat_hist {
    struct hist_config cfg;
    uint64_t *counts; /* cfg.counts_len entries */
    uint64_t total;   /* number of recorded values */
    uint64_t clamped; /* values recorded outside [0, highest] and clamped into range */
    int64_t min, max; /* exact recorded extremes; INT64_MAX / 0 when empty */
    bool owns_counts; /* counts were allocated by hist_init() */
};

/* Pure: validates lowest >= 1, highest >= 2 * lowest, 1 <= sig_figs <= 5 and fills *cfg.
 * Returns 0 or LAT_E_USAGE. */
int hist_calc_config(int64_t lowest, int64_t highest, int sig_figs, struct hist_config *cfg);
/* Bytes of count storage a histogram with this layout needs. */
size_t hist_counts_bytes(const struct hist_config *cfg);
/* Initializes h over caller-provided storage (hist_counts_bytes(cfg) bytes, any contents: it is
 * zeroed). hist_fini() does not free it. Returns 0 or LAT_E_USAGE. */
int hist_init_prealloc(struct lat_hist *h, const struct hist_config *cfg, uint64_t *counts);
/* Validates, allocates and zeroes. Returns 0, LAT_E_USAGE or -ENOMEM. Free with hist_fini(). */
int hist_init(struct lat_hist *h, int64_t lowest_ns, int64_t highest_ns, int sig_figs);
/* hist_init(h, LAT_HIST_LOWEST_NS, LAT_HIST_HIGHEST_NS, LAT_HIST_SIG_FIGS). */
int hist_init_default(struct lat_hist *h);
/* Frees counts allocated by hist_init(); safe on a zeroed or already-finished histogram. */
void hist_fini(struct lat_hist *h);
/* Forgets every recorded value; keeps the layout and storage. */
void hist_reset(struct lat_hist *h);

/* Records one value (ns). O(1), allocation-free. */
void hist_record(struct lat_hist *h, int64_t v);
/* Records value v n times. */
void hist_record_n(struct lat_hist *h, int64_t v, uint64_t n);
/* HdrHistogram's post-hoc coordinated-omission correction: records v, then v - E, v - 2E, ...
 * while >= E. Only valid for a known constant interval E; latscope's bench does not need it
 * (it measures from the intended send time). E <= 0 records v only. */
void hist_record_corrected(struct lat_hist *h, int64_t v, int64_t expected_interval);
/* Adds every count of src into dst without loss. Same layout: exact. Different layout: each
 * src bucket is re-recorded at its median equivalent value (lossy by one bucket width).
 * Returns 0, or LAT_E_USAGE if dst == src. */
int hist_add(struct lat_hist *dst, const struct lat_hist *src);
/* True when both have the same lowest/highest/sig_figs (then hist_add is exact). */
bool hist_same_layout(const struct lat_hist *a, const struct lat_hist *b);

uint64_t hist_count(const struct lat_hist *h);
/* Exact min / max of the recorded values (after clamping); 0 when empty. */
int64_t hist_min(const struct lat_hist *h);
int64_t hist_max(const struct lat_hist *h);
/* Mean and population standard deviation over bucket midpoints (median equivalent values, as
 * HdrHistogram does): relative error < 0.05 % for 3 digits. 0 when empty. */
double hist_mean(const struct lat_hist *h);
double hist_stddev(const struct lat_hist *h);
/* Nearest-rank percentile, pct in [0, 100] (clamped); see the file comment. pct = 0 returns
 * the min. 0 when empty. */
int64_t hist_value_at_percentile(const struct lat_hist *h, double pct);
/* HdrHistogram_c's hdr_value_at_percentile(): rank max(1, floor(p/100 * N + 0.5)), highest
 * equivalent value of its bucket, not capped at max. For comparison with HdrHistogram tools. */
int64_t hist_value_at_percentile_hdr(const struct lat_hist *h, double pct);
/* Count of recorded values <= v's bucket (for CDF queries, "fraction under SLO"). */
uint64_t hist_count_at_or_below(const struct lat_hist *h, int64_t v);

/* Layout helpers (shared with hist/hlog.c). */
int32_t hist_index_of(const struct hist_config *cfg, int64_t v);
int64_t hist_value_at_index(const struct hist_config *cfg, int32_t index); /* lowest equivalent */
int64_t hist_lowest_equivalent(const struct hist_config *cfg, int64_t v);
int64_t hist_highest_equivalent(const struct hist_config *cfg, int64_t v);
int64_t hist_median_equivalent(const struct hist_config *cfg, int64_t v);
/* Width of v's bucket: highest - lowest equivalent + 1. */
int64_t hist_size_of_equivalent_range(const struct hist_config *cfg, int64_t v);

/* Iteration over non-empty buckets in increasing value order:
 *   struct hist_iter it; hist_iter_init(&it, h);
 *   while (hist_iter_next(&it)) use(it.lo, it.hi, it.count, it.cumulative); */
struct hist_iter {
    const struct lat_hist *h;
    int32_t index;       /* current bucket index (-1 before the first call) */
    int64_t lo, hi;      /* value range of the bucket, inclusive */
    uint64_t count;      /* values in the bucket */
    uint64_t cumulative; /* values in this and all lower buckets */
};
void hist_iter_init(struct hist_iter *it, const struct lat_hist *h);
bool hist_iter_next(struct hist_iter *it);

#endif

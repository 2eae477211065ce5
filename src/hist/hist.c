/*
 * hist.c - HdrHistogram-compatible latency histogram.
 *
 * Layout (HdrHistogram_c's, ../shared/docs/load-testing.md §2.1): values are grouped in buckets
 * of doubling width; each bucket after the first holds sub_bucket_half_count sub-buckets (the
 * lower half would repeat the previous bucket), so the relative width of any sub-bucket above
 * sub_bucket_half_count << unit_magnitude is < 1 / sub_bucket_half_count. value -> index is a
 * count-leading-zeros, two shifts and an add: O(1), no branches on the value's size, no
 * allocation. We keep exactly HdrHistogram's index arithmetic so that hlog.c can write our
 * counts array as is and HdrHistogram's decoders rebuild the same histogram.
 *
 * Deliberate differences from HdrHistogram_c: min/max are the exact recorded values (not their
 * bucket edges); out-of-range values are clamped and counted instead of rejected; the default
 * percentile uses the nearest rank (docs/metrics.md) and is capped at the exact max.
 * Alternatives rejected: a t-digest (not mergeable without error, tails wrong above p99.99, see
 * vegeta#726) and log-linear buckets of our own (would not interoperate with HdrHistogram logs).
 * Threading: none; one histogram per thread, merged with hist_add().
 */
#include "hist/hist.h"
#include "hist/samples.h"

#include "core/err.h"
#include "core/pctl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int hist_calc_config(int64_t lowest, int64_t highest, int sig_figs, struct hist_config *cfg)
{
    if (!cfg || lowest < 1 || sig_figs < 1 || sig_figs > 5) return LAT_E_USAGE;
    if (highest < 2 || highest / 2 < lowest) return LAT_E_USAGE;
    memset(cfg, 0, sizeof(*cfg));
    cfg->lowest = lowest;
    cfg->highest = highest;
    cfg->sig_figs = sig_figs;

    /* sub_bucket_count = 2^ceil(log2(2 * 10^sig)), computed in integers (no log() rounding). */
    int64_t single_unit = 2;
    for (int i = 0; i < sig_figs; i++)
        single_unit *= 10;
    int mag = 0;
    while ((INT64_C(1) << mag) < single_unit)
        mag++;
    cfg->sub_bucket_half_count_magnitude = (mag > 1 ? mag : 1) - 1;
    cfg->unit_magnitude = 63 - __builtin_clzll((unsigned long long)lowest);
    if (cfg->unit_magnitude + cfg->sub_bucket_half_count_magnitude > 61) return LAT_E_USAGE;
    cfg->sub_bucket_count = INT32_C(1) << (cfg->sub_bucket_half_count_magnitude + 1);
    cfg->sub_bucket_half_count = cfg->sub_bucket_count / 2;
    cfg->sub_bucket_mask = ((int64_t)cfg->sub_bucket_count - 1) << cfg->unit_magnitude;

    /* bucket_count: smallest k with (sub_bucket_count << unit_magnitude) << (k - 1) > highest. */
    int64_t untrackable = (int64_t)cfg->sub_bucket_count << cfg->unit_magnitude;
    int32_t buckets = 1;
    while (untrackable <= highest) {
        if (untrackable > INT64_MAX / 2) {
            buckets++;
            break;
        }
        untrackable <<= 1;
        buckets++;
    }
    cfg->bucket_count = buckets;
    int64_t len = ((int64_t)buckets + 1) * cfg->sub_bucket_half_count;
    if (len > INT32_MAX / 8) return LAT_E_USAGE;
    cfg->counts_len = (int32_t)len;
    return 0;
}

size_t hist_counts_bytes(const struct hist_config *cfg)
{
    return (size_t)cfg->counts_len * sizeof(uint64_t);
}

static void hist_clear_stats(struct lat_hist *h)
{
    h->total = 0;
    h->clamped = 0;
    h->min = INT64_MAX;
    h->max = 0;
}

int hist_init_prealloc(struct lat_hist *h, const struct hist_config *cfg, uint64_t *counts)
{
    if (!h || !cfg || !counts || cfg->counts_len <= 0) return LAT_E_USAGE;
    memset(h, 0, sizeof(*h));
    h->cfg = *cfg;
    h->counts = counts;
    memset(counts, 0, hist_counts_bytes(cfg));
    hist_clear_stats(h);
    return 0;
}

int hist_init(struct lat_hist *h, int64_t lowest_ns, int64_t highest_ns, int sig_figs)
{
    struct hist_config cfg;
    int rc = hist_calc_config(lowest_ns, highest_ns, sig_figs, &cfg);
    if (rc < 0) return rc;
    /* calloc, not malloc + memset: large layouts stay untouched (lazily mapped) until used. */
    uint64_t *counts = calloc((size_t)cfg.counts_len, sizeof(uint64_t));
    if (!counts) return -ENOMEM;
    memset(h, 0, sizeof(*h));
    h->cfg = cfg;
    h->counts = counts;
    h->owns_counts = true;
    hist_clear_stats(h);
    return 0;
}

int hist_init_default(struct lat_hist *h)
{
    return hist_init(h, LAT_HIST_LOWEST_NS, LAT_HIST_HIGHEST_NS, LAT_HIST_SIG_FIGS);
}

void hist_fini(struct lat_hist *h)
{
    if (!h) return;
    if (h->owns_counts) free(h->counts);
    h->counts = NULL;
    h->owns_counts = false;
}

void hist_reset(struct lat_hist *h)
{
    memset(h->counts, 0, hist_counts_bytes(&h->cfg));
    hist_clear_stats(h);
}

/* ---- index arithmetic (HdrHistogram_c's) ---- */

static inline int32_t bucket_index_of(const struct hist_config *cfg, int64_t v)
{
    int32_t pow2ceiling = 64 - __builtin_clzll((unsigned long long)(v | cfg->sub_bucket_mask));
    return pow2ceiling - cfg->unit_magnitude - (cfg->sub_bucket_half_count_magnitude + 1);
}

static inline int32_t sub_bucket_index_of(const struct hist_config *cfg, int64_t v, int32_t b)
{
    return (int32_t)(v >> (b + cfg->unit_magnitude));
}

int32_t hist_index_of(const struct hist_config *cfg, int64_t v)
{
    int32_t b = bucket_index_of(cfg, v);
    int32_t s = sub_bucket_index_of(cfg, v, b);
    return ((b + 1) << cfg->sub_bucket_half_count_magnitude) + (s - cfg->sub_bucket_half_count);
}

int64_t hist_value_at_index(const struct hist_config *cfg, int32_t index)
{
    int32_t b = (index >> cfg->sub_bucket_half_count_magnitude) - 1;
    int32_t s = (index & (cfg->sub_bucket_half_count - 1)) + cfg->sub_bucket_half_count;
    if (b < 0) {
        s -= cfg->sub_bucket_half_count;
        b = 0;
    }
    return (int64_t)s << (b + cfg->unit_magnitude);
}

int64_t hist_size_of_equivalent_range(const struct hist_config *cfg, int64_t v)
{
    int32_t b = bucket_index_of(cfg, v);
    int32_t s = sub_bucket_index_of(cfg, v, b);
    int32_t adjusted = s >= cfg->sub_bucket_count ? b + 1 : b;
    return INT64_C(1) << (cfg->unit_magnitude + adjusted);
}

int64_t hist_lowest_equivalent(const struct hist_config *cfg, int64_t v)
{
    int32_t b = bucket_index_of(cfg, v);
    int32_t s = sub_bucket_index_of(cfg, v, b);
    return (int64_t)s << (b + cfg->unit_magnitude);
}

int64_t hist_highest_equivalent(const struct hist_config *cfg, int64_t v)
{
    return hist_lowest_equivalent(cfg, v) + hist_size_of_equivalent_range(cfg, v) - 1;
}

int64_t hist_median_equivalent(const struct hist_config *cfg, int64_t v)
{
    return hist_lowest_equivalent(cfg, v) + (hist_size_of_equivalent_range(cfg, v) >> 1);
}

/* ---- recording ---- */

void hist_record_n(struct lat_hist *h, int64_t v, uint64_t n)
{
    if (n == 0) return;
    if (v < 0 || v > h->cfg.highest) {
        v = v < 0 ? 0 : h->cfg.highest;
        h->clamped += n;
    }
    h->counts[hist_index_of(&h->cfg, v)] += n;
    h->total += n;
    if (v < h->min) h->min = v;
    if (v > h->max) h->max = v;
}

void hist_record(struct lat_hist *h, int64_t v)
{
    hist_record_n(h, v, 1);
}

void hist_record_corrected(struct lat_hist *h, int64_t v, int64_t expected_interval)
{
    hist_record(h, v);
    if (expected_interval <= 0) return;
    for (int64_t m = v - expected_interval; m >= expected_interval; m -= expected_interval)
        hist_record(h, m);
}

bool hist_same_layout(const struct lat_hist *a, const struct lat_hist *b)
{
    return a->cfg.lowest == b->cfg.lowest && a->cfg.highest == b->cfg.highest &&
           a->cfg.sig_figs == b->cfg.sig_figs;
}

int hist_add(struct lat_hist *dst, const struct lat_hist *src)
{
    if (dst == src) return LAT_E_USAGE;
    if (src->total == 0) return 0;
    if (hist_same_layout(dst, src)) {
        for (int32_t i = 0; i < src->cfg.counts_len; i++)
            dst->counts[i] += src->counts[i];
        dst->total += src->total;
        dst->clamped += src->clamped;
        if (src->min < dst->min) dst->min = src->min;
        if (src->max > dst->max) dst->max = src->max;
        return 0;
    }
    /* Different layouts: re-record each bucket at its midpoint (kept inside the exact src
     * extremes), then restore the exact extremes, clamped to dst's range. */
    for (int32_t i = 0; i < src->cfg.counts_len; i++) {
        if (!src->counts[i]) continue;
        int64_t v = hist_median_equivalent(&src->cfg, hist_value_at_index(&src->cfg, i));
        if (v > src->max) v = src->max;
        if (v < src->min) v = src->min;
        hist_record_n(dst, v, src->counts[i]);
    }
    int64_t mn = src->min < 0 ? 0 : src->min;
    int64_t mx = src->max > dst->cfg.highest ? dst->cfg.highest : src->max;
    if (mn < dst->min) dst->min = mn;
    if (mx > dst->max) dst->max = mx;
    return 0;
}

/* ---- queries ---- */

uint64_t hist_count(const struct lat_hist *h)
{
    return h->total;
}

int64_t hist_min(const struct lat_hist *h)
{
    return h->total ? h->min : 0;
}

int64_t hist_max(const struct lat_hist *h)
{
    return h->total ? h->max : 0;
}

double hist_mean(const struct lat_hist *h)
{
    if (!h->total) return 0.0;
    double sum = 0.0;
    struct hist_iter it;
    hist_iter_init(&it, h);
    while (hist_iter_next(&it))
        sum += (double)it.count * (double)hist_median_equivalent(&h->cfg, it.lo);
    return sum / (double)h->total;
}

double hist_stddev(const struct lat_hist *h)
{
    if (!h->total) return 0.0;
    double mean = hist_mean(h), sq = 0.0;
    struct hist_iter it;
    hist_iter_init(&it, h);
    while (hist_iter_next(&it)) {
        double d = (double)hist_median_equivalent(&h->cfg, it.lo) - mean;
        sq += d * d * (double)it.count;
    }
    return sqrt(sq / (double)h->total);
}

/* Index of the bucket holding the rank-th smallest value (1-based rank <= total). */
static int32_t index_of_rank(const struct lat_hist *h, uint64_t rank)
{
    uint64_t run = 0;
    for (int32_t i = 0; i < h->cfg.counts_len; i++) {
        run += h->counts[i];
        if (run >= rank) return i;
    }
    return h->cfg.counts_len - 1;
}

int64_t hist_value_at_percentile(const struct lat_hist *h, double pct)
{
    if (!h->total) return 0;
    if (!(pct > 0.0)) return h->min; /* also NaN */
    if (pct > 100.0) pct = 100.0;
    int32_t i = index_of_rank(h, lat_rank_nearest(pct, h->total));
    int64_t v = hist_highest_equivalent(&h->cfg, hist_value_at_index(&h->cfg, i));
    return v > h->max ? h->max : v;
}

int64_t hist_value_at_percentile_hdr(const struct lat_hist *h, double pct)
{
    if (!h->total) return 0;
    if (!(pct > 0.0)) return hist_lowest_equivalent(&h->cfg, h->min);
    if (pct > 100.0) pct = 100.0;
    uint64_t target = (uint64_t)(pct / 100.0 * (double)h->total + 0.5);
    if (target < 1) target = 1;
    int32_t i = index_of_rank(h, target);
    return hist_highest_equivalent(&h->cfg, hist_value_at_index(&h->cfg, i));
}

uint64_t hist_count_at_or_below(const struct lat_hist *h, int64_t v)
{
    if (v < 0) return 0;
    if (v > h->cfg.highest) return h->total;
    int32_t last = hist_index_of(&h->cfg, v);
    uint64_t run = 0;
    for (int32_t i = 0; i <= last && i < h->cfg.counts_len; i++)
        run += h->counts[i];
    return run;
}

void hist_iter_init(struct hist_iter *it, const struct lat_hist *h)
{
    memset(it, 0, sizeof(*it));
    it->h = h;
    it->index = -1;
}

bool hist_iter_next(struct hist_iter *it)
{
    const struct lat_hist *h = it->h;
    if (it->cumulative >= h->total) return false;
    for (int32_t i = it->index + 1; i < h->cfg.counts_len; i++) {
        if (!h->counts[i]) continue;
        it->index = i;
        it->lo = hist_value_at_index(&h->cfg, i);
        it->hi = hist_highest_equivalent(&h->cfg, it->lo);
        it->count = h->counts[i];
        it->cumulative += it->count;
        return true;
    }
    it->index = h->cfg.counts_len;
    return false;
}

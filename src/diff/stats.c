/*
 * stats.c - quantiles, Welch, Newcombe, order-statistic intervals and the histogram bootstrap of
 * `latscope diff` (see stats.h and docs/latscope-diff.md).
 */
#include "diff/stats.h"

#include "core/err.h"
#include "core/pctl.h"
#include "core/sort.h"
#include "stats/rng.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double dstat_norm_quantile(double p)
{
    if (!(p > 0 && p < 1)) return NAN;
    /* Acklam's rational approximation, then one Halley step on erfc (full double precision). */
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    const double plow = 0.02425;
    double x;
    if (p < plow) {
        double q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p <= 1 - plow) {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    } else {
        double q = sqrt(-2 * log1p(-p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    double e = 0.5 * erfc(-x / sqrt(2.0)) - p;
    double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

/* Continued fraction of the incomplete beta (modified Lentz). */
static double betacf(double x, double a, double b)
{
    const double tiny = 1e-300, eps = 1e-15;
    double qab = a + b, qap = a + 1, qam = a - 1;
    double c = 1, d = 1 - qab * x / qap;
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 1000000; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < eps) break;
    }
    return h;
}

double dstat_ibeta(double x, double a, double b)
{
    if (!(a > 0 && b > 0) || isnan(x)) return NAN;
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    double bt = exp(lbt);
    if (x < (a + 1) / (a + b + 2)) return bt * betacf(x, a, b) / a;
    return 1 - bt * betacf(1 - x, b, a) / b;
}

double dstat_t_cdf(double t, double df)
{
    if (!(df > 0) || isnan(t)) return NAN;
    if (isinf(t)) return t > 0 ? 1 : 0;
    double x = df / (df + t * t);
    double tail = 0.5 * dstat_ibeta(x, df / 2, 0.5);
    return t > 0 ? 1 - tail : tail;
}

double dstat_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0)) return NAN;
    if (p == 0.5) return 0;
    if (p < 0.5) return -dstat_t_quantile(1 - p, df);
    double lo = 0, hi = 1;
    while (dstat_t_cdf(hi, df) < p && hi < 1e300)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (dstat_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double dstat_binom_cdf(uint64_t k, uint64_t n, double p)
{
    if (k >= n) return 1;
    if (p <= 0) return 1;
    if (p >= 1) return 0;
    /* P(X <= k) = I_{1-p}(n - k, k + 1). */
    return dstat_ibeta(1 - p, (double)(n - k), (double)k + 1);
}

int dstat_os_ci_ranks(uint64_t n, double pct, double conf, uint64_t *lo, uint64_t *hi,
                      double *coverage)
{
    if (n == 0 || !(pct > 0 && pct < 100) || !(conf > 0 && conf < 1)) return LAT_E_USAGE;
    double p = pct / 100, tail = (1 - conf) / 2;
    /* lower: the largest j in [0, n-1] with F(j) <= tail; rank j + 1. */
    if (dstat_binom_cdf(0, n, p) > tail) return LAT_E_USAGE;
    uint64_t a = 0, b = n - 1;
    while (a < b) {
        uint64_t m = a + (b - a + 1) / 2;
        if (dstat_binom_cdf(m, n, p) <= tail)
            a = m;
        else
            b = m - 1;
    }
    uint64_t l = a + 1;
    /* upper: the smallest j in [0, n-1] with F(j) >= 1 - tail; rank j + 1. */
    if (dstat_binom_cdf(n - 1, n, p) < 1 - tail) return LAT_E_USAGE;
    a = 0;
    b = n - 1;
    while (a < b) {
        uint64_t m = a + (b - a) / 2;
        if (dstat_binom_cdf(m, n, p) >= 1 - tail)
            b = m;
        else
            a = m + 1;
    }
    uint64_t u = a + 1;
    if (lo) *lo = l;
    if (hi) *hi = u;
    if (coverage) *coverage = dstat_binom_cdf(u - 1, n, p) - dstat_binom_cdf(l - 1, n, p);
    return 0;
}

int dstat_os_ci_hist(const struct lat_hist *h, double pct, double conf, double *lo, double *hi)
{
    uint64_t rl, ru;
    int rc = dstat_os_ci_ranks(hist_count(h), pct, conf, &rl, &ru, NULL);
    if (rc) return rc;
    struct hist_iter it;
    hist_iter_init(&it, h);
    bool got_lo = false;
    while (hist_iter_next(&it)) {
        if (!got_lo && it.cumulative >= rl) {
            *lo = (double)it.lo;
            got_lo = true;
        }
        if (it.cumulative >= ru) {
            int64_t v = it.hi < hist_max(h) ? it.hi : hist_max(h);
            *hi = (double)v;
            return 0;
        }
    }
    return LAT_E_INTERNAL;
}

void dstat_mean_sd(const double *x, size_t n, double *mean, double *sd)
{
    double m = 0, s = 0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m = n ? m / (double)n : 0;
    for (size_t i = 0; i < n; i++)
        s += (x[i] - m) * (x[i] - m);
    *mean = m;
    *sd = n > 1 ? sqrt(s / (double)(n - 1)) : 0;
}

struct dstat_ci dstat_welch(double mean_a, double sd_a, double na, double mean_b, double sd_b,
                            double nb, double conf)
{
    struct dstat_ci ci = {.est = mean_b - mean_a};
    if (na < 2 || nb < 2) {
        ci.why = "fewer than 2 samples on a side";
        return ci;
    }
    double va = sd_a * sd_a / na, vb = sd_b * sd_b / nb, se2 = va + vb;
    ci.have = true;
    if (se2 <= 0) {
        ci.lo = ci.hi = ci.est;
        return ci;
    }
    ci.df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
    double t = dstat_t_quantile(1 - (1 - conf) / 2, ci.df);
    ci.lo = ci.est - t * sqrt(se2);
    ci.hi = ci.est + t * sqrt(se2);
    return ci;
}

/* Wilson score interval of k successes in n. */
static void wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi)
{
    double p = (double)k / (double)n, nn = (double)n, z2 = z * z;
    double c = (p + z2 / (2 * nn)) / (1 + z2 / nn);
    double w = z / (1 + z2 / nn) * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
    *lo = c - w < 0 ? 0 : c - w;
    *hi = c + w > 1 ? 1 : c + w;
}

struct dstat_ci dstat_prop_diff(uint64_t ka, uint64_t na, uint64_t kb, uint64_t nb, double conf)
{
    struct dstat_ci ci = {0};
    if (!na || !nb || ka > na || kb > nb) {
        ci.why = "no requests on a side";
        return ci;
    }
    /* Newcombe's hybrid score interval (his method 10), from the two Wilson intervals. */
    double z = dstat_norm_quantile(1 - (1 - conf) / 2);
    double pa = (double)ka / (double)na, pb = (double)kb / (double)nb, la, ua, lb, ub;
    wilson(ka, na, z, &la, &ua);
    wilson(kb, nb, z, &lb, &ub);
    ci.have = true;
    ci.est = pb - pa;
    ci.lo = ci.est - sqrt((pb - lb) * (pb - lb) + (ua - pa) * (ua - pa));
    ci.hi = ci.est + sqrt((ub - pb) * (ub - pb) + (pa - la) * (pa - la));
    return ci;
}

/* ---- bootstrap ---- */

struct bside {
    size_t nruns;
    size_t ngrid;
    double *val;    /* ngrid: value of each non-empty bucket (highest equivalent) */
    uint64_t **cum; /* nruns x ngrid cumulative counts */
    uint64_t *n;    /* nruns totals */
    double max;     /* largest recorded value of the side */
    uint64_t *mult; /* scratch: multiplicity of each run in a replicate */
};

static void bside_fini(struct bside *s)
{
    if (s->cum)
        for (size_t k = 0; k < s->nruns; k++)
            free(s->cum[k]);
    free(s->cum);
    free(s->val);
    free(s->n);
    free(s->mult);
    memset(s, 0, sizeof(*s));
}

static int bside_init(struct bside *s, const struct dstat_side *in)
{
    memset(s, 0, sizeof(*s));
    if (!in->n) return LAT_E_USAGE;
    const struct hist_config *cfg = &in->h[0]->cfg;
    for (size_t k = 1; k < in->n; k++)
        if (!hist_same_layout(in->h[0], in->h[k])) return LAT_E_USAGE;
    uint8_t *used = calloc((size_t)cfg->counts_len, 1);
    s->nruns = in->n;
    s->n = calloc(in->n, sizeof(*s->n));
    s->mult = calloc(in->n, sizeof(*s->mult));
    s->cum = calloc(in->n, sizeof(*s->cum));
    if (!used || !s->n || !s->mult || !s->cum) goto nomem;
    uint64_t total = 0;
    for (size_t k = 0; k < in->n; k++) {
        const struct lat_hist *h = in->h[k];
        for (int32_t i = 0; i < cfg->counts_len; i++)
            if (h->counts[i]) used[i] = 1;
        s->n[k] = hist_count(h);
        total += s->n[k];
        if (hist_count(h) && (double)hist_max(h) > s->max) s->max = (double)hist_max(h);
    }
    if (!total) {
        free(used);
        bside_fini(s);
        return LAT_E_USAGE;
    }
    for (int32_t i = 0; i < cfg->counts_len; i++)
        s->ngrid += used[i];
    s->val = calloc(s->ngrid, sizeof(*s->val));
    if (!s->val) goto nomem;
    for (size_t k = 0; k < in->n; k++) {
        s->cum[k] = calloc(s->ngrid, sizeof(**s->cum));
        if (!s->cum[k]) goto nomem;
    }
    size_t j = 0;
    for (int32_t i = 0; i < cfg->counts_len; i++) {
        if (!used[i]) continue;
        int64_t lo = hist_value_at_index(cfg, i);
        double v = (double)hist_highest_equivalent(cfg, lo);
        s->val[j] = v < s->max ? v : s->max;
        for (size_t k = 0; k < in->n; k++)
            s->cum[k][j] = (j ? s->cum[k][j - 1] : 0) + in->h[k]->counts[i];
        j++;
    }
    free(used);
    return 0;
nomem:
    free(used);
    bside_fini(s);
    return -ENOMEM;
}

/* Value holding rank r (1-based) of the runs weighted by s->mult. */
static double bside_rank_value(const struct bside *s, uint64_t r)
{
    size_t a = 0, b = s->ngrid - 1;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        uint64_t c = 0;
        for (size_t k = 0; k < s->nruns; k++)
            if (s->mult[k]) c += s->mult[k] * s->cum[k][m];
        if (c >= r)
            b = m;
        else
            a = m + 1;
    }
    return s->val[a];
}

/* The side's pooled percentile (every run once). */
static double bside_point(struct bside *s, double pct)
{
    uint64_t n = 0;
    for (size_t k = 0; k < s->nruns; k++) {
        s->mult[k] = 1;
        n += s->n[k];
    }
    return bside_rank_value(s, lat_rank_nearest(pct, n));
}

/* One replicate: resample the runs (when several), then the order statistic. */
static double bside_replicate(struct bside *s, struct lat_rng *rng, double pct)
{
    uint64_t n = 0;
    for (int tries = 0; n == 0; tries++) {
        memset(s->mult, 0, s->nruns * sizeof(*s->mult));
        if (s->nruns == 1 || tries > 64) {
            for (size_t k = 0; k < s->nruns; k++)
                s->mult[k] = 1;
        } else {
            for (size_t k = 0; k < s->nruns; k++)
                s->mult[rng_below(rng, s->nruns)]++;
        }
        n = 0;
        for (size_t k = 0; k < s->nruns; k++)
            n += s->mult[k] * s->n[k];
    }
    uint64_t r = lat_rank_nearest(pct, n);
    double ga = rng_gamma(rng, (double)r), gb = rng_gamma(rng, (double)(n - r + 1));
    double u = ga / (ga + gb);
    double kk = ceil(u * (double)n);
    if (kk < 1) kk = 1;
    if (kk > (double)n) kk = (double)n;
    return bside_rank_value(s, (uint64_t)kk);
}

int dstat_boot_pct(const struct dstat_side *a, const struct dstat_side *b, double pct,
                   unsigned resamples, uint64_t seed, double conf, struct dstat_boot *out)
{
    memset(out, 0, sizeof(*out));
    if (resamples < 100 || !(pct > 0 && pct <= 100) || !(conf > 0 && conf < 1)) return LAT_E_USAGE;
    struct bside sa, sb;
    int rc = bside_init(&sa, a);
    if (rc) return rc;
    rc = bside_init(&sb, b);
    if (rc) {
        bside_fini(&sa);
        return rc;
    }
    if (!hist_same_layout(a->h[0], b->h[0])) {
        bside_fini(&sa);
        bside_fini(&sb);
        return LAT_E_USAGE;
    }
    double *dabs = malloc(resamples * sizeof(double));
    double *drel = malloc(resamples * sizeof(double));
    if (!dabs || !drel) {
        free(dabs);
        free(drel);
        bside_fini(&sa);
        bside_fini(&sb);
        return -ENOMEM;
    }
    out->a = bside_point(&sa, pct);
    out->b = bside_point(&sb, pct);
    struct lat_rng rng;
    rng_seed(&rng, seed);
    size_t nrel = 0;
    for (unsigned i = 0; i < resamples; i++) {
        double va = bside_replicate(&sa, &rng, pct);
        double vb = bside_replicate(&sb, &rng, pct);
        dabs[i] = vb - va;
        if (va > 0) drel[nrel++] = vb / va - 1;
    }
    qsort(dabs, resamples, sizeof(double), lat_cmp_f64);
    qsort(drel, nrel, sizeof(double), lat_cmp_f64);
    double tail = (1 - conf) / 2;
    out->abs.have = true;
    out->abs.est = out->b - out->a;
    out->abs.lo = lat_quantile_linear_f64(dabs, resamples, tail);
    out->abs.hi = lat_quantile_linear_f64(dabs, resamples, 1 - tail);
    if (out->a > 0 && nrel == resamples) {
        out->rel.have = true;
        out->rel.est = out->b / out->a - 1;
        out->rel.lo = lat_quantile_linear_f64(drel, nrel, tail);
        out->rel.hi = lat_quantile_linear_f64(drel, nrel, 1 - tail);
    } else {
        out->rel.why = "a before value of 0";
    }
    free(dabs);
    free(drel);
    bside_fini(&sa);
    bside_fini(&sb);
    return 0;
}

/* ---- bootstrap of the mean ---- */

struct mside {
    size_t n;
    double *cnt, *sum, *sq; /* per run: samples, Σx, Σx² (from the histogram's mean and sd) */
    uint64_t *mult;
};

static void mside_fini(struct mside *m)
{
    free(m->cnt);
    free(m->sum);
    free(m->sq);
    free(m->mult);
}

static int mside_init(struct mside *m, const struct dstat_side *in)
{
    memset(m, 0, sizeof(*m));
    if (!in->n) return LAT_E_USAGE;
    m->n = in->n;
    m->cnt = calloc(in->n, sizeof(double));
    m->sum = calloc(in->n, sizeof(double));
    m->sq = calloc(in->n, sizeof(double));
    m->mult = calloc(in->n, sizeof(uint64_t));
    if (!m->cnt || !m->sum || !m->sq || !m->mult) {
        mside_fini(m);
        return -ENOMEM;
    }
    double tot = 0;
    for (size_t k = 0; k < in->n; k++) {
        double c = (double)hist_count(in->h[k]), mu = hist_mean(in->h[k]);
        double sd = hist_stddev(in->h[k]);
        m->cnt[k] = c;
        m->sum[k] = mu * c;
        m->sq[k] = (sd * sd + mu * mu) * c;
        tot += c;
    }
    if (tot < 2) {
        mside_fini(m);
        return LAT_E_USAGE;
    }
    return 0;
}

/* One replicate: runs resampled, then the mean of N draws from the pooled runs drawn, which
 * is normal to within the CLT: pooled mean + sd / sqrt(N) * Z. */
static double mside_replicate(struct mside *m, struct lat_rng *rng, bool point)
{
    double n = 0, s = 0, q = 0;
    for (int tries = 0; n < 1; tries++) {
        memset(m->mult, 0, m->n * sizeof(*m->mult));
        if (point || m->n == 1 || tries > 64)
            for (size_t k = 0; k < m->n; k++)
                m->mult[k] = 1;
        else
            for (size_t k = 0; k < m->n; k++)
                m->mult[rng_below(rng, m->n)]++;
        n = s = q = 0;
        for (size_t k = 0; k < m->n; k++) {
            n += (double)m->mult[k] * m->cnt[k];
            s += (double)m->mult[k] * m->sum[k];
            q += (double)m->mult[k] * m->sq[k];
        }
    }
    double mean = s / n, var = q / n - mean * mean;
    if (point) return mean;
    return mean + (var > 0 ? sqrt(var / n) : 0) * rng_normal(rng);
}

int dstat_boot_mean(const struct dstat_side *a, const struct dstat_side *b, unsigned resamples,
                    uint64_t seed, double conf, struct dstat_boot *out)
{
    memset(out, 0, sizeof(*out));
    if (resamples < 100 || !(conf > 0 && conf < 1)) return LAT_E_USAGE;
    struct mside ma, mb;
    int rc = mside_init(&ma, a);
    if (rc) return rc;
    if ((rc = mside_init(&mb, b))) {
        mside_fini(&ma);
        return rc;
    }
    double *dabs = malloc(resamples * sizeof(double)), *drel = malloc(resamples * sizeof(double));
    if (!dabs || !drel) {
        free(dabs);
        free(drel);
        mside_fini(&ma);
        mside_fini(&mb);
        return -ENOMEM;
    }
    struct lat_rng rng;
    rng_seed(&rng, seed);
    out->a = mside_replicate(&ma, &rng, true);
    out->b = mside_replicate(&mb, &rng, true);
    size_t nrel = 0;
    for (unsigned i = 0; i < resamples; i++) {
        double va = mside_replicate(&ma, &rng, false), vb = mside_replicate(&mb, &rng, false);
        dabs[i] = vb - va;
        if (va > 0) drel[nrel++] = vb / va - 1;
    }
    qsort(dabs, resamples, sizeof(double), lat_cmp_f64);
    qsort(drel, nrel, sizeof(double), lat_cmp_f64);
    double tail = (1 - conf) / 2;
    out->abs = (struct dstat_ci){.have = true, .est = out->b - out->a};
    out->abs.lo = lat_quantile_linear_f64(dabs, resamples, tail);
    out->abs.hi = lat_quantile_linear_f64(dabs, resamples, 1 - tail);
    if (out->a > 0 && nrel == resamples) {
        out->rel = (struct dstat_ci){.have = true, .est = out->b / out->a - 1};
        out->rel.lo = lat_quantile_linear_f64(drel, nrel, tail);
        out->rel.hi = lat_quantile_linear_f64(drel, nrel, 1 - tail);
    } else {
        out->rel.why = "a before value of 0";
    }
    free(dabs);
    free(drel);
    mside_fini(&ma);
    mside_fini(&mb);
    return 0;
}

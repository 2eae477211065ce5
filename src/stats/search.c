/*
 * search.c - SLO expressions and the find-max rate search (see search.h).
 *
 * Search strategy: LoadGen's FindPeakPerformance (double until a failure, then bisect), with
 * the bisection stopped at a relative precision instead of a number of decimals, since rates
 * span 1 to 10^5 req/s. Alternatives considered: vLLM's PCHIP root finding on the SLO margin
 * converges in fewer probes when the margin is smooth, but needs a scalar margin per probe and
 * misbehaves when early stopping makes verdicts noisy near the knee; bisection only needs
 * pass/fail. The state machine never measures, so it is unit-tested with synthetic servers.
 * SLO parsing is strict: an unknown stat, a missing unit on a value with trailing junk, or a
 * percentile outside (0, 100) is an error naming the term.
 */
#include "stats/search.h"

#include "core/err.h"
#include "core/units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- SLO expressions ---- */

static int parse_term(const char *s, size_t len, struct slo_term *t, const char **why)
{
    char buf[96];
    if (len == 0) {
        *why = "empty SLO term (stray comma?)";
        return LAT_E_USAGE;
    }
    if (len >= sizeof(buf)) {
        *why = "SLO term too long";
        return LAT_E_USAGE;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    memset(t, 0, sizeof(*t));
    strcpy(t->metric, "e2e");

    /* Split at the operator. */
    char *op = strpbrk(buf, "<>");
    if (!op) {
        *why = "SLO term needs an operator (<=, <, >=, >), e.g. p99<=200ms";
        return LAT_E_USAGE;
    }
    char *val = op + 1;
    if (*op == '<')
        t->op = SLO_LT;
    else
        t->op = SLO_GT;
    if (*val == '=') {
        t->op = t->op == SLO_LT ? SLO_LE : SLO_GE;
        val++;
    }
    *op = '\0';
    /* Spaces around the operator are fine: "p99 <= 200ms". */
    while (*val == ' ' || *val == '\t')
        val++;
    for (char *e = op; e > buf && (e[-1] == ' ' || e[-1] == '\t'); e--)
        e[-1] = '\0';

    /* Left side: [metric.]stat. The first '.' separates a metric, unless what precedes it is
     * a percentile's integer part ("p99.9"). */
    char *stat = buf, *dot = strchr(buf, '.');
    bool pctl_head = buf[0] == 'p' && dot && dot > buf + 1;
    for (char *q = buf + 1; pctl_head && q < dot; q++)
        if (!isdigit((unsigned char)*q)) pctl_head = false;
    if (dot && !pctl_head) {
        size_t ml = (size_t)(dot - buf);
        if (ml == 0 || ml >= SLO_METRIC_MAX) {
            *why = "SLO metric name empty or too long";
            return LAT_E_USAGE;
        }
        for (size_t i = 0; i < ml; i++)
            if (!(islower((unsigned char)buf[i]) || isdigit((unsigned char)buf[i]) ||
                  buf[i] == '_')) {
                *why = "SLO metric name must be [a-z0-9_] (e.g. ttft, tpot, e2e)";
                return LAT_E_USAGE;
            }
        memcpy(t->metric, buf, ml);
        t->metric[ml] = '\0';
        stat = dot + 1;
    }

    if (stat[0] == 'p' && (isdigit((unsigned char)stat[1]) || stat[1] == '.')) {
        char *end;
        t->stat = SLO_PCTL;
        t->pct = strtod(stat + 1, &end);
        if (*end || !(t->pct > 0.0 && t->pct < 100.0)) {
            *why = "SLO percentile must be pNN with 0 < NN < 100 (p50, p99, p99.9)";
            return LAT_E_USAGE;
        }
    } else if (!strcmp(stat, "mean") || !strcmp(stat, "avg")) {
        t->stat = SLO_MEAN;
    } else if (!strcmp(stat, "max")) {
        t->stat = SLO_MAX;
    } else if (!strcmp(stat, "errors") || !strcmp(stat, "error_rate")) {
        t->stat = SLO_ERRORS;
    } else {
        *why = "unknown SLO statistic (use pNN, mean, max or errors)";
        return LAT_E_USAGE;
    }

    if (!*val) {
        *why = "SLO term has no value after the operator";
        return LAT_E_USAGE;
    }
    if (t->stat == SLO_ERRORS) {
        char *end;
        double v = strtod(val, &end);
        if (end == val || !isfinite(v) || v < 0) {
            *why = "errors limit must be a percentage (1%) or a fraction (0.01)";
            return LAT_E_USAGE;
        }
        if (*end == '%' && !end[1])
            v /= 100.0;
        else if (*end) {
            *why = "errors limit must be a percentage (1%) or a fraction (0.01)";
            return LAT_E_USAGE;
        }
        if (v > 1.0) {
            *why = "errors limit above 100%";
            return LAT_E_USAGE;
        }
        t->limit_frac = v;
        return 0;
    }
    if (units_parse_duration(val, LAT_NS_PER_MS, &t->limit_ns) < 0 || t->limit_ns <= 0) {
        *why = "SLO limit must be a positive duration (200ms, 1.5s, 250us; bare number = ms)";
        return LAT_E_USAGE;
    }
    return 0;
}

int slo_parse(const char *text, struct slo *out, const char **why)
{
    const char *dummy;
    if (!why) why = &dummy;
    memset(out, 0, sizeof(*out));
    if (!text || !*text) {
        *why = "empty SLO (e.g. --slo 'p99<=200ms')";
        return LAT_E_USAGE;
    }
    const char *p = text;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        /* trim spaces */
        while (len && isspace((unsigned char)*p))
            p++, len--;
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        if (out->n >= SLO_MAX_TERMS) {
            *why = "too many SLO terms (at most 8)";
            return LAT_E_USAGE;
        }
        int rc = parse_term(p, len, &out->t[out->n], why);
        if (rc < 0) return rc;
        out->n++;
        if (!c) break;
        p = c + 1;
    }
    return 0;
}

static const char *op_text(enum slo_op op)
{
    switch (op) {
    case SLO_LE:
        return "<=";
    case SLO_LT:
        return "<";
    case SLO_GE:
        return ">=";
    case SLO_GT:
        return ">";
    }
    return "?";
}

const char *slo_term_format(const struct slo_term *t, char *buf, unsigned len)
{
    char stat[32], val[32];
    switch (t->stat) {
    case SLO_PCTL:
        /* Shortest text that reads back as the same percentile: %g's 6 digits made
         * p99.999999 "p100", a percentile the parser rejects. */
        for (int prec = 6; prec <= 17; prec++) {
            snprintf(stat, sizeof(stat), "p%.*g", prec, t->pct);
            if (strtod(stat + 1, NULL) == t->pct) break;
        }
        break;
    case SLO_MEAN:
        snprintf(stat, sizeof(stat), "mean");
        break;
    case SLO_MAX:
        snprintf(stat, sizeof(stat), "max");
        break;
    case SLO_ERRORS:
        snprintf(stat, sizeof(stat), "errors");
        break;
    }
    if (t->stat == SLO_ERRORS)
        snprintf(val, sizeof(val), "%.10g%%", t->limit_frac * 100.0);
    else if (t->limit_ns % LAT_NS_PER_MS == 0)
        snprintf(val, sizeof(val), "%lldms", (long long)(t->limit_ns / LAT_NS_PER_MS));
    else if (t->limit_ns % LAT_NS_PER_US == 0)
        snprintf(val, sizeof(val), "%lldus", (long long)(t->limit_ns / LAT_NS_PER_US));
    else
        snprintf(val, sizeof(val), "%lldns", (long long)t->limit_ns);
    snprintf(buf, len, "%s.%s%s%s", t->metric, stat, op_text(t->op), val);
    return buf;
}

bool slo_term_holds(const struct slo_term *t, double observed)
{
    double lim = t->stat == SLO_ERRORS ? t->limit_frac : (double)t->limit_ns;
    switch (t->op) {
    case SLO_LE:
        return observed <= lim;
    case SLO_LT:
        return observed < lim;
    case SLO_GE:
        return observed >= lim;
    case SLO_GT:
        return observed > lim;
    }
    return false;
}

enum slo_verdict slo_term_eval_hist(const struct slo_term *t, const struct lat_hist *h,
                                    double confidence, double *observed, uint64_t *more_needed)
{
    double obs = 0;
    *more_needed = 0;
    switch (t->stat) {
    case SLO_PCTL:
        obs = (double)hist_value_at_percentile(h, t->pct);
        break;
    case SLO_MEAN:
        obs = hist_mean(h);
        break;
    case SLO_MAX:
        obs = (double)hist_max(h);
        break;
    case SLO_ERRORS:
        if (observed) *observed = 0;
        return SLO_FAIL;
    }
    if (observed) *observed = obs;
    if (hist_count(h) == 0) return SLO_UNDECIDED;
    bool upper = t->op == SLO_LE || t->op == SLO_LT;
    if (t->stat == SLO_PCTL && upper && confidence > 0.0 && confidence < 1.0) {
        /* Over target: values > limit for <=, values >= limit for < (limit - 1 for <=). */
        int64_t lim = t->op == SLO_LE ? t->limit_ns : t->limit_ns - 1;
        struct earlystop_claim c;
        if (earlystop_check(t->pct, confidence, hist_count(h), earlystop_hist_over(h, lim), &c) < 0)
            return SLO_FAIL;
        if (c.pass) return SLO_PASS;
        /* Not provable yet. If even the point estimate misses, it is a failure; otherwise more
         * requests could prove it. */
        if (!slo_term_holds(t, obs)) return SLO_FAIL;
        *more_needed = c.more_needed;
        return SLO_UNDECIDED;
    }
    return slo_term_holds(t, obs) ? SLO_PASS : SLO_FAIL;
}

/* ---- max-rate search ---- */

int search_init(struct lat_search *s, double start, double min_rate, double max_rate,
                double precision, int max_steps)
{
    memset(s, 0, sizeof(*s));
    if (!(min_rate > 0) || !(start >= min_rate) || !(max_rate >= start) || !isfinite(max_rate) ||
        !(precision > 0) || max_steps < 1 || max_steps > SEARCH_MAX_STEPS)
        return LAT_E_USAGE;
    s->start = start;
    s->min_rate = min_rate;
    s->max_rate = max_rate;
    s->precision = precision;
    s->max_steps = max_steps;
    s->next = start;
    s->phase = SEARCH_BRACKET;
    return 0;
}

void search_set_integer(struct lat_search *s)
{
    s->integer = true;
}

double search_next(const struct lat_search *s)
{
    return s->phase == SEARCH_DONE ? 0.0 : s->next;
}

bool search_done(const struct lat_search *s)
{
    return s->phase == SEARCH_DONE;
}

double search_result(const struct lat_search *s)
{
    return s->lo_pass;
}

static void finish(struct lat_search *s, const char *why)
{
    s->phase = SEARCH_DONE;
    s->next = 0;
    s->end_reason = why;
}

int search_feed(struct lat_search *s, double rate, bool pass)
{
    if (s->phase == SEARCH_DONE || rate != s->next) return LAT_E_USAGE;
    s->steps[s->nsteps].rate = rate;
    s->steps[s->nsteps].pass = pass;
    s->nsteps++;
    if (pass) {
        if (rate > s->lo_pass) s->lo_pass = rate;
    } else if (s->hi_fail == 0 || rate < s->hi_fail) {
        s->hi_fail = rate;
    }

    if (s->phase == SEARCH_BRACKET) {
        if (s->lo_pass > 0 && s->hi_fail > 0) {
            s->phase = SEARCH_BISECT;
        } else if (pass) {
            if (rate >= s->max_rate) {
                finish(s, "the maximum rate meets the SLO");
                return 0;
            }
            s->next = rate * 2 > s->max_rate ? s->max_rate : rate * 2;
        } else {
            if (rate <= s->min_rate) {
                finish(s, "even the minimum rate misses the SLO");
                return 0;
            }
            double half = s->integer ? floor(rate / 2) : rate / 2;
            s->next = half < s->min_rate ? s->min_rate : half;
        }
    }
    if (s->phase == SEARCH_BISECT) {
        double width = s->precision * s->lo_pass;
        if (s->integer && width < 1) width = 1;
        if (s->hi_fail - s->lo_pass <= width) {
            finish(s, "bracket narrower than the precision");
            return 0;
        }
        s->next = (s->lo_pass + s->hi_fail) / 2;
        if (s->integer) s->next = floor(s->next);
    }
    if (s->nsteps >= s->max_steps) finish(s, "step limit reached");
    return 0;
}

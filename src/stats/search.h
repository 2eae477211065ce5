/*
 * search.h - `bench --find-max --slo ...`: SLO expressions and the max-rate search.
 *
 * SLO text: one or more comma-separated terms, all of which must hold:
 *   TERM   := [METRIC "."] STAT OP VALUE
 *   METRIC := e2e (default) | ttft | tpot | itl | chunk_gap | send_lag | a [a-z0-9_]+ name
 *   STAT   := pNN[.N] (percentile, 0 < NN < 100) | mean | max | errors
 *   OP     := <= | < | >= | >
 *   VALUE  := a duration with unit (200ms, 1.5s, 250us; a bare number is ms), or for `errors`
 *             a percentage (1%) or fraction (0.01)
 * Examples: "p99<=200ms", "p99<=200ms,p50<=50ms", "ttft.p99<=2s,tpot.p99<=100ms,errors<=1%".
 *
 * The search is a pure state machine: it never measures. Ask search_next() for the rate to
 * probe, run that load point (CO-correct, early-stopped), and feed the verdict back with
 * search_feed(). Phase 1 brackets by doubling from the start rate (or halving if the start
 * fails); phase 2 bisects between the highest passing and lowest failing rate until they are
 * within the relative precision. The result is the highest passing rate probed.
 */
#ifndef LAT_STATS_SEARCH_H
#define LAT_STATS_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/clock.h"
#include "hist/hist.h"
#include "stats/earlystop.h"

#define SLO_MAX_TERMS  8
#define SLO_METRIC_MAX 24

enum slo_stat { SLO_PCTL = 0, SLO_MEAN, SLO_MAX, SLO_ERRORS };
enum slo_op { SLO_LE = 0, SLO_LT, SLO_GE, SLO_GT };

struct slo_term {
    char metric[SLO_METRIC_MAX]; /* "e2e" when not given */
    enum slo_stat stat;
    double pct; /* SLO_PCTL: 0 < pct < 100 */
    enum slo_op op;
    lat_ns limit_ns;   /* latency stats */
    double limit_frac; /* SLO_ERRORS: fraction 0..1 */
};

struct slo {
    struct slo_term t[SLO_MAX_TERMS];
    int n;
};

/* Parses text into *out. Returns 0 or LAT_E_USAGE with *why (static text) naming the problem. */
int slo_parse(const char *text, struct slo *out, const char **why);
/* Formats one term back to text ("e2e.p99<=200ms"); returns buf. */
const char *slo_term_format(const struct slo_term *t, char *buf, unsigned len);
/* True when the observed value (ns for latency stats, a fraction for errors) meets the term. */
bool slo_term_holds(const struct slo_term *t, double observed);

enum slo_verdict { SLO_PASS = 0, SLO_FAIL, SLO_UNDECIDED };

/* Evaluates a latency term on a histogram. confidence <= 0: plain comparison of the
 * percentile/mean/max. confidence in (0, 1) and an upper-bound percentile term (<=, <): LoadGen
 * early stopping; SLO_UNDECIDED with *more_needed when the samples cannot support the claim
 * yet. Observed value (ns) in *observed. SLO_ERRORS terms are not evaluated here (FAIL). */
enum slo_verdict slo_term_eval_hist(const struct slo_term *t, const struct lat_hist *h,
                                    double confidence, double *observed, uint64_t *more_needed);

#define SEARCH_MAX_STEPS 64

enum search_phase { SEARCH_BRACKET = 0, SEARCH_BISECT, SEARCH_DONE };

struct search_step {
    double rate;
    bool pass;
};

struct lat_search {
    double start, min_rate, max_rate, precision;
    double lo_pass; /* highest passing rate so far, 0 = none */
    double hi_fail; /* lowest failing rate so far, 0 = none */
    double next;    /* rate to probe next */
    enum search_phase phase;
    int max_steps, nsteps;
    struct search_step steps[SEARCH_MAX_STEPS];
    const char *end_reason; /* why the search ended (static text) */
    bool integer;           /* whole-number steps (concurrency): see search_set_integer() */
};

/* start > 0, min_rate > 0, max_rate >= start >= min_rate, precision (relative, e.g. 0.05) > 0,
 * 1 <= max_steps <= SEARCH_MAX_STEPS. 0 or LAT_E_USAGE. */
int search_init(struct lat_search *s, double start, double min_rate, double max_rate,
                double precision, int max_steps);
/* Whole-number search (--find-max over concurrency), right after search_init with whole
 * start/min/max: halving rounds down (not below min), bisection probes floor((lo + hi) / 2),
 * and the bisection ends when the bracket is 1 wide (or within the relative precision, if
 * that is wider). The same bracket-then-bisect algorithm otherwise. */
void search_set_integer(struct lat_search *s);
/* Rate to probe next, or 0 when the search is over. */
double search_next(const struct lat_search *s);
/* The verdict for the rate just probed (must equal search_next()). 0 or LAT_E_USAGE. */
int search_feed(struct lat_search *s, double rate, bool pass);
bool search_done(const struct lat_search *s);
/* Highest passing rate probed, 0 when none passed. */
double search_result(const struct lat_search *s);

#endif

/*
 * endpoints.c - the balancing and cancellation policies of `latscope bench` (endpoints.h) and
 * their part of the point report.
 */
#include "bench/endpoints.h"

#include "bench/bench.h"
#include "core/esc.h"
#include "core/jsonw.h"
#include "core/redact.h"
#include "core/units.h"

#include <stdlib.h>
#include <string.h>

enum {
    EP_OPT_ENDPOINT = 1,
    EP_OPT_BALANCE,
    EP_OPT_CANCEL_AFTER,
    EP_OPT_CANCEL_TOKENS,
    EP_OPT_SHARE
};

const struct bench_topt bench_ep_opts[] = {
    {NULL, 0, NULL, 0, 0, "Several endpoints and cancellation (docs/latscope-bench.md)"},
    {"endpoint", 0, "URL", EP_OPT_ENDPOINT, 0,
     "another endpoint (repeatable; also: more URLs after the first):\n"
     "replicas with no balancer, the same path on another host:port"},
    {"balance", 0, "round-robin|least-inflight", EP_OPT_BALANCE, 0,
     "spread over the endpoints (default round-robin: closed loop\n"
     "by connection, open loop by arrival; least-inflight: each\n"
     "request to the endpoint with the fewest in flight)"},
    {"cancel-after", 0, "D", EP_OPT_CANCEL_AFTER, 0,
     "cancel a request D after its send (close its connection):\n"
     "counted as cancelled, neither ok nor an error"},
    {"cancel-after-tokens", 0, "N", EP_OPT_CANCEL_TOKENS, 0,
     "--target openai: close the stream after N content tokens"},
    {"cancel-share", 0, "F", EP_OPT_SHARE, 0,
     "the share of requests that cancel, chosen by --seed (default 1\n"
     "with a cancel option)"},
    {0},
};

int bench_ep_opt(struct bench_ep_cfg *c, int id, const char *val, char *why, size_t whylen)
{
    uint64_t u;
    char *e;
    switch (id) {
    case EP_OPT_ENDPOINT:
        if (c->nurls + 1 >= BENCH_MAX_ENDPOINTS) {
            snprintf(why, whylen, "--endpoint %s: at most %d endpoints", val, BENCH_MAX_ENDPOINTS);
            return -1;
        }
        c->urls[c->nurls++] = val;
        return 0;
    case EP_OPT_BALANCE:
        if (bench_balance_parse(val, &c->balance) < 0) {
            snprintf(why, whylen, "--balance %s: expected round-robin or least-inflight", val);
            return -1;
        }
        c->balance_set = true;
        return 0;
    case EP_OPT_CANCEL_AFTER:
        if (units_parse_duration(val, LAT_NS_PER_S, &c->cancel.after_ns) < 0 ||
            c->cancel.after_ns <= 0) {
            snprintf(why, whylen, "--cancel-after %s: expected a positive duration (50ms)", val);
            return -1;
        }
        return 0;
    case EP_OPT_CANCEL_TOKENS:
        if (units_parse_count(val, &u) < 0 || u == 0 || u > UINT32_MAX) {
            snprintf(why, whylen, "--cancel-after-tokens %s: expected a positive whole number",
                     val);
            return -1;
        }
        c->cancel.after_tokens = (uint32_t)u;
        return 0;
    case EP_OPT_SHARE: {
        double v = strtod(val, &e);
        if (e == val || *e || !(v >= 0 && v <= 1)) {
            snprintf(why, whylen, "--cancel-share %s: expected a fraction 0 <= F <= 1", val);
            return -1;
        }
        c->cancel.share = v;
        c->share_set = true;
        return 0;
    }
    default:
        snprintf(why, whylen, "unknown option");
        return -1;
    }
}

int bench_ep_finish(struct bench_ep_cfg *c, char *why, size_t whylen)
{
    bool any = c->cancel.after_ns > 0 || c->cancel.after_tokens > 0;
    if (c->share_set && !any) {
        snprintf(why, whylen, "--cancel-share: needs --cancel-after or --cancel-after-tokens");
        return -1;
    }
    if (any && !c->share_set) c->cancel.share = 1;
    return 0;
}

_Static_assert(BENCH_ERR__COUNT <= 16, "bench_ep_stats.errors holds every class");

const char *bench_balance_name(enum bench_balance b)
{
    return b == BENCH_BALANCE_LEAST_INFLIGHT ? "least-inflight" : "round-robin";
}

int bench_balance_parse(const char *s, enum bench_balance *out)
{
    if (!strcmp(s, "round-robin") || !strcmp(s, "rr")) {
        *out = BENCH_BALANCE_ROUND_ROBIN;
        return 0;
    }
    if (!strcmp(s, "least-inflight") || !strcmp(s, "least")) {
        *out = BENCH_BALANCE_LEAST_INFLIGHT;
        return 0;
    }
    return -1;
}

unsigned bench_ep_pick(enum bench_balance b, const unsigned *inflight, unsigned n, unsigned *turn)
{
    if (n <= 1) return 0;
    unsigned start = *turn % n;
    *turn = start + 1;
    if (b != BENCH_BALANCE_LEAST_INFLIGHT || !inflight) return start;
    unsigned best = start;
    for (unsigned i = 1; i < n; i++) {
        unsigned k = (start + i) % n;
        if (inflight[k] < inflight[best]) best = k;
    }
    return best;
}

/* splitmix64's finalizer: a bijective mix of 64 bits. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

bool bench_cancel_pick(uint64_t seed, uint64_t k, double share)
{
    if (!(share > 0)) return false;
    if (share >= 1) return true;
    uint64_t h = mix64(mix64(seed ^ 0x63616e63656cULL) + k * 0x9e3779b97f4a7c15ULL);
    return (double)(h >> 11) * 0x1.0p-53 < share;
}

static void json_ms3(struct jsonw *w, const char *key, const struct lat_hist *h, double pct)
{
    jsonw_key(w, key);
    jsonw_fixed(w, (double)hist_value_at_percentile(h, pct) / 1e6, 3);
}

void bench_endpoints_write_json(struct jsonw *w, const struct bench_result *r)
{
    jsonw_key(w, "cancelled");
    jsonw_u64(w, r->cancelled);
    jsonw_key(w, "cancel");
    if (r->cancel.after_ns > 0 || r->cancel.after_tokens > 0) {
        jsonw_obj_begin(w);
        jsonw_key(w, "after_ms");
        if (r->cancel.after_ns > 0)
            jsonw_fixed(w, (double)r->cancel.after_ns / 1e6, 3);
        else
            jsonw_null(w);
        jsonw_key(w, "after_tokens");
        if (r->cancel.after_tokens)
            jsonw_u64(w, r->cancel.after_tokens);
        else
            jsonw_null(w);
        jsonw_key(w, "share");
        jsonw_double(w, r->cancel.share, 6);
        jsonw_key(w, "first_ms"); /* their first token (openai) / response byte */
        if (hist_count(&r->cancel_first)) {
            jsonw_obj_begin(w);
            jsonw_key(w, "n");
            jsonw_u64(w, hist_count(&r->cancel_first));
            json_ms3(w, "p50", &r->cancel_first, 50);
            json_ms3(w, "p99", &r->cancel_first, 99);
            jsonw_obj_end(w);
        } else {
            jsonw_null(w);
        }
        jsonw_obj_end(w);
    } else {
        jsonw_null(w);
    }
    if (!r->eps || r->neps < 2) return;
    jsonw_key(w, "balance");
    jsonw_str(w, bench_balance_name(r->balance));
    jsonw_key(w, "endpoints");
    jsonw_arr_begin(w);
    struct lat_buf red = LAT_BUF_INIT; /* a URL's query secrets never reach an output */
    for (unsigned p = 0; p < r->neps; p++) {
        const struct bench_ep_stats *x = &r->eps[p];
        jsonw_obj_begin(w);
        jsonw_key(w, "url");
        jsonw_str(w, r->ep_urls ? lat_redacted(&red, r->ep_urls[p]) : "");
        jsonw_key(w, "requests");
        jsonw_u64(w, x->ok);
        jsonw_key(w, "errors");
        jsonw_obj_begin(w);
        jsonw_key(w, "total");
        jsonw_u64(w, x->errors_total);
        for (int c = 0; c < BENCH_ERR__COUNT; c++) {
            jsonw_key(w, bench_err_names[c]);
            jsonw_u64(w, x->errors[c]);
        }
        jsonw_obj_end(w);
        jsonw_key(w, "cancelled");
        jsonw_u64(w, x->cancelled);
        jsonw_key(w, "achieved_rps");
        jsonw_fixed(w, r->duration_s > 0 ? (double)x->ok / r->duration_s : 0, 3);
        jsonw_key(w, "bytes");
        jsonw_u64(w, x->bytes);
        jsonw_key(w, "latency_ms");
        if (hist_count(&x->lat)) {
            jsonw_obj_begin(w);
            json_ms3(w, "p50", &x->lat, 50);
            json_ms3(w, "p90", &x->lat, 90);
            json_ms3(w, "p99", &x->lat, 99);
            jsonw_obj_end(w);
        } else {
            jsonw_null(w);
        }
        /* the first token (openai: "ttft_ms") or response byte ("ttfb_ms"), as the point's */
        jsonw_key(w, r->ep_first_token ? "ttft_ms" : "ttfb_ms");
        if (hist_count(&x->first)) {
            jsonw_obj_begin(w);
            json_ms3(w, "p50", &x->first, 50);
            json_ms3(w, "p99", &x->first, 99);
            jsonw_obj_end(w);
        } else {
            jsonw_null(w);
        }
        jsonw_obj_end(w);
    }
    buf_fini(&red);
    jsonw_arr_end(w);
}

void bench_endpoints_write_text(FILE *f, const struct bench_result *r, bool server_stats)
{
    if (r->cancel.after_ns > 0 || r->cancel.after_tokens > 0) {
        fprintf(f, "  cancelled: %llu requests (share %g, after ", (unsigned long long)r->cancelled,
                r->cancel.share);
        if (r->cancel.after_tokens) fprintf(f, "%u tokens", (unsigned)r->cancel.after_tokens);
        if (r->cancel.after_tokens && r->cancel.after_ns) fputs(" or ", f);
        if (r->cancel.after_ns) fprintf(f, "%.3f ms", (double)r->cancel.after_ns / 1e6);
        fputs("; not counted as errors, in no latency above", f);
        if (hist_count(&r->cancel_first))
            fprintf(f, "; first token/byte p50 %.3f ms, p99 %.3f ms",
                    (double)hist_value_at_percentile(&r->cancel_first, 50) / 1e6,
                    (double)hist_value_at_percentile(&r->cancel_first, 99) / 1e6);
        fputs(")\n", f);
    }
    if (!r->eps || r->neps < 2) return;
    fprintf(f, "  endpoints (%s)%s:\n", bench_balance_name(r->balance),
            server_stats ? "; server statistics above are the first endpoint's" : "");
    const char *fh = r->ep_first_token ? "ttft" : "ttfb";
    fprintf(f, "    %-32s %9s %8s %9s %10s %9s %9s %9s %5s p50 %5s p99\n", "url", "requests",
            "errors", "cancelled", "req/s", "p50 ms", "p90 ms", "p99 ms", fh, fh);
    struct lat_buf red = LAT_BUF_INIT;
    for (unsigned p = 0; p < r->neps; p++) {
        const struct bench_ep_stats *x = &r->eps[p];
        char eu[1024]; /* a merged result's URLs are its JSON's: escaped (core/esc.h) */
        fprintf(f, "    %-32s %9llu %8llu %9llu %10.1f",
                r->ep_urls ? lat_esc_cell(eu, sizeof(eu), lat_redacted(&red, r->ep_urls[p])) : "?",
                (unsigned long long)x->ok, (unsigned long long)x->errors_total,
                (unsigned long long)x->cancelled,
                r->duration_s > 0 ? (double)x->ok / r->duration_s : 0);
        if (hist_count(&x->lat))
            fprintf(f, " %9.3f %9.3f %9.3f", (double)hist_value_at_percentile(&x->lat, 50) / 1e6,
                    (double)hist_value_at_percentile(&x->lat, 90) / 1e6,
                    (double)hist_value_at_percentile(&x->lat, 99) / 1e6);
        else
            fprintf(f, " %9s %9s %9s", "-", "-", "-");
        if (hist_count(&x->first))
            fprintf(f, " %9.3f %9.3f", (double)hist_value_at_percentile(&x->first, 50) / 1e6,
                    (double)hist_value_at_percentile(&x->first, 99) / 1e6);
        else
            fprintf(f, " %9s %9s", "-", "-");
        const char *sep = " (";
        for (int c = 0; c < BENCH_ERR__COUNT; c++)
            if (x->errors[c]) {
                fprintf(f, "%s%s %llu", sep, bench_err_names[c], (unsigned long long)x->errors[c]);
                sep = ", ";
            }
        if (sep[0] == ',') fputc(')', f);
        fputc('\n', f);
    }
    buf_fini(&red);
}

static void csv_us(FILE *f, const struct lat_hist *h, double pct)
{
    if (hist_count(h))
        fprintf(f, ",%.0f", (double)hist_value_at_percentile(h, pct) / 1e3);
    else
        fputc(',', f);
}

void bench_endpoints_csv(FILE *f, const struct bench_result *const *res, size_t n)
{
    bool any = false, token = false;
    for (size_t i = 0; i < n; i++)
        if (res[i] && res[i]->eps && res[i]->neps >= 2) {
            any = true;
            token = token || res[i]->ep_first_token;
        }
    if (!any) return;
    const char *fh = token ? "TTFT" : "TTFB";
    fprintf(f,
            "\nPoint,Endpoint,Requests,Errors,Cancelled,Inferences/Second,p50 latency,"
            "p90 latency,p99 latency,%s p50,%s p99\n",
            fh, fh);
    struct lat_buf red = LAT_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const struct bench_result *r = res[i];
        if (!r || !r->eps || r->neps < 2) continue;
        for (unsigned p = 0; p < r->neps; p++) {
            const struct bench_ep_stats *x = &r->eps[p];
            /* a URL has no comma or quote that needs CSV quoting (they are refused or escaped
             * in a URL); quoted anyway for a spreadsheet; control bytes escaped (core/esc.h) */
            char eu[1024];
            fprintf(f, "%zu,\"%s\",%llu,%llu,%llu,%.2f", i + 1,
                    r->ep_urls ? lat_esc_cell(eu, sizeof(eu), lat_redacted(&red, r->ep_urls[p]))
                               : "",
                    (unsigned long long)x->ok, (unsigned long long)x->errors_total,
                    (unsigned long long)x->cancelled,
                    r->duration_s > 0 ? (double)x->ok / r->duration_s : 0);
            csv_us(f, &x->lat, 50);
            csv_us(f, &x->lat, 90);
            csv_us(f, &x->lat, 99);
            csv_us(f, &x->first, 50);
            csv_us(f, &x->first, 99);
            fputc('\n', f);
        }
    }
    buf_fini(&red);
}

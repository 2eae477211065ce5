/*
 * scrape.c - one Prometheus scrape (scrape.h).
 */
#include "bench/scrape.h"

#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "net/fetch.h"

int llm_bench_scrape(const struct conn_target *t, const char *req, size_t len, struct prom_set *out)
{
    return llm_bench_scrape_status(t, req, len, out, NULL);
}

int llm_bench_scrape_status(const struct conn_target *t, const char *req, size_t len,
                            struct prom_set *out, int *status_out)
{
    struct lat_buf body = LAT_BUF_INIT;
    int status = 0;
    int rc = http_fetch(t, req, len, 5 * LAT_NS_PER_S, &status, &body);
    if (status_out) *status_out = rc ? 0 : status;
    if (!rc && (status < 200 || status >= 300)) rc = LAT_E_HTTP_PARSE;
    unsigned long line = 0;
    if (!rc) rc = prom_parse(body.data ? body.data : "", body.len, out, &line);
    buf_fini(&body);
    return rc;
}

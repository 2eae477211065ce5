/*
 * scrape.h - one Prometheus scrape (GET, parse): for --metrics-url (openai.c) and the DCGM
 * exporter (telemetry.c), in its own file below both.
 */
#ifndef LAT_BENCH_SCRAPE_H
#define LAT_BENCH_SCRAPE_H

#include <stddef.h>

#include "llm/prom.h"
#include "llm/target.h"

/* Scrapes URL once into *out (GET, 5 s timeout). 0, -errno, LAT_E_* (status >= 300:
 * LAT_E_HTTP_PARSE) or LAT_E_USAGE from the parser. */
int llm_bench_scrape(const struct conn_target *t, const char *req, size_t len,
                     struct prom_set *out);
/* The same, and *status_out = the HTTP status (0 when no response came). */
int llm_bench_scrape_status(const struct conn_target *t, const char *req, size_t len,
                            struct prom_set *out, int *status_out);

#endif

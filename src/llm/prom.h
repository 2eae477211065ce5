/*
 * prom.h - Prometheus text exposition (version 0.0.4) parser, and the server-side series LLM
 * servers expose, for `bench --target openai --metrics-url URL`.
 *
 * A scrape becomes a sorted array of (series, value, type): the series key is the metric name
 * plus its label set exactly as written (after validation), so two scrapes of the same server
 * compare key by key. Deltas between scrapes give counters' increments; gauges are sampled.
 */
#ifndef LAT_LLM_PROM_H
#define LAT_LLM_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum prom_type { PROM_UNTYPED = 0, PROM_COUNTER, PROM_GAUGE, PROM_HISTOGRAM, PROM_SUMMARY };

struct prom_sample {
    char *key;       /* name{labels} as written, or name */
    size_t name_len; /* the metric name part of key */
    double value;
    enum prom_type type; /* from the family's # TYPE line (histogram/summary parts included) */
};

struct prom_set {
    struct prom_sample *s;
    size_t n, cap;
};

/*
 * Parses an exposition into *out (appending; initialize with {0}). Returns 0, -ENOMEM, or
 * LAT_E_USAGE with *line set to the 1-based line of the first malformed sample (the set then
 * holds what came before). Comment lines other than # TYPE are ignored; timestamps are accepted
 * and ignored. The set is sorted by key afterwards.
 */
int prom_parse(const char *text, size_t n, struct prom_set *out, unsigned long *line);
void prom_set_fini(struct prom_set *s);
/* Value of the series with this exact key (e.g. "vllm:num_requests_running" or
 * "x{a=\"b\"}"), or of the sum over every label set of a metric name when key has no '{'.
 * Returns true when found. */
bool prom_get(const struct prom_set *s, const char *key, double *v);

/* One server-side quantity worth printing next to client metrics. */
struct prom_known {
    const char *label;    /* what it means, e.g. "running requests" */
    const char *names[4]; /* metric names meaning it on vLLM, SGLang, TGI, llama.cpp */
    bool counter;         /* report the delta over the point; else gauge mean/max */
};
extern const struct prom_known prom_known_series[];
extern const size_t prom_known_count;

#endif

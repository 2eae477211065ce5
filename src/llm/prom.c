/*
 * prom.c - Prometheus text exposition parser (the format every LLM server's /metrics speaks).
 *
 * Line-oriented and strict about what it keeps: a sample line must be a valid metric name, an
 * optional label set with quoted, escaped values, a float (Inf/NaN included) and an optional
 * integer timestamp; anything else is reported with its line number rather than guessed at.
 * Keys keep the label set as written, so scrapes of one server compare key by key (servers
 * print labels in a stable order). # TYPE lines give each family's type; histogram and summary
 * parts (_bucket, _sum, _count) and counter _total/_created suffixes inherit it. Allocation per
 * sample is fine here: scrapes happen once a second on a side thread, never on the load path.
 */
#include "llm/prom.h"

#include "core/err.h"
#include "core/grow.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct prom_known prom_known_series[] = {
    {"running requests",
     {"vllm:num_requests_running", "sglang:num_running_reqs", "tgi_batch_current_size",
      "llamacpp:requests_processing"},
     false},
    {"waiting requests",
     {"vllm:num_requests_waiting", "sglang:num_queue_reqs", "tgi_queue_size",
      "llamacpp:requests_deferred"},
     false},
    {"KV-cache usage",
     {"vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc", "sglang:token_usage",
      "llamacpp:kv_cache_usage_ratio"},
     false},
    {"preemptions", {"vllm:num_preemptions_total", "vllm:num_preemptions", NULL, NULL}, true},
    {"prefix-cache hits",
     {"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total", NULL, NULL},
     true},
    {"prefix-cache queries",
     {"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total", NULL, NULL},
     true},
    {"prefix-cache hit rate",
     {"sglang:cache_hit_rate", "vllm:gpu_prefix_cache_hit_rate", NULL, NULL},
     false},
    {"generated tokens",
     {"vllm:generation_tokens_total", "tgi_request_generated_tokens_sum",
      "llamacpp:tokens_predicted_total", NULL},
     true},
    {"prompt tokens",
     {"vllm:prompt_tokens_total", "llamacpp:prompt_tokens_total", NULL, NULL},
     true},
};
const size_t prom_known_count = sizeof(prom_known_series) / sizeof(prom_known_series[0]);

struct family {
    char name[128];
    enum prom_type type;
};

static bool name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static bool name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

static const char *skip_sp(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* Parses a label set starting at '{'; returns the position after '}' or NULL. */
static const char *labels_end(const char *p, const char *e)
{
    p = skip_sp(p + 1, e);
    while (p < e && *p != '}') {
        if (!name_start(*p) || *p == ':') return NULL;
        while (p < e && name_char(*p) && *p != ':')
            p++;
        p = skip_sp(p, e);
        if (p >= e || *p != '=') return NULL;
        p = skip_sp(p + 1, e);
        if (p >= e || *p != '"') return NULL;
        for (p++; p < e && *p != '"'; p++) {
            if (*p == '\\') {
                if (++p >= e || (*p != '\\' && *p != '"' && *p != 'n')) return NULL;
            }
        }
        if (p >= e) return NULL;
        p = skip_sp(p + 1, e);
        if (p < e && *p == ',')
            p = skip_sp(p + 1, e);
        else if (p < e && *p != '}')
            return NULL;
    }
    return p < e ? p + 1 : NULL;
}

static int parse_value(const char *p, const char *e, double *v, const char **after)
{
    char tok[64];
    size_t n = 0;
    while (p + n < e && p[n] != ' ' && p[n] != '\t')
        n++;
    if (n == 0 || n >= sizeof(tok)) return -1;
    memcpy(tok, p, n);
    tok[n] = '\0';
    char *end;
    /* strtod accepts hex floats and "infinity"; the format allows Go's ParseFloat forms. */
    double x = strtod(tok, &end);
    if (*end || end == tok) return -1;
    *v = x;
    *after = p + n;
    return 0;
}

static int push(struct prom_set *s, const char *key, size_t klen, size_t name_len, double v)
{
    int rc = LAT_GROW(s->s, s->cap, s->n, 1, 64);
    if (rc) return rc;
    char *k = malloc(klen + 1);
    if (!k) return -ENOMEM;
    memcpy(k, key, klen);
    k[klen] = '\0';
    s->s[s->n++] = (struct prom_sample){k, name_len, v, PROM_UNTYPED};
    return 0;
}

static enum prom_type type_of(const char *t, size_t n)
{
    if (n == 7 && !memcmp(t, "counter", 7)) return PROM_COUNTER;
    if (n == 5 && !memcmp(t, "gauge", 5)) return PROM_GAUGE;
    if (n == 9 && !memcmp(t, "histogram", 9)) return PROM_HISTOGRAM;
    if (n == 7 && !memcmp(t, "summary", 7)) return PROM_SUMMARY;
    return PROM_UNTYPED;
}

static int cmp_sample(const void *a, const void *b)
{
    return strcmp(((const struct prom_sample *)a)->key, ((const struct prom_sample *)b)->key);
}

static enum prom_type family_type(const struct family *f, size_t nf, const char *name, size_t n)
{
    static const char *const sfx[] = {"_bucket", "_sum", "_count", "_total", "_created"};
    for (size_t i = 0; i < nf; i++) {
        size_t fl = strlen(f[i].name);
        if (fl == n && !memcmp(f[i].name, name, n)) return f[i].type;
        if (fl < n && !memcmp(f[i].name, name, fl))
            for (size_t k = 0; k < sizeof(sfx) / sizeof(sfx[0]); k++)
                if (n - fl == strlen(sfx[k]) && !memcmp(name + fl, sfx[k], n - fl))
                    return f[i].type;
    }
    return PROM_UNTYPED;
}

int prom_parse(const char *text, size_t n, struct prom_set *out, unsigned long *line)
{
    const char *p = text, *end = text + n;
    struct family *fam = NULL;
    size_t nfam = 0, capfam = 0;
    unsigned long ln = 0;
    int rc = 0;
    size_t first = out->n;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e) e = end;
        ln++;
        const char *l = skip_sp(p, e), *le = e;
        if (le > l && le[-1] == '\r') le--;
        p = e < end ? e + 1 : end;
        if (l == le) continue;
        if (*l == '#') {
            const char *q = skip_sp(l + 1, le);
            if (le - q > 5 && !memcmp(q, "TYPE", 4) && (q[4] == ' ' || q[4] == '\t')) {
                q = skip_sp(q + 4, le);
                const char *ns = q;
                while (q < le && name_char(*q))
                    q++;
                size_t nl = (size_t)(q - ns);
                q = skip_sp(q, le);
                const char *te = q;
                while (te < le && *te != ' ' && *te != '\t')
                    te++;
                if (nl > 0 && nl < sizeof(fam->name)) {
                    if ((rc = LAT_GROW(fam, capfam, nfam, 1, 32)) != 0) break;
                    memcpy(fam[nfam].name, ns, nl);
                    fam[nfam].name[nl] = '\0';
                    fam[nfam++].type = type_of(q, (size_t)(te - q));
                }
            }
            continue;
        }
        if (!name_start(*l)) {
            rc = LAT_E_USAGE;
            break;
        }
        const char *q = l;
        while (q < le && name_char(*q))
            q++;
        size_t name_len = (size_t)(q - l);
        if (q < le && *q == '{') {
            if (!(q = labels_end(q, le))) {
                rc = LAT_E_USAGE;
                break;
            }
        }
        size_t klen = (size_t)(q - l);
        const char *v = skip_sp(q, le);
        if (v == q && v < le) { /* the value must be separated by whitespace */
            rc = LAT_E_USAGE;
            break;
        }
        double val;
        const char *after;
        if (parse_value(v, le, &val, &after)) {
            rc = LAT_E_USAGE;
            break;
        }
        after = skip_sp(after, le);
        if (after < le) { /* optional integer timestamp */
            const char *t = after;
            if (*t == '-') t++;
            const char *ds = t;
            while (t < le && *t >= '0' && *t <= '9')
                t++;
            if (t == ds || skip_sp(t, le) != le) {
                rc = LAT_E_USAGE;
                break;
            }
        }
        if ((rc = push(out, l, klen, name_len, val))) break;
    }
    if (rc == LAT_E_USAGE && line) *line = ln;
    for (size_t i = first; i < out->n; i++)
        out->s[i].type = family_type(fam, nfam, out->s[i].key, out->s[i].name_len);
    free(fam);
    if (out->n) qsort(out->s, out->n, sizeof(*out->s), cmp_sample);
    return rc;
}

void prom_set_fini(struct prom_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->s[i].key);
    free(s->s);
    memset(s, 0, sizeof(*s));
}

bool prom_get(const struct prom_set *s, const char *key, double *v)
{
    if (strchr(key, '{')) {
        struct prom_sample k = {.key = (char *)(uintptr_t)key};
        const struct prom_sample *f =
            s->n ? bsearch(&k, s->s, s->n, sizeof(*s->s), cmp_sample) : NULL;
        if (f) *v = f->value;
        return f != NULL;
    }
    size_t kl = strlen(key);
    bool found = false;
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->s[i].name_len == kl && !memcmp(s->s[i].key, key, kl)) {
            sum += s->s[i].value;
            found = true;
        }
    if (found) *v = sum;
    return found;
}

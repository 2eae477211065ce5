/*
 * target.c - the table of bench targets (target.h) and what they share: reading -d and
 * describing a fixed request for the JSON "workload".
 *
 * A new target is one file defining its struct bench_target_ops and one row below.
 */
#include "bench/target.h"

#include "core/err.h"
#include "llm/replay.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* One line per target, in --help order: X(NAME) for the bench_target_NAME of its file. */
#define BENCH_TARGETS(X)                                                                           \
    X(http)                                                                                        \
    X(kserve)                                                                                      \
    X(openai)

#define DECLARE(n) extern const struct bench_target_ops bench_target_##n;
#define ROW(n)     &bench_target_##n,
BENCH_TARGETS(DECLARE)
const struct bench_target_ops *const bench_targets[] = {BENCH_TARGETS(ROW) NULL};

const struct bench_target_ops *bench_target_find(const char *name)
{
    for (size_t i = 0; bench_targets[i]; i++)
        if (!strcmp(bench_targets[i]->name, name)) return bench_targets[i];
    return NULL;
}

const struct bench_target_ops *bench_target_default(const struct http1_url *url)
{
    for (size_t i = 0; bench_targets[i]; i++)
        if (bench_targets[i]->claims && bench_targets[i]->claims(url)) return bench_targets[i];
    return &bench_target_http;
}

const struct bench_topt *bench_target_row(const struct bench_target_ops *ops, const char *lname)
{
    for (const struct bench_topt *o = ops->opts; o && (o->lname || o->help); o++)
        if (o->lname && !strcmp(o->lname, lname)) return o;
    return NULL;
}

int bench_read_body(const struct bench_setup *s, struct lat_buf *body, char *why, size_t whylen)
{
    if (!s->body_arg) return 0;
    if (s->body_arg[0] != '@') return buf_puts(body, s->body_arg) < 0 ? -ENOMEM : 0;
    uint64_t max = s->max_input ? s->max_input : LLM_MAX_INPUT_BYTES;
    int rc = buf_read_file(body, s->body_arg + 1, max);
    if (rc == LAT_E_OVERFLOW) {
        snprintf(why, whylen,
                 "--body %s: larger than %llu bytes (--max-input-size N raises the limit)",
                 s->body_arg + 1, (unsigned long long)max);
        return LAT_E_USAGE;
    }
    if (rc < 0) {
        snprintf(why, whylen, "--body %s: %s", s->body_arg + 1, lat_strerror(rc));
        return rc == -ENOMEM ? LAT_E_USAGE : rc;
    }
    return 0;
}

void bench_describe_request(char *out, size_t cap, const char *name, const char *req, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    size_t first = 0;
    while (first < len && req[first] != '\r' && req[first] != '\n')
        first++;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && req[e] != '\n')
            e++;
        bool host = e - i >= 5 && strncasecmp(req + i, "host:", 5) == 0;
        for (size_t k = i; !host && k < e && k < len; k++) {
            h ^= (unsigned char)req[k];
            h *= 1099511628211ULL;
        }
        i = e + 1;
    }
    snprintf(out, cap, "%s %.*s (%zu bytes, #%016llx)", name, (int)(first < 200 ? first : 200),
             req ? req : "", len, (unsigned long long)h);
}

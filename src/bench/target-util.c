/*
 * target-util.c - what the bench targets share (target.h): reading -d and describing a fixed
 * request for the JSON "workload". Below the target table (target.c), which calls the targets.
 */
#include "bench/target.h"

#include "core/err.h"
#include "llm/replay.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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

/*
 * fuzz-sse.c - libFuzzer target for the SSE framer. The first byte picks a read size (1..64 or
 * everything) and a small max_event; the rest is the stream. Checks invariants: the same events
 * come out whether fed whole or in pieces, data is NUL-terminated, input is fully consumed.
 */
#include "net/sse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t run(const char *in, size_t len, size_t step, size_t max_event, int *nerr)
{
    struct sse_parser s;
    sse_init(&s, max_event);
    uint64_t h = 1469598103934665603ull; /* FNV-1a over every event's data and type */
    size_t off = 0;
    *nerr = 0;
    while (off < len) {
        size_t n = step && len - off > step ? step : len - off;
        const char *p = in + off;
        struct sse_event ev;
        int rc;
        while ((rc = sse_feed(&s, &p, &n, (lat_ns)off, &ev)) != 0) {
            if (rc < 0) {
                (*nerr)++;
                continue;
            }
            if (ev.data[ev.data_len] != '\0') abort();
            if (ev.ts < ev.ts_first) abort();
            for (size_t i = 0; i < ev.data_len; i++)
                h = (h ^ (uint8_t)ev.data[i]) * 1099511628211ull;
            for (size_t i = 0; i < ev.type_len; i++)
                h = (h ^ (uint8_t)ev.type[i]) * 1099511628211ull;
            h = (h ^ 0x100) * 1099511628211ull;
        }
        if (n != 0) abort();
        off = (size_t)(p - in);
    }
    (void)sse_pending(&s);
    sse_fini(&s);
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t step = data[0] & 63;
    size_t max_event = (data[0] & 64) ? 32 : 0;
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    int e1, e2;
    uint64_t whole = run(in, len, 0, max_event, &e1);
    uint64_t pieces = run(in, len, step ? step : 1, max_event, &e2);
    /* Without size limits, framing is independent of read boundaries. */
    if (!max_event && (whole != pieces || e1 || e2)) abort();
    return 0;
}

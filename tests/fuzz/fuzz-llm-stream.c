/*
 * fuzz-llm-stream.c - libFuzzer target for one OpenAI streaming response read by llm_stream
 * (SSE framing, chunk JSON, the response id). Checks invariants: the kept response id, quoted,
 * is a valid JSON string (so records can write it as is) and shorter than LLM_RESP_ID_MAX; the
 * content arrival times never decrease; the same record comes out fed whole or byte by byte.
 */
#include "llm/chunk.h"
#include "llm/stream.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run(struct llm_stream *s, const char *p, size_t n, size_t step)
{
    llm_stream_begin(s, 0, 0, -1);
    for (size_t off = 0; off < n;) {
        size_t k = step && n - off > step ? step : n - off;
        llm_stream_body(s, p + off, k, (lat_ns)off);
        off += k;
    }
    llm_stream_end(s, 200, LLM_OK, (lat_ns)n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    struct llm_stream a, b;
    llm_stream_init(&a, true);
    llm_stream_init(&b, true);
    run(&a, p, size, 0);
    run(&b, p, size, 1);
    size_t n, m;
    const char *id = llm_stream_resp_id(&a, &n);
    const char *id2 = llm_stream_resp_id(&b, &m);
    if (n >= LLM_RESP_ID_MAX || n != m || memcmp(id, id2, n) != 0) abort();
    if (n) {
        char q[LLM_RESP_ID_MAX + 2];
        q[0] = '"';
        memcpy(q + 1, id, n);
        q[n + 1] = '"';
        if (!lj_valid(q, n + 2)) abort();
    }
    if (a.rec.n_content != b.rec.n_content || a.rec.err != b.rec.err) abort();
    for (uint32_t i = 1; i < b.rec.n_content; i++)
        if (b.rec.content_ts[i] < b.rec.content_ts[i - 1]) abort();
    llm_stream_fini(&a);
    llm_stream_fini(&b);
    return 0;
}

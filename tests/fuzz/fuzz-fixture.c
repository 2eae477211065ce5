/* fuzz-fixture.c - libFuzzer target for what the fixture server parses from the network: the
 * HTTP/1.1 request parser (incl. chunked bodies, decoded in place) and the KServe v2 inference
 * request validator, fed with the parsed body (or the whole input when it is no request). */
#include "core/buf.h"
#include "fixture/fixture.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    struct fxhttp_request req;
    const char *why = NULL;
    const char *body = buf;
    size_t blen = size;
    long n = fxhttp_parse(buf, size, 1 << 20, &req, &why);
    if (n > 0) {
        if ((size_t)n > size || req.body + req.body_len > buf + size) abort();
        body = req.body;
        blen = req.body_len;
        (void)fxhttp_header(&req, "content-type");
    } else if (n < 0 && !why) {
        abort();
    }
    struct lat_buf out = LAT_BUF_INIT;
    uint64_t batch;
    char w[256];
    (void)fx_kserve_echo(body, blen, "m", &out, &batch, w, sizeof(w));
    buf_fini(&out);
    free(buf);
    return 0;
}

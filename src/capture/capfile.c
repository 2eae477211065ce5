/*
 * capfile.c - encode and iterate latscope's per-process capture records (capfile.h).
 *
 * Shared by the injection library (lcap_encode, called under its writer lock and from signal
 * handlers, hence no allocation and no libc beyond memcpy/memset) and by the collector
 * (lcap_iter_*, which must survive any byte sequence: files are cut short by crashes and are
 * fuzzed). Sizes are validated against the remaining bytes before any payload is touched.
 */
#include "capture/capfile.h"
#include "core/err.h"

#include <string.h>

size_t lcap_encode(void *dst, size_t cap, uint16_t type, const void *p, size_t n, const void *q,
                   size_t m)
{
    size_t payload = n + m;
    size_t total = lcap_rec_size(payload);
    if (payload > UINT32_MAX || total > cap) return 0;
    struct lcap_rec_hdr h = {.type = type, .version = LCAP_VERSION, .size = (uint32_t)payload};
    uint8_t *d = dst;
    memcpy(d, &h, sizeof(h));
    d += sizeof(h);
    if (n) memcpy(d, p, n);
    if (m) memcpy(d + n, q, m);
    memset(d + payload, 0, total - sizeof(h) - payload);
    return total;
}

int lcap_iter_init(struct lcap_iter *it, const void *data, size_t len)
{
    memset(it, 0, sizeof(*it));
    if (len < LCAP_MAGIC_LEN || memcmp(data, LCAP_MAGIC, LCAP_MAGIC_LEN) != 0)
        return LAT_E_NOT_TRACE;
    it->data = data;
    it->len = len;
    it->off = LCAP_MAGIC_LEN;
    return 0;
}

int lcap_iter_next(struct lcap_iter *it, uint16_t *type, const void **payload, uint32_t *size)
{
    struct lcap_rec_hdr h;
    size_t left = it->len - it->off;
    if (left == 0) return 0;
    if (left < sizeof(h)) goto trunc;
    memcpy(&h, it->data + it->off, sizeof(h));
    if ((size_t)h.size > left - sizeof(h)) goto trunc;
    size_t total = lcap_rec_size(h.size);
    *type = h.type;
    *payload = it->data + it->off + sizeof(h);
    *size = h.size;
    /* The padding of the last record may be missing in a cut file; the payload is complete. */
    it->off = total > left ? it->len : it->off + total;
    return 1;
trunc:
    it->truncated = 1;
    it->off = it->len;
    return 0;
}

void lcap_payload(void *out, size_t n, const void *payload, uint32_t size)
{
    size_t c = size < n ? size : n;
    memcpy(out, payload, c);
    if (c < n) memset((char *)out + c, 0, n - c);
}

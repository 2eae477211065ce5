/*
 * base64.c - base64 encode/decode for the HdrHistogram interval log.
 *
 * Strict decoder: the log format never wraps lines and always pads, so anything else is a
 * corrupt entry and is reported as such instead of being guessed at. Table-driven, no
 * allocation; the caller sizes the output with base64_encoded_len() / base64_decoded_max().
 */
#include "hist/base64.h"

#include "core/err.h"

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t base64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

size_t base64_decoded_max(size_t n)
{
    return n / 4 * 3;
}

size_t base64_encode(const uint8_t *in, size_t n, char *out)
{
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = b64_alphabet[v >> 18];
        out[o++] = b64_alphabet[(v >> 12) & 63];
        out[o++] = b64_alphabet[(v >> 6) & 63];
        out[o++] = b64_alphabet[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = b64_alphabet[v >> 18];
        out[o++] = b64_alphabet[(v >> 12) & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = b64_alphabet[v >> 18];
        out[o++] = b64_alphabet[(v >> 12) & 63];
        out[o++] = b64_alphabet[(v >> 6) & 63];
        out[o++] = '=';
    }
    out[o] = '\0';
    return o;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

int base64_decode(const char *in, size_t n, uint8_t *out, size_t cap, size_t *out_len)
{
    *out_len = 0;
    if (n % 4) return LAT_E_USAGE;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int pad = 0;
        uint32_t v = 0;
        for (int k = 0; k < 4; k++) {
            char c = in[i + k];
            int d;
            if (c == '=') {
                /* '=' only in the last quad, only in its last one or two places. */
                if (i + 4 != n || k < 2) return LAT_E_USAGE;
                pad++;
                d = 0;
            } else {
                if (pad) return LAT_E_USAGE;
                d = b64_value(c);
                if (d < 0) return LAT_E_USAGE;
            }
            v = v << 6 | (uint32_t)d;
        }
        size_t bytes = 3 - (size_t)pad;
        if (cap - o < bytes) return LAT_E_OVERFLOW;
        out[o++] = (uint8_t)(v >> 16);
        if (bytes > 1) out[o++] = (uint8_t)(v >> 8);
        if (bytes > 2) out[o++] = (uint8_t)v;
    }
    *out_len = o;
    return 0;
}

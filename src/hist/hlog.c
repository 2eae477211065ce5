/*
 * hlog.c - HdrHistogram V2 compressed histograms and the interval log around them.
 *
 * Encoding (all big-endian): a 40-byte header (cookie 0x1c849313, payload length, normalizing
 * offset 0, significant figures, lowest, highest, conversion ratio 1.0) followed by the counts
 * for indices 0 .. index_of(max) as ZigZag LEB128 varints, a run of k zero counts written as
 * -k. That is deflated with zlib (RFC 1950) and wrapped in cookie 0x1c849314 + length, then
 * base64'd. Our bucket layout is HdrHistogram_c's, so the counts array goes out as it is.
 *
 * The decoder inflates in a streaming loop with a small buffer and decodes varints as they
 * come, so a hostile header cannot make it allocate the payload length it claims; the only
 * allocation is the counts array, bounded by HLOG_MAX_COUNTS_LEN. Every field is validated and
 * every failure says what was wrong (the fuzz target drives this path).
 *
 * The log reader is lenient in what it reads (absolute or relative times, '#' lines anywhere,
 * CRLF, Java's lone-zero encoding) and the writer strict in what it writes (version line first,
 * header lines <= 126 characters, no comments between entries), per the notes in
 * ../shared/docs/load-testing.md §2.2 on HdrHistogram_c's reader.
 */
#include "hist/hlog.h"

#include "core/err.h"
#include "core/jsonw.h"
#include "hist/base64.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define V2_ENCODING_COOKIE    0x1c849313u
#define V2_COMPRESSION_COOKIE 0x1c849314u
#define V2_ENC_BASE           0x1c849303u
#define V2_COMP_BASE          0x1c849304u
#define ENC_HEADER_LEN        40
#define MAX_VARINT_LEN        9

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
    return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/* ZigZag + LEB128, at most 9 bytes; the 9th byte carries 8 bits. */
static size_t zigzag_put(uint8_t *out, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    for (int i = 0; i < 8; i++) {
        if (u < 0x80) {
            out[n++] = (uint8_t)u;
            return n;
        }
        out[n++] = (uint8_t)((u & 0x7f) | 0x80);
        u >>= 7;
    }
    out[n++] = (uint8_t)u;
    return n;
}

/* Decodes one varint from p[0..n). Returns bytes used, or 0 when n is too short. */
static size_t zigzag_get(const uint8_t *p, size_t n, int64_t *v)
{
    uint64_t u = 0;
    size_t i = 0;
    for (; i < 8; i++) {
        if (i >= n) return 0;
        u |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
            return i + 1;
        }
    }
    if (i >= n) return 0;
    u |= (uint64_t)p[8] << 56;
    *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    return 9;
}

int hlog_encode(const struct lat_hist *h, struct lat_buf *out)
{
    const struct hist_config *c = &h->cfg;
    int32_t last = h->total ? hist_index_of(c, h->max) : -1;
    if (last >= c->counts_len) last = c->counts_len - 1;
    size_t cap = ENC_HEADER_LEN + (size_t)(last + 1) * MAX_VARINT_LEN;
    uint8_t *raw = malloc(cap), *z = NULL;
    int rc = -ENOMEM;
    if (!raw) return -ENOMEM;

    size_t n = ENC_HEADER_LEN;
    for (int32_t i = 0; i <= last;) {
        uint64_t cnt = h->counts[i];
        if (cnt == 0) {
            int64_t zeros = 0;
            while (i <= last && h->counts[i] == 0) {
                zeros++;
                i++;
            }
            n += zigzag_put(raw + n, -zeros);
        } else {
            /* Counts are int64 in the format; a count above INT64_MAX cannot occur in practice
             * (2^63 requests) and is saturated rather than wrapped negative. */
            n += zigzag_put(raw + n, cnt > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)cnt);
            i++;
        }
    }
    double ratio = 1.0;
    uint64_t ratio_bits;
    memcpy(&ratio_bits, &ratio, sizeof(ratio_bits));
    put_be32(raw, V2_ENCODING_COOKIE);
    put_be32(raw + 4, (uint32_t)(n - ENC_HEADER_LEN));
    put_be32(raw + 8, 0);
    put_be32(raw + 12, (uint32_t)c->sig_figs);
    put_be64(raw + 16, (uint64_t)c->lowest);
    put_be64(raw + 24, (uint64_t)c->highest);
    put_be64(raw + 32, ratio_bits);

    uLongf zlen = compressBound((uLong)n);
    z = malloc(8 + zlen);
    if (!z) goto out;
    if (compress2(z + 8, &zlen, raw, (uLong)n, Z_DEFAULT_COMPRESSION) != Z_OK) {
        rc = LAT_E_INTERNAL;
        goto out;
    }
    put_be32(z, V2_COMPRESSION_COOKIE);
    put_be32(z + 4, (uint32_t)zlen);
    size_t blen = base64_encoded_len(8 + zlen);
    rc = buf_reserve(out, blen + 1);
    if (rc < 0) goto out;
    out->len += base64_encode(z, 8 + zlen, out->data + out->len);
    rc = 0;
out:
    free(raw);
    free(z);
    return rc;
}

#define FAILWHY(code, text)                                                                        \
    do {                                                                                           \
        rc = (code);                                                                               \
        if (why) *why = (text);                                                                    \
        goto out;                                                                                  \
    } while (0)

int hlog_decode(const char *b64, size_t len, struct lat_hist *h, const char **why)
{
    int rc = 0;
    uint8_t *bin = NULL;
    size_t blen = 0;
    bool z_open = false, h_open = false;
    z_stream zs;
    memset(h, 0, sizeof(*h));
    memset(&zs, 0, sizeof(zs));

    if (len < 12) FAILWHY(LAT_E_HLOG, "histogram blob too short");
    bin = malloc(base64_decoded_max(len) + 1);
    if (!bin) FAILWHY(-ENOMEM, "out of memory");
    if (base64_decode(b64, len, bin, base64_decoded_max(len), &blen) < 0)
        FAILWHY(LAT_E_HLOG, "histogram blob is not valid base64");
    if (blen < 8) FAILWHY(LAT_E_HLOG, "histogram blob too short");
    uint32_t cookie = get_be32(bin);
    if ((cookie & ~0xf0u) != V2_COMP_BASE) {
        if ((cookie & ~0xf0u) == V2_ENC_BASE)
            FAILWHY(LAT_E_UNSUPPORTED, "uncompressed V2 histogram (only compressed is read)");
        if (cookie == 0x1c849308u || cookie == 0x1c849309u || cookie == 0x1c849301u ||
            cookie == 0x1c849302u)
            FAILWHY(LAT_E_UNSUPPORTED, "V0/V1 histogram encoding (only V2 is read)");
        FAILWHY(LAT_E_HLOG, "bad compression cookie (not an HdrHistogram V2 blob)");
    }
    uint32_t zlen = get_be32(bin + 4);
    if (zlen > blen - 8) FAILWHY(LAT_E_HLOG, "compressed length exceeds the blob");

    if (inflateInit(&zs) != Z_OK) FAILWHY(-ENOMEM, "zlib init failed");
    z_open = true;
    zs.next_in = bin + 8;
    zs.avail_in = zlen;

    /* Header first: exactly 40 bytes. */
    uint8_t hdr[ENC_HEADER_LEN];
    zs.next_out = hdr;
    zs.avail_out = sizeof(hdr);
    int zrc = Z_OK;
    while (zs.avail_out && zrc == Z_OK)
        zrc = inflate(&zs, Z_NO_FLUSH);
    if (zs.avail_out) FAILWHY(LAT_E_HLOG, "zlib stream corrupt or shorter than the header");
    if ((get_be32(hdr) & ~0xf0u) != V2_ENC_BASE) FAILWHY(LAT_E_HLOG, "bad encoding cookie");
    uint32_t payload_len = get_be32(hdr + 4);
    if (get_be32(hdr + 8) != 0)
        FAILWHY(LAT_E_UNSUPPORTED, "normalizing index offset != 0 is not supported");
    int32_t sig = (int32_t)get_be32(hdr + 12);
    int64_t lowest = (int64_t)get_be64(hdr + 16), highest = (int64_t)get_be64(hdr + 24);
    struct hist_config cfg;
    if (hist_calc_config(lowest, highest, sig, &cfg) < 0)
        FAILWHY(LAT_E_HLOG, "invalid lowest/highest/significant figures in histogram header");
    if (cfg.counts_len > HLOG_MAX_COUNTS_LEN)
        FAILWHY(LAT_E_HLOG, "histogram layout too large (corrupt header?)");
    if ((uint64_t)payload_len > (uint64_t)cfg.counts_len * MAX_VARINT_LEN)
        FAILWHY(LAT_E_HLOG, "payload length larger than the layout allows");
    rc = hist_init(h, lowest, highest, sig);
    if (rc < 0) FAILWHY(rc, "out of memory");
    h_open = true;

    /* Counts: inflate in chunks, decode varints as they complete. */
    uint8_t chunk[4096 + MAX_VARINT_LEN];
    size_t have = 0; /* undecoded bytes at the front of chunk */
    uint64_t remaining = payload_len;
    int32_t idx = 0;
    bool stream_end = zrc == Z_STREAM_END;
    while (remaining || have) {
        if (!stream_end && remaining) {
            size_t room = sizeof(chunk) - have;
            if (room > remaining) room = (size_t)remaining;
            zs.next_out = chunk + have;
            zs.avail_out = (uInt)room;
            zrc = inflate(&zs, Z_NO_FLUSH);
            if (zrc != Z_OK && zrc != Z_STREAM_END && zrc != Z_BUF_ERROR)
                FAILWHY(LAT_E_HLOG, "zlib stream corrupt");
            size_t got = room - zs.avail_out;
            if (zrc == Z_STREAM_END) stream_end = true;
            if (!got && !stream_end) FAILWHY(LAT_E_HLOG, "zlib stream truncated");
            have += got;
            remaining -= got;
        }
        if (stream_end && remaining) FAILWHY(LAT_E_HLOG, "payload shorter than its length");
        size_t pos = 0;
        while (pos < have) {
            int64_t v;
            size_t used = zigzag_get(chunk + pos, have - pos, &v);
            if (!used) {
                if (!remaining) FAILWHY(LAT_E_HLOG, "payload ends inside a varint");
                break;
            }
            pos += used;
            if (v < 0) {
                if (v == INT64_MIN || -v > (int64_t)cfg.counts_len - idx)
                    FAILWHY(LAT_E_HLOG, "zero run runs past the counts array");
                idx += (int32_t)-v;
            } else {
                if (idx >= cfg.counts_len) FAILWHY(LAT_E_HLOG, "more counts than the layout has");
                h->counts[idx++] = (uint64_t)v;
            }
        }
        memmove(chunk, chunk + pos, have - pos);
        have -= pos;
    }
    if (!stream_end) {
        /* All payload bytes are in; the stream must end here (adler32 checked by zlib). */
        uint8_t extra;
        zs.next_out = &extra;
        zs.avail_out = 1;
        zrc = inflate(&zs, Z_FINISH);
        if (zrc != Z_STREAM_END || zs.avail_out == 0)
            FAILWHY(LAT_E_HLOG, "zlib stream longer than the payload or corrupt");
    }

    /* Totals and extremes from the counts. */
    h->total = 0;
    for (int32_t i = 0; i < cfg.counts_len; i++) {
        uint64_t cnt = h->counts[i];
        if (!cnt) continue;
        if (h->total + cnt < h->total) FAILWHY(LAT_E_HLOG, "total count overflows");
        if (h->total == 0) h->min = hist_value_at_index(&cfg, i);
        h->total += cnt;
        h->max = hist_highest_equivalent(&cfg, hist_value_at_index(&cfg, i));
    }
    rc = 0;
out:
    if (z_open) inflateEnd(&zs);
    free(bin);
    if (rc < 0 && h_open) hist_fini(h);
    return rc;
}

/* ---- writer ---- */

/* The reason of a failed write (errno cleared before it): "No space left on device", not EIO. */
static int io_err(void)
{
    return errno ? -errno : -EIO;
}

int hlog_writer_start(struct hlog_writer *w, FILE *f, double start_epoch_s)
{
    memset(w, 0, sizeof(*w));
    w->f = f;
    time_t t = (time_t)start_epoch_s;
    struct tm tm;
    char human[64] = "";
    if (gmtime_r(&t, &tm)) strftime(human, sizeof(human), "%Y-%m-%d %H:%M:%S UTC", &tm);
    /* Every header line stays far below the 126 characters HdrHistogram_c's reader allows. */
    errno = 0;
    if (fprintf(f, "#[Histogram log format version 1.3]\n") < 0 ||
        fprintf(f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_epoch_s, human) < 0 ||
        fprintf(f, "#[BaseTime: %.3f (seconds since epoch)]\n", start_epoch_s) < 0 ||
        fprintf(f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                   "\"Interval_Compressed_Histogram\"\n") < 0)
        w->err = io_err();
    return w->err;
}

int hlog_writer_interval(struct hlog_writer *w, const char *tag, double start_s, double length_s,
                         const struct lat_hist *h)
{
    if (w->err) return w->err;
    if (tag && (strlen(tag) > HLOG_MAX_TAG || strpbrk(tag, ", \n\r\t"))) return LAT_E_USAGE;
    buf_reset(&w->line);
    int rc = 0;
    if (tag && *tag) rc = buf_printf(&w->line, "Tag=%s,", tag);
    if (!rc)
        rc = buf_printf(&w->line, "%.3f,%.3f,%lld.0,", start_s, length_s, (long long)hist_max(h));
    if (!rc) rc = hlog_encode(h, &w->line);
    if (!rc) rc = buf_putc(&w->line, '\n');
    if (rc < 0) return w->err = rc;
    errno = 0;
    if (fwrite(w->line.data, 1, w->line.len, w->f) != w->line.len) w->err = io_err();
    return w->err;
}

int hlog_writer_finish(struct hlog_writer *w)
{
    errno = 0;
    if (!w->err && fflush(w->f) != 0) w->err = io_err();
    return w->err;
}

void hlog_writer_fini(struct hlog_writer *w)
{
    buf_fini(&w->line);
}

/* ---- reader ---- */

void hlog_reader_init(struct hlog_reader *r, const char *text, size_t len)
{
    memset(r, 0, sizeof(*r));
    r->p = text;
    r->end = text + len;
}

/* Parses a number field [s, e): digits, '.', '-', 'e'. Returns 0 or -1. */
static int parse_num(const char *s, const char *e, double *out)
{
    char tmp[64];
    size_t n = (size_t)(e - s);
    if (n == 0 || n >= sizeof(tmp)) return -1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    if (*end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

static bool starts_with(const char *s, const char *e, const char *lit)
{
    size_t n = strlen(lit);
    return (size_t)(e - s) >= n && memcmp(s, lit, n) == 0;
}

/* Header line "#[Name: <number> ..." -> number. */
static int header_number(const char *s, const char *e, const char *lit, double *out)
{
    s += strlen(lit);
    while (s < e && *s == ' ')
        s++;
    const char *q = s;
    while (q < e && ((*q >= '0' && *q <= '9') || *q == '.'))
        q++;
    return parse_num(s, q, out);
}

#define RFAIL(code, text)                                                                          \
    do {                                                                                           \
        r->why = (text);                                                                           \
        return (code);                                                                             \
    } while (0)

static int read_header_line(struct hlog_reader *r, const char *s, const char *e)
{
    double v;
    if (starts_with(s, e, "#[Histogram log format version ")) {
        const char *q = s + strlen("#[Histogram log format version ");
        int maj = 0, min = 0, nd = 0;
        while (q < e && *q >= '0' && *q <= '9' && nd < 6)
            maj = maj * 10 + (*q++ - '0'), nd++;
        if (!nd || q >= e || *q != '.') RFAIL(LAT_E_HLOG, "malformed version line");
        q++;
        nd = 0;
        while (q < e && *q >= '0' && *q <= '9' && nd < 6)
            min = min * 10 + (*q++ - '0'), nd++;
        if (!nd) RFAIL(LAT_E_HLOG, "malformed version line");
        if (maj != 1) RFAIL(LAT_E_UNSUPPORTED, "unsupported log format major version");
        r->have_version = true;
        r->version_major = maj;
        r->version_minor = min;
    } else if (starts_with(s, e, "#[StartTime:")) {
        if (header_number(s, e, "#[StartTime:", &v) < 0) RFAIL(LAT_E_HLOG, "malformed StartTime");
        r->start_time_s = v;
        r->have_start = true;
    } else if (starts_with(s, e, "#[BaseTime:")) {
        if (header_number(s, e, "#[BaseTime:", &v) < 0) RFAIL(LAT_E_HLOG, "malformed BaseTime");
        r->base_time_s = v;
        r->have_base = true;
    }
    return 0; /* other '#' lines are comments */
}

int hlog_reader_next(struct hlog_reader *r, struct hlog_entry *e)
{
    while (r->p < r->end) {
        const char *s = r->p;
        const char *nl = memchr(s, '\n', (size_t)(r->end - s));
        const char *le = nl ? nl : r->end;
        r->p = nl ? nl + 1 : r->end;
        r->line++;
        if (le > s && le[-1] == '\r') le--;
        if (le == s) continue;
        if (*s == '#') {
            int rc = read_header_line(r, s, le);
            if (rc < 0) return rc;
            continue;
        }
        if (*s == '"') continue; /* legend */

        memset(e, 0, sizeof(*e) - sizeof(e->hist));
        if (starts_with(s, le, "Tag=")) {
            const char *t = s + 4, *c = memchr(t, ',', (size_t)(le - t));
            if (!c) RFAIL(LAT_E_HLOG, "tag without a following comma");
            if (c == t || c - t > HLOG_MAX_TAG) RFAIL(LAT_E_HLOG, "empty or too long tag");
            memcpy(e->tag, t, (size_t)(c - t));
            e->tag[c - t] = '\0';
            s = c + 1;
        }
        const char *f[4];
        const char *q = s;
        for (int i = 0; i < 3; i++) {
            const char *c = memchr(q, ',', (size_t)(le - q));
            if (!c) RFAIL(LAT_E_HLOG, "entry needs 4 comma-separated fields");
            f[i] = q;
            q = c + 1;
        }
        f[3] = q;
        if (parse_num(f[0], f[1] - 1, &e->start_s) < 0) RFAIL(LAT_E_HLOG, "bad start timestamp");
        if (parse_num(f[1], f[2] - 1, &e->length_s) < 0) RFAIL(LAT_E_HLOG, "bad interval length");
        if (parse_num(f[2], f[3] - 1, &e->max_col) < 0) RFAIL(LAT_E_HLOG, "bad interval max");
        /* Times are relative to BaseTime (or StartTime) when they are small, else absolute. */
        double base = r->have_base ? r->base_time_s : r->have_start ? r->start_time_s : 0.0;
        e->abs_start_s = e->start_s < 365.0 * 86400 ? base + e->start_s : e->start_s;
        const char *why = NULL;
        int rc = hlog_decode(f[3], (size_t)(le - f[3]), &e->hist, &why);
        if (rc < 0) RFAIL(rc, why ? why : "bad histogram");
        return 1;
    }
    return 0;
}

void hlog_json_blob(struct jsonw *w, const char *key, const struct lat_hist *h)
{
    jsonw_key(w, key);
    struct lat_buf b = LAT_BUF_INIT;
    if (hist_count(h) && hlog_encode(h, &b) == 0 && b.data)
        jsonw_strn(w, b.data, b.len);
    else
        jsonw_null(w);
    buf_fini(&b);
}

void hlog_json_extremes(struct jsonw *w, const char *key, const struct lat_hist *h)
{
    if (!hist_count(h)) return;
    jsonw_key(w, key);
    jsonw_arr_begin(w);
    jsonw_i64(w, hist_min(h));
    jsonw_i64(w, hist_max(h));
    jsonw_arr_end(w);
}

/*
 * kserve-pb.c - KServe v2 gRPC messages and gRPC message framing (kserve-pb.h).
 *
 * Protobuf wire format: a field is a varint key (number << 3 | wire type) then its value:
 * 0 varint, 1 fixed 8 bytes, 2 varint length + bytes, 5 fixed 4 bytes. Nested messages are
 * length-delimited, so the encoder builds each input tensor in a scratch buffer first and
 * writes its length before it. The request is built once at setup: its cost is not per request.
 */
#include "bench/kserve-pb.h"

#include "core/err.h"
#include "stats/rng.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KPB_MAX_ELEMS (64u << 20)

/* ---- encoding ---------------------------------------------------------------------------- */

static int put_varint(struct lat_buf *b, uint64_t v)
{
    char tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return buf_append(b, tmp, n);
}

static int put_bytes(struct lat_buf *b, unsigned field, const void *p, size_t n)
{
    int rc = put_varint(b, (uint64_t)field << 3 | 2);
    if (!rc) rc = put_varint(b, n);
    if (!rc && n) rc = buf_append(b, p, n);
    return rc;
}

static int put_str(struct lat_buf *b, unsigned field, const char *s)
{
    return s && *s ? put_bytes(b, field, s, strlen(s)) : 0;
}

int kpb_frame(struct lat_buf *out, const void *msg, size_t len)
{
    if (len > UINT32_MAX) return LAT_E_OVERFLOW;
    uint8_t h[KPB_PREFIX] = {0, (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
                             (uint8_t)len};
    int rc = buf_append(out, h, sizeof(h));
    if (!rc && len) rc = buf_append(out, msg, len);
    return rc;
}

/* Bytes per element of a fixed-size datatype; 0 for BYTES. */
static size_t dt_size(const char *dt)
{
    if (!strcmp(dt, "BOOL") || !strcmp(dt, "UINT8") || !strcmp(dt, "INT8")) return 1;
    if (!strcmp(dt, "UINT16") || !strcmp(dt, "INT16") || !strcmp(dt, "FP16") || !strcmp(dt, "BF16"))
        return 2;
    if (!strcmp(dt, "UINT32") || !strcmp(dt, "INT32") || !strcmp(dt, "FP32")) return 4;
    if (!strcmp(dt, "BYTES")) return 0;
    return 8; /* UINT64, INT64, FP64 */
}

/* The tensor's raw bytes: seeded values, zeros, or the file as it is. */
static int raw_contents(struct lat_buf *raw, const struct bench_input *x, uint64_t elems,
                        uint64_t *rng, char *err, size_t errlen)
{
    size_t es = dt_size(x->datatype);
    if (x->fill == BENCH_FILL_FILE) {
        uint64_t cap = x->max_bytes ? x->max_bytes : 256000000u;
        int rc = buf_read_file(raw, x->file, cap);
        if (rc < 0)
            return lat_errf(err, errlen, rc, "input %s: cannot read %s: %s", x->name, x->file,
                            lat_strerror(rc));
        if (es && raw->len != elems * es)
            return lat_errf(err, errlen, LAT_E_USAGE,
                            "input %s: %s has %zu bytes; a %s tensor of %llu elements takes %llu",
                            x->name, x->file, raw->len, x->datatype, (unsigned long long)elems,
                            (unsigned long long)(elems * es));
        return 0;
    }
    bool zero = x->fill == BENCH_FILL_ZEROS;
    if (es == 0) { /* BYTES: a 4-byte length before each element */
        static const char val[] = "latscope";
        for (uint64_t i = 0; i < elems; i++) {
            uint32_t n = zero ? 0 : (uint32_t)(sizeof(val) - 1);
            uint8_t h[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
            int rc = buf_append(raw, h, 4);
            if (!rc && n) rc = buf_append(raw, val, n);
            if (rc) return rc;
        }
        return 0;
    }
    size_t n = (size_t)(elems * es);
    int rc = buf_reserve(raw, n);
    if (rc) return rc;
    uint8_t *p = (uint8_t *)raw->data + raw->len;
    if (zero) {
        memset(p, 0, n);
    } else if (x->datatype[0] == 'F' && es == 4) { /* FP32: uniform [0, 1) as floats */
        for (uint64_t i = 0; i < elems; i++) {
            float f = (float)((double)(rng_splitmix64(rng) >> 11) / 9007199254740992.0);
            memcpy(p + i * 4, &f, 4);
        }
    } else if (x->datatype[0] == 'F' && es == 8) {
        for (uint64_t i = 0; i < elems; i++) {
            double d = (double)(rng_splitmix64(rng) >> 11) / 9007199254740992.0;
            memcpy(p + i * 8, &d, 8);
        }
    } else if (!strcmp(x->datatype, "BOOL")) {
        for (uint64_t i = 0; i < elems; i++)
            p[i] = (uint8_t)(rng_splitmix64(rng) & 1);
    } else { /* integers, FP16/BF16: random bytes */
        for (size_t i = 0; i < n; i += 8) {
            uint64_t r = rng_splitmix64(rng);
            memcpy(p + i, &r, n - i < 8 ? n - i : 8);
        }
    }
    raw->len += n;
    return 0;
}

int kpb_build_infer(struct lat_buf *out, const char *model, const char *version, const char *id,
                    const struct bench_input *in, size_t n, unsigned batch, uint64_t seed,
                    char *err, size_t errlen)
{
    uint64_t rng = seed ? seed : 1;
    struct lat_buf raw[KPB_MAX_TENSORS];
    struct lat_buf t = LAT_BUF_INIT, shp = LAT_BUF_INIT;
    if (n > KPB_MAX_TENSORS)
        return lat_errf(err, errlen, LAT_E_USAGE, "more than %d inputs", KPB_MAX_TENSORS);
    for (size_t i = 0; i < n; i++)
        raw[i] = (struct lat_buf)LAT_BUF_INIT;
    int rc = put_str(out, 1, model);
    if (!rc) rc = put_str(out, 2, version);
    if (!rc) rc = put_str(out, 3, id);
    for (size_t i = 0; i < n && !rc; i++) {
        const struct bench_input *x = &in[i];
        uint64_t elems = 1;
        buf_reset(&t);
        buf_reset(&shp);
        for (int d = 0; d < x->ndims && !rc; d++) {
            int64_t v = x->shape[d];
            if (d == 0 && batch) v = batch;
            if (v < 0) v = 1;
            elems *= (uint64_t)v;
            if (elems > KPB_MAX_ELEMS)
                rc = lat_errf(err, errlen, LAT_E_USAGE,
                              "input %s has more than %u elements; use a smaller shape", x->name,
                              KPB_MAX_ELEMS);
            else
                rc = put_varint(&shp, (uint64_t)v);
        }
        if (!rc) rc = put_str(&t, 1, x->name);
        if (!rc) rc = put_str(&t, 2, x->datatype);
        if (!rc) rc = put_bytes(&t, 3, shp.data, shp.len);
        if (!rc) rc = put_bytes(out, 5, t.data, t.len);
        if (!rc) rc = raw_contents(&raw[i], x, elems, &rng, err, errlen);
    }
    for (size_t i = 0; i < n && !rc; i++)
        rc = put_bytes(out, 7, raw[i].data, raw[i].len);
    for (size_t i = 0; i < n; i++)
        buf_fini(&raw[i]);
    buf_fini(&t);
    buf_fini(&shp);
    if (rc && !err[0]) lat_errf(err, errlen, rc, "building the request: %s", lat_strerror(rc));
    return rc;
}

int kpb_build_metadata_req(struct lat_buf *out, const char *model, const char *version)
{
    int rc = put_str(out, 1, model);
    if (!rc) rc = put_str(out, 2, version);
    return rc;
}

/* ---- decoding ---------------------------------------------------------------------------- */

struct rd {
    const uint8_t *p, *e;
};

/* A reader over p[0..n); a NULL p is the empty message (no arithmetic on a NULL pointer). */
static struct rd rd_of(const uint8_t *p, size_t n)
{
    static const uint8_t none;
    if (!p) return (struct rd){&none, &none};
    return (struct rd){p, p + n};
}

static int get_varint(struct rd *r, uint64_t *v)
{
    uint64_t x = 0;
    for (int s = 0; s < 70; s += 7) {
        if (r->p == r->e) return LAT_E_PB_PARSE;
        uint8_t b = *r->p++;
        if (s == 63 && b > 1) return LAT_E_PB_PARSE; /* more than 64 bits */
        x |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return LAT_E_PB_PARSE;
}

/* One field: its number, wire type, and (wire type 2) its bytes or (0) its value. */
struct field {
    uint32_t num;
    unsigned wt;
    uint64_t v;
    struct rd sub;
};

static int next_field(struct rd *r, struct field *f)
{
    uint64_t key;
    int rc = get_varint(r, &key);
    if (rc) return rc;
    f->num = (uint32_t)(key >> 3);
    f->wt = (unsigned)(key & 7);
    if (f->num == 0 || key >> 3 > 0x1fffffff) return LAT_E_PB_PARSE;
    size_t left = (size_t)(r->e - r->p);
    switch (f->wt) {
    case 0:
        return get_varint(r, &f->v);
    case 1:
        if (left < 8) return LAT_E_PB_PARSE;
        r->p += 8;
        return 0;
    case 5:
        if (left < 4) return LAT_E_PB_PARSE;
        r->p += 4;
        return 0;
    case 2: {
        uint64_t n;
        if ((rc = get_varint(r, &n))) return rc;
        if (n > (uint64_t)(r->e - r->p)) return LAT_E_PB_PARSE;
        f->sub.p = r->p;
        f->sub.e = r->p + n;
        r->p += n;
        return 0;
    }
    default: /* groups (3, 4) and 6, 7: not in proto3 messages */
        return LAT_E_PB_PARSE;
    }
}

static struct kpb_str str_of(const struct field *f)
{
    return (struct kpb_str){(const char *)f->sub.p, (size_t)(f->sub.e - f->sub.p)};
}

static void add_dim(struct kpb_tensor *t, uint64_t v)
{
    if (t->ndims < BENCH_MAX_DIMS)
        t->shape[t->ndims++] = (int64_t)v;
    else
        t->shape_cut = true;
}

/* A tensor: name 1, datatype 2, shape 3 (packed or not), contents 5 (InferOutputTensor). */
static int decode_tensor(struct rd r, struct kpb_tensor *t)
{
    memset(t, 0, sizeof(*t));
    struct field f;
    while (r.p < r.e) {
        int rc = next_field(&r, &f);
        if (rc) return rc;
        if ((f.num == 1 || f.num == 2 || f.num == 5) && f.wt != 2) return LAT_E_PB_PARSE;
        if (f.num == 1) t->name = str_of(&f);
        if (f.num == 2) t->datatype = str_of(&f);
        if (f.num == 5) t->contents_n = (size_t)(f.sub.e - f.sub.p);
        if (f.num == 3 && f.wt == 0) add_dim(t, f.v);
        if (f.num == 3 && f.wt == 2) {
            while (f.sub.p < f.sub.e) {
                uint64_t v;
                if ((rc = get_varint(&f.sub, &v))) return rc;
                add_dim(t, v);
            }
        }
        if (f.num == 3 && f.wt != 0 && f.wt != 2) return LAT_E_PB_PARSE;
    }
    return 0;
}

int kpb_decode_infer_resp(const uint8_t *p, size_t n, struct kpb_infer_resp *resp)
{
    memset(resp, 0, sizeof(*resp));
    struct rd r = rd_of(p, n);
    struct field f;
    while (r.p < r.e) {
        int rc = next_field(&r, &f);
        if (rc) return rc;
        if (f.num <= 3 || f.num == 5 || f.num == 6) {
            if (f.wt != 2) return LAT_E_PB_PARSE;
        }
        switch (f.num) {
        case 1:
            resp->model_name = str_of(&f);
            break;
        case 2:
            resp->model_version = str_of(&f);
            break;
        case 3:
            resp->id = str_of(&f);
            break;
        case 5: {
            struct kpb_tensor t;
            if ((rc = decode_tensor(f.sub, &t))) return rc;
            if (resp->nout < KPB_MAX_TENSORS) resp->out[resp->nout] = t;
            resp->nout++;
            break;
        }
        case 6:
            resp->nraw++;
            resp->raw_bytes += (uint64_t)(f.sub.e - f.sub.p);
            break;
        default:
            break;
        }
    }
    /* raw_output_contents is all or nothing: one entry per output, in order */
    if (resp->nraw && resp->nraw != resp->nout) return LAT_E_PB_PARSE;
    return 0;
}

int kpb_decode_metadata(const uint8_t *p, size_t n, struct kpb_metadata *m)
{
    memset(m, 0, sizeof(*m));
    struct rd r = rd_of(p, n);
    struct field f;
    while (r.p < r.e) {
        int rc = next_field(&r, &f);
        if (rc) return rc;
        if ((f.num == 1 || f.num == 4) && f.wt != 2) return LAT_E_PB_PARSE;
        if (f.num == 1) m->name = str_of(&f);
        if (f.num == 4) {
            struct kpb_tensor t;
            if ((rc = decode_tensor(f.sub, &t))) return rc;
            if (m->nin < KPB_MAX_TENSORS) m->in[m->nin] = t;
            m->nin++;
        }
    }
    return 0;
}

/* StatisticDuration {count 1, ns 2}. */
static int decode_duration(struct rd r, uint64_t *count, uint64_t *ns)
{
    struct field f;
    while (r.p < r.e) {
        int rc = next_field(&r, &f);
        if (rc) return rc;
        if ((f.num == 1 || f.num == 2) && f.wt != 0) return LAT_E_PB_PARSE;
        if (f.num == 1 && count) *count += f.v;
        if (f.num == 2) *ns += f.v;
    }
    return 0;
}

static int decode_model_stats(struct rd r, const char *version, struct kpb_stats *out, bool *hit)
{
    struct kpb_stats s;
    memset(&s, 0, sizeof(s));
    struct kpb_str ver = {NULL, 0};
    struct field f;
    while (r.p < r.e) {
        int rc = next_field(&r, &f);
        if (rc) return rc;
        if ((f.num == 2 || f.num == 6) && f.wt != 2) return LAT_E_PB_PARSE;
        if (f.num == 2) ver = str_of(&f);
        if (f.num != 6) continue;
        struct field g;
        while (f.sub.p < f.sub.e) {
            if ((rc = next_field(&f.sub, &g))) return rc;
            if (g.num >= 1 && g.num <= 6 && g.wt != 2) return LAT_E_PB_PARSE;
            uint64_t ign = 0;
            switch (g.num) {
            case 1:
                rc = decode_duration(g.sub, &s.success_count, &s.success_ns);
                break;
            case 3:
                rc = decode_duration(g.sub, &ign, &s.queue_ns);
                break;
            case 4:
                rc = decode_duration(g.sub, &ign, &s.compute_input_ns);
                break;
            case 5:
                rc = decode_duration(g.sub, &ign, &s.compute_infer_ns);
                break;
            case 6:
                rc = decode_duration(g.sub, &ign, &s.compute_output_ns);
                break;
            default:
                break;
            }
            if (rc) return rc;
        }
    }
    if (version && *version && (ver.n != strlen(version) || memcmp(ver.p, version, ver.n)))
        return 0;
    *hit = true;
    out->success_count += s.success_count;
    out->success_ns += s.success_ns;
    out->queue_ns += s.queue_ns;
    out->compute_input_ns += s.compute_input_ns;
    out->compute_infer_ns += s.compute_infer_ns;
    out->compute_output_ns += s.compute_output_ns;
    return 0;
}

int kpb_decode_stats(const uint8_t *p, size_t n, const char *version, struct kpb_stats *out)
{
    memset(out, 0, sizeof(*out));
    struct rd r = rd_of(p, n);
    struct field f;
    bool hit = false;
    while (r.p < r.e) {
        int rc = next_field(&r, &f);
        if (rc) return rc;
        if (f.num != 1) continue;
        if (f.wt != 2) return LAT_E_PB_PARSE;
        if ((rc = decode_model_stats(f.sub, version, out, &hit))) return rc;
    }
    return hit ? 0 : LAT_E_NOT_FOUND;
}

int kpb_metadata_inputs(const struct kpb_metadata *m, struct bench_input *in, size_t *n, char *err,
                        size_t errlen)
{
    *n = 0;
    if (m->nin == 0)
        return lat_errf(err, errlen, LAT_E_PB_PARSE,
                        "model metadata lists no inputs; pass --input");
    if (m->nin > KPB_MAX_TENSORS)
        return lat_errf(err, errlen, LAT_E_UNSUPPORTED, "model has more than %d inputs",
                        KPB_MAX_TENSORS);
    for (size_t i = 0; i < m->nin; i++) {
        const struct kpb_tensor *t = &m->in[i];
        struct bench_input *x = &in[i];
        memset(x, 0, sizeof(*x));
        if (t->name.n == 0 || t->name.n >= sizeof(x->name) || memchr(t->name.p, 0, t->name.n))
            return lat_errf(err, errlen, LAT_E_PB_PARSE, "model metadata input %zu: unusable name",
                            i);
        memcpy(x->name, t->name.p, t->name.n);
        if (t->datatype.n == 0 || t->datatype.n >= sizeof(x->datatype) ||
            memchr(t->datatype.p, 0, t->datatype.n))
            return lat_errf(err, errlen, LAT_E_PB_PARSE, "input %s: missing or unusable datatype",
                            x->name);
        memcpy(x->datatype, t->datatype.p, t->datatype.n);
        if (!bench_datatype_valid(x->datatype))
            return lat_errf(err, errlen, LAT_E_PB_PARSE, "input %s: missing or unknown datatype",
                            x->name);
        if (t->ndims == 0 || t->shape_cut)
            return lat_errf(err, errlen, LAT_E_PB_PARSE, "input %s: unusable shape", x->name);
        for (int d = 0; d < t->ndims; d++) {
            if (t->shape[d] < -1 || t->shape[d] == 0)
                return lat_errf(err, errlen, LAT_E_PB_PARSE, "input %s: unusable shape", x->name);
            x->shape[d] = t->shape[d];
        }
        x->ndims = t->ndims;
        (*n)++;
    }
    return 0;
}

/* ---- framing ----------------------------------------------------------------------------- */

void kpb_framer_init(struct kpb_framer *f, size_t max)
{
    memset(f, 0, sizeof(*f));
    f->max = max;
}

void kpb_framer_reset(struct kpb_framer *f)
{
    f->hlen = 0;
    f->need = 0;
    f->nmsgs = 0;
    f->compressed = false;
    buf_reset(&f->msg);
}

void kpb_framer_fini(struct kpb_framer *f)
{
    buf_fini(&f->msg);
}

int kpb_framer_feed(struct kpb_framer *f, const uint8_t *p, size_t n)
{
    while (n) {
        if (f->hlen < KPB_PREFIX) {
            size_t k = KPB_PREFIX - f->hlen < n ? KPB_PREFIX - f->hlen : n;
            memcpy(f->hdr + f->hlen, p, k);
            f->hlen += k;
            p += k;
            n -= k;
            if (f->hlen < KPB_PREFIX) return 0;
            if (f->hdr[0] > 1) return LAT_E_PB_PARSE;
            if (f->hdr[0]) f->compressed = true;
            f->need = (uint32_t)f->hdr[1] << 24 | (uint32_t)f->hdr[2] << 16 |
                      (uint32_t)f->hdr[3] << 8 | f->hdr[4];
            if (f->need > f->max) return LAT_E_PB_PARSE;
        }
        size_t k = f->need < n ? f->need : n;
        if (f->nmsgs == 0 && k) {
            int rc = buf_append(&f->msg, p, k);
            if (rc) return rc;
        }
        f->need -= (uint32_t)k;
        p += k;
        n -= k;
        if (f->need == 0) { /* a message is complete */
            f->nmsgs++;
            f->hlen = 0;
        }
    }
    return 0;
}

bool kpb_framer_clean(const struct kpb_framer *f)
{
    return f->hlen == 0 && f->need == 0;
}

static const char *const code_names[KPB_NCODES] = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};

const char *kpb_code_name(unsigned code)
{
    return code < KPB_NCODES ? code_names[code] : NULL;
}

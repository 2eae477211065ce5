/*
 * fuzz-kserve-pb.c - libFuzzer target for the KServe v2 gRPC decoders (src/bench/kserve-pb.c):
 * the bytes are a gRPC response stream, fed through the message framer in pieces whose sizes
 * the first byte picks, and the first message is decoded as a ModelInferResponse, a
 * ModelMetadataResponse (and its inputs) and a ModelStatisticsResponse. Checks invariants: the
 * framer keeps the same first message whatever the piece size, every decoded string lies inside the
 * input.
 */
#include "bench/kserve-pb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const struct kpb_str *s, const uint8_t *p, size_t n)
{
    if (s->n && ((const uint8_t *)s->p < p || (const uint8_t *)s->p + s->n > p + n)) abort();
}

static void decode(const uint8_t *p, size_t n)
{
    struct kpb_infer_resp r;
    if (kpb_decode_infer_resp(p, n, &r) == 0) {
        inside(&r.model_name, p, n);
        inside(&r.id, p, n);
        for (size_t i = 0; i < r.nout && i < KPB_MAX_TENSORS; i++) {
            inside(&r.out[i].name, p, n);
            if (r.out[i].ndims > BENCH_MAX_DIMS) abort();
        }
        if (r.nraw && r.nraw != r.nout) abort();
    }
    struct kpb_stats st;
    int rc = kpb_decode_stats(p, n, NULL, &st);
    struct kpb_stats one;
    if (kpb_decode_stats(p, n, "1", &one) == 0 && (rc != 0 || one.success_count > st.success_count))
        abort(); /* one version's counts are part of all versions' */
    struct kpb_metadata m;
    if (kpb_decode_metadata(p, n, &m) == 0) {
        struct bench_input in[KPB_MAX_TENSORS];
        size_t k = 0;
        char err[128];
        if (kpb_metadata_inputs(&m, in, &k, err, sizeof(err)) == 0) {
            if (k == 0 || k > KPB_MAX_TENSORS) abort();
            for (size_t i = 0; i < k; i++)
                if (!bench_datatype_valid(in[i].datatype) || in[i].ndims < 1) abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t step = (data[0] & 63) + 1;
    data++;
    size--;
    struct kpb_framer whole, parts;
    kpb_framer_init(&whole, 1 << 20);
    kpb_framer_init(&parts, 1 << 20);
    int rw = kpb_framer_feed(&whole, data, size);
    int rp = 0;
    for (size_t off = 0; off < size && rp == 0; off += step)
        rp = kpb_framer_feed(&parts, data + off, size - off < step ? size - off : step);
    if ((rw == 0) != (rp == 0)) abort();
    if (rw == 0) {
        if (whole.nmsgs != parts.nmsgs || whole.msg.len != parts.msg.len ||
            (whole.msg.len && memcmp(whole.msg.data, parts.msg.data, whole.msg.len)))
            abort();
        if (kpb_framer_clean(&whole) != kpb_framer_clean(&parts)) abort();
        if (whole.nmsgs) decode((const uint8_t *)whole.msg.data, whole.msg.len);
    }
    decode(data, size); /* the bytes as one message too */
    kpb_framer_fini(&whole);
    kpb_framer_fini(&parts);
    return 0;
}

/*
 * kserve-pb.h - the KServe v2 gRPC messages of inference.GRPCInferenceService (Triton's
 * grpc_service.proto) and gRPC's message framing, written by hand: only the fields bench sends
 * and reads. Pure functions (no I/O): the unit tests and tests/fuzz/fuzz-kserve-pb.c drive them.
 *
 * Sent: ModelInferRequest (model_name 1, model_version 2, id 3, inputs 5 {name 1, datatype 2,
 * shape 3 packed}, raw_input_contents 7) and ModelMetadataRequest (name 1, version 2). Read:
 * ModelInferResponse (model_name 1, model_version 2, id 3, outputs 5 {name 1, datatype 2,
 * shape 3, contents 5}, raw_output_contents 6) and ModelMetadataResponse (name 1, inputs 4
 * {name 1, datatype 2, shape 3}). Every other field is skipped by its wire type, as protobuf
 * readers do; groups (wire types 3, 4) and truncated fields are malformed.
 *
 * A gRPC message on the wire is 1 byte "compressed" flag + 4 bytes big-endian length + the
 * message; struct kpb_framer reassembles them from DATA chunks.
 */
#ifndef LAT_BENCH_KSERVE_PB_H
#define LAT_BENCH_KSERVE_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/opts.h"
#include "core/buf.h"

#define KPB_MAX_TENSORS 16
#define KPB_PREFIX      5 /* gRPC's message prefix: flag + u32 length */

/* A string of the decoded message (not NUL-terminated; points into the input). */
struct kpb_str {
    const char *p;
    size_t n;
};

struct kpb_tensor {
    struct kpb_str name, datatype;
    int64_t shape[BENCH_MAX_DIMS];
    int ndims;         /* dimensions kept (at most BENCH_MAX_DIMS) */
    bool shape_cut;    /* more dimensions than BENCH_MAX_DIMS */
    size_t contents_n; /* bytes of the typed contents message (5), 0 when absent */
};

struct kpb_infer_resp {
    struct kpb_str model_name, model_version, id;
    struct kpb_tensor out[KPB_MAX_TENSORS];
    size_t nout;        /* outputs seen (out[] keeps the first KPB_MAX_TENSORS) */
    size_t nraw;        /* raw_output_contents entries */
    uint64_t raw_bytes; /* their total size */
};

struct kpb_metadata {
    struct kpb_str name;
    struct kpb_tensor in[KPB_MAX_TENSORS];
    size_t nin; /* inputs seen (in[] keeps the first KPB_MAX_TENSORS) */
};

/* Appends one gRPC message: the 5-byte prefix (uncompressed) and msg. 0 or -ENOMEM. */
int kpb_frame(struct lat_buf *out, const void *msg, size_t len);

/* Appends a ModelInferRequest for the inputs (--batch replaces the leading dimension, -1 dims
 * become 1) with raw_input_contents: seeded random or zero bytes of each datatype's size
 * (BYTES: one 4-byte little-endian length + "latscope" per element), or a file's bytes as
 * they are (@FILE: the file must hold exactly the tensor's bytes, BYTES any length). id may be
 * NULL. 0, -ENOMEM, or LAT_E_USAGE / -errno with err set. */
int kpb_build_infer(struct lat_buf *out, const char *model, const char *version, const char *id,
                    const struct bench_input *in, size_t n, unsigned batch, uint64_t seed,
                    char *err, size_t errlen);
/* Appends a ModelMetadataRequest (also a ModelStatisticsRequest: the same fields). 0 or
 * -ENOMEM. */
int kpb_build_metadata_req(struct lat_buf *out, const char *model, const char *version);

/* Decode one message (without the gRPC prefix). 0 or LAT_E_PB_PARSE: not a valid message,
 * or (infer) raw_output_contents given for some outputs only. */
int kpb_decode_infer_resp(const uint8_t *p, size_t n, struct kpb_infer_resp *r);
int kpb_decode_metadata(const uint8_t *p, size_t n, struct kpb_metadata *m);
/* Triton's cumulative counters of one model (ModelStatisticsResponse model_stats 1 {version 2,
 * inference_stats 6 {success 1, queue 3, compute_input 4, compute_infer 5, compute_output 6:
 * each {count 1, ns 2}}}), summed over the entries of `version` (all when NULL or ""). 0,
 * LAT_E_NOT_FOUND (no entry), or LAT_E_PB_PARSE. */
struct kpb_stats {
    uint64_t success_count, success_ns;
    uint64_t queue_ns, compute_input_ns, compute_infer_ns, compute_output_ns;
};
int kpb_decode_stats(const uint8_t *p, size_t n, const char *version, struct kpb_stats *out);

/* The metadata's inputs as --input specs (random fill); 0 or LAT_E_PB_PARSE with err set
 * (no inputs, a name or datatype too long or unknown, a bad shape). */
int kpb_metadata_inputs(const struct kpb_metadata *m, struct bench_input *in, size_t *n, char *err,
                        size_t errlen);

/* gRPC message reassembly of one response stream. */
struct kpb_framer {
    uint8_t hdr[KPB_PREFIX];
    size_t hlen;        /* prefix bytes seen of the current message */
    uint32_t need;      /* message bytes still to come */
    size_t max;         /* largest message accepted */
    uint32_t nmsgs;     /* complete messages */
    bool compressed;    /* a message had the compressed flag (we never ask for compression) */
    struct lat_buf msg; /* the first message (the unary answer); later ones are counted only */
};
void kpb_framer_init(struct kpb_framer *f, size_t max);
/* Feeds DATA bytes. 0, or LAT_E_PB_PARSE (a flag other than 0/1, a message over max), or
 * -ENOMEM. */
int kpb_framer_feed(struct kpb_framer *f, const uint8_t *p, size_t n);
/* True when the stream ended between messages (no partial prefix or message). */
bool kpb_framer_clean(const struct kpb_framer *f);
void kpb_framer_reset(struct kpb_framer *f);
void kpb_framer_fini(struct kpb_framer *f);

/* gRPC status codes 0..16 by name ("OK", "CANCELLED", ... "UNAUTHENTICATED"); NULL above. */
#define KPB_NCODES 17
const char *kpb_code_name(unsigned code);

#endif

/*
 * test-kserve-pb.c - the KServe v2 gRPC messages and gRPC framing (src/bench/kserve-pb.c):
 * requests against bytes worked out by hand from grpc_service.proto's field numbers, responses
 * and metadata decoded from hand-made bytes, and every malformed shape the decoder refuses.
 */
#include "bench/kserve-pb.h"
#include "core/err.h"
#include "test.h"

static struct bench_input input(const char *name, const char *dt, int64_t d0, int64_t d1)
{
    struct bench_input x;
    memset(&x, 0, sizeof(x));
    snprintf(x.name, sizeof(x.name), "%s", name);
    snprintf(x.datatype, sizeof(x.datatype), "%s", dt);
    x.shape[0] = d0;
    x.shape[1] = d1;
    x.ndims = 2;
    x.fill = BENCH_FILL_ZEROS;
    return x;
}

static void expect_bytes(const struct lat_buf *b, const uint8_t *want, size_t n)
{
    ASSERT_EQ_U64(b->len, n);
    for (size_t i = 0; i < n; i++)
        if ((uint8_t)b->data[i] != want[i])
            FAIL("byte %zu: 0x%02x, want 0x%02x", i, (uint8_t)b->data[i], want[i]);
}

TEST(kpb_infer_request_bytes)
{
    struct bench_input x = input("x", "FP32", -1, 2);
    struct lat_buf b = LAT_BUF_INIT;
    char err[128] = "";
    ASSERT_EQ_I64(kpb_build_infer(&b, "m", "", NULL, &x, 1, 0, 1, err, sizeof(err)), 0);
    static const uint8_t want[] = {
        0x0a, 0x01, 'm',                                     /* model_name = 1 */
        0x2a, 0x0d,                                          /* inputs = 5, 13 bytes */
        0x0a, 0x01, 'x',  0x12, 0x04, 'F', 'P', '3', '2',    /* name 1, datatype 2 */
        0x1a, 0x02, 0x01, 0x02,                              /* shape 3 packed: -1 -> 1, 2 */
        0x3a, 0x08, 0,    0,    0,    0,   0,   0,   0,   0, /* raw_input_contents = 7 */
    };
    expect_bytes(&b, want, sizeof(want));
    buf_fini(&b);
}

TEST(kpb_infer_request_batch_version_id_bytes_type)
{
    struct bench_input x = input("s", "BYTES", 1, 1);
    x.fill = BENCH_FILL_RANDOM;
    struct lat_buf b = LAT_BUF_INIT;
    char err[128] = "";
    ASSERT_EQ_I64(kpb_build_infer(&b, "m", "3", "r", &x, 1, 2, 7, err, sizeof(err)), 0);
    static const uint8_t want[] = {
        0x0a, 0x01, 'm',  0x12, 0x01, '3',  0x1a, 0x01, 'r', /* model, version 2, id 3 */
        0x2a, 0x0e, 0x0a, 0x01, 's',  0x12, 0x05, 'B',  'Y', 'T', 'E', 'S',
        0x1a, 0x02, 0x02, 0x01, 0x3a, 0x18, /* two elements of 4-byte length 8 + "latscope" */
        8,    0,    0,    0,    'l',  'a',  't',  's',  'c', 'o', 'p', 'e',
        8,    0,    0,    0,    'l',  'a',  't',  's',  'c', 'o', 'p', 'e'};
    expect_bytes(&b, want, sizeof(want));
    buf_fini(&b);
}

TEST(kpb_infer_request_random_is_seeded)
{
    struct bench_input x = input("x", "INT64", 1, 16);
    x.fill = BENCH_FILL_RANDOM;
    struct lat_buf a = LAT_BUF_INIT, b = LAT_BUF_INIT, c = LAT_BUF_INIT;
    char err[128] = "";
    ASSERT_EQ_I64(kpb_build_infer(&a, "m", NULL, NULL, &x, 1, 0, 5, err, sizeof(err)), 0);
    ASSERT_EQ_I64(kpb_build_infer(&b, "m", NULL, NULL, &x, 1, 0, 5, err, sizeof(err)), 0);
    ASSERT_EQ_I64(kpb_build_infer(&c, "m", NULL, NULL, &x, 1, 0, 6, err, sizeof(err)), 0);
    ASSERT_EQ_U64(a.len, b.len);
    ASSERT(memcmp(a.data, b.data, a.len) == 0);
    ASSERT_EQ_U64(a.len, c.len);
    ASSERT(memcmp(a.data, c.data, a.len) != 0);
    ASSERT(a.len > 16 * 8);
    buf_fini(&a);
    buf_fini(&b);
    buf_fini(&c);
}

TEST(kpb_infer_request_file_size_checked)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/t.bin", test_tmpdir());
    FILE *f = fopen(path, "wb");
    ASSERT(f);
    fwrite("abcdefg", 1, 7, f); /* 7 bytes: not 2 FP32 values */
    fclose(f);
    struct bench_input x = input("x", "FP32", 1, 2);
    x.fill = BENCH_FILL_FILE;
    snprintf(x.file, sizeof(x.file), "%s", path);
    struct lat_buf b = LAT_BUF_INIT;
    char err[256] = "";
    ASSERT_EQ_I64(kpb_build_infer(&b, "m", NULL, NULL, &x, 1, 0, 1, err, sizeof(err)), LAT_E_USAGE);
    ASSERT(strstr(err, "7 bytes") && strstr(err, "takes 8"));
    buf_fini(&b);
}

TEST(kpb_frame_prefix)
{
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_EQ_I64(kpb_frame(&b, "abc", 3), 0);
    static const uint8_t want[] = {0, 0, 0, 0, 3, 'a', 'b', 'c'};
    expect_bytes(&b, want, sizeof(want));
    buf_fini(&b);
}

/* A response: model "m", one output "y" INT8 shape [2, 300] (300: a two-byte varint), raw. */
static const uint8_t resp_ok[] = {
    0x0a, 0x01, 'm',  0x1a, 0x02, 'i',  'd', /* model_name, id */
    0x22, 0x00,                              /* parameters 4: skipped */
    0x2a, 0x0e, 0x0a, 0x01, 'y',  0x12, 0x04, 'I',  'N',
    'T',  '8',  0x1a, 0x03, 0x02, 0xac, 0x02, 0x38, 0x05, /* unknown varint 7 */
    0x32, 0x02, 0x01, 0x02,                               /* raw_output_contents 6 */
};

TEST(kpb_decode_infer_response)
{
    struct kpb_infer_resp r;
    ASSERT_EQ_I64(kpb_decode_infer_resp(resp_ok, sizeof(resp_ok), &r), 0);
    ASSERT_EQ_U64(r.model_name.n, 1);
    ASSERT(r.model_name.p[0] == 'm');
    ASSERT_EQ_U64(r.id.n, 2);
    ASSERT_EQ_U64(r.nout, 1);
    ASSERT_EQ_U64(r.out[0].datatype.n, 4);
    ASSERT_EQ_I64(r.out[0].ndims, 2);
    ASSERT_EQ_I64(r.out[0].shape[0], 2);
    ASSERT_EQ_I64(r.out[0].shape[1], 300);
    ASSERT_EQ_U64(r.nraw, 1);
    ASSERT_EQ_U64(r.raw_bytes, 2);
}

TEST(kpb_decode_unpacked_shape)
{
    /* outputs 5 {shape 3 as two plain varints (wire type 0)} */
    static const uint8_t m[] = {0x2a, 0x04, 0x18, 0x04, 0x18, 0x05};
    struct kpb_infer_resp r;
    ASSERT_EQ_I64(kpb_decode_infer_resp(m, sizeof(m), &r), 0);
    ASSERT_EQ_I64(r.out[0].ndims, 2);
    ASSERT_EQ_I64(r.out[0].shape[1], 5);
}

TEST(kpb_decode_malformed)
{
    struct kpb_infer_resp r;
    static const uint8_t trunc_len[] = {0x0a, 0x05, 'm'}; /* 5 bytes announced, 1 left */
    static const uint8_t trunc_varint[] = {0x08, 0x80};   /* varint never ends */
    static const uint8_t group[] = {0x0b, 0x0c};          /* wire type 3: a group */
    static const uint8_t field0[] = {0x02, 0x00};         /* field number 0 */
    static const uint8_t long_varint[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 0xff, 0x7f}; /* over 64 bits */
    static const uint8_t name_varint[] = {0x08, 0x01}; /* model_name as a varint */
    static const uint8_t raw_mismatch[] = {0x32, 0x00, 0x32, 0x00, 0x2a, 0x00}; /* 2 raw, 1 out */
    static const uint8_t fixed_short[] = {0x39, 1, 2, 3}; /* fixed64 with 3 bytes */
    const struct {
        const uint8_t *p;
        size_t n;
    } bad[] = {{trunc_len, sizeof(trunc_len)},
               {trunc_varint, sizeof(trunc_varint)},
               {group, sizeof(group)},
               {field0, sizeof(field0)},
               {long_varint, sizeof(long_varint)},
               {name_varint, sizeof(name_varint)},
               {raw_mismatch, sizeof(raw_mismatch)},
               {fixed_short, sizeof(fixed_short)}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (kpb_decode_infer_resp(bad[i].p, bad[i].n, &r) != LAT_E_PB_PARSE)
            FAIL("case %zu decoded", i);
    ASSERT_EQ_I64(kpb_decode_infer_resp(NULL, 0, &r), 0); /* the empty message is valid */
}

TEST(kpb_metadata_inputs)
{
    /* name "m", inputs 4 {name "a", datatype "FP32", shape [-1, 3]} ; -1 as a 10-byte varint */
    static const uint8_t m[] = {0x0a, 0x01, 'm',  0x22, 0x16, 0x0a, 0x01, 'a',  0x12,
                                0x04, 'F',  'P',  '3',  '2',  0x1a, 0x0b, 0xff, 0xff,
                                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x03};
    struct kpb_metadata md;
    ASSERT_EQ_I64(kpb_decode_metadata(m, sizeof(m), &md), 0);
    ASSERT_EQ_U64(md.nin, 1);
    struct bench_input in[KPB_MAX_TENSORS];
    size_t n = 0;
    char err[128] = "";
    ASSERT_EQ_I64(kpb_metadata_inputs(&md, in, &n, err, sizeof(err)), 0);
    ASSERT_EQ_U64(n, 1);
    ASSERT_EQ_STR(in[0].name, "a");
    ASSERT_EQ_STR(in[0].datatype, "FP32");
    ASSERT_EQ_I64(in[0].shape[0], -1);
    ASSERT_EQ_I64(in[0].shape[1], 3);
    /* an unknown datatype is refused with the input's name */
    static const uint8_t bad[] = {0x22, 0x0a, 0x0a, 0x01, 'a',  0x12,
                                  0x03, 'F',  'P',  '9',  0x1a, 0x00};
    ASSERT_EQ_I64(kpb_decode_metadata(bad, sizeof(bad), &md), 0);
    ASSERT_EQ_I64(kpb_metadata_inputs(&md, in, &n, err, sizeof(err)), LAT_E_PB_PARSE);
    ASSERT(strstr(err, "input a"));
    struct kpb_metadata empty;
    ASSERT_EQ_I64(kpb_decode_metadata(NULL, 0, &empty), 0);
    ASSERT_EQ_I64(kpb_metadata_inputs(&empty, in, &n, err, sizeof(err)), LAT_E_PB_PARSE);
}

TEST(kpb_framer_pieces)
{
    struct lat_buf w = LAT_BUF_INIT;
    ASSERT_EQ_I64(kpb_frame(&w, resp_ok, sizeof(resp_ok)), 0);
    ASSERT_EQ_I64(kpb_frame(&w, "", 0), 0); /* a second, empty message */
    struct kpb_framer f;
    kpb_framer_init(&f, 1 << 20);
    for (size_t i = 0; i < w.len; i++) { /* byte by byte */
        ASSERT_EQ_I64(kpb_framer_feed(&f, (const uint8_t *)w.data + i, 1), 0);
        if (i + 1 == KPB_PREFIX + sizeof(resp_ok)) ASSERT(kpb_framer_clean(&f));
        if (i == 2) ASSERT(!kpb_framer_clean(&f));
    }
    ASSERT(kpb_framer_clean(&f));
    ASSERT_EQ_U64(f.nmsgs, 2);
    ASSERT_EQ_U64(f.msg.len, sizeof(resp_ok)); /* the first message kept */
    ASSERT(memcmp(f.msg.data, resp_ok, sizeof(resp_ok)) == 0);
    ASSERT(!f.compressed);
    kpb_framer_reset(&f);
    static const uint8_t comp[] = {1, 0, 0, 0, 0};
    ASSERT_EQ_I64(kpb_framer_feed(&f, comp, sizeof(comp)), 0);
    ASSERT(f.compressed);
    kpb_framer_reset(&f);
    static const uint8_t badflag[] = {2, 0, 0, 0, 0};
    ASSERT_EQ_I64(kpb_framer_feed(&f, badflag, sizeof(badflag)), LAT_E_PB_PARSE);
    kpb_framer_reset(&f);
    static const uint8_t huge[] = {0, 0x10, 0, 0, 0}; /* 256 MiB > max */
    ASSERT_EQ_I64(kpb_framer_feed(&f, huge, sizeof(huge)), LAT_E_PB_PARSE);
    kpb_framer_reset(&f);
    static const uint8_t part[] = {0, 0, 0, 0, 4, 'a'};
    ASSERT_EQ_I64(kpb_framer_feed(&f, part, sizeof(part)), 0);
    ASSERT(!kpb_framer_clean(&f));
    ASSERT_EQ_U64(f.nmsgs, 0);
    kpb_framer_fini(&f);
    buf_fini(&w);
}

TEST(kpb_code_names)
{
    ASSERT_EQ_STR(kpb_code_name(0), "OK");
    ASSERT_EQ_STR(kpb_code_name(14), "UNAVAILABLE");
    ASSERT_EQ_STR(kpb_code_name(16), "UNAUTHENTICATED");
    ASSERT(kpb_code_name(17) == NULL);
}

TEST(kpb_decode_stats_versions)
{
    /* model_stats 1 {version 2 "1", inference_stats 6 {success 1 {count 4, ns 40}, queue 3
     * {ns 8}, compute_infer 5 {ns 20}}} and a second entry, version "2", success count 1 */
    static const uint8_t m[] = {
        0x0a, 0x15, 0x12, 0x01, '1',  0x32, 0x0e, 0x0a, 0x04, 0x08, 0x04, 0x10, 0x28,
        0x1a, 0x02, 0x10, 0x08, 0x2a, 0x02, 0x10, 0x14, 0x20, 0x07, /* inference_count 4: skipped */
        0x0a, 0x0b, 0x12, 0x01, '2',  0x32, 0x06, 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02};
    struct kpb_stats s;
    ASSERT_EQ_I64(kpb_decode_stats(m, sizeof(m), "1", &s), 0);
    ASSERT_EQ_U64(s.success_count, 4);
    ASSERT_EQ_U64(s.success_ns, 40);
    ASSERT_EQ_U64(s.queue_ns, 8);
    ASSERT_EQ_U64(s.compute_infer_ns, 20);
    ASSERT_EQ_I64(kpb_decode_stats(m, sizeof(m), NULL, &s), 0); /* every version */
    ASSERT_EQ_U64(s.success_count, 5);
    ASSERT_EQ_U64(s.success_ns, 42);
    ASSERT_EQ_I64(kpb_decode_stats(m, sizeof(m), "3", &s), LAT_E_NOT_FOUND);
    static const uint8_t bad[] = {0x0a, 0x04, 0x32, 0x02, 0x08, 0x01}; /* success as a varint */
    ASSERT_EQ_I64(kpb_decode_stats(bad, sizeof(bad), NULL, &s), LAT_E_PB_PARSE);
}

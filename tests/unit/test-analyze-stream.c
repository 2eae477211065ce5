/* test-analyze-stream.c - the wire formats of a streamed/MPI analyze run (analyze/stream.c):
 * pass-1 files and scans of two processes merged, bad bytes refused, records split in file
 * order. */
#include "test.h"

#include "analyze/stream.h"
#include "core/err.h"

#include <errno.h>

struct seen {
    struct an_stream_file f[8];
    char reason[8][32];
    size_t n;
};

static int on_file(void *ctx, const struct an_stream_file *f)
{
    struct seen *s = ctx;
    if (s->n == 8) return -E2BIG;
    s->f[s->n] = *f;
    snprintf(s->reason[s->n], 32, "%.*s", (int)f->reason_len, f->reason);
    s->n++;
    return 0;
}

TEST(stream_pass1_two_processes_merge)
{
    int64_t s0[] = {3, 5}, s1[] = {1, 5, 9};
    struct analysis_scan a = {.steps = s0, .nsteps = 2, .have_ts = true, .min_ts = 700};
    struct analysis_scan b = {.steps = s1, .nsteps = 3, .have_ts = true, .min_ts = 400};
    struct an_stream_file fa[] = {
        {.index = 0, .status = 1, .loaded = true, .timeline = true, .rank = 4, .reason = ""},
        {.index = 2, .status = 9, .reason = "not a trace", .reason_len = 11}};
    struct an_stream_file fb[] = {
        {.index = 1, .status = 1, .loaded = true, .rules = true, .rank = -1, .reason = ""}};
    struct lat_buf buf = LAT_BUF_INIT;
    ASSERT_EQ_I64(an_stream_pass1_pack(&buf, &a, fa, 2), 0);
    size_t offs[3] = {0, buf.len, 0};
    ASSERT_EQ_I64(an_stream_pass1_pack(&buf, &b, fb, 1), 0);
    offs[2] = buf.len;
    struct analysis_scan m = {0};
    struct seen s = {.n = 0};
    ASSERT_EQ_I64(an_stream_pass1_unpack(buf.data, offs, 2, 3, &m, on_file, &s), 0);
    ASSERT(m.have_ts);
    ASSERT_EQ_I64(m.min_ts, 400);
    ASSERT_EQ_U64(m.nsteps, 4); /* 1 3 5 9: sorted, 5 once */
    ASSERT_EQ_I64(m.steps[0], 1);
    ASSERT_EQ_I64(m.steps[1], 3);
    ASSERT_EQ_I64(m.steps[2], 5);
    ASSERT_EQ_I64(m.steps[3], 9);
    ASSERT_EQ_U64(s.n, 3);
    ASSERT(s.f[0].loaded && s.f[0].timeline && !s.f[0].rules);
    ASSERT_EQ_I64(s.f[0].rank, 4);
    ASSERT(!s.f[1].loaded);
    ASSERT_EQ_I64(s.f[1].rank, -1);
    ASSERT_EQ_I64(s.f[1].status, 9);
    ASSERT_EQ_STR(s.reason[1], "not a trace");
    ASSERT(s.f[2].loaded && s.f[2].rules && !s.f[2].timeline);
    ASSERT_EQ_I64(s.f[2].index, 1);
    /* cut short, or an index past the set: bad bytes */
    struct seen s2 = {.n = 0};
    size_t cut[3] = {0, offs[1], offs[2] - 1};
    ASSERT_EQ_I64(an_stream_pass1_unpack(buf.data, cut, 2, 3, &m, on_file, &s2), LAT_E_TRUNCATED);
    struct seen s3 = {.n = 0};
    ASSERT_EQ_I64(an_stream_pass1_unpack(buf.data, offs, 2, 2, &m, on_file, &s3), LAT_E_TRUNCATED);
    analysis_scan_fini(&m);
    buf_fini(&buf);
}

TEST(stream_split_orders_records_by_file_index)
{
    struct lat_buf b = LAT_BUF_INIT;
    uint32_t idx[] = {4, 1, 3};
    for (int i = 0; i < 3; i++) { /* [u64 len][u32 index][payload] */
        uint64_t len = sizeof(uint32_t) + (uint64_t)i;
        buf_append(&b, &len, sizeof(len));
        buf_append(&b, &idx[i], sizeof(idx[i]));
        buf_append(&b, "xx", (size_t)i);
    }
    struct an_stream_span *sp = NULL;
    size_t n = 0;
    ASSERT_EQ_I64(an_stream_split(b.data, b.len, &sp, &n), 0);
    ASSERT_EQ_U64(n, 3);
    ASSERT_EQ_U64(sp[0].index, 1);
    ASSERT_EQ_U64(sp[1].index, 3);
    ASSERT_EQ_U64(sp[2].index, 4);
    ASSERT_EQ_U64(sp[0].len, sizeof(uint32_t) + 1);
    free(sp);
    /* a length past the end stops the split */
    ASSERT_EQ_I64(an_stream_split(b.data, b.len - 1, &sp, &n), 0);
    ASSERT_EQ_U64(n, 2);
    free(sp);
    /* a record too short for its header is refused */
    struct an_stream_record r;
    ASSERT_EQ_I64(an_stream_record_read("abc", 3, &r), LAT_E_TRUNCATED);
    buf_fini(&b);
}

/* test-grow-callers.c - callers moved onto core/grow.h and core/mix.h: their growth keeps the
 * contents and their error paths (a size that does not fit is an error, not a short buffer). */
#include "test.h"

#include "capture/cpu/stacks.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/mix.h"
#include "core/strtab.h"
#include "diff/diff.h"
#include "diff/internal.h"
#include "stats/rng.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

TEST(splitmix64_is_the_reference_sequence_and_rng_forwards_to_it)
{
    /* splitmix64 from state 0 (Vigna's splitmix64.c): the published first outputs */
    uint64_t s = 0;
    ASSERT_EQ_U64(lat_splitmix64(&s), 0xe220a8397b1dcdafULL);
    ASSERT_EQ_U64(lat_splitmix64(&s), 0x6e789e6aa1b965f4ULL);
    ASSERT_EQ_U64(lat_splitmix64(&s), 0x06c45d188009454fULL);
    ASSERT_EQ_U64(s, 3 * 0x9e3779b97f4a7c15ULL);
    uint64_t a = 12345, b = 12345;
    for (int i = 0; i < 1000; i++)
        ASSERT_EQ_U64(rng_splitmix64(&a), lat_splitmix64(&b));
    ASSERT_EQ_U64(a, b);
}

TEST(buf_reserve_grows_by_doubling_and_refuses_a_size_that_does_not_fit)
{
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(buf_reserve(&b, 10));
    ASSERT_EQ_U64(b.cap, 64); /* the first allocation, as before */
    for (int i = 0; i < 5000; i++)
        ASSERT_RC(buf_putc(&b, (char)('a' + i % 26)));
    ASSERT_EQ_U64(b.len, 5000);
    ASSERT_EQ_U64(b.cap, 8192);
    for (size_t i = 0; i < b.len; i++)
        ASSERT(b.data[i] == (char)('a' + i % 26));
    ASSERT(b.data[b.len] == '\0');
    /* len + extra + 1 wraps: an error (the old compare wrapped too and said "room") */
    char *before = b.data;
    size_t cap = b.cap;
    ASSERT_EQ_I64(buf_reserve(&b, SIZE_MAX), -ENOMEM);
    ASSERT_EQ_I64(buf_reserve(&b, SIZE_MAX - b.len), -ENOMEM);
    ASSERT(b.data == before && b.cap == cap && b.len == 5000);
    ASSERT_RC(buf_append(&b, "xyz", 3));
    ASSERT_EQ_STR(b.data + 5000, "xyz");
    buf_fini(&b);
}

TEST(strtab_pool_and_columns_grow_together)
{
    struct lat_strtab t;
    ASSERT_RC(strtab_init(&t));
    uint32_t ids[3000];
    char s[64];
    for (int i = 0; i < 3000; i++) {
        int n = snprintf(s, sizeof(s), "name-%d-%s", i, i % 7 ? "short" : "a-longer-suffix-here");
        ASSERT_RC(strtab_intern(&t, s, (size_t)n, &ids[i]));
    }
    for (int i = 0; i < 3000; i++) {
        int n = snprintf(s, sizeof(s), "name-%d-%s", i, i % 7 ? "short" : "a-longer-suffix-here");
        ASSERT_EQ_STR(strtab_str(&t, ids[i]), s);
        ASSERT_EQ_U64(strtab_find(&t, s, (size_t)n), ids[i]);
    }
    ASSERT(t.cap >= t.count && t.pool_cap >= t.pool_len);
    strtab_fini(&t);
}

TEST(stackset_frames_and_stacks_survive_growth)
{
    struct stackset ss;
    stackset_init(&ss);
    uint32_t fr[500];
    char nm[32];
    for (uint32_t i = 0; i < 500; i++) {
        int n = snprintf(nm, sizeof(nm), "f%u", i);
        ASSERT_RC(stackset_frame(&ss, nm, (size_t)n, &fr[i]));
    }
    uint32_t st[300];
    for (uint32_t i = 0; i < 300; i++) /* stack i: frames 0..i%50 and i */
    {
        uint32_t seq[64], n = 0;
        for (uint32_t k = 0; k < i % 50; k++)
            seq[n++] = fr[k];
        seq[n++] = fr[i];
        ASSERT_RC(stackset_intern(&ss, seq, n, &st[i]));
    }
    for (uint32_t i = 0; i < 500; i++) {
        snprintf(nm, sizeof(nm), "f%u", i);
        ASSERT_EQ_STR(stackset_frame_name(&ss, fr[i]), nm);
    }
    for (uint32_t i = 0; i < 300; i++) {
        uint32_t n;
        const uint32_t *f = stackset_frames(&ss, st[i], &n);
        ASSERT_EQ_U64(n, i % 50 + 1);
        ASSERT_EQ_U64(f[n - 1], fr[i]);
        if (n > 1) ASSERT_EQ_U64(f[0], fr[0]);
    }
    ASSERT(ss.frames_cap >= ss.nframes && ss.stacks_cap >= ss.nstacks);
    stackset_fini(&ss);
}

TEST(diff_rows_and_notes_append_and_keep_their_contents)
{
    struct diff_bench_result r;
    memset(&r, 0, sizeof(r));
    for (int i = 0; i < 200; i++) {
        struct diff_row *row = diff_new_row(&r);
        ASSERT(row != NULL);
        snprintf(row->key, sizeof(row->key), "k%d", i);
        ASSERT_RC(diff_note(&r, "note %d", i % 50)); /* duplicates are dropped */
    }
    ASSERT_EQ_U64(r.nrows, 200);
    ASSERT_EQ_U64(r.nnotes, 50);
    ASSERT(r.rows_cap >= 200 && r.notes_cap >= 50);
    for (int i = 0; i < 200; i++) {
        char k[32];
        snprintf(k, sizeof(k), "k%d", i);
        ASSERT_EQ_STR(r.rows[i].key, k);
    }
    ASSERT_EQ_STR(r.notes[49], "note 49");
    diff_bench_result_fini(&r);
}

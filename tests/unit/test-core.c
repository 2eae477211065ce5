/* test-core.c - strtab, buf, units, err, clock. */
#include "core/clock.h"
#include "test.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/sha256.h"
#include "core/strtab.h"
#include "core/units.h"

#include <errno.h>

TEST(strtab_intern_dedups)
{
    struct lat_strtab t;
    uint32_t a, b, c, e;
    ASSERT_RC(strtab_init(&t));
    ASSERT_RC(strtab_intern(&t, "kernel", 6, &a));
    ASSERT_RC(strtab_intern(&t, "cpu_op", 6, &b));
    ASSERT_RC(strtab_intern(&t, "kernel", 6, &c));
    ASSERT_RC(strtab_intern(&t, "", 0, &e));
    ASSERT_EQ_U64(a, c);
    ASSERT(a != b);
    ASSERT_EQ_U64(e, 0);
    ASSERT_EQ_STR(strtab_str(&t, a), "kernel");
    ASSERT_EQ_U64(strtab_find(&t, "cpu_op", 6), b);
    ASSERT_EQ_U64(strtab_find(&t, "nope", 4), UINT32_MAX);
    strtab_fini(&t);
}

TEST(strtab_many_strings_survive_rehash)
{
    struct lat_strtab t;
    char s[32];
    uint32_t ids[20000];
    ASSERT_RC(strtab_init(&t));
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(s, sizeof(s), "name-%d", i);
        ASSERT_RC(strtab_intern(&t, s, (size_t)n, &ids[i]));
    }
    for (int i = 0; i < 20000; i += 997) {
        int n = snprintf(s, sizeof(s), "name-%d", i);
        ASSERT_EQ_U64(strtab_find(&t, s, (size_t)n), ids[i]);
        ASSERT_EQ_STR(strtab_str(&t, ids[i]), s);
    }
    ASSERT_EQ_U64(t.count, 20001);
    strtab_fini(&t);
}

/* Interning a piece of a string the table already holds, while the pool grows (issue 32: a
 * caller passing strtab_str() back in must not read the pool after it moved). */
TEST(strtab_intern_of_its_own_string_while_growing)
{
    struct lat_strtab t;
    char s[64];
    uint32_t id, cut;
    ASSERT_RC(strtab_init(&t));
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(s, sizeof(s), "kernel_%d_suffix_to_cut", i);
        ASSERT_RC(strtab_intern(&t, s, (size_t)n, &id));
        size_t cap = t.pool_cap;
        /* "kernel_<i>": new, a prefix of a pool string */
        ASSERT_RC(strtab_intern(&t, strtab_str(&t, id), (size_t)n - 14, &cut));
        if (t.pool_cap != cap) ASSERT(cap > 0); /* the pool moved during this intern */
        ASSERT_EQ_U64(strtab_len(&t, cut), (uint64_t)n - 14);
        ASSERT(memcmp(strtab_str(&t, cut), s, (size_t)n - 14) == 0);
    }
    strtab_fini(&t);
}

TEST(buf_printf_grows)
{
    struct lat_buf b = LAT_BUF_INIT;
    for (int i = 0; i < 1000; i++)
        ASSERT_RC(buf_printf(&b, "%d,", i));
    ASSERT_EQ_U64(b.len, strlen(b.data));
    ASSERT(strncmp(b.data, "0,1,2,", 6) == 0);
    ASSERT(strstr(b.data, "999,") != NULL);
    buf_fini(&b);
    ASSERT(b.data == NULL);
}

TEST(units_duration_exact)
{
    lat_ns v;
    ASSERT_RC(units_parse_duration("0.1s", LAT_NS_PER_S, &v));
    ASSERT_EQ_I64(v, 100000000);
    ASSERT_RC(units_parse_duration("250us", LAT_NS_PER_S, &v));
    ASSERT_EQ_I64(v, 250000);
    ASSERT_RC(units_parse_duration("2", LAT_NS_PER_S, &v));
    ASSERT_EQ_I64(v, 2000000000);
    ASSERT_RC(units_parse_duration("1.5m", LAT_NS_PER_S, &v));
    ASSERT_EQ_I64(v, 90000000000LL);
    ASSERT_RC(units_parse_duration("200ms", LAT_NS_PER_S, &v));
    ASSERT_EQ_I64(v, 200000000);
    ASSERT_EQ_I64(units_parse_duration("2x", LAT_NS_PER_S, &v), LAT_E_USAGE);
    ASSERT_EQ_I64(units_parse_duration("", LAT_NS_PER_S, &v), LAT_E_USAGE);
    ASSERT_EQ_I64(units_parse_duration("-1s", LAT_NS_PER_S, &v), LAT_E_USAGE);
    ASSERT_EQ_I64(units_parse_duration("99999999999h", LAT_NS_PER_S, &v), LAT_E_OVERFLOW);
}

TEST(units_count_suffixes)
{
    uint64_t v;
    ASSERT_RC(units_parse_count("10k", &v));
    ASSERT_EQ_U64(v, 10000);
    ASSERT_RC(units_parse_count("1.5M", &v));
    ASSERT_EQ_U64(v, 1500000);
    ASSERT_RC(units_parse_count("42", &v));
    ASSERT_EQ_U64(v, 42);
    ASSERT_EQ_I64(units_parse_count("1.5", &v), LAT_E_USAGE);
    ASSERT_EQ_I64(units_parse_count("3kk", &v), LAT_E_USAGE);
}

TEST(units_format)
{
    char b[32];
    ASSERT_EQ_STR(units_format_duration(1234567, b, sizeof(b)), "1.23 ms");
    ASSERT_EQ_STR(units_format_duration(999, b, sizeof(b)), "999 ns");
    ASSERT_EQ_STR(units_format_duration(45600000000LL, b, sizeof(b)), "45.6 s");
    ASSERT_EQ_STR(units_format_bytes(1500000, b, sizeof(b)), "1.50 MB");
    ASSERT_EQ_STR(units_format_bytes(12, b, sizeof(b)), "12 B");
}

TEST(strerror_covers_both_ranges)
{
    ASSERT_EQ_STR(lat_strerror(-ENOENT), "No such file or directory");
    ASSERT_EQ_STR(lat_strerror(LAT_E_BAD_JSON), "malformed JSON");
    ASSERT_EQ_STR(lat_strerror(-123456), "unknown error");
}

/* A realtime reading taken between two monotonic ones lands between them on the monotonic
 * scale (to within the conversion's own bracket, a few us even under load). */
TEST(clock_realtime_to_mono_brackets)
{
    for (int i = 0; i < 100; i++) {
        lat_ns m1 = clock_now_ns(), rt = clock_realtime_ns(), m2 = clock_now_ns();
        lat_ns mono = clock_realtime_to_mono(rt);
        ASSERT_OP_I64(mono, >=, m1 - 200 * LAT_NS_PER_US);
        ASSERT_OP_I64(mono, <=, m2 + 200 * LAT_NS_PER_US);
    }
    /* an hour ago stays an hour ago */
    lat_ns now = clock_now_ns();
    lat_ns back = clock_realtime_to_mono(clock_realtime_ns() - 3600 * LAT_NS_PER_S);
    ASSERT_OP_I64(now - back, >=, 3600 * LAT_NS_PER_S - LAT_NS_PER_MS);
    ASSERT_OP_I64(now - back, <=, 3600 * LAT_NS_PER_S + LAT_NS_PER_MS);
}

static void hex(char *s, const uint8_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        snprintf(s + 2 * i, 3, "%02x", d[i]);
}

/* FIPS 180-4 examples, and the padding edge: 55 bytes fit one block, 56 need two */
TEST(sha256_known_digests)
{
    static const struct {
        const char *in;
        size_t reps;
        const char *want;
    } v[] = {
        {"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
        {"a", 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
        {"a", 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        struct lat_buf b = LAT_BUF_INIT;
        for (size_t r = 0; r < v[i].reps; r++)
            ASSERT_RC(buf_puts(&b, v[i].in));
        uint8_t d[LAT_SHA256_LEN];
        char s[2 * LAT_SHA256_LEN + 1];
        lat_sha256(b.data ? b.data : "", b.len, d);
        hex(s, d, sizeof(d));
        ASSERT_EQ_STR(s, v[i].want);
        buf_fini(&b);
    }
}

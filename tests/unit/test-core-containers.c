/* test-core-containers.c - core/grow.h, core/u64map.h, core/ivl.h. */
#include "test.h"

#include "core/err.h"
#include "core/grow.h"
#include "core/ivl.h"
#include "core/u64map.h"
#include "stats/rng.h"

#include <errno.h>

#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif

/* ---- grow ---------------------------------------------------------------------------- */

TEST(grow_doubles_from_min_and_keeps_contents)
{
    int *a = NULL;
    size_t n = 0, cap = 0;
    ASSERT_RC(LAT_GROW(a, cap, n, 1, 4));
    ASSERT_EQ_U64(cap, 4);
    for (int i = 0; i < 1000; i++) {
        size_t before = cap;
        ASSERT_RC(LAT_GROW(a, cap, n, 1, 4));
        /* only grows when full, and then doubles */
        ASSERT(cap == before || (n == before && cap == 2 * before));
        a[n++] = i * 7;
    }
    for (int i = 0; i < 1000; i++)
        ASSERT_EQ_I64(a[i], i * 7);
    ASSERT_EQ_U64(cap, 1024);
    /* a request of k > 1 past the doubled size takes as many doublings as needed */
    ASSERT_RC(LAT_GROW(a, cap, n, 5000, 4));
    ASSERT_EQ_U64(cap, 8192);
    ASSERT_EQ_I64(a[999], 999 * 7);
    /* enough room: no change */
    int *same = a;
    ASSERT_RC(LAT_GROW(a, cap, 0, 8192, 4));
    ASSERT(a == same && cap == 8192);
    free(a);
}

TEST(grow_overflow_is_an_error_and_leaves_the_array)
{
    uint64_t *a = NULL;
    size_t cap = 0;
    ASSERT_RC(LAT_GROW(a, cap, 0, 3, 0)); /* min 0 -> 1, doubled to 4 */
    ASSERT_EQ_U64(cap, 4);
    a[0] = 42;
    uint64_t *keep = a;
    /* n + k wraps around */
    ASSERT_EQ_I64(LAT_GROW(a, cap, SIZE_MAX - 1, 5, 16), LAT_E_OVERFLOW);
    /* n + k fits, the byte size does not */
    ASSERT_EQ_I64(LAT_GROW(a, cap, SIZE_MAX / 8, 1, 16), LAT_E_OVERFLOW);
    ASSERT_EQ_I64(LAT_GROW(a, cap, 0, SIZE_MAX / 4, 16), LAT_E_OVERFLOW);
    ASSERT(a == keep && cap == 4 && a[0] == 42);
    /* doubling that would overflow is clamped to what is needed */
    ASSERT_EQ_U64(lat_grow_cap(SIZE_MAX / 8 / 2 + 1, SIZE_MAX / 8 / 2 + 2, 8, 1),
                  SIZE_MAX / 8 / 2 + 2);
    ASSERT_EQ_U64(lat_grow_cap(0, SIZE_MAX / 8 + 1, 8, 1), 0);
    ASSERT_EQ_U64(lat_grow_cap(0, 5, 8, 16), 16);
    ASSERT_EQ_U64(lat_grow_cap(3, 5, 8, 16), 6);
#ifndef T_ASAN
    /* a size that fits but cannot be allocated: -ENOMEM, array intact (ASan aborts instead) */
    ASSERT_EQ_I64(LAT_GROW(a, cap, 0, SIZE_MAX / 16, 16), -ENOMEM);
    ASSERT(a == keep && cap == 4 && a[0] == 42);
#endif
    free(a);
}

/* ---- u64map -------------------------------------------------------------------------- */

TEST(u64map_put_get_overwrite_and_key_zero)
{
    struct lat_u64map m = {0};
    uint64_t v = 99;
    ASSERT(!lat_u64map_get(&m, 5, &v) && v == 99); /* empty, never allocated */
    ASSERT(!lat_u64map_find(&m, 0));
    ASSERT_RC(lat_u64map_put(&m, 5, 50));
    ASSERT_RC(lat_u64map_put(&m, 0, 7)); /* key 0 is a key like any other */
    ASSERT_RC(lat_u64map_put(&m, UINT64_MAX, 8));
    ASSERT_RC(lat_u64map_put(&m, 5, 51)); /* overwrite */
    ASSERT_EQ_U64(m.n, 3);
    ASSERT(lat_u64map_get(&m, 5, &v) && v == 51);
    ASSERT(lat_u64map_get(&m, 0, &v) && v == 7);
    ASSERT(lat_u64map_get(&m, UINT64_MAX, &v) && v == 8);
    ASSERT(!lat_u64map_get(&m, 6, &v));
    bool added = true;
    uint64_t *s = lat_u64map_slot(&m, 5, &added);
    ASSERT(s && !added && *s == 51);
    s = lat_u64map_slot(&m, 1234, &added);
    ASSERT(s && added && *s == 0);
    (*s) += 3;
    ASSERT(lat_u64map_get(&m, 1234, &v) && v == 3);
    /* iteration visits every key once, key 0 last */
    uint64_t k, sum_k = 0, sum_v = 0, last = 1;
    size_t cnt = 0;
    for (size_t it = 0; lat_u64map_next(&m, &it, &k, &v);) {
        sum_k += k;
        sum_v += v;
        last = k;
        cnt++;
    }
    ASSERT_EQ_U64(cnt, 4);
    ASSERT_EQ_U64(sum_k, 5 + UINT64_MAX + 1234);
    ASSERT_EQ_U64(sum_v, 51 + 7 + 8 + 3);
    ASSERT_EQ_U64(last, 0);
    lat_u64map_clear(&m);
    ASSERT(m.n == 0 && !lat_u64map_find(&m, 0) && !lat_u64map_find(&m, 5));
    size_t it = 0;
    ASSERT(!lat_u64map_next(&m, &it, NULL, NULL));
    lat_u64map_fini(&m);
    ASSERT(m.cap == 0 && m.keys == NULL);
}

TEST(u64map_collisions_probe_and_survive_growth)
{
    /* 40 keys that all hash to slot 3 of a 16-slot table: a probe chain through the table,
     * then two growths that re-spread them. */
    struct lat_u64map m;
    ASSERT_RC(lat_u64map_init(&m, 4));
    ASSERT_EQ_U64(m.cap, 16);
    uint64_t keys[40];
    size_t nk = 0;
    for (uint64_t x = 1; nk < 40; x++)
        if ((lat_u64map_hash(x) & 15) == 3) keys[nk++] = x;
    for (size_t i = 0; i < nk; i++) {
        ASSERT_RC(lat_u64map_put(&m, keys[i], i + 100));
        ASSERT((m.n + 0) * 2 <= m.cap); /* load stays <= 1/2 */
        for (size_t j = 0; j <= i; j++) {
            uint64_t v = 0;
            ASSERT(lat_u64map_get(&m, keys[j], &v));
            ASSERT_EQ_U64(v, j + 100);
        }
    }
    ASSERT_EQ_U64(m.n, 40);
    ASSERT_EQ_U64(m.cap, 128);
    /* absent keys of the same chain are not found */
    for (uint64_t x = keys[39] + 1, miss = 0; miss < 10; x++)
        if ((lat_u64map_hash(x) & 15) == 3) {
            ASSERT(!lat_u64map_find(&m, x));
            miss++;
        }
    lat_u64map_fini(&m);
}

TEST(u64map_matches_a_reference_on_random_keys)
{
    /* 20000 operations on keys from a small range (many repeats) against a plain array */
    enum { RANGE = 5000 };
    static uint64_t ref[RANGE];
    static bool has[RANGE];
    struct lat_u64map m = {0};
    uint64_t st = 12345;
    for (int i = 0; i < 20000; i++) {
        uint64_t r = rng_splitmix64(&st);
        uint64_t k = r % RANGE;
        uint64_t key = k * 0x100000001ull; /* spread over the 64 bits, 0 included */
        uint64_t *s = lat_u64map_slot(&m, key, NULL);
        ASSERT(s);
        *s += r >> 40;
        ref[k] += r >> 40;
        has[k] = true;
    }
    size_t n = 0;
    for (size_t k = 0; k < RANGE; k++) {
        uint64_t v = 0;
        ASSERT_EQ_I64(lat_u64map_get(&m, k * 0x100000001ull, &v), has[k]);
        if (has[k]) ASSERT_EQ_U64(v, ref[k]);
        n += has[k];
    }
    ASSERT_EQ_U64(m.n, n);
    size_t seen = 0;
    uint64_t key, v;
    for (size_t it = 0; lat_u64map_next(&m, &it, &key, &v);) {
        ASSERT(key % 0x100000001ull == 0 && key / 0x100000001ull < RANGE);
        ASSERT_EQ_U64(v, ref[key / 0x100000001ull]);
        seen++;
    }
    ASSERT_EQ_U64(seen, n);
    lat_u64map_fini(&m);
}

/* ---- ivl ----------------------------------------------------------------------------- */

TEST(ivl_set_union_joins_touching_and_drops_empty)
{
    struct lat_ivl_set s = {0};
    ASSERT_RC(lat_ivl_push(&s, 10, 20));
    ASSERT_RC(lat_ivl_push(&s, 0, 5));
    ASSERT_RC(lat_ivl_push(&s, 20, 25)); /* touches [10, 20) */
    ASSERT_RC(lat_ivl_push(&s, 7, 7));   /* empty: dropped */
    ASSERT_RC(lat_ivl_push(&s, 9, 3));   /* reversed: dropped */
    ASSERT_RC(lat_ivl_push(&s, 40, 50));
    ASSERT_RC(lat_ivl_push(&s, 42, 45)); /* inside */
    ASSERT_EQ_U64(s.n, 5);
    lat_ivl_merge(&s);
    ASSERT_EQ_U64(s.n, 3);
    ASSERT(s.v[0].ts == 0 && s.v[0].end == 5);
    ASSERT(s.v[1].ts == 10 && s.v[1].end == 25);
    ASSERT(s.v[2].ts == 40 && s.v[2].end == 50);
    ASSERT_EQ_I64(lat_ivl_measure(&s), 5 + 15 + 10);
    ASSERT_EQ_I64(lat_ivl_measure_in(&s, 3, 12), 2 + 2);
    ASSERT_EQ_I64(lat_ivl_measure_in(&s, 60, 70), 0);
    ASSERT_EQ_U64(lat_ivl_find(&s, 5), 1); /* [0,5) ends at 5: not after 5 */
    ASSERT_EQ_U64(lat_ivl_find(&s, 99), 3);
    /* many pushes grow the set */
    for (int i = 0; i < 1000; i++)
        ASSERT_RC(lat_ivl_push(&s, 100 + 2 * i, 101 + 2 * i));
    lat_ivl_merge(&s);
    ASSERT_EQ_U64(s.n, 1003);
    ASSERT_EQ_I64(lat_ivl_measure(&s), 30 + 1000);
    lat_ivl_reset(&s);
    ASSERT_EQ_U64(s.n, 0);
    lat_ivl_fini(&s);
}

TEST(ivl_set_intersect_subtract_gaps)
{
    struct lat_ivl_set a = {0}, b = {0}, o = {0};
    ASSERT_RC(lat_ivl_push(&a, 0, 10));
    ASSERT_RC(lat_ivl_push(&a, 20, 30));
    ASSERT_RC(lat_ivl_push(&b, 5, 22));
    ASSERT_RC(lat_ivl_push(&b, 25, 26));
    lat_ivl_merge(&a);
    lat_ivl_merge(&b);
    ASSERT_RC(lat_ivl_intersect(&a, &b, &o));
    ASSERT_EQ_U64(o.n, 3); /* [5,10) [20,22) [25,26) */
    ASSERT_EQ_I64(lat_ivl_measure(&o), 5 + 2 + 1);
    ASSERT_RC(lat_ivl_subtract(&a, &b, &o));
    ASSERT_EQ_U64(o.n, 3); /* [0,5) [22,25) [26,30) */
    ASSERT(o.v[0].ts == 0 && o.v[0].end == 5 && o.v[1].ts == 22 && o.v[1].end == 25 &&
           o.v[2].ts == 26 && o.v[2].end == 30);
    ASSERT_RC(lat_ivl_gaps_in(&a, -5, 40, &o));
    ASSERT_EQ_U64(o.n, 3); /* [-5,0) [10,20) [30,40) */
    ASSERT_EQ_I64(lat_ivl_measure(&o), 5 + 10 + 10);
    /* the same measure through the array functions */
    ASSERT_EQ_I64(lat_ivl_intersect_len(a.v, a.n, b.v, b.n), 8);
    lat_ivl_fini(&a);
    lat_ivl_fini(&b);
    lat_ivl_fini(&o);
}

TEST(ivl_hta_merge_differs_from_the_set_union_where_hta_does)
{
    /* HTA's merge keeps a lone reversed row (negative length) and groups by the running max
     * of the ends; the set union drops the reversed row. */
    struct lat_ivl v[] = {{0, 10}, {5, 8}, {10, 12}, {13, 20}, {21, 19}, {25, 30}};
    size_t n = lat_ivl_merge_hta(v, 6);
    ASSERT_EQ_U64(n, 4); /* [0,12) [13,20) [21,19) [25,30) */
    ASSERT(v[2].ts == 21 && v[2].end == 19);
    ASSERT_EQ_I64(lat_ivl_sum(v, n), 12 + 7 - 2 + 5);
    struct lat_ivl_set s = {0};
    struct lat_ivl w[] = {{0, 10}, {5, 8}, {10, 12}, {13, 20}, {21, 19}, {25, 30}};
    for (size_t i = 0; i < 6; i++)
        ASSERT_RC(lat_ivl_push(&s, w[i].ts, w[i].end));
    lat_ivl_merge(&s);
    ASSERT_EQ_U64(s.n, 3);
    ASSERT_EQ_I64(lat_ivl_measure(&s), 12 + 7 + 5);
    lat_ivl_fini(&s);
}

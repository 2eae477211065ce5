/* test-sort.c - core/sort.h: the shared comparators. */
#include "test.h"

#include "core/sort.h"

#include <math.h>

TEST(sort_shared_comparators)
{
    int64_t i[] = {3, INT64_MIN, -1, INT64_MAX, 0, 3};
    qsort(i, 6, sizeof(*i), lat_cmp_i64);
    ASSERT_EQ_I64(i[0], INT64_MIN);
    ASSERT_EQ_I64(i[1], -1);
    ASSERT_EQ_I64(i[4], 3);
    ASSERT_EQ_I64(i[5], INT64_MAX); /* no overflow of a - b */
    uint64_t u[] = {UINT64_MAX, 0, 1ULL << 63};
    qsort(u, 3, sizeof(*u), lat_cmp_u64);
    ASSERT_EQ_U64(u[0], 0);
    ASSERT_EQ_U64(u[2], UINT64_MAX);
    uint32_t w[] = {7, UINT32_MAX, 0};
    qsort(w, 3, sizeof(*w), lat_cmp_u32);
    ASSERT_EQ_U64(w[0], 0);
    ASSERT_EQ_U64(w[2], UINT32_MAX);
    double d[] = {2.5, -INFINITY, 0.0, 1e300};
    qsort(d, 4, sizeof(*d), lat_cmp_f64);
    ASSERT(d[0] == -INFINITY && d[1] == 0.0 && d[2] == 2.5 && d[3] == 1e300);
    const char *s[] = {"b", "a", "ab"};
    qsort(s, 3, sizeof(*s), lat_cmp_str);
    ASSERT_EQ_STR(s[0], "a");
    ASSERT_EQ_STR(s[1], "ab");
    ASSERT_EQ_STR(s[2], "b");
}

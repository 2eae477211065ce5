/*
 * test.h - latscope's unit-test harness.
 *
 * TEST(name) { ... } registers a test in the ELF section "lat_tests"; the runner walks the
 * section, so a test cannot be forgotten. Each test runs in its own forked process with an
 * alarm() timeout. Assertions print both values and end the test (exit status 1).
 * SKIP("reason") ends the test as skipped. Helpers: test_shared_traces() finds ../shared/traces
 * (LATSCOPE_TRACES overrides) or returns NULL, test_tmpdir() a private scratch directory.
 */
#ifndef LAT_TEST_H
#define LAT_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lat_test {
    const char *name;
    const char *file;
    void (*fn)(void);
    unsigned timeout_s; /* 0 = default (10 s, times LAT_TEST_TIMEOUT_MULT) */
};

#define LAT_TEST_SKIP_STATUS 77

#define TEST_TIMEOUT(tname, secs)                                                                  \
    static void test_fn_##tname(void);                                                             \
    static const struct lat_test test_desc_##tname                                                 \
        __attribute__((used, section("lat_tests"), aligned(8))) = {#tname, __FILE__,               \
                                                                   test_fn_##tname, (secs)};       \
    static void test_fn_##tname(void)
#define TEST(tname) TEST_TIMEOUT(tname, 0)

void test_fail_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
void test_skip(const char *reason) __attribute__((noreturn));
/* Directory of the shared trace corpus, or NULL when absent. */
const char *test_shared_traces(void);
/* Path of a file in the shared corpus; SKIPs the test when the corpus or file is absent.
 * Returns a static buffer. */
const char *test_shared_path(const char *rel);
/* A fresh private directory for this test (removed by the runner). */
const char *test_tmpdir(void);
/* Writes data to a file in test_tmpdir(); returns its path (static buffer per call: copy it). */
const char *test_write_file(const char *name, const void *data, size_t n);

#define SKIP(reason) test_skip(reason)
#define FAIL(...)    test_fail_at(__FILE__, __LINE__, __VA_ARGS__)

#define ASSERT(c)                                                                                  \
    do {                                                                                           \
        if (!(c)) FAIL("assertion failed: %s", #c);                                                \
    } while (0)
#define ASSERT_EQ_I64(a, b)                                                                        \
    do {                                                                                           \
        int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                              \
        if (a_ != b_) FAIL("%s == %s: %" PRId64 " != %" PRId64, #a, #b, a_, b_);                   \
    } while (0)
#define ASSERT_EQ_U64(a, b)                                                                        \
    do {                                                                                           \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                           \
        if (a_ != b_) FAIL("%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, a_, b_);                   \
    } while (0)
#define ASSERT_OP_I64(a, op, b)                                                                    \
    do {                                                                                           \
        int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                              \
        if (!(a_ op b_)) FAIL("%s %s %s: %" PRId64 " vs %" PRId64, #a, #op, #b, a_, b_);           \
    } while (0)
#define ASSERT_NEAR(a, b, tol)                                                                     \
    do {                                                                                           \
        double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                             \
        if (!(a_ - b_ <= t_ && b_ - a_ <= t_))                                                     \
            FAIL("%s ~= %s (tol %g): %.9g vs %.9g", #a, #b, t_, a_, b_);                           \
    } while (0)
#define ASSERT_EQ_STR(a, b)                                                                        \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                                     \
            FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");    \
    } while (0)
#define ASSERT_MEM_EQ(a, b, n)                                                                     \
    do {                                                                                           \
        if (memcmp((a), (b), (n)) != 0)                                                            \
            FAIL("%s and %s differ in their first %zu bytes", #a, #b, (size_t)(n));                \
    } while (0)
#define ASSERT_RC(expr)                                                                            \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != 0) FAIL("%s returned %d", #expr, rc_);                                          \
    } while (0)

#endif
